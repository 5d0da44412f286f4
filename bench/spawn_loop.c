/* spawn_loop: runs a program K times (posix_spawn + waitpid, one after the other) and
 * prints the mean wall-clock nanoseconds per call on stdout. libc only.
 *
 *   spawn_loop K PATH [ARG...]
 *
 * PATH is spawned as given (no PATH search) and is also the child's argv[0], so a seat
 * symlink such as .../shardcc-nvcc keeps its name. The child inherits this process's
 * environment, standard streams and working directory. Any child that cannot be started,
 * exits non-zero or dies from a signal stops the loop with exit status 1: a timing of
 * failing calls would be a timing of the wrong thing. */
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

extern char **environ;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: spawn_loop K PATH [ARG...]\n");
        return 2;
    }
    char *end;
    errno = 0;
    long k = strtol(argv[1], &end, 10);
    if (errno || *end || k < 1) {
        fprintf(stderr, "spawn_loop: K=\"%s\" is not a positive count\n", argv[1]);
        return 2;
    }
    char *path = argv[2];
    char **child_argv = argv + 2;

    uint64_t t0 = now_ns();
    for (long i = 0; i < k; i++) {
        pid_t pid;
        int rc = posix_spawn(&pid, path, NULL, NULL, child_argv, environ);
        if (rc != 0) {
            fprintf(stderr, "spawn_loop: cannot run \"%s\": %s\n", path, strerror(rc));
            return 1;
        }
        int st;
        while (waitpid(pid, &st, 0) < 0) {
            if (errno != EINTR) {
                fprintf(stderr, "spawn_loop: waitpid: %s\n", strerror(errno));
                return 1;
            }
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "spawn_loop: call %ld of \"%s\" failed (%s %d)\n", i + 1, path,
                    WIFEXITED(st) ? "exit status" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            return 1;
        }
    }
    uint64_t t1 = now_ns();
    printf("%" PRIu64 "\n", (t1 - t0) / (uint64_t)k);
    return 0;
}
