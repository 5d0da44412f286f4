# The CMake corpus fixture with Ninja, N=3: shards with default options, the generator's
# remedy, placeholders failing the tests that run them, a shard's tree refused by the link
# job, the link job's 100 % hits and outputs the same as the unsharded build's, and a
# build with its own ccache launcher (see corpus_cmake.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/corpus_cmake.sh"
corpus Ninja "${SHARDCC_CORPUS_SHARDS:-3}" stale launcher
summary
