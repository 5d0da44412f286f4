# Windows objects (docs/windows.md): a project built for Windows by LLVM's clang-cl
# (Debian's clang-cl-14, a real compiler that writes COFF objects), llvm-lib and lld-link,
# sharded on this machine. Freestanding (no CRT or SDK headers, which are not here): /Zl
# /GS-, DLLs with /NOENTRY, an executable with /ENTRY. Shaped like a real Windows
# Makefile: a static library, a DLL with a generated source and an import library, an
# executable against both, options read from a
# response file in cl's quoting (an include directory with a space) and one written as
# UTF-16 with a byte order mark (as MSBuild writes them), /showIncludes, /Fo as a
# directory.
# - shardcc local at N = 3 with CC=clang-cl: the link job's products (objects, the .lib,
#   the DLL, its import library, the .exe) are the unsharded build's (compare: the COFF and
#   PE time stamps masked), every TU a cache hit;
# - a shard's stubs are COFF objects (x64, no sections, @feat.00), and the DLL and the
#   executable link in the shard from them (_LINK_=/FORCE:UNRESOLVED);
# - shardcc classify reads cl's options: /Fo joined, cl.exe's /Fo: PATH, /Tc, @file, --target
#   for an ARM64 stub;
# - the executable the link job linked runs under Wine (fa(fb(20)) = 44);
# - compare blanks the stamps of two builds of one DLL and nothing else: --exact and a
#   changed source still differ;
# - guard: a build that names clang-cl itself (not the seat) fails the shard guard.
. "$(dirname "$0")/lib.sh"
CLANG_CL=$(command -v clang-cl || command -v clang-cl-14 || true)
for t in "$CLANG_CL" lld-link llvm-lib llvm-readobj; do
    [ -n "$t" ] && command -v "$t" >/dev/null ||
        fail "${t:-clang-cl} is missing (Debian: clang-tools-14 lld llvm; scripts/install-deps.sh)"
done
cd "$T"
mkdir -p proj/src proj/inc\ dir
cd proj
cat >Makefile <<'MK'
# a Windows project's Makefile: cl's options, objects under build/obj
ifeq ($(origin CC),default)
CC = clang-cl
endif
CFLAGS = /nologo /Zl /GS- /O2 /W3
B = build
U = $(B)/obj/util
K = $(B)/obj/core

all: $(B)/app.exe
.PHONY: all clean dirs
dirs:
	@mkdir -p $(U) $(K)

$(B)/obj/core.rsp: | dirs
	printf '/DCORE=1 "/Iinc dir" /DNAME=\\"core\\"\n' >$@
$(B)/obj/utf16.rsp: | dirs
	printf '\377\376' >$@
	printf '/DWIDE=2 "/Iinc dir"\n' | iconv -f UTF-8 -t UTF-16LE >>$@
$(B)/gen/gen.c:
	mkdir -p $(B)/gen
	printf 'int gen_value(void) { return %d; }\n' 7 >$@

$(U)/%.obj: src/%.c | dirs
	$(CC) $(CFLAGS) /c /Fo$@ $<
$(U)/table.obj: src/table.c | dirs
	$(CC) $(CFLAGS) /c src/table.c /Fo$@
$(B)/util.lib: $(U)/u1.obj $(U)/u2.obj $(U)/u3.obj $(U)/table.obj
	llvm-lib /nologo /out:$@ $^

$(K)/a.obj: src/a.c $(B)/obj/core.rsp
	$(CC) $(CFLAGS) @$(B)/obj/core.rsp /showIncludes /c src/a.c /Fo$(K)/ >$(K)/a.deps
$(K)/b.obj: src/b.c $(B)/obj/utf16.rsp
	$(CC) $(CFLAGS) @$(B)/obj/utf16.rsp /c src/b.c /Fo$@
$(K)/gen.obj: $(B)/gen/gen.c | dirs
	$(CC) $(CFLAGS) /c $(B)/gen/gen.c /Fo$@
$(B)/core.dll: $(K)/a.obj $(K)/b.obj $(K)/gen.obj $(B)/util.lib
	lld-link /nologo /dll /noentry /nodefaultlib /out:$@ /implib:$(B)/core.lib $^

$(B)/obj/main.obj: src/main.c | dirs
	$(CC) $(CFLAGS) /c src/main.c /Fo$@
$(B)/app.exe: $(B)/obj/main.obj $(B)/core.dll
	lld-link /nologo /entry:entry /subsystem:console /nodefaultlib /out:$@ $(B)/obj/main.obj $(B)/core.lib

clean:
	rm -rf $(B)
MK
printf '#define SCALE 2\n' >"inc dir/core.h"
for i in 1 2 3; do printf 'int u%d(int x) { return x + %d; }\n' $i $((i - 1)) >src/u$i.c; done
printf 'int table_at(int i) { static const int t[] = {0, 1, 2}; return t[i %% 3]; }\n' >src/table.c
cat >src/a.c <<'C'
#include "core.h"
int u1(int);
int gen_value(void);
__declspec(dllexport) int fa(int x) { return u1(x) + CORE * 0 + gen_value() - 7 + (SCALE - 2); }
C
cat >src/b.c <<'C'
#include "core.h"
int u2(int), u3(int), table_at(int);
__declspec(dllexport) int fb(int x) { return u2(x) * SCALE * (WIDE - 1) + u3(0) + table_at(3); }
C
cat >src/main.c <<'C'
__declspec(dllimport) int fa(int);
__declspec(dllimport) int fb(int);
int entry(void) { return fa(fb(20)); }
C

# the plain build, by hand: the project builds as it is
make -s CC="$CLANG_CL" >"$T/plain.out" 2>&1 || fail "the project does not build: $(cat "$T/plain.out")"
[ -f build/app.exe ] || fail "no build/app.exe"
ok "the project builds with $CLANG_CL, llvm-lib and lld-link"
make -s clean

# classify: cl's options
cls() { shardcc classify --root . --shard 1/3 -- "$CLANG_CL" "$@"; }
# MSVC's /Fo: takes its path after a space (learn.microsoft.com, /Fo); clang-cl 14 has no /Fo:
shardcc classify --root . --shard 1/3 -- cl.exe /nologo /c /Tcsrc/table.inc /Fo: build/t.obj >"$T/c1.json"
expect_eq "classify cl.exe /Tc and /Fo: PATH" "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["kind"], j["key"], j["output"], j["stub"], "/Tc" in j["reason"])' "$T/c1.json")" "tu src/table.inc build/t.obj coff-x64 True"
mkdir -p build/obj
printf '/DCORE=1 "/Iinc dir" /c src/a.c\n' >build/obj/c.rsp
cls @build/obj/c.rsp /Fobuild/obj/ >"$T/c2.json"
expect_eq "classify @file and /Fo directory" "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["key"], j["output"], "/Iinc dir" in j["argv"])' "$T/c2.json")" "src/a.c build/obj/a.obj True"
cls --target=aarch64-pc-windows-msvc /c src/a.c >"$T/c3.json"
expect_eq "classify --target=aarch64: stub" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stub"])' "$T/c3.json")" "coff-arm64"
rm -rf build

BUILD="make -s"
CC="$CLANG_CL" shardcc local -n 3 --host-seat --cell win --clean 'make -s clean' --compare build -- \
    sh -c "$BUILD" >"$T/local.out" 2>&1 ||
    fail "shardcc local -n 3: $(tail -20 "$T/local.out")
link log: $(tail -20 .shardcc/local/logs/link.log 2>&1)"
grep -q "the same as the unsharded build" "$T/local.out" || fail "not the same: $(tail "$T/local.out")"
ok "N=3: $(grep -o 'the same as the unsharded build.*' "$T/local.out")"
grep -q "hit rate 100.0%" "$T/local.out" || fail "hit rate: $(grep 'hit rate' "$T/local.out")"
ok "N=3: link job $(grep -o 'hit rate [^,]*' "$T/local.out" | tail -1)"
J=.shardcc/link/journal.tsv
tus=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu"' $J | wc -l)
[ "$tus" -ge 8 ] || fail "the link job saw $tus TUs, expected 8"
ok "the link job compiled $tus TUs, all cl-style"

# one shard by hand: its stubs are COFF, and its DLL and executable link from them
eval "$(CC="$CLANG_CL" shardcc env --shard 2/3 --host-seat --cell win)"
[ "$_LINK_" = "/FORCE:UNRESOLVED" ] || fail "shard env: _LINK_='${_LINK_:-}'"
ok "shard env sets _LINK_=/FORCE:UNRESOLVED"
make -s clean
make -s >"$T/shard.out" 2>&1 || fail "the shard's make: $(tail "$T/shard.out")"
stubs=$(awk -F'\t' '$1 == "SCJ2" && $8 == "stub" {print $13}' "$SHARDCC_JOURNAL")
[ -n "$stubs" ] || fail "shard 2/3 stubbed nothing: $(cut -f7,8,12 "$SHARDCC_JOURNAL")"
for s in $stubs; do
    llvm-readobj --file-headers --symbols "$s" >"$T/stub.txt" 2>&1 || fail "$s: llvm-readobj: $(cat "$T/stub.txt")"
    grep -q "IMAGE_FILE_MACHINE_AMD64" "$T/stub.txt" && grep -q "SectionCount: 0" "$T/stub.txt" &&
        grep -q "@feat.00" "$T/stub.txt" || fail "$s is not the COFF stub: $(cat "$T/stub.txt")"
done
ok "shard 2/3's stubs are COFF x64 objects: $(echo $stubs | wc -w) of them"
[ -f build/core.dll ] && [ -f build/app.exe ] || fail "the shard did not link core.dll and app.exe"
ok "the shard linked core.dll and app.exe from stubs"
unset _LINK_ SHARDCC_PHASE SHARDCC_SHARD SHARDCC_ROOT SHARDCC_JOURNAL CC CXX || true

# the executable the link job linked runs (Wine, where installed)
make -s clean
CC="$CLANG_CL" shardcc local -n 2 --host-seat --cell win2 --clean 'make -s clean' -- sh -c "$BUILD" \
    >"$T/local2.out" 2>&1 || fail "shardcc local -n 2: $(tail "$T/local2.out")"
command -v wine >/dev/null || fail "wine is missing (Debian: wine wine64; scripts/install-deps.sh)"
export WINEPREFIX="$T/wine" WINEDEBUG=-all
rc=0
timeout 120 wine build/app.exe </dev/null >"$T/wine.out" 2>&1 || rc=$?
expect_eq "the link job's app.exe under Wine: exit status fa(fb(20))" "$rc" 44

# compare: the stamps of two builds of the same sources aside, nothing is hidden
cp build/core.dll "$T/core1.dll"
make -s clean
make -s CC="$CLANG_CL"
shardcc compare "$T/core1.dll" build/core.dll >"$T/cmp1.out" || fail "compare of two builds: $(cat "$T/cmp1.out")"
grep -q "time stamps of 1 Windows object or image blanked" "$T/cmp1.out" || fail "compare: $(cat "$T/cmp1.out")"
ok "compare: two builds of core.dll are the same with their stamps blanked"
rc=0
shardcc compare --exact "$T/core1.dll" build/core.dll >"$T/cmp2.out" || rc=$?
expect_eq "compare --exact of two builds of core.dll (their stamps differ)" "$rc" 1
sed -i 's/table_at(3)/table_at(4)/' src/b.c
make -s CC="$CLANG_CL"
rc=0
shardcc compare "$T/core1.dll" build/core.dll >"$T/cmp3.out" || rc=$?
expect_eq "compare of core.dll built from a changed source" "$rc" 1
sed -i 's/table_at(4)/table_at(3)/' src/b.c

# guard: a Makefile that names clang-cl itself bypasses the seat
sed -i "s|^CC = clang-cl|CC = $CLANG_CL|; s|^ifeq (\$(origin CC),default)|ifeq (1,1)|" Makefile
make -s clean
rc=0
CC="$CLANG_CL" shardcc shard --shard 1/2 --host-seat --cell bypass --artifact "$T/bypass" -- sh -c "$BUILD" \
    >"$T/bypass.out" 2>&1 || rc=$?
expect_eq "a build that bypasses the seat: shard exit status" "$rc" 3
grep -q "the seat saw no TU compile" "$T/bypass.out" && grep -q "clang-cl by its path" "$T/bypass.out" || fail "guard message: $(tail -5 "$T/bypass.out")"
ok "the shard guard says: $(grep -o 'no TU compile[^.]*' "$T/bypass.out" | head -1)"
echo "# $CHECKS checks"
