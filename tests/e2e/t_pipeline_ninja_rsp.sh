# The pipeline on the bundled example with CMake + Ninja with CMAKE_NINJA_FORCE_RESPONSE_FILE=ON (nvcc reads --options-file),
# N in {1, 3}: the link job's library equals the unsharded build's, its objects are
# their owner shards' bytes, and it reports a 100 % hit rate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"
EXPECT_OPTIONS_FILE="ninja -t commands | grep -c -- '--options-file CMakeFiles/kern.dir/src/.*\\.rsp'"
pipeline -G Ninja -DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON -- 1 3
summary
