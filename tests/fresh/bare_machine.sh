#!/usr/bin/env bash
# fresh.bare_machine: the README's set-up on a machine that has only Debian 12 and the CUDA
# toolkit. A minimal Debian 12 root is made from Debian's repositories (debootstrap
# --variant=minbase, cached as a tarball between runs on one machine), the toolkit of this
# machine is mounted into it read-only at /usr/local/cuda, a copy of the source tree is put
# at /src, and there, as root, in the README's order:
#   1. scripts/demo.sh                       (installs what it needs, builds, the main job)
#   2. the "Using it" build and install line (cmake ... && cmake --build ... && install)
#   3. scripts/test.sh -L unit               (installs the test build's tools, runs the unit
#                                             tests: finding none is a failure)
# Each step's time is printed. A set-up step missing from scripts/install-deps.sh fails here.
#   SHARDCC_FRESH_CACHE  where the root's tarball is kept (default ~/.cache/shardcc)
#   SHARDCC_FRESH_DROP   a Debian package to leave out of install-deps.sh's lists (to see
#                        the test fail, as it must)
set -euo pipefail
SRC=${SHARDCC_SRC:?SHARDCC_SRC must name the source tree}
[ "$(id -u)" = 0 ] || { echo "fresh.bare_machine: needs root (chroot, mounts)" >&2; exit 1; }
CUDA=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
[ -x "$CUDA/bin/nvcc" ] || { echo "fresh.bare_machine: no CUDA toolkit at $CUDA" >&2; exit 1; }
command -v debootstrap >/dev/null || {
    echo "fresh.bare_machine: debootstrap not found (scripts/install-deps.sh installs it)" >&2
    exit 1
}
CACHE=${SHARDCC_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shardcc}
TARBALL=$CACHE/debian12-minbase.tar
MIRROR=http://deb.debian.org/debian

W=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-fresh.XXXXXX")
R=$W/root
MOUNTS=()
cleanup() {
    local rc=$?
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
    # nothing may stay mounted under W before it is removed
    if ! grep -q " $W/" /proc/self/mounts; then rm -rf "$W"; else echo "left mounted: $W" >&2; fi
    exit $rc
}
trap cleanup EXIT
step() { # step NAME: a line with the time since the last step
    local now
    now=$(date +%s)
    [ -z "${STEP_T:-}" ] || echo "fresh.bare_machine: $STEP_NAME took $((now - STEP_T)) s"
    STEP_T=$now STEP_NAME=$1
    [ "$1" = end ] || echo "fresh.bare_machine: == $1"
}

step "the Debian 12 root"
mkdir -p "$CACHE" "$R"
if [ ! -s "$TARBALL" ]; then
    debootstrap --variant=minbase bookworm "$W/boot" "$MIRROR" >"$W/debootstrap.log" 2>&1 ||
        { tail -20 "$W/debootstrap.log" >&2; exit 1; }
    tar -C "$W/boot" -cf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL"
    rm -rf "$W/boot"
fi
tar -C "$R" -xf "$TARBALL"
# the machine's network set-up, not packages: name resolution, the Debian sources (the
# updates and security suites too, as a Debian install has), pip's CA bundle setting
cp /etc/resolv.conf "$R/etc/resolv.conf"
rm -f "$R/etc/apt/sources.list"
cat >"$R/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
[ ! -f /etc/apt/apt.conf.d/99artifact-registry ] ||
    cp /etc/apt/apt.conf.d/99artifact-registry "$R/etc/apt/apt.conf.d/"
# pip's CA bundle: where this machine names one, a copy at a path that no package of the
# root rewrites (ca-certificates, which python3-pip brings, rebuilds the system bundle)
if [ -f /etc/pip.conf ]; then
    sed 's|^cert *=.*|cert = /etc/shardcc-fresh-ca.crt|' /etc/pip.conf >"$R/etc/pip.conf"
    cert=$(sed -n 's/^cert *= *//p' /etc/pip.conf | head -1)
    [ -z "$cert" ] || cp "$cert" "$R/etc/shardcc-fresh-ca.crt"
fi
mnt() { # mnt SRC DEST [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    MOUNTS+=("$2")
    [ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
}
mnt /proc "$R/proc"
mnt /dev "$R/dev"
[ ! -d /dev/pts ] || mnt /dev/pts "$R/dev/pts"
mnt /sys "$R/sys"
mnt "$CUDA" "$R/usr/local/cuda" ro
# A toolkit folder may hold scripts that exec another one's tools (CI's /usr/local/cuda/bin/nvcc
# is `exec /usr/local/cuda-13.0/bin/nvcc "$@"`): every folder those scripts name, and every
# /usr/local/cuda-*, is mounted at its own path too.
toolkits() {
    local f t
    for f in "$CUDA"/bin/*; do
        [ -f "$f" ] && [ "$(head -c2 "$f")" = "#!" ] || continue
        for t in $(sed -n 's|^[[:space:]]*exec[[:space:]]\{1,\}\(/[^[:space:]]*\).*|\1|p' "$f"); do
            dirname "$(dirname "$(readlink -f "$t")")"
        done
    done
    for t in /usr/local/cuda-*; do [ ! -d "$t" ] || readlink -f "$t"; done
}
while read -r tk; do
    [ -d "$tk" ] && [ "$tk" != "$CUDA" ] && [ ! -e "$R$tk" ] || continue
    mnt "$tk" "$R$tk" ro
    echo "fresh.bare_machine: $tk mounted too (the toolkit's scripts name it)"
done < <(toolkits | sort -u)
# the source tree as a clean clone has it: tracked files and untracked ones not ignored
mkdir -p "$R/src"
(cd "$SRC" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -C "$R/src" -xf -
if [ -n "${SHARDCC_FRESH_DROP:-}" ]; then
    sed -i -E "s/(^|[ (])${SHARDCC_FRESH_DROP}( |\)|$)/\1\2/" "$R/src/scripts/install-deps.sh"
    ! grep -qE "(^|[ (])${SHARDCC_FRESH_DROP}( |\)|$)" "$R/src/scripts/install-deps.sh" ||
        { echo "fresh.bare_machine: $SHARDCC_FRESH_DROP is still in scripts/install-deps.sh" >&2; exit 1; }
    echo "fresh.bare_machine: $SHARDCC_FRESH_DROP left out of scripts/install-deps.sh"
fi
[ -z "$(chroot "$R" sh -c 'command -v cmake gcc ccache python3' || true)" ] ||
    { echo "fresh.bare_machine: the root is not bare" >&2; exit 1; }

in_root() { # the README's commands, as root in the root, with a login's plain environment
    chroot "$R" env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        TMPDIR=/tmp SHARDCC_SANITIZE=0 bash -c "cd /src && $1"
}
step "scripts/demo.sh"
in_root 'scripts/demo.sh' >"$W/demo.log" 2>&1 || { tail -40 "$W/demo.log" >&2; exit 1; }
grep -E "^(predicted CI makespan|the same as the unsharded|same: )" "$W/demo.log" || true
step "the README's build and install line"
in_root 'cmake -S . -B build -G Ninja && cmake --build build && cmake --install build --prefix /opt/shardcc && /opt/shardcc/bin/shardcc --version' \
    >"$W/build.log" 2>&1 || { tail -40 "$W/build.log" >&2; exit 1; }
tail -1 "$W/build.log"
step "scripts/test.sh -L unit"
in_root 'scripts/test.sh -L unit' >"$W/unit.log" 2>&1 || { tail -60 "$W/unit.log" >&2; exit 1; }
grep -E "tests passed|tests failed|Total Test time" "$W/unit.log"
n=$(sed -n 's/.* tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$W/unit.log")
[ "${n:-0}" -gt 10 ] || { echo "fresh.bare_machine: test.sh -L unit ran ${n:-no} tests" >&2; exit 1; }
step end
echo "fresh.bare_machine: the README's set-up works on a bare Debian 12 root"
