# The journal under `ninja -j 64`: 300 TUs through the host seat as shard 1/2 and then 2/2.
# Every record arrives intact (one line, 15 fields), no stub is lost or half-written, the
# counts are exact, and the two shards own disjoint sets that together cover every TU.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src
N=300
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
    eval "$(shardcc env --root "$T" --shard $i/2 --journal "$T/journal-$i.tsv")"
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
            nm "$T/b$i/$out" | grep -q " T f" || bad=$((bad + 1))
        fi
    done <"$j"
    expect_eq "shard $i: outputs match their records" "$bad" "0"
    expect_eq "shard $i: no temporary files left" "$(find "$T/b$i" -name '*shardcc-tmp*' | wc -l)" "0"
done
sort_owned() { awk -F'\t' '$1 == "SCJ2" && $8 == "cache" {print $12}' "$1" | sort; }
expect_eq "owned sets are disjoint" "$(comm -12 <(sort_owned "$T/journal-1.tsv") <(sort_owned "$T/journal-2.tsv") | wc -l)" "0"
expect_eq "owned sets cover every TU" "$(sort -u <(sort_owned "$T/journal-1.tsv") <(sort_owned "$T/journal-2.tsv") | wc -l)" "$N"
summary
