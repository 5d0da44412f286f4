#!/usr/bin/env bash
# The action's CUDA step: puts the cell's toolkit in place before shardcc resolves nvcc.
# The cell's release (the cuda input, else SHARDCC_CELL_CUDA; X.Y or X.Y.Z) is looked for
# at /usr/local/cuda-X.Y (a runner image or container that has it); else, with
# install-cuda: true, it is installed from NVIDIA's own package repository (apt on Ubuntu
# and Debian runners, dnf/yum on RHEL-family containers such as manylinux), the packages
# of cuda-packages with the -X-Y suffix. Then CUDA_HOME, CUDA_PATH, CUDACXX and PATH name
# it for the later steps (GITHUB_ENV, GITHUB_PATH). Without a cell release: nothing.
# Windows runners: the toolkit an earlier step installed (CUDA_PATH_VX_Y, else CUDA_PATH)
# is checked and named; install-cuda: true is an error there.
set -euo pipefail
want=${SHARDCC_IN_CUDA:-${SHARDCC_CELL_CUDA:-}}
[ -n "$want" ] || { echo "shardcc: no cell CUDA release (cuda input, SHARDCC_CELL_CUDA): nothing to install"; exit 0; }
case "$want" in
[0-9]*.[0-9]* | [0-9]*.[0-9]*.[0-9]*) ;;
*)
    echo "::error title=shardcc cuda::the cell's CUDA is a release X.Y or X.Y.Z, not \"${want//[^0-9A-Za-z._-]/?}\""
    exit 2
    ;;
esac
case "$want" in *[!0-9.]*)
    echo "::error title=shardcc cuda::the cell's CUDA is a release X.Y or X.Y.Z, not \"${want//[^0-9A-Za-z._-]/?}\""
    exit 2
    ;;
esac
xy=$(echo "$want" | cut -d. -f1-2)
case "$(uname -s)" in
MINGW* | MSYS* | CYGWIN*)
    # Windows (Git for Windows' bash): NVIDIA's installer sets CUDA_PATH_VX_Y (and CUDA_PATH,
    # the last one installed); nothing is installed here
    if [ "${SHARDCC_IN_INSTALL_CUDA:-false}" = true ]; then
        echo "::error title=shardcc cuda::install-cuda is not supported on Windows runners: install CUDA $want in an earlier step (NVIDIA's network installer, e.g. -s nvcc_$xy cudart_$xy), then run this action"
        exit 2
    fi
    var=CUDA_PATH_V${xy/./_}
    home=${!var:-${CUDA_PATH:-}}
    [ -n "$home" ] || {
        echo "::error title=shardcc cuda::neither $var nor CUDA_PATH is set: install CUDA $want in an earlier step"
        exit 2
    }
    home=$(cygpath -m "$home")
    [ -x "$home/bin/nvcc.exe" ] || {
        echo "::error title=shardcc cuda::$home/bin/nvcc.exe does not exist ($var, CUDA_PATH): install CUDA $want in an earlier step"
        exit 2
    }
    have=$("$home/bin/nvcc.exe" --version | tr -d '\r' | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
    case "$have" in
    "$want" | "$want".*) ;;
    *)
        echo "::error title=shardcc cuda::$home/bin/nvcc.exe is CUDA ${have:-unknown}, not the cell's $want"
        exit 2
        ;;
    esac
    {
        echo "CUDA_HOME=$home"
        echo "CUDA_PATH=$home"
        echo "CUDACXX=$home/bin/nvcc.exe"
    } >>"${GITHUB_ENV:-/dev/null}"
    echo "$home/bin" >>"${GITHUB_PATH:-/dev/null}"
    echo "shardcc: CUDA $have at $home"
    exit 0
    ;;
esac
home=/usr/local/cuda-$xy
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
if [ ! -x "$home/bin/nvcc" ]; then
    if [ "${SHARDCC_IN_INSTALL_CUDA:-false}" != true ]; then
        echo "::error title=shardcc cuda::CUDA $want is not installed at $home and install-cuda is false: install the cell's toolkit in an earlier step or a container, or set install-cuda: true"
        exit 2
    fi
    suffix=${xy/./-}
    pkgs=()
    for p in ${SHARDCC_IN_CUDA_PACKAGES:-cuda-nvcc cuda-cudart-dev cuda-libraries-dev}; do pkgs+=("$p-$suffix"); done
    arch=$(uname -m)
    echo "::group::shardcc: CUDA $xy from NVIDIA's repository (${pkgs[*]})"
    if command -v apt-get >/dev/null; then
        # shellcheck source=/dev/null
        . /etc/os-release
        distro="${ID}${VERSION_ID//./}"
        repo_arch=$([ "$arch" = aarch64 ] && echo sbsa || echo x86_64)
        url="https://developer.download.nvidia.com/compute/cuda/repos/$distro/$repo_arch/cuda-keyring_1.1-1_all.deb"
        tmp=$(mktemp -d)
        curl -fsSL -o "$tmp/keyring.deb" "$url"
        $sudo dpkg -i "$tmp/keyring.deb" >/dev/null
        $sudo apt-get update -q >/dev/null
        $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null
    elif command -v dnf >/dev/null || command -v yum >/dev/null; then
        pm=$(command -v dnf || command -v yum)
        # shellcheck source=/dev/null
        . /etc/os-release
        rhel="rhel${VERSION_ID%%.*}"
        repo_arch=$([ "$arch" = aarch64 ] && echo sbsa || echo x86_64)
        $sudo "$pm" config-manager --add-repo \
            "https://developer.download.nvidia.com/compute/cuda/repos/$rhel/$repo_arch/cuda-$rhel.repo" >/dev/null
        $sudo "$pm" install -y -q "${pkgs[@]}" >/dev/null
    else
        echo "::error title=shardcc cuda::neither apt-get nor dnf/yum found: install CUDA $want in the image"
        exit 2
    fi
    echo "::endgroup::"
fi
have=$("$home/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
case "$have" in
"$want" | "$want".*) ;;
*)
    echo "::error title=shardcc cuda::$home/bin/nvcc is CUDA ${have:-unknown}, not the cell's $want"
    exit 2
    ;;
esac
{
    echo "CUDA_HOME=$home"
    echo "CUDA_PATH=$home"
    echo "CUDACXX=$home/bin/nvcc"
} >>"${GITHUB_ENV:-/dev/null}"
echo "$home/bin" >>"${GITHUB_PATH:-/dev/null}"
echo "shardcc: CUDA $have at $home"
