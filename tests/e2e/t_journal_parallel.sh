# The journal under `ninja -j 64`: 500 TUs through the host seat as shard 1/2 and then 2/2.
# Every record arrives intact (one line, 15 fields), no stub is lost or half-written, the
# counts are exact, and the two shards own disjoint sets that together cover every TU.
# Then 500 CUDA TUs through the nvcc seat as `shardcc shard` 1/50 under `ninja -j 64`: a
# sample of about 10 real nvcc compiles among 490 stubs, and the shard's own counts (its
# summary line, its manifest) are the journal's.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src
N=500
for i in $(seq 1 $N); do
    printf 'int f%d(int x) { return x * %d; }\n' "$i" "$i" >src/t$i.c
done
write_ninja() { # write_ninja DIR
    local k
    mkdir -p "$1"
    {
        printf 'cc = %s\n' "$SHARDCC_BIN/shardcc-cc"
        printf 'rule cc\n  command = $cc -MD -MF $out.d -O1 -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n'
        for k in $(seq 1 $N); do printf 'build t%d.o: cc %s/src/t%d.c\n' "$k" "$T" "$k"; done
    } >"$1/build.ninja"
}
for i in 1 2; do
    eval "$(shardcc env --root "$T" --shard $i/2 --host-seat --journal "$T/journal-$i.tsv")"
    write_ninja "$T/b$i"
    ninja -C "$T/b$i" -j 64 >/dev/null
    j="$T/journal-$i.tsv"
    owned=$(journal_count "$j" tu cache 0)
    stubbed=$(journal_count "$j" tu stub 0)
    # one record per call, and one argument line after each owned TU's record
    expect_eq "shard $i: lines" "$(wc -l <"$j")" "$((N + owned))"
    expect_eq "shard $i: well-formed records" \
        "$(awk -F'\t' '$1 == "SCJ2" && NF == 15 && $5 == "shard" && $6 == "'$i'/2"' "$j" | wc -l)" "$N"
    expect_eq "shard $i: argument lines, each after its own record" \
        "$(awk -F'\t' '$1 == "SCJ2" {k = $12; c = ($8 == "cache")} $1 == "SCA1" && c && $2 == k {n++; c = 0} END {print n + 0}' "$j")" "$owned"
    expect_eq "shard $i: owned + stubbed" "$((owned + stubbed))" "$N"
    [ "$owned" -gt 0 ] && [ "$stubbed" -gt 0 ] || fail "shard $i: owned $owned, stubbed $stubbed"
    # every stubbed output is a stub object, every owned one a real object with its symbol
    bad=0
    while IFS=$'\t' read -r magic _ _ _ _ _ kind action _ _ _ key out _ _; do
        [ "$magic" = SCJ2 ] || continue
        if [ "$action" = stub ]; then
            [ "$(head -c 4 "$T/b$i/$out" | od -An -c | tr -d ' ')" = '177ELF' ] || bad=$((bad + 1))
            [ "$(stat -c %s "$T/b$i/$out")" = 456 ] || bad=$((bad + 1))
        else
            nm "$T/b$i/$out" | grep " T f" >/dev/null || bad=$((bad + 1))
        fi
    done <"$j"
    expect_eq "shard $i: outputs match their records" "$bad" "0"
    expect_eq "shard $i: no temporary files left" "$(find "$T/b$i" -name '*shardcc-tmp*' | wc -l)" "0"
done

# --- 500 CUDA TUs, shard 1/50: real nvcc for the owned sample, stubs for the rest ---
mkdir -p "$T/cu/src"
for k in $(seq 1 $N); do
    printf '__global__ void k%d(int *p) { p[threadIdx.x] += %d; }\n' "$k" "$k" >"$T/cu/src/k$k.cu"
done
{
    printf 'rule nvcc\n  command = $${CUDACXX} -MD -MF $out.d -arch=sm_90 -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n'
    for k in $(seq 1 $N); do printf 'build k%d.o: nvcc %s/cu/src/k%d.cu\n' "$k" "$T" "$k"; done
} >"$T/cu/build.ninja.in"
cd "$T/cu"
cat >build.sh <<'SH'
#!/bin/sh
set -e
rm -rf b && mkdir b && cp build.ninja.in b/build.ninja
exec ninja -C b -j 64
SH
chmod +x build.sh
shardcc shard --shard 1/50 --cell j64 --artifact "$T/cu.tar.zst" -- ./build.sh >/dev/null 2>"$T/cu.err" ||
    fail "the nvcc shard: $(tail -5 "$T/cu.err")"
j=.shardcc/shard-1-of-50/journal.tsv
owned=$(journal_count "$j" tu cache 0)
stubbed=$(journal_count "$j" tu stub 0)
expect_eq "nvcc: well-formed records" "$(awk -F'\t' '$1 == "SCJ2" && NF == 15 && $4 == "nvcc" && $6 == "1/50"' "$j" | wc -l)" "$N"
expect_eq "nvcc: owned + stubbed" "$((owned + stubbed))" "$N"
[ "$owned" -ge 3 ] && [ "$owned" -le 25 ] || fail "nvcc: owned $owned of $N with 50 shards"
grep -q "shard 1/50: $owned TUs owned (.*), $stubbed stubbed" "$T/cu.err" || fail "nvcc: summary: $(tail -1 "$T/cu.err")"
ok "nvcc: the shard's summary counts $owned owned, $stubbed stubbed"
tar -xOf "$T/cu.tar.zst" manifest.json >"$T/cu-manifest.json"
expect_eq "nvcc: the manifest's TUs (owned/stubbed)" "$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
d = [t["decision"] for t in m["tus"]]
print(d.count("owned"), d.count("stubbed"))' "$T/cu-manifest.json")" "$owned $stubbed"
bad=0
while IFS=$'\t' read -r magic _ _ _ _ _ kind action _ _ _ key out _ _; do
    [ "$magic" = SCJ2 ] || continue
    if [ "$action" = stub ]; then
        [ "$(stat -c %s "b/$out")" = 456 ] || bad=$((bad + 1))
    else
        readelf -S "b/$out" | grep "\.nv_fatbin" >/dev/null || bad=$((bad + 1))
    fi
done <"$j"
expect_eq "nvcc: outputs match their records (stubs, objects with a fatbin)" "$bad" "0"
cd "$T"

sort_owned() { awk -F'\t' '$1 == "SCJ2" && $8 == "cache" {print $12}' "$1" | sort; }
expect_eq "owned sets are disjoint" "$(comm -12 <(sort_owned "$T/journal-1.tsv") <(sort_owned "$T/journal-2.tsv") | wc -l)" "0"
expect_eq "owned sets cover every TU" "$(sort -u <(sort_owned "$T/journal-1.tsv") <(sort_owned "$T/journal-2.tsv") | wc -l)" "$N"
summary
