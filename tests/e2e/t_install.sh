# `cmake --install build --prefix P` installs the CLI, the wrapper and the seat names, and
# the installed CLI points the seats at the installed wrapper.
. "$(dirname "$0")/lib.sh"
cmake --install "$SHARDCC_BIN" --prefix "$T/p" >/dev/null
for f in shardcc shardcc-wrap shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc; do
    [ -x "$T/p/bin/$f" ] || fail "$T/p/bin/$f is not installed"
done
ok "installed: shardcc shardcc-wrap shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc"
expect_eq "seat name resolves to the wrapper" "$(readlink -f "$T/p/bin/shardcc-nvcc")" "$(readlink -f "$T/p/bin/shardcc-wrap")"
mkdir "$T/proj"
cd "$T/proj"
PATH="$T/p/bin:$PATH" eval "$("$T/p/bin/shardcc" env --shard 1/3 --host-seat)"
expect_eq "PYTORCH_NVCC" "$PYTORCH_NVCC" "$(readlink -f "$T/p/bin")/shardcc-nvcc-torch"
expect_eq "CUDACXX" "$CUDACXX" "$(readlink -f "$T/p/bin")/shardcc-nvcc"
expect_eq "CXX with --host-seat" "$CXX" "$(readlink -f "$T/p/bin")/shardcc-c++"
expect_eq "SHARDCC_SHARD" "$SHARDCC_SHARD" "1/3"
expect_eq "SHARDCC_PHASE" "$SHARDCC_PHASE" "shard"
case "$CCACHE_COMPILERCHECK" in string:shardcc1-????????????????????????????????) ok "fingerprint $CCACHE_COMPILERCHECK" ;; *) fail "CCACHE_COMPILERCHECK=$CCACHE_COMPILERCHECK" ;; esac
expect_eq "the link phase unsets the shard" "$("$T/p/bin/shardcc" env | grep -c '^unset SHARDCC_SHARD$')" "1"
json=$("$T/p/bin/shardcc" env --format json --shard 2/2)
expect_eq "json: the same fingerprint" "$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["CCACHE_COMPILERCHECK"])')" "$CCACHE_COMPILERCHECK"
{ "$T/p/bin/shardcc" --help | grep -q "classify"; } || fail "shardcc --help lists the commands"
ok "shardcc --help lists the commands"
{ "$T/p/bin/shardcc-wrap" --help | grep -q "^usage: shardcc-wrap"; } || fail "shardcc-wrap --help"
ok "shardcc-wrap --help"
expect_fail 2 "usage: shardcc-wrap" "$T/p/bin/shardcc-wrap" --seat=fortran -c a.f
expect_eq "the installed seat's version is the CLI's" "$("$T/p/bin/shardcc-wrap" --version | awk '{print $2}')" \
    "$("$T/p/bin/shardcc" --version | awk '{print $2}')"
for c in env classify shard merge link local compare; do
    { "$T/p/bin/shardcc" $c --help | grep -q "^usage: shardcc $c"; } || fail "shardcc $c --help"
    ok "shardcc $c --help"
done
summary
