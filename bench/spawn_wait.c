/* spawn_wait: the least any compiler wrapper that waits for its compiler can do. It
 * starts argv[1] with argv[1...] (posix_spawn, no PATH search), waits for it and exits
 * with its status. Linked statically, like shardcc-wrap: the floor under the seat's cost
 * on a cache hit (bench/pipeline_cost.py, part 2). libc only. */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: spawn_wait PATH [ARG...]\n");
        return 2;
    }
    pid_t pid;
    int rc = posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ);
    if (rc != 0) {
        fprintf(stderr, "spawn_wait: cannot run \"%s\": %s\n", argv[1], strerror(rc));
        return 127;
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
