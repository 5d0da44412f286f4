/* spawn_loop: runs a program K times (posix_spawn + waitpid, one call after the other)
 * and prints the mean wall-clock nanoseconds per call (CLOCK_MONOTONIC) on stdout.
 * libc only.
 *
 *   spawn_loop [-u FILE]... K [NAME=VALUE...] PATH [ARG...]
 *   spawn_loop [-u FILE]... K [NAME=VALUE...] PATH [ARG...] ::: [NAME=VALUE...] PATH2 [ARG2...]
 *
 * NAME=VALUE words before a command's PATH set (or replace) those variables in that
 * command's environment only, as env(1) would, without a process of env's in the timing.
 * PATH is spawned as given (no PATH search) and is also the child's argv[0], so a seat
 * symlink such as .../shardcc-nvcc keeps its name. The child inherits this process's
 * environment, standard streams and working directory. Each -u FILE is unlinked before
 * every call, outside the timed interval (a missing FILE is fine): the call then finds
 * no output from the previous one, as in a clean build. Only the spawn-to-reaped
 * interval of each call is timed. Any child that cannot be started, exits non-zero or
 * dies from a signal stops the loop with exit status 1: a timing of failing calls would
 * be a timing of the wrong thing. Usage errors exit 2.
 *
 * With a second command after ":::", the two are interleaved call by call, K calls each,
 * in the order A B B A A B B A ... (so neither always runs first after the other), and the
 * output is one line: the median nanoseconds per call of A, of B, and the median of the
 * ratios A/B of the K adjacent pairs. On a shared machine whose load drifts, adjacent
 * calls see the same load: this is the comparison to trust. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_UNLINK 16

extern char **environ;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: spawn_loop [-u FILE]... K [NAME=VALUE...] PATH [ARG...] "
                    "[::: [NAME=VALUE...] PATH2 [ARG2...]]\n");
    return 2;
}

/* The length of NAME in a NAME=VALUE word, or 0 when the word is not one. */
static size_t assignment(const char *w)
{
    size_t n = 0;
    while ((w[n] >= 'A' && w[n] <= 'Z') || (w[n] >= 'a' && w[n] <= 'z') || w[n] == '_' ||
           (n && w[n] >= '0' && w[n] <= '9'))
        n++;
    return n && w[n] == '=' ? n : 0;
}

/* The environment of a command: this process's with the leading NAME=VALUE words of *cmd
 * put in (replacing a variable of that name); *cmd is advanced past them. */
static char **command_env(char ***cmd)
{
    size_t nenv = 0, nset = 0;
    while (environ[nenv])
        nenv++;
    while ((*cmd)[nset] && assignment((*cmd)[nset]))
        nset++;
    char **env = calloc(nenv + nset + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++) {
        int replaced = 0;
        for (size_t j = 0; j < nset && !replaced; j++) {
            size_t n = assignment((*cmd)[j]);
            replaced = !strncmp(environ[i], (*cmd)[j], n + 1);
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < nset; j++)
        env[k++] = (*cmd)[j];
    *cmd += nset;
    return env;
}

static int timed_call(char **child_argv, char **envp, uint64_t *ns)
{
    uint64_t t0 = now_ns();
    pid_t pid;
    int rc = posix_spawn(&pid, child_argv[0], NULL, NULL, child_argv, envp);
    if (rc != 0) {
        fprintf(stderr, "spawn_loop: cannot run \"%s\": %s\n", child_argv[0], strerror(rc));
        return 1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "spawn_loop: waitpid: %s\n", strerror(errno));
            return 1;
        }
    }
    *ns = now_ns() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "spawn_loop: a call of \"%s\" failed (%s %d)\n", child_argv[0],
                WIFEXITED(st) ? "exit status" : "signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return 1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    const char *unlink_files[MAX_UNLINK];
    int nunlink = 0;
    int i = 1;
    while (i < argc && strcmp(argv[i], "-u") == 0) {
        if (i + 1 >= argc || nunlink == MAX_UNLINK)
            return usage();
        unlink_files[nunlink++] = argv[i + 1];
        i += 2;
    }
    if (argc - i < 2)
        return usage();
    char *end;
    errno = 0;
    long k = strtol(argv[i], &end, 10);
    if (errno || *end || k < 1) {
        fprintf(stderr, "spawn_loop: K=\"%s\" is not a positive count\n", argv[i]);
        return 2;
    }
    char **cmd[2] = {argv + i + 1, NULL};
    for (int j = i + 1; j < argc; j++) {
        if (strcmp(argv[j], ":::") == 0) {
            argv[j] = NULL; /* ends A's argv */
            if (j + 1 >= argc || j == i + 1)
                return usage();
            cmd[1] = argv + j + 1;
            break;
        }
    }
    int ncmd = cmd[1] ? 2 : 1;
    char **envs[2] = {NULL, NULL};
    for (int c = 0; c < ncmd; c++) {
        envs[c] = command_env(&cmd[c]);
        if (!envs[c]) {
            fprintf(stderr, "spawn_loop: out of memory for an environment\n");
            return 1;
        }
        if (!cmd[c][0])
            return usage();
    }
    double *t[2] = {calloc((size_t)k, sizeof(double)), calloc((size_t)k, sizeof(double))};
    if (!t[0] || !t[1]) {
        fprintf(stderr, "spawn_loop: out of memory for %ld timings\n", k);
        return 1;
    }
    uint64_t total = 0;
    for (long n = 0; n < k; n++) {
        for (int c = 0; c < ncmd; c++) {
            int which = ncmd == 2 && (n % 2) ? 1 - c : c; /* A B, B A, A B, ... */
            for (int u = 0; u < nunlink; u++) {
                if (unlink(unlink_files[u]) != 0 && errno != ENOENT) {
                    fprintf(stderr, "spawn_loop: cannot remove \"%s\": %s\n", unlink_files[u],
                            strerror(errno));
                    return 1;
                }
            }
            uint64_t ns;
            if (timed_call(cmd[which], envs[which], &ns) != 0)
                return 1;
            t[which][n] = (double)ns;
            total += ns;
        }
    }
    if (ncmd == 1) {
        printf("%" PRIu64 "\n", total / (uint64_t)k);
        return 0;
    }
    double *r = calloc((size_t)k, sizeof(double));
    if (!r) {
        fprintf(stderr, "spawn_loop: out of memory for %ld ratios\n", k);
        return 1;
    }
    for (long n = 0; n < k; n++)
        r[n] = t[0][n] / t[1][n];
    double ma = median(t[0], k), mb = median(t[1], k);
    printf("%.0f %.0f %.4f\n", ma, mb, median(r, k));
    return 0;
}
