# Every way the wrapper can be misconfigured is a clear error with the documented status
# (2 usage/config, 4 I/O), never a hang or a silent fallback.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src build
printf '__global__ void k(void) {}\n' >src/a.cu
eval "$(shardcc env --root . --shard 2/2)" # src/a.cu is owned by shard 2 of 2
# a printing command creates no cache or journal directory; the first seat call
# makes the journal's, ccache the cache
[ ! -e .shardcc/cache ] && [ ! -e .shardcc/journal.tsv ] || fail "shardcc env created $(ls .shardcc)"
ok "shardcc env created neither the cache nor the journal"
mkdir -p "$T/first" && printf '__global__ void f(void) {}\n' >"$T/first/f.cu"
SHARDCC_JOURNAL="$T/new/dir/journal.tsv" "$CUDACXX" -c "$T/first/f.cu" -o "$T/first/f.o" ||
    fail "the first seat call with a journal in a missing directory"
[ -s "$T/new/dir/journal.tsv" ] || fail "no journal written"
ok "the first seat call creates the journal's directory"
cd build

# recursion: the real-compiler variable points back at the seat
SHARDCC_REAL_NVCC="$SHARDCC_BIN/shardcc-nvcc" expect_fail 2 "is this wrapper itself" \
    timeout 20 shardcc-nvcc -c ../src/a.cu -o a.o
# ... or at the wrapper under another name: a hard link is the same file (the loop check
# compares the files, not their names); a copy where the directory cannot hold a link
if ln "$SHARDCC_BIN/shardcc-wrap" "$PWD/nvcc" 2>/dev/null; then
    SHARDCC_REAL_NVCC="$PWD/nvcc" expect_fail 2 "is this wrapper itself" \
        timeout 20 shardcc-nvcc -c ../src/a.cu -o a.o
else
    cp "$SHARDCC_BIN/shardcc-wrap" "$PWD/nvcc"
    SHARDCC_REAL_NVCC="$PWD/nvcc" expect_fail 2 "levels deep" timeout 20 shardcc-nvcc -c ../src/a.cu -o a.o
fi
rm -f "$PWD/nvcc"
# recursion through a script that calls the seat again
printf '#!/bin/sh\nexec "%s/shardcc-nvcc" "$@"\n' "$SHARDCC_BIN" >loop-nvcc && chmod +x loop-nvcc
SHARDCC_REAL_NVCC="$PWD/loop-nvcc" expect_fail 2 "levels deep" timeout 20 shardcc-nvcc -c ../src/a.cu -o a.o
# ccache pointing at the seat
SHARDCC_CCACHE="$SHARDCC_BIN/shardcc-nvcc" expect_fail 2 "is this wrapper itself" \
    timeout 20 shardcc-nvcc -c ../src/a.cu -o a.o
# missing tools
SHARDCC_REAL_NVCC=/nonexistent/nvcc expect_fail 2 '/nonexistent/nvcc' shardcc-nvcc -c ../src/a.cu -o a.o
SHARDCC_CCACHE=/nonexistent/ccache expect_fail 2 '/nonexistent/ccache' shardcc-nvcc -c ../src/a.cu -o a.o
expect_fail 2 "ccache was not found" env -u SHARDCC_CCACHE PATH="$SHARDCC_BIN:/nonexistent" \
    "$SHARDCC_BIN/shardcc-nvcc" -c ../src/a.cu -o a.o
expect_fail 2 "SHARDCC_REAL_NVCC is not set" env -u SHARDCC_REAL_NVCC shardcc-nvcc -c ../src/a.cu -o a.o
expect_fail 2 "SHARDCC_ROOT is not set" env -u SHARDCC_ROOT shardcc-nvcc -c ../src/a.cu -o a.o
SHARDCC_ROOT=/nonexistent/root expect_fail 2 "/nonexistent/root" shardcc-nvcc -c ../src/a.cu -o a.o
# a root that is a regular file is status 2, in the seat and in the CLI (not a call run
# direct, unpartitioned, nor "cannot create" with status 4)
: >"$T/rootfile"
SHARDCC_ROOT="$T/rootfile" expect_fail 2 'is not a directory (the project root)' \
    shardcc-nvcc -c ../src/a.cu -o a.o
expect_fail 2 '--root "'"$T"'/rootfile" is not a directory' shardcc env --root "$T/rootfile"
expect_fail 2 '--root "'"$T"'/rootfile" is not a directory' \
    shardcc shard --shard 1/2 --root "$T/rootfile" --artifact "$T/art" -- true
# garbage in the nesting depth is refused (atoi would take it, and a negative one would
# stretch the loop guard)
for d in abc -3 "" 1x; do
    SHARDCC_DEPTH="$d" expect_fail 2 "SHARDCC_DEPTH=\"$d\" is not a nesting depth" \
        shardcc-nvcc -c ../src/a.cu -o a.o
done
# garbage in SHARDCC_* values
SHARDCC_SHARD=3/2 expect_fail 2 'SHARDCC_SHARD="3/2"' shardcc-nvcc -c ../src/a.cu -o a.o
SHARDCC_SHARD=$'1/2\nrm -rf /' expect_fail 2 "SHARDCC_SHARD" shardcc-nvcc -c ../src/a.cu -o a.o
SHARDCC_PHASE=sometimes expect_fail 2 'SHARDCC_PHASE="sometimes"' shardcc-nvcc -c ../src/a.cu -o a.o
# an options file that is missing or includes itself
expect_fail 2 'cannot read options file "missing.rsp"' shardcc-nvcc --options-file missing.rsp -c ../src/a.cu -o a.o
printf -- '-DX --options-file self.rsp\n' >self.rsp
expect_fail 2 "nests deeper" shardcc-nvcc --options-file self.rsp -c ../src/a.cu -o a.o
# an endless options file is not a regular file (never read); a regular one is read up to
# the 64 MiB limit, not until memory runs out
expect_fail 2 'cannot read options file "/dev/zero": not a regular file' \
    timeout 60 shardcc-nvcc --options-file /dev/zero -c ../src/a.cu -o a.o
truncate -s 65M huge.rsp
expect_fail 2 'options file "huge.rsp" is larger than 64 MiB' \
    timeout 60 shardcc-nvcc --options-file huge.rsp -c ../src/a.cu -o a.o
rm -f huge.rsp
# options files that fan out (each names the next one ten times, 16 levels: within the
# depth limit, 10^15 files) and options files whose total is too large: the total is
# capped, in the seat and in classify (uncapped, both would expand without end)
for i in $(seq 0 14); do
    : >"fan$i"
    for _ in 1 2 3 4 5 6 7 8 9 10; do echo "--options-file fan$((i + 1))" >>"fan$i"; done
done
echo "-DX" >fan15
expect_fail 2 "options files expand without end: more than 4096 read for one call" \
    timeout 60 shardcc-nvcc --options-file fan0 -c ../src/a.cu -o a.o
expect_fail 2 "options files expand without end" timeout 60 shardcc classify -- nvcc --options-file fan0 -c ../src/a.cu -o a.o
python3 -c "open('big.rsp', 'w').write(('-D' + 'A' * 60 + ' ') * 100000)"
for _ in $(seq 20); do echo "--options-file big.rsp"; done >bigs.rsp
expect_fail 2 "options files expand to more than 64 MiB of arguments for one call" \
    timeout 60 shardcc-nvcc --options-file bigs.rsp -c ../src/a.cu -o a.o
# the journal cannot be written (its directory would be under a regular file): the
# compile's success does not hide it
: >"$T/notadir"
SHARDCC_JOURNAL="$T/notadir/dir/journal.tsv" expect_fail 4 "$T/notadir/dir/journal.tsv\": Not a directory" \
    shardcc-nvcc -c ../src/a.cu -o a.o
# an unknown program name and a bare shardcc-wrap
ln -sf "$SHARDCC_BIN/shardcc-wrap" weird-name
expect_fail 2 'cannot tell the seat from the program name "weird-name"' ./weird-name -c x.cu
expect_fail 2 "usage: shardcc-wrap --seat=" shardcc-wrap -c x.cu
{ shardcc-wrap --seat=nvcc --version >/dev/null; } || fail "shardcc-wrap --seat=nvcc works"
ok "shardcc-wrap --seat=nvcc works"
# the CLI's own usage errors
expect_fail 2 'unknown command "frobnicate"' shardcc frobnicate
expect_fail 2 '--shard "0/4"' shardcc env --shard 0/4
expect_fail 2 '--format "xml"' shardcc env --format xml
expect_fail 2 'unknown option "--bogus"' shardcc classify --bogus -- nvcc -c a.cu -o a.o
# typos: the nearest command or option, and a build command without "--"
expect_fail 2 'unknown command "shrad": did you mean "shard"?' shardcc shrad
expect_fail 2 'unknown command "lnik": did you mean "link"?' shardcc help lnik
expect_fail 2 'unknown option "--shards": did you mean "--shard"?' shardcc shard --shards 1/3 --artifact out -- true
expect_fail 2 'unknown option "--expect-shard=3": did you mean "--expect-shards"?' shardcc link --expect-shard=3 -- true
expect_fail 2 'unknown option "--host-sat": did you mean "--host-seat"?' shardcc env --host-sat
expect_fail 2 'unexpected argument "sh": options come first, and the build command after "--"' \
    shardcc shard --shard 1/3 --artifact out sh -c true
grep -q "did you mean" "$T/.err" && fail "a suggestion for a word that is no option: $(cat "$T/.err")"
expect_fail 2 'unknown option "--zzzzzz" (see --help)' shardcc local --zzzzzz
expect_fail 2 'option --root needs a value' shardcc classify --root
expect_fail 2 '--real-nvcc "/nonexistent/nvcc"' shardcc env --real-nvcc /nonexistent/nvcc
# a plan without end is no regular file; a regular one is read up to its 64 MiB limit,
# not until memory runs out
SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_PLAN=/dev/zero expect_fail 2 \
    'SHARDCC_PLAN="/dev/zero": not a regular file' timeout 60 shardcc-nvcc -c ../src/a.cu -o a.o
truncate -s 65M huge.tsv
SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_PLAN="$PWD/huge.tsv" expect_fail 2 \
    "SHARDCC_PLAN=\"$PWD/huge.tsv\": File too large" timeout 60 shardcc-nvcc -c ../src/a.cu -o a.o
rm -f huge.tsv
# bad lines in a plan's seat text (shard 7 of 2, -1, no tab, no key, two tabs) are status 2
# naming the line, never a silent fall back to the hash partition
for body in 'src/a.cu\t7' 'src/a.cu\t-1' 'src/a.cu 1' '\t1' 'src/a.cu\t1\tx'; do
    printf "shardcc-plan\t2\nsrc/other.cu\t1\n$body\n" >bad-plan.tsv
    SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_PLAN="$PWD/bad-plan.tsv" expect_fail 2 \
        'line 3 is not KEY<TAB>SHARD with 1 <= SHARD <= 2' shardcc-nvcc -c ../src/a.cu -o a.o
done
# a seat text as shardcc writes it (a check of its lines on the header line) is followed
# without reading it line by line; edited afterwards, it is status 2, not a wrong owner.
# A seat text of a whole number of pages (4096 bytes: no NUL after a mapping of it) is read
# instead of mapped, and followed the same.
expect_owner() { # expect_owner PLAN OWNER WHAT: shard 1/2's call on src/a.cu records OWNER
    rm -f j.tsv
    SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_PLAN="$PWD/$1" SHARDCC_JOURNAL="$PWD/j.tsv" \
        shardcc-nvcc -c ../src/a.cu -o a.o || fail "$3 is refused"
    expect_eq "src/a.cu given to shard $2 by $3" \
        "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" {print $11, $12}' j.tsv)" "$2 src/a.cu"
}
for owner in 1 2; do # one of them is not the hash's choice
    PYTHONPATH="$SHARDCC_SRC/tests/plan" python3 -c 'from xxh64 import seat_text
import sys; sys.stdout.write(seat_text(2, {"src/0.cu": 2, "src/a.cu": int(sys.argv[1]), "src/b.cu": 1}))' "$owner" >checked.tsv
    grep -P '^shardcc-plan\t2\t[0-9a-f]{16}$' checked.tsv >/dev/null || fail "checked.tsv has no check"
    expect_owner checked.tsv "$owner" "a checked seat text"
    python3 - "$owner" >page.tsv <<'PY'
import sys
t = "shardcc-plan\t2\nsrc/a.cu\t%s\n" % sys.argv[1]
while len(t) < 4096 - 40:
    t += "src/pad/%04d.cu\t1\n" % len(t)
t += "src/z/" + "x" * (4096 - len(t) - 12) + ".cu\t1\n"
sys.stdout.write(t)
PY
    [ "$(stat -c %s page.tsv)" = 4096 ] || fail "page.tsv is $(stat -c %s page.tsv) bytes, not 4096"
    expect_owner page.tsv "$owner" "a 4096-byte seat text"
done
sed -i 's/^src\/a.cu\t2$/src\/a.cu\t1/' checked.tsv
SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_PLAN="$PWD/checked.tsv" expect_fail 2 \
    'does not match the check on its first line (edited after shardcc wrote it?' shardcc-nvcc -c ../src/a.cu -o a.o
# standard output that cannot be written (a full disk): status 4 with the reason, for every
# printing command, --help and --version included
for c in "env" "classify -- nvcc -c a.cu -o a.o" "--help" "plan --help" "--version"; do
    expect_fail 4 "cannot write to standard output: No space left on device" sh -c "shardcc $c >/dev/full"
done
summary
