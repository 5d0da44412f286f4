# Regular files only where a file is expected: a FIFO (which blocks its reader
# until a writer comes) and a device (/dev/zero, which never ends) are refused by every
# reader, at once, with the documented status and "not a regular file" — artifacts,
# journals, plans, cost tables, summaries, YAML, options files, compared files. Every
# command runs under a timeout: a reader that blocks fails the test with status 124.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src pkgs/kern
printf '__global__ void k(float *x) { x[0] = 1; }\n' >src/a.cu
printf '#!/bin/sh\nset -e\n"$CUDACXX" -c src/a.cu -o a.o\n' >build.sh
chmod +x build.sh
shardcc shard --shard 1/1 --artifact art/ -- ./build.sh 2>/dev/null || fail "the shard that makes a real artifact"
art=$(ls art/*.tar.zst)
mkfifo fifo fifo.tar.zst pkgs/kern/package.yml
ln -s /dev/zero zero.tar.zst
ln -s /dev/zero zero
why="not a regular file (a FIFO, a device or a socket)"
t() { expect_fail "$1" "$2" timeout 20 "${@:3}"; }

# artifacts
t 4 "$why" shardcc merge --cache m1 fifo.tar.zst
t 4 "$why" shardcc merge --cache m2 zero.tar.zst
t 4 "$why" shardcc report --artifacts fifo.tar.zst
t 4 "$why" shardcc plan -n 2 zero.tar.zst
t 4 "$why" shardcc link --artifacts "$art" zero.tar.zst --expect-shards 1 -- ./build.sh
# journals and cost tables (shardcc plan reads both; explain a journal)
t 4 "$why" shardcc plan -n 2 fifo
t 4 "$why" shardcc plan -n 2 zero
t 4 "$why" shardcc explain --artifacts "$art" --journal fifo
# plans
t 4 "$why" shardcc shard --shard 1/2 --plan fifo --artifact art2/ -- ./build.sh
t 4 "$why" shardcc env --shard 1/2 --plan zero
t 2 "$why" shardcc local -n 2 --no-baseline --plan fifo -- ./build.sh
eval "$(shardcc env --shard 1/2)"
SHARDCC_PLAN="$T/fifo" t 2 "$why" "$CUDACXX" -c src/a.cu -o b.o
SHARDCC_PLAN=/dev/zero t 2 "$why" "$CUDACXX" -c src/a.cu -o b.o
# options files, in the seat and in classify
t 2 "$why" "$CUDACXX" --options-file fifo -c src/a.cu -o b.o
t 2 "$why" "$CUDACXX" --options-file /dev/zero -c src/a.cu -o b.o
t 2 "$why" shardcc classify -- nvcc --options-file fifo -c src/a.cu -o b.o
eval "$(shardcc env)" # the link phase again, for the commands below
# summaries and the report's plan
t 4 "$why" shardcc report --artifacts "$art" --summary fifo
t 4 "$why" shardcc report --artifacts "$art" --summary zero
t 4 "$why" shardcc report --artifacts "$art" --plan fifo
# YAML: a cells file and a package file
printf 'platforms:\n  - {name: linux, arch: x86_64}\n' >cells.yml
t 4 "$why" shardcc matrix --packages pkgs --cells cells.yml
rm pkgs/kern/package.yml
printf 'sharding: 2\n' >pkgs/kern/package.yml
t 4 "$why" shardcc matrix --packages pkgs --cells fifo
t 4 "$why" shardcc matrix --packages pkgs --cells zero
# compared files
t 4 "$why" shardcc compare fifo a.o
t 4 "$why" shardcc compare a.o zero
echo "$CHECKS checks passed"
