# Fault catalogue, the file systems: a cache, an artifact, a merge target and a stub target
# on a full file system and on a read-only one. Each case expects the documented exit
# status, a message naming the path and the system's reason, and nothing half-written.
# The file systems are small tmpfs mounts in a user and mount namespace of the test's own
# (unshare -Urm); where the kernel does not allow that, the test reports itself skipped
# (status 77), never passed.
if [ -z "${SHARDCC_IN_NS:-}" ]; then
    if ! unshare -Urm true 2>/dev/null; then
        echo "SKIP: unshare -Urm is not allowed here: no namespace to mount a small file system in"
        exit 77
    fi
    SHARDCC_IN_NS=1 exec unshare -Urm bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
# the mounts go before lib.sh's clean-up removes the directory (its status kept)
lib_trap=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
trap 'rc0=$?; umount "$T/full" "$T/ro" 2>/dev/null; (exit $rc0); '"$lib_trap" EXIT
cd "$T"
mkdir -p src art full ro
for i in 1 2 3 4; do printf 'int f%d(void) { return %d; }\n' "$i" "$i" >src/t$i.c; done
cat >build.sh <<'SH'
#!/bin/sh
set -e
rm -rf b && mkdir b
for i in 1 2 3 4; do $CC -O1 -c src/t$i.c -o b/t$i.o; done
SH
chmod +x build.sh
for i in 1 2; do
    shardcc shard --host-seat --shard $i/2 --artifact art/ -- ./build.sh 2>"$T/s.err" || fail "$(cat "$T/s.err")"
done
ok "two good artifacts"

mount -t tmpfs -o size=256k tmpfs full || fail "cannot mount a tmpfs in the namespace"
mount -t tmpfs -o size=256k tmpfs ro
mkdir ro/cache && mount -o remount,ro ro
dd if=/dev/zero of=full/fill bs=4k 2>/dev/null || true # until the file system is full
expect_eq "the small file system is full" "$(df --output=avail -k full | tail -1 | tr -d ' ')" 0
empty() { # empty WHAT DIR [KEEP]: DIR holds nothing but KEEP
    local left
    left=$(find "$2" -mindepth 1 -maxdepth 1 ! -name "${3:-/}" | head -3)
    [ -z "$left" ] || fail "$1: left behind: $left"
    ok "$1: nothing half-written in $2"
}

# the shard's cache on a full disk: ccache stores nothing; the shard guard says so and why
expect_fail 3 "the file system holding it has 0 bytes free" \
    shardcc shard --host-seat --shard 1/1 --cache full/cache --artifact "$T/x.tar.zst" -- ./build.sh
[ ! -e x.tar.zst ] || fail "an artifact was written from an empty cache"
ok "cache on a full disk: no artifact"
rm -rf full/cache

# the artifact on a full disk: status 4, the system's reason, no temporary file left
expect_fail 4 "No space left on device" \
    shardcc shard --host-seat --shard 1/2 --artifact full/a.tar.zst -- ./build.sh
empty "artifact on a full disk" full fill

# a merge into a full disk: status 4, the entry it could not write, no staging left
expect_fail 4 "No space left on device" shardcc merge --cache full/lc art
empty "merge into a full disk" full fill
# the link job stops at the same point, before its build
rm -rf b
expect_fail 4 "No space left on device" \
    shardcc link --host-seat --cache full/lc --artifacts art --expect-shards 2 -- ./build.sh
[ ! -e b ] || fail "the link job built after a failed merge"
empty "link job into a full disk" full fill

# read-only: the shard's cache, a merge target, a stub target
expect_fail 4 "Read-only file system" \
    shardcc shard --host-seat --shard 1/2 --cache ro/cache/c --artifact art/ro.tar.zst -- ./build.sh
[ ! -e art/ro.tar.zst ] || fail "an artifact from a read-only cache"
expect_fail 4 "Read-only file system" shardcc merge --cache ro/lc art
eval "$(shardcc env --root "$T" --shard 1/4 --host-seat --journal "$T/j.tsv")"
stubbed=
for i in 1 2 3 4; do
    case "$(shardcc classify --root "$T" --shard 1/4 -- cc -c src/t$i.c -o t.o)" in
    *'"action":"stub"'*) stubbed=src/t$i.c && break ;;
    esac
done
[ -n "$stubbed" ] || fail "no TU is stubbed by shard 1/4"
expect_fail 4 "cannot write stub object \"ro/cache/x.o\": Read-only file system" \
    shardcc-cc -c "$stubbed" -o ro/cache/x.o
expect_fail 4 "cannot write stub object \"full/x.o\"" shardcc-cc -c "$stubbed" -o full/x.o
empty "stub on a full disk" full fill
summary
