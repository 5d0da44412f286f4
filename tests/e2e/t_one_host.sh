# Several jobs of one project on one host (self-hosted runners, or shards side by side in
# mount namespaces of their own: each at the same path, sharing /tmp). The seat's
# temporaries belong to the job (ROOT/.shardcc/tmp): with the shared TMPDIR read-only in
# each job's namespace, two jobs compile the same TU at once (nothing of theirs, no lock,
# in the shared directory, where one would wait on the other's), each object the bytes of
# a compile alone.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null || { echo "needs root and unshare (mount namespaces)"; exit 77; }
for j in a b; do cp -r "$SHARDCC_SRC/tests/corpus/cuda13-lib" "$T/$j"; done
mkdir -p "$T/at"
# one seat compile of the heavy TU at $T/at, in a mount namespace where $T/at is copy $1
# and TMPDIR, the directory the jobs share, is read-only: nothing of a job's may be
# written there
mkdir -p "$T/shared"
compile() {
    unshare -m sh -c '
        mount --bind "$1" "$2" && mount --bind "$3" "$3" && mount -o remount,bind,ro "$3" &&
        export TMPDIR="$3" && cd "$2" && eval "$(shardcc env --plain)" &&
        "$CUDACXX" -Isrc --generate-code=arch=compute_80,code=sm_80 --generate-code=arch=compute_86,code=sm_86 \
            --generate-code=arch=compute_90,code=sm_90 -c src/heavy.cu -o heavy.o' sh "$T/$1" "$T/at" "$T/shared"
}
t0=$(date +%s.%N)
compile a 2>"$T/alone.err" || fail "a compile alone: $(cat "$T/alone.err")"
alone=$(echo "$(date +%s.%N) - $t0" | bc)
cp "$T/a/heavy.o" "$T/alone.o"
rm -f "$T/a/heavy.o"
t0=$(date +%s.%N)
compile a 2>"$T/a.err" & pa=$!
compile b 2>"$T/b.err" & pb=$!
wait $pa || fail "job a: $(cat "$T/a.err")"
wait $pb || fail "job b: $(cat "$T/b.err")"
both=$(echo "$(date +%s.%N) - $t0" | bc)
ls "$T/a/.shardcc/tmp" "$T/b/.shardcc/tmp" >/dev/null 2>&1 || fail "no temporary directory of the job's own"
cat "$T/a.err" "$T/b.err" | grep -q "waiting" && fail "a job waited: $(cat "$T/a.err" "$T/b.err")"
cmp -s "$T/a/heavy.o" "$T/alone.o" && cmp -s "$T/b/heavy.o" "$T/alone.o" ||
    fail "the objects of two jobs at once differ from a compile alone"
ok "two jobs at one path at once, the shared TMPDIR read-only: the same bytes as alone, no lock shared"
# for the record (timings on a shared machine are not asserted)
echo "# two jobs at once: $both s; one alone: $alone s"
summary
