# pypi.sh: real CUDA extensions from PyPI, as their authors publish them (sdists, no
# patches), through shards and the link job with shardcc's default options (sourced after
# lib.sh and torchlane.sh by t_pypi_*.sh and the corpus suite).
#   pypi_fetch NAME VERSION SHA256   the sdist, unpacked as $T/proj (its checksum checked)
#   pypi_pipeline NAME N TUS         baseline, N shards, the link job, compare the wheels
#                                    (TUS: CUDA and C++ TUs, the default host seats shard both)
# The sdist is fetched by pip (no build: --no-deps --no-binary :all:); a network failure
# fails the suite, it is never skipped.

pypi_fetch() {
    local name=$1 version=$2 sum=$3
    python3 -c 'import torch' 2>/dev/null || fail "torch is not installed (scripts/install-deps.sh installs it)"
    mkdir -p "$T/sdist"
    python3 -m pip download -q --no-deps --no-binary :all: --no-build-isolation \
        -d "$T/sdist" "$name==$version" >"$T/fetch.log" 2>&1 ||
        fail "pip download $name==$version: $(tail -5 "$T/fetch.log")"
    local f
    f=$(find "$T/sdist" -maxdepth 1 -name "*.tar.gz" | head -1)
    [ -n "$f" ] || fail "pip download $name==$version left no sdist"
    expect_eq "$(basename "$f"): sha256" "$(sha256sum "$f" | cut -d' ' -f1)" "$sum"
    rm -rf "$T/proj" "$T/unpack" && mkdir "$T/unpack"
    tar -xzf "$f" -C "$T/unpack"
    mv "$T/unpack"/* "$T/proj"
    cd "$T/proj"
    # the sdist's own egg-info would be rewritten by each build: start every build without it
    WHEEL='rm -rf build dist *.egg-info && python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist'
}

# A machine without ninja: torch's BuildExtension asks `ninja --version` and, when that
# fails, uses its setuptools backend (compiles one by one through the compiler seats).
pypi_hide_ninja() {
    mkdir -p "$T/no-ninja"
    printf '#!/bin/sh\necho "ninja: not installed on this machine" >&2\nexit 127\n' >"$T/no-ninja/ninja"
    chmod +x "$T/no-ninja/ninja"
    export PATH="$T/no-ninja:$PATH"
    ! ninja --version >/dev/null 2>&1 || fail "ninja is still found"
}

pypi_pipeline() { # pypi_pipeline NAME N TUS [ENV=VALUE...] (the environment of every build)
    local name=$1 n=$2 tus=$3
    shift 3
    rm -rf ../plain.whl
    torch_baseline "$@"
    torch_pipeline "$name" "$n" "$tus" "" "$@"
}
