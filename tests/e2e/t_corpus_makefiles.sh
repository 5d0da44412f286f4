# The CMake corpus fixture with Unix Makefiles, N=2 (see corpus_cmake.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/corpus_cmake.sh"
corpus "Unix Makefiles" "${SHARDCC_CORPUS_SHARDS:-2}"
summary
