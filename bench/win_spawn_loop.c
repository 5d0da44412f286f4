/* win_spawn_loop: the Windows side of bench/windows_stub_cost.sh (built with mingw-w64, run
 * under Wine). Runs each of two command lines K times per round through CreateProcessW and
 * WaitForSingleObject, for R rounds whose order alternates, and prints one line per round:
 * "round R: A_US B_US" (the median microseconds of one call of A and of B). The files named
 * by the third argument are deleted (untimed) before each call of A: a stub call then writes
 * its object anew, as in a clean shard.
 *   win_spawn_loop.exe ROUNDS CALLS DELETE "A command line" "B command line" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static double run(wchar_t *cmd, const wchar_t *del)
{
    if (del && *del)
        DeleteFileW(del);
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    LARGE_INTEGER t0, t1, f;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t0);
    if (!CreateProcessW(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "win_spawn_loop: cannot start %ls (error %lu)\n", cmd, GetLastError());
        exit(1);
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    QueryPerformanceCounter(&t1);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    if (code != 0) {
        fprintf(stderr, "win_spawn_loop: %ls exited %lu\n", cmd, code);
        exit(1);
    }
    return (double)(t1.QuadPart - t0.QuadPart) * 1e6 / (double)f.QuadPart;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(void)
{
    int argc;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (!argv || argc != 6) {
        fprintf(stderr, "usage: win_spawn_loop ROUNDS CALLS DELETE \"A\" \"B\"\n");
        return 2;
    }
    int rounds = _wtoi(argv[1]), calls = _wtoi(argv[2]);
    if (rounds < 1 || calls < 1)
        return 2;
    double *ta = malloc((size_t)calls * sizeof *ta), *tb = malloc((size_t)calls * sizeof *tb);
    size_t la = wcslen(argv[4]) + 1, lb = wcslen(argv[5]) + 1;
    wchar_t *a = malloc(la * sizeof *a), *b = malloc(lb * sizeof *b);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            int first_a = (r % 2 == 0) == (k == 0);
            for (int i = 0; i < calls; i++) {
                /* CreateProcessW may write into its command line: a fresh copy each call */
                if (first_a) {
                    memcpy(a, argv[4], la * sizeof *a);
                    ta[i] = run(a, argv[3]);
                } else {
                    memcpy(b, argv[5], lb * sizeof *b);
                    tb[i] = run(b, NULL);
                }
            }
        }
        printf("round %d: %.1f %.1f\n", r + 1, median(ta, calls), median(tb, calls));
        fflush(stdout);
    }
    return 0;
}
