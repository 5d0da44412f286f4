/* exec_only: the least a compiler wrapper can do at all. It replaces itself with argv[1]
 * (execv, no PATH search, the environment kept), so the compiler's parent waits for the
 * compiler itself. Linked statically, like shardcc-wrap: beside spawn_wait it shows what
 * the seat's waiting costs on a cache hit (bench/pipeline_cost.py, part 2). libc only. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: exec_only PATH [ARG...]\n");
        return 2;
    }
    execv(argv[1], argv + 1);
    fprintf(stderr, "exec_only: cannot run \"%s\": %s\n", argv[1], strerror(errno));
    return 127;
}
