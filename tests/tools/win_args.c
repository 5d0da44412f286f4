/* win_args: a Windows program for the Wine suites (e2e.windows_seat, bench/windows_stub_cost):
 * what the seat's CreateProcess hands a child. Writes the arguments it was given (after its
 * own name) one per line, UTF-8, to the file WIN_ARGS_OUT names, an argument "@FILE" as the
 * arguments FILE holds (split as the C runtime splits a command line: CommandLineToArgvW),
 * then exits with WIN_ARGS_STATUS (default 0). Without WIN_ARGS_OUT it writes nothing: the
 * no-op program the seat's cost is measured against. Built with mingw-w64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static void put(FILE *f, const wchar_t *w)
{
    char buf[65536];
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, sizeof buf, NULL, NULL);
    fprintf(f, "%s\n", n > 0 ? buf : "?");
}

int main(void)
{
    const char *out = getenv("WIN_ARGS_OUT"), *st = getenv("WIN_ARGS_STATUS");
    int status = st ? atoi(st) : 0;
    if (!out)
        return status;
    int argc;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    FILE *f = fopen(out, "w");
    if (!f || !argv)
        return 100;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != L'@') {
            put(f, argv[i]);
            continue;
        }
        FILE *r = _wfopen(argv[i] + 1, L"rb");
        if (!r)
            return 101;
        static char text[4 << 20];
        size_t n = fread(text, 1, sizeof text - 1, r);
        fclose(r);
        text[n] = '\0';
        /* CommandLineToArgvW takes the first word as the program name, by other rules */
        static wchar_t line[4 << 20];
        wcscpy(line, L"x ");
        int k = MultiByteToWideChar(CP_UTF8, 0, text, -1, line + 2, (int)(sizeof line / 2 - 2));
        if (k <= 0)
            return 102;
        for (wchar_t *p = line; *p; p++)
            if (*p == L'\n' || *p == L'\r')
                *p = L' ';
        int rc;
        wchar_t **rv = CommandLineToArgvW(line, &rc);
        for (int j = 1; rv && j < rc; j++)
            put(f, rv[j]);
    }
    fclose(f);
    return status;
}
