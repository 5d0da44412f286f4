# The cell's CUDA is part of the cell: shard, link, local and env refuse (status 2,
# one annotated line under GitHub Actions) a toolkit whose nvcc reports another release than
# the cell's --cuda / SHARDCC_CELL_CUDA, before anything is built. A build command that puts
# another toolkit on PATH itself comes too late (the seat has resolved nvcc): that case is
# refused too, never built by the wrong toolkit with every guard green. Also: annotations
# carry a title and escaped text, and every exit-2 path has one.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src
printf '__global__ void k(void) {}\n' >src/a.cu
printf 'cmake_minimum_required(VERSION 3.24)\nproject(p CUDA)\nadd_library(p STATIC src/a.cu)\n' >CMakeLists.txt
build='rm -rf build && cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null'
have=$(nvcc --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
release=${have%.*}
[ -n "$have" ] || fail "nvcc --version names no release"
other=12.8
[ "$release" != 12.8 ] || other=12.6

# the cell's version in every form the check takes, against this toolkit
shardcc env --cuda "$release" >/dev/null && ok "env --cuda $release: this toolkit"
shardcc env --cuda "$have" >/dev/null && ok "env --cuda $have: this toolkit, patch level too"
SHARDCC_CELL_CUDA="$release" shardcc env >/dev/null && ok "SHARDCC_CELL_CUDA=$release: this toolkit"
SHARDCC_CELL_CUDA= shardcc env >/dev/null && ok "an empty SHARDCC_CELL_CUDA (a cell without a cuda axis) checks nothing"
expect_fail 2 "is CUDA $have" shardcc env --cuda "$other"
expect_fail 2 "is CUDA $have" shardcc env --cuda "$release.999"
expect_fail 2 'is a release X.Y or X.Y.Z' shardcc env --cuda 13
expect_fail 2 'is a release X.Y or X.Y.Z' shardcc env --cuda cu128
expect_fail 2 'is a release X.Y or X.Y.Z' env SHARDCC_CELL_CUDA=12.x shardcc env

# the case this guards against: the cell is $other, the build command switches PATH itself
switch="export PATH=/opt/cuda-$other/bin:\$PATH CUDA_HOME=/opt/cuda-$other; $build"
SHARDCC_CELL_CUDA=$other expect_fail 2 "the cell's CUDA is $other (SHARDCC_CELL_CUDA)" \
    shardcc shard --shard 1/2 --artifact art/ -- sh -c "$switch"
[ ! -d build ] && [ ! -d art ] && ok "refused before the build ran: no build tree, no artifact"
expect_fail 2 "the cell's CUDA is $other (--cuda)" \
    shardcc link --artifacts art --expect-shards 2 --cuda "$other" -- sh -c "$build"
expect_fail 2 "the cell's CUDA is $other (--cuda)" \
    shardcc local -n 2 --no-baseline --cuda "$other" -- sh -c "$build"
[ ! -d build ] && ok "local: refused before any build"
# --cuda wins over the variable
SHARDCC_CELL_CUDA=$other shardcc env --cuda "$release" >/dev/null &&
    ok "--cuda $release wins over SHARDCC_CELL_CUDA=$other"

# the cell's own toolkit: the pipeline runs and links
mkdir -p art
for i in 1 2; do
    SHARDCC_CELL_CUDA=$release shardcc shard --shard $i/2 --artifact art/ -- sh -c "$build" >/dev/null 2>"$T/shard.err" ||
        fail "shard $i/2 with the cell's own CUDA: $(cat "$T/shard.err")"
done
SHARDCC_CELL_CUDA=$release shardcc link --artifacts art --expect-shards 2 -- sh -c "$build" >/dev/null 2>"$T/link.err" ||
    fail "link with the cell's own CUDA: $(cat "$T/link.err")"
grep -q 'hit rate 100.0% (1/1 TUs)' "$T/link.err" || fail "link: $(cat "$T/link.err")"
ok "the cell's own CUDA ($release): 2 shards and the link job, hit rate 100.0% (1/1 TUs)"

# an honest report: the summary is this cell's and this run's (the link above ran with no
# run id; runs are told apart by SHARDCC_RUN_ID, GitHub's GITHUB_RUN_ID-GITHUB_RUN_ATTEMPT)
shardcc report --artifacts art >"$T/rep.out" 2>&1
grep -q 'every guard passed' "$T/rep.out" || fail "report after a green link: $(cat "$T/rep.out")"
ok "report after the green link job: every guard passed"
SHARDCC_RUN_ID=run-7 SHARDCC_CELL_CUDA=$release shardcc link --artifacts art --expect-shards 2 -- sh -c "$build" >/dev/null 2>&1 ||
    fail "link of run 7"
SHARDCC_RUN_ID=run-8 shardcc report --artifacts art >"$T/rep.out" 2>&1
grep -q "an earlier run's link summary (cell default, run run-7" "$T/rep.out" &&
    grep -q 'the link job has not finished' "$T/rep.out" && ! grep -q 'every guard passed' "$T/rep.out" ||
    fail "report of run 8 over run 7's summary: $(cat "$T/rep.out")"
ok "report in another run ignores run 7's summary: the link job has not finished"
rc=0
SHARDCC_RUN_ID=run-8 shardcc link --artifacts art --expect-shards 2 -- sh -c 'exit 5' >/dev/null 2>&1 || rc=$?
expect_eq "a link job whose build fails" "$rc" 1
SHARDCC_RUN_ID=run-8 shardcc report --artifacts art >"$T/rep.out" 2>&1
grep -q 'the link job has not finished (no summary)' "$T/rep.out" && ! grep -q 'every guard passed' "$T/rep.out" ||
    fail "report after a failed link build: $(cat "$T/rep.out")"
ok "report after a failed link build: no summary (the earlier one was removed), not 'every guard passed'"

# annotations: one ::error with a title, its text escaped (a value with %, CR, LF and a
# workflow command in it stays on one line and starts nothing)
export GITHUB_ACTIONS=true
rc=0
shardcc env --cuda $'1%2\r\n::error::forged' >/dev/null 2>"$T/gh.err" || rc=$?
expect_eq "exit status of a bad --cuda under GitHub Actions" "$rc" 2
expect_eq "annotation lines" "$(wc -l <"$T/gh.err")" 1
grep -qxF '::error title=shardcc env::shardcc env: --cuda "1%252\x0d\x0a::error::forged": the cell'"'"'s CUDA is a release X.Y or X.Y.Z (13.0, 12.8.1)' "$T/gh.err" ||
    fail "the annotation: $(cat "$T/gh.err")"
ok "the annotation has a title and escaped text: $(cat "$T/gh.err")"
for args in "shard --shard 9/4 --artifact a/ -- true" "link --expect-shards 2 -- true" \
    "env --shard x" "shard --bogus" "merge --cache" "plan" "report --summary" "compare a"; do
    rc=0
    # shellcheck disable=SC2086 # the words are the command's arguments
    shardcc $args >/dev/null 2>"$T/gh.err" || rc=$?
    [ "$rc" = 2 ] || fail "shardcc $args: exit $rc, expected 2: $(cat "$T/gh.err")"
    n=$(grep -c '^::error title=shardcc [a-z]*::' "$T/gh.err" || true)
    [ "$n" = 1 ] || fail "shardcc $args: $n ::error lines: $(cat "$T/gh.err")"
    ok "shardcc $args: exit 2 with one annotation: $(grep '^::error' "$T/gh.err")"
done
unset GITHUB_ACTIONS
shardcc shard --bogus 2>"$T/plain.err" || true
if grep -q '::' "$T/plain.err"; then fail "an annotation outside GitHub Actions: $(cat "$T/plain.err")"; fi
ok "no annotation outside GitHub Actions"
echo "$CHECKS checks passed"
