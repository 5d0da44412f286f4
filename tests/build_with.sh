# Builds the whole project (tests included) with another C compiler, -Wall -Wextra -Werror.
# usage: build_with.sh COMPILER SOURCE_DIR
set -euo pipefail
B=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-build.XXXXXX")
trap 'rm -rf "$B"' EXIT
CC="$1" cmake -S "$2" -B "$B" -G Ninja >/dev/null
cmake --build "$B"
"$B/shardcc" --version
