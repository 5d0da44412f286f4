# The pipeline on the bundled example with CMake + Ninja,
# N in {1, 2, 3, 4, 7}: the link job's library equals the unsharded build's, its objects are
# their owner shards' bytes, and it reports a 100 % hit rate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pipeline.sh"
pipeline -G Ninja -- 1 2 3 4 7
summary
