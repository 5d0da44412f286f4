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
{ "$T/p/bin/shardcc" --help | grep "classify" >/dev/null; } || fail "shardcc --help lists the commands"
ok "shardcc --help lists the commands"
{ "$T/p/bin/shardcc-wrap" --help | grep "^usage: shardcc-wrap" >/dev/null; } || fail "shardcc-wrap --help"
ok "shardcc-wrap --help"
expect_fail 2 "usage: shardcc-wrap" "$T/p/bin/shardcc-wrap" --seat=fortran -c a.f
expect_eq "the installed seat's version is the CLI's" "$("$T/p/bin/shardcc-wrap" --version | awk '{print $2}')" \
    "$("$T/p/bin/shardcc" --version | awk '{print $2}')"
for c in env classify shard merge link local compare; do
    { "$T/p/bin/shardcc" $c --help | grep "^usage: shardcc $c" >/dev/null; } || fail "shardcc $c --help"
    ok "shardcc $c --help"
done
# man pages, generated from docs/*.md, installed and rendering without a groff warning
for page in man1/shardcc.1 man1/shardcc-shard.1 man1/shardcc-link.1 man1/shardcc-env.1 man1/shardcc-wrap.1 \
    man5/shardcc-journal.5 man5/shardcc-artifact.5; do
    f="$T/p/share/man/$page"
    [ -s "$f" ] || fail "$f is not installed"
    warn=$(groff -K utf8 -man -t -Tutf8 -ww -Wbreak -z "$f" 2>&1)
    [ -z "$warn" ] || fail "$page: $warn"
done
n=$(find "$T/p/share/man" -type f | wc -l)
[ "$n" -ge 15 ] || fail "only $n man pages installed"
ok "$n man pages installed, rendering without warnings"
groff -K utf8 -man -t -Tutf8 "$T/p/share/man/man1/shardcc-shard.1" 2>/dev/null | grep -- '--cuda X.Y' >/dev/null ||
    fail "shardcc-shard(1) lacks the synopsis' --cuda"
ok "shardcc-shard(1) carries the doc's synopsis"
expect_eq "shardcc help shard is shardcc shard --help" "$("$T/p/bin/shardcc" help shard | md5sum)" \
    "$("$T/p/bin/shardcc" shard --help | md5sum)"

# bash completion from the commands' --help
bc="$T/p/share/bash-completion/completions/shardcc"
[ -s "$bc" ] || fail "$bc is not installed"
complete_bash() { (
    # shellcheck source=/dev/null
    . "$bc"
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    _shardcc
    printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' '
); }
expect_eq "bash: shardcc sh<TAB>" "$(complete_bash shardcc sh)" "shard "
expect_eq "bash: shardcc shard --cu<TAB>" "$(complete_bash shardcc shard --cu)" "--cuda --cuda-home-seat "
expect_eq "bash: shardcc env --format <TAB>" "$(complete_bash shardcc env --format '')" "cmd json powershell sh "
expect_eq "bash: shardcc report --format <TAB>" "$(complete_bash shardcc report --format '')" "markdown text "
expect_eq "bash: shardcc help lo<TAB>" "$(complete_bash shardcc help lo)" "local "
expect_eq "bash: after --, a command" "$(complete_bash shardcc link -- cmak | tr ' ' '\n' | grep -c '^cmake$')" 1
# every option each command's --help names completes (the long ones, and the short ones
# of the option list: plan -o)
for cmd in $("$T/p/bin/shardcc" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
    have=" $(complete_bash shardcc "$cmd" -) "
    for o in $("$T/p/bin/shardcc" "$cmd" --help | grep -oE -- '--(\[no-\])?[a-z][a-z0-9-]*|^ +-[a-zA-Z] ' |
        sed -E 's/^ +//; s/ $//; s/^--\[no-\](.*)/--\1 --no-\1/' | tr ' ' '\n' | sort -u); do
        case $o in --help | --version | -h) continue ;; esac
        case $have in *" $o "*) ;; *) fail "bash: shardcc $cmd -<TAB> lacks $o" ;; esac
    done
done
ok "bash: every option of every command's --help completes"
expect_eq "bash: shardcc plan -o<TAB>" "$(complete_bash shardcc plan -o)" "-o "
# zsh completion, typed into an interactive zsh
zc="$T/p/share/zsh/site-functions/_shardcc"
[ -s "$zc" ] || fail "$zc is not installed"
zsh -n "$zc" || fail "$zc: zsh finds a syntax error"
screen=$(timeout 30 zsh -f "$SHARDCC_SRC/tests/e2e/completion/zsh_complete.zsh" "$(dirname "$zc")" "shardcc sha" "$T/zc1" | tr -d '\r')
case "$screen" in *"shardcc shard "*) ok "zsh: shardcc sha<TAB> -> shardcc shard" ;; *) fail "zsh: shardcc sha<TAB>: $screen" ;; esac
screen=$(timeout 30 zsh -f "$SHARDCC_SRC/tests/e2e/completion/zsh_complete.zsh" "$(dirname "$zc")" "shardcc env --for" "$T/zc2" | tr -d '\r')
case "$screen" in *"shardcc env --format "*) ok "zsh: shardcc env --for<TAB> -> --format" ;; *) fail "zsh: shardcc env --for<TAB>: $screen" ;; esac
summary
