# zsh_complete.zsh DIR LINE DUMP: types LINE and a TAB into an interactive zsh whose fpath
# starts with DIR (the generated _shardcc; DUMP is compinit's dump file) and prints what
# the terminal shows after the TAB, terminal escapes and backspaces removed.
setopt extendedglob
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d $3; PS1='REA''DY%% '"
zpty -r z junk '*READY%*' # the prompt after compinit (the echoed command spells it apart)
sleep 0.5
while zpty -r -t z junk; do :; done
zpty -w -n z $2$'\t'
out= quiet=0
for i in {1..100}; do # up to 10 s; done after 1 s without new output
    if zpty -r -t z more; then out+=$more quiet=0; else (( quiet++ )); fi
    (( quiet >= 10 && ${#out} )) && break
    sleep 0.1
done
out=${out//$'\e'\[[0-9;?]#[a-zA-Z]/}
print -r -- ${out//?$'\b'/}
zpty -d z
