# shardcc refuses a ccache older than the one it is tested with (SHARDCC_CCACHE_MIN, 4.7.5):
# manylinux images offer EPEL's ccache 3.7. The message names both versions and the file.
# The stand-ins only answer --version: nothing is compiled through them.
. "$(dirname "$0")/lib.sh"
cd "$T"
old() { # old NAME VERSION-LINE
    printf '#!/bin/sh\necho "%s"\n' "$2" >"$T/$1"
    chmod +x "$T/$1"
}
old ccache37 "ccache version 3.7.12"
expect_fail 2 "ccache 3.7.12 (\"$T/ccache37\") is older than 4.7.5, the oldest ccache shardcc is tested with" \
    shardcc env --ccache "$T/ccache37"
old ccache474 "ccache version 4.7.4"
expect_fail 2 "ccache 4.7.4 (\"$T/ccache474\") is older than 4.7.5" shardcc env --ccache "$T/ccache474"
old garbled "not a version"
expect_fail 2 "(its --version could not be read)" shardcc env --ccache "$T/garbled"
mkdir art
expect_fail 2 "is older than 4.7.5" shardcc shard --shard 1/2 --ccache "$T/ccache37" --artifact art -- true
old ccache410 "ccache version 4.10.2"
shardcc env --ccache "$T/ccache410" >/dev/null 2>"$T/new.err" || fail "ccache 4.10.2 refused: $(cat "$T/new.err")"
ok "ccache 4.10.2 is accepted (4.10 > 4.7 as versions, not as text)"
shardcc env >/dev/null 2>"$T/sys.err" || fail "the machine's ccache refused: $(cat "$T/sys.err")"
ok "the machine's ccache ($(ccache --version | head -1)) is accepted"
summary
