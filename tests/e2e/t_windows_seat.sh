# The Windows seat under Wine (docs/windows.md): shardcc-wrap.exe cross-built with
# Debian's mingw-w64 through the project's own CMake (cmake/mingw-w64-x86_64.cmake) and run
# by Debian's Wine.
# - --version answers, with the Windows C library;
# - a TU another shard owns (cl.exe as the real compiler: a cl dialect by name) is stubbed:
#   the object is the COFF stub, byte for byte the Linux seat's for the same call of
#   clang-cl, and the journal records it (the record the Linux CLI reads);
# - an informational call runs the real compiler through CreateProcess: every argument
#   arrives as given (blanks, quotes, trailing backslashes, UTF-8), and its exit status is
#   the seat's;
# - a command line over CreateProcess's 32,767 characters goes out as a response file that
#   splits back into the same arguments;
# - a missing SHARDCC_REAL_CC is exit 2 with the variable named;
# - the Windows classify table (tests/classify/cases_windows.txt: torch's, setuptools' and
#   CMake's command lines on Windows, each citing the line that writes it) passes through
#   the seat's own classify mode (shardcc-wrap.exe --classify): Windows paths, drive
#   letters, case, backslashes, cl's options, UTF-16 response files.
. "$(dirname "$0")/lib.sh"
for t in x86_64-w64-mingw32-gcc wine cmake ninja; do
    command -v "$t" >/dev/null || fail "$t is missing (Debian: mingw-w64 wine wine64; scripts/install-deps.sh)"
done
export WINEPREFIX="$T/wine" WINEDEBUG=-all
cd "$T"
cmake -S "$SHARDCC_SRC" -B bw -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$SHARDCC_SRC/cmake/mingw-w64-x86_64.cmake" >cfg.out 2>&1 ||
    fail "configure the Windows seat: $(tail cfg.out)"
cmake --build bw >build.out 2>&1 || fail "build the Windows seat: $(tail build.out)"
ok "the seat cross-builds with mingw-w64 (-Wall -Wextra -Werror): $(ls bw/*.exe | wc -l) programs"
x86_64-w64-mingw32-gcc -O2 -Wall -Wextra -Werror -static "$SHARDCC_SRC/tests/tools/win_args.c" \
    -o win_args.exe -lshell32 || fail "build win_args.exe"

wineboot -i >/dev/null 2>&1 || true # the prefix, made once (it says so on stderr)
wine bw/shardcc-wrap.exe --version </dev/null >ver.out 2>ver.err || fail "--version under Wine: $(cat ver.out ver.err)"
grep -q "^shardcc-wrap .* (libc: msvcrt)" ver.out || fail "--version: $(cat ver.out ver.err)"
ok "under Wine: $(tr -d '\r' <ver.out)"

mkdir -p proj/src proj/obj
cd proj
printf 'int fa(int x) { return x + 1; }\n' >src/a.c
cp ../win_args.exe cl.exe
owner=$(shardcc classify --root . --shard 1/2 -- cl.exe /nologo /c src/a.c /Foobj/a.obj |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
other=$((3 - owner))
seat_env() { # the variables shardcc env sets for a shard, as the Windows seat reads them
    env SHARDCC_ROOT="$PWD" SHARDCC_PHASE=shard SHARDCC_SHARD="$other/2" SHARDCC_REAL_CC="$PWD/cl.exe" \
        SHARDCC_JOURNAL="$T/journal.tsv" SHARDCC_CCACHE=/nonexistent "$@"
}
seat_env wine ../bw/shardcc-cc.exe /nologo /c src/a.c /Foobj/a.obj </dev/null >stub.out 2>&1 ||
    fail "the stub call under Wine: $(cat stub.out)"
CLANG_CL=$(command -v clang-cl || command -v clang-cl-14 || echo clang-cl-14)
mkdir -p lin
env SHARDCC_ROOT="$PWD" SHARDCC_PHASE=shard SHARDCC_SHARD="$other/2" SHARDCC_REAL_CC="$CLANG_CL" \
    SHARDCC_JOURNAL="$T/journal-linux.tsv" SHARDCC_CCACHE=/nonexistent \
    shardcc-cc /nologo /c src/a.c /Folin/a.obj >lin.out 2>&1 || fail "the Linux seat's stub: $(cat lin.out)"
cmp obj/a.obj lin/a.obj || fail "the Windows seat's stub differs from the Linux seat's"
ok "shard $other/2 under Wine stubs src/a.c: the COFF stub, the Linux seat's bytes ($(stat -c %s obj/a.obj) bytes)"
rec=$(awk -F'\t' '$1 == "SCJ2" {print $7 "/" $8 "/" $12 "/" $13}' "$T/journal.tsv")
expect_eq "its journal record (kind/action/key/output)" "$rec" "tu/stub/src/a.c/obj/a.obj"

# the real compiler's run: arguments as given, the exit status passed on
args=('/?' 'a b' 'say "hi"' 'C:\dir\' 'tail\\' '' 'ünï' '\\server\share\x.c')
seat_env WIN_ARGS_OUT="$T/args.out" WIN_ARGS_STATUS=7 wine ../bw/shardcc-cc.exe "${args[@]}" </dev/null \
    >run.out 2>&1 && rc=0 || rc=$?
expect_eq "an informational call under Wine: the real compiler's exit status" "$rc" 7
printf '%s\n' "${args[@]}" >"$T/args.want"
tr -d '\r' <"$T/args.out" >"$T/args.got"
diff "$T/args.want" "$T/args.got" >"$T/args.diff" || fail "arguments changed on the way: $(cat "$T/args.diff")"
ok "the real compiler got its ${#args[@]} arguments as given (blanks, quotes, backslashes, empty, UTF-8)"

# over 32,767 characters (CreateProcess's limit): the owner's call, its options in an
# @file the seat expands, goes to ccache (win_args as ccache.exe) as a response file
cp ../win_args.exe ccache.exe
: >big.rsp
for i in $(seq 1 3000); do printf '/DNAME_%d="v %d" ' "$i" "$i" >>big.rsp; done
env SHARDCC_ROOT="$PWD" SHARDCC_PHASE=shard SHARDCC_SHARD="$owner/2" SHARDCC_REAL_CC="$PWD/cl.exe" \
    SHARDCC_JOURNAL="$T/journal.tsv" SHARDCC_CCACHE="$PWD/ccache.exe" WIN_ARGS_OUT="$T/long.out" \
    wine ../bw/shardcc-cc.exe /nologo /c src/a.c /Foobj/b.obj @big.rsp </dev/null >long.run 2>&1 ||
    fail "a long command line under Wine: $(tail -3 long.run)"
{
    echo "$PWD/cl.exe"
    printf '%s\n' /nologo /c src/a.c /Foobj/b.obj
    for i in $(seq 1 3000); do echo "/DNAME_$i=v $i"; done
} >"$T/long.want"
tr -d '\r' <"$T/long.out" | sed 's|^Z:\\|/|; s|\\|/|g' >"$T/long.got"
cmp -s "$T/long.want" "$T/long.got" ||
    fail "a long command line: $(diff "$T/long.want" "$T/long.got" | head -5)"
ok "ccache's command line of $(wc -c <big.rsp) characters and more went out as a response file and came back whole"

rc=0
env SHARDCC_ROOT="$PWD" SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 wine ../bw/shardcc-cc.exe /c src/a.c \
    </dev/null >miss.out 2>&1 || rc=$?
expect_eq "no SHARDCC_REAL_CC: exit status" "$rc" 2
grep -q "SHARDCC_REAL_CC is not set" miss.out || fail "message: $(cat miss.out)"
ok "no SHARDCC_REAL_CC: the message names it"
# the classify table of Windows command lines (torch, setuptools, CMake), through the seat
python3 "$SHARDCC_SRC/tests/classify/run_cases.py" --wine "$T/bw/shardcc-wrap.exe" --min 40 \
    --cases "$SHARDCC_SRC/tests/classify/cases_windows.txt" \
    --fixtures "$SHARDCC_SRC/tests/classify/fixtures" </dev/null >"$T/cls.out" 2>&1 ||
    fail "the Windows classify table: $(tail -20 "$T/cls.out")"
ok "under Wine, $(tail -1 "$T/cls.out") (tests/classify/cases_windows.txt)"
echo "# $CHECKS checks"
