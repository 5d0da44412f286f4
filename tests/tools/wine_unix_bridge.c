/* wine_unix_bridge: for the Wine tests only (tests/e2e/t_windows_cli.sh). A Windows
 * program that runs a Linux program with its arguments, standard output, standard error
 * and exit status, so that Windows programs under Wine (ccache.exe) can run this machine's
 * Linux compilers (Debian's clang-cl).
 *
 * Wine starts a Linux program from a Windows process (CreateProcess of an ELF file), but
 * the program gets no Windows pipe, its exit status reads as 2 whatever it was, and ccache
 * for Windows cannot put it in a job object. This program is a Windows process (ccache
 * puts it in its job), and runs
 *     /bin/sh -c 't=$1 o=$2 e=$3 s=$4; shift 4; "$t" "$@" >"$o" 2>"$e";
 *                 echo $? >"$s.tmp"; mv "$s.tmp" "$s"' sh TARGET OUT ERR STATUS ARGS...
 * with OUT, ERR and STATUS files in the current directory, waits for STATUS to appear (the
 * process handle Wine gives for a Linux program is signalled at once), then copies OUT and
 * ERR to its own standard output and error and exits with STATUS. TARGET is the first line of
 * NAME.target beside NAME.exe (this program under another name).
 *
 *   x86_64-w64-mingw32-gcc -O2 wine_unix_bridge.c -o clang-cl.exe -lshell32
 *   echo /usr/lib/llvm-14/bin/clang-cl >clang-cl.target
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <shellapi.h>

/* Appends arg to cmd as CommandLineToArgvW reads it back (Wine splits a Linux program's
 * command line so). */
static void quote(wchar_t *cmd, size_t cap, const wchar_t *arg)
{
    size_t n = wcslen(cmd);
    if (n)
        cmd[n++] = L' ';
    cmd[n++] = L'"';
    for (const wchar_t *p = arg;; p++) {
        size_t bs = 0;
        while (*p == L'\\') {
            p++;
            bs++;
        }
        if (!*p || *p == L'"') {
            for (size_t i = 0; i < bs * 2 + (*p ? 1 : 0); i++)
                cmd[n++] = L'\\';
        } else {
            for (size_t i = 0; i < bs; i++)
                cmd[n++] = L'\\';
        }
        if (!*p)
            break;
        cmd[n++] = *p;
        if (n + 64 > cap) {
            fputs("wine_unix_bridge: the command line is too long\n", stderr);
            exit(125);
        }
    }
    cmd[n++] = L'"';
    cmd[n] = 0;
}

static void copy_out(const char *path, HANDLE to)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char buf[65536];
    size_t r;
    DWORD w;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        WriteFile(to, buf, (DWORD)r, &w, NULL);
    fclose(f);
}

int main(void)
{
    int argc;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    wchar_t self[MAX_PATH];
    DWORD sn = GetModuleFileNameW(NULL, self, MAX_PATH);
    if (!argv || !sn || sn < 4) {
        fputs("wine_unix_bridge: cannot read its own name or arguments\n", stderr);
        return 125;
    }
    wcscpy(self + sn - 4, L".target"); /* NAME.exe -> NAME.target */
    FILE *tf = _wfopen(self, L"rb");
    char target[1024] = "";
    if (!tf || !fgets(target, sizeof target, tf)) {
        fwprintf(stderr, L"wine_unix_bridge: cannot read %ls\n", self);
        return 125;
    }
    fclose(tf);
    target[strcspn(target, "\r\n")] = 0;
    char out[64], err[64], st[64];
    /* names of this call alone: Wine reuses process ids from one wineserver to the next */
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    unsigned long long id =
        ((unsigned long long)GetCurrentProcessId() << 40) ^ (unsigned long long)now.QuadPart;
    snprintf(out, sizeof out, ".wub-%llx.out", id);
    snprintf(err, sizeof err, ".wub-%llx.err", id);
    snprintf(st, sizeof st, ".wub-%llx.status", id);
    remove(st);

    static wchar_t cmd[32768];
    wchar_t w[1024];
    quote(cmd, 32768, L"/bin/sh");
    quote(cmd, 32768, L"-c");
    quote(cmd, 32768,
          L"t=$1 o=$2 e=$3 s=$4; shift 4; \"$t\" \"$@\" >\"$o\" 2>\"$e\"; "
          L"echo $? >\"$s.tmp\"; mv \"$s.tmp\" \"$s\"");
    quote(cmd, 32768, L"sh");
    const char *fixed[] = {target, out, err, st};
    for (int i = 0; i < 4; i++) {
        MultiByteToWideChar(CP_UTF8, 0, fixed[i], -1, w, 1024);
        quote(cmd, 32768, w);
    }
    for (int i = 1; i < argc; i++)
        quote(cmd, 32768, argv[i]);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "wine_unix_bridge: cannot start /bin/sh: error %lu\n", GetLastError());
        return 125;
    }
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    int status = 125;
    FILE *sf = NULL;
    for (int waited = 0; !sf && waited < 600000; waited += 2) { /* at most 10 minutes */
        sf = fopen(st, "rb");
        if (!sf)
            Sleep(2);
    }
    if (!sf || fscanf(sf, "%d", &status) != 1)
        fprintf(stderr, "wine_unix_bridge: %s ran but left no exit status\n", target);
    if (sf)
        fclose(sf);
    copy_out(out, GetStdHandle(STD_OUTPUT_HANDLE));
    copy_out(err, GetStdHandle(STD_ERROR_HANDLE));
    remove(out);
    remove(err);
    remove(st);
    return status;
}
