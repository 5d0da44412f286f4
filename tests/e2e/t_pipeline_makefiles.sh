# The pipeline on the bundled example with CMake + Unix Makefiles (--options-file includes_CUDA.rsp),
# N in {1, 3}: the link job's library equals the unsharded build's, its objects are
# their owner shards' bytes, and it reports a 100 % hit rate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"
EXPECT_OPTIONS_FILE="grep -c -- '--options-file' CMakeFiles/kern.dir/flags.make"
pipeline -G Unix\ Makefiles -- 1 3
summary
