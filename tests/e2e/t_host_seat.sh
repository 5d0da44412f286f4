# The host seats' modes (docs/shardcc-env.md, --host-seat). By default (SHARDCC_HOST_SEAT=torch) CXX and CC
# are seats that shard only the TUs of torch extensions (-DTORCH_EXTENSION_NAME=, in either
# spelling) and run every other call as the real compiler, unjournaled, even under a ccache
# launcher of the build's; --host-seat shards every host TU; --no-host-seat leaves CXX/CC
# alone, and so does the default for a CXX that is a command line. Real gcc, real ccache.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src build
printf 'int ext_op(int x) { return 2 * x; }\n' >src/op.cpp
printf 'int tool_main(void) { return 7; }\n' >src/tool.cpp
printf 'int c_part(void) { return 3; }\n' >src/part.c

# which shard of 2 owns a key: the one whose journal says cache
owner_of() { # owner_of KEY -> 1 or 2
    local i
    for i in 1 2; do
        awk -F'\t' -v k="$1" '$1 == "SCJ2" && $7 == "tu" && $8 == "cache" && $12 == k {f=1} END {exit !f}' \
            "$T/j$i.tsv" && { echo "$i"; return; }
    done
    echo none
}
has_symbol() { nm "$1" 2>/dev/null | grep -w "$2" >/dev/null; }

# --- shardcc env: what each mode sets
(
    unset CXX CC
    eval "$(shardcc env --root . --shard 1/2)"
    expect_eq "default: CXX is the c++ seat" "$(basename "$CXX")" "shardcc-c++"
    expect_eq "default: CC is the cc seat" "$(basename "$CC")" "shardcc-cc"
    expect_eq "default: SHARDCC_HOST_SEAT" "$SHARDCC_HOST_SEAT" "torch"
    eval "$(shardcc env --root . --shard 1/2 --host-seat)"
    expect_eq "--host-seat: SHARDCC_HOST_SEAT" "$SHARDCC_HOST_SEAT" "all"
)
(
    export CXX=g++ CC=gcc
    eval "$(shardcc env --root . --shard 1/2 --no-host-seat)"
    expect_eq "--no-host-seat: CXX left alone" "$CXX" "g++"
    expect_eq "--no-host-seat: CC left alone" "$CC" "gcc"
    expect_eq "--no-host-seat: SHARDCC_HOST_SEAT unset" "${SHARDCC_HOST_SEAT-unset}" "unset"
)
(
    export CXX="ccache g++" CC=gcc
    eval "$(shardcc env --root . --shard 1/2)"
    expect_eq "default, CXX a command line: CXX left alone" "$CXX" "ccache g++"
    expect_eq "default, CXX a command line: CC (one program) is the seat" "$(basename "$CC")" "shardcc-cc"
    eval "$(CXX="ccache g++" shardcc env --root . --shard 1/2 --real-cxx g++)"
    expect_eq "--real-cxx: CXX is the seat anyway" "$(basename "$CXX")" "shardcc-c++"
)

# --- the seats, shard by shard: both spellings of the define are torch TUs, the rest are
# the real compiler's in every shard (real objects, no journal record)
for i in 1 2; do
    (
        unset CXX CC
        eval "$(shardcc env --root . --shard $i/2 --journal "$T/j$i.tsv")"
        cd build
        "$CXX" -O2 -fPIC -DTORCH_EXTENSION_NAME=ext -c ../src/op.cpp -o op$i.o
        "$CXX" -O2 -fPIC -D TORCH_EXTENSION_NAME=ext -c ../src/tool.cpp -o tool$i.o
        "$CC" -O2 -fPIC -DTORCH_EXTENSION_NAMES=1 -c ../src/part.c -o part$i.o
        "$CXX" -O2 -c ../src/tool.cpp -o plain$i.o
        "$CXX" -shared part$i.o plain$i.o -o libplain$i.so
    ) || fail "shard $i/2: a host-seat call failed"
done
expect_eq "torch TUs journaled over both shards" \
    "$(cat "$T/j1.tsv" "$T/j2.tsv" | awk -F'\t' '$1 == "SCJ2" && $7 == "tu"' | wc -l)" "4"
# the calls outside a torch extension: their TUs journaled as host TUs the real compiler
# compiled (kind host, action direct: counted apart, never stubbed or cached), the link not
expect_eq "host TUs outside a torch extension journaled as kind host, action direct" \
    "$(cat "$T/j1.tsv" "$T/j2.tsv" | awk -F'\t' '$1 == "SCJ2" && $7 == "host" && $8 == "direct"' | grep -c -e 'part\.c' -e 'plain[12]\.o' || true)" "4"
expect_eq "no other record of the host seats for a call outside a torch extension" \
    "$(cat "$T/j1.tsv" "$T/j2.tsv" | awk -F'\t' '$1 == "SCJ2" && $4 != "ld" && $7 != "host"' | grep -c -e 'part\.c' -e 'plain[12]\.o' -e 'libplain' || true)" "0"
o=$(owner_of src/op.cpp)
[ "$o" != none ] || fail "-DTORCH_EXTENSION_NAME=ext: no shard owned src/op.cpp"
s=$((3 - o))
has_symbol build/op$o.o _Z6ext_opi || fail "the owner's object lacks ext_op"
! has_symbol build/op$s.o _Z6ext_opi || fail "the other shard's object is not a stub"
ok "-DTORCH_EXTENSION_NAME=ext: owned by shard $o, a stub in shard $s"
o=$(owner_of src/tool.cpp)
[ "$o" != none ] || fail "-D TORCH_EXTENSION_NAME=ext (two arguments): not a torch TU"
ok "-D TORCH_EXTENSION_NAME=ext (two arguments): owned by shard $o"
for i in 1 2; do
    has_symbol build/part$i.o c_part && has_symbol build/plain$i.o _Z9tool_mainv &&
        has_symbol build/libplain$i.so c_part || fail "shard $i/2: a passed-through call did not compile for real"
done
ok "-DTORCH_EXTENSION_NAMES=1, a plain TU and a link: the real compiler's, in both shards"

# --- shardcc classify honours SHARDCC_HOST_SEAT as the seats do
cd build
expect_eq "classify, SHARDCC_HOST_SEAT=torch: a plain TU" \
    "$(SHARDCC_HOST_SEAT=torch shardcc classify --root .. --shard 1/2 -- c++ -c ../src/tool.cpp -o t.o | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["kind"], o["action"], o["owner"])')" "tu direct None"
expect_eq "classify, SHARDCC_HOST_SEAT=torch: a torch TU" \
    "$(SHARDCC_HOST_SEAT=torch shardcc classify --root .. --shard 1/2 -- c++ -DTORCH_EXTENSION_NAME=e -c ../src/tool.cpp -o t.o | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["kind"], o["action"] in ("cache", "stub"))')" "tu True"
expect_eq "classify, SHARDCC_HOST_SEAT=all: a plain TU" \
    "$(SHARDCC_HOST_SEAT=all shardcc classify --root .. --shard 1/2 -- c++ -c ../src/tool.cpp -o t.o | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["action"] in ("cache", "stub"))')" "True"
SHARDCC_HOST_SEAT=x expect_fail 2 'SHARDCC_HOST_SEAT="x" is not one of torch, all' shardcc classify -- c++ -c ../src/tool.cpp -o t.o
cd ..

# --- the link job: torch TUs are cached, the rest run directly
(
    unset CXX CC
    eval "$(shardcc env --root . --journal "$T/jl.tsv")"
    cd build
    "$CXX" -O2 -fPIC -DTORCH_EXTENSION_NAME=ext -c ../src/op.cpp -o opl.o
    "$CXX" -O2 -c ../src/tool.cpp -o plainl.o
) || fail "link job: a host-seat call failed"
expect_eq "link job: one TU record, the torch TU" "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu"' "$T/jl.tsv" | wc -l)" "1"
expect_eq "link job: the other TU a host TU compiled directly" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "host" && $8 == "direct"' "$T/jl.tsv" | wc -l)" "1"
has_symbol build/opl.o _Z6ext_opi || fail "link job: the torch TU's object is a stub"
ok "link job: the torch TU is compiled"

# --- a ccache launcher of the build's own (a stand-in named ccache, the seat's parent, as
# ccache is when it runs the compiler for preprocessing): a call outside a torch extension
# passes through it; a torch TU under it is refused, as any seated TU is
mkdir -p "$T/launcher" && cp /bin/sh "$T/launcher/ccache"
(
    unset CXX CC
    eval "$(shardcc env --root . --shard 1/2 --journal "$T/jc.tsv")"
    cd build
    "$T/launcher/ccache" -c '"$CXX" -O2 -c ../src/tool.cpp -o launched.o; exit $?' ||
        fail "a plain TU under a ccache launcher failed"
    has_symbol launched.o _Z9tool_mainv || fail "a plain TU under a ccache launcher is not the real object"
    ok "a plain TU under a ccache launcher: the real compiler's object"
    expect_fail 2 "a compiler launcher of its own" \
        "$T/launcher/ccache" -c '"$CXX" -O2 -DTORCH_EXTENSION_NAME=ext -c ../src/op.cpp -o launched-op.o; exit $?'
)

# --- --host-seat: every host TU is sharded; a bad SHARDCC_HOST_SEAT is status 2
(
    unset CXX CC
    eval "$(shardcc env --root . --shard 1/2 --host-seat --journal "$T/ja.tsv")"
    cd build
    "$CC" -O2 -c ../src/part.c -o all-part.o
    expect_eq "--host-seat: a plain C TU is a TU of the journal" "$(journal_count "$T/ja.tsv" tu "$(awk -F'\t' '$1 == "SCJ2" {print $8}' "$T/ja.tsv")")" "1"
    SHARDCC_HOST_SEAT=some expect_fail 2 'SHARDCC_HOST_SEAT="some" is not one of torch, all' "$CXX" -c ../src/tool.cpp -o x.o
)

summary
