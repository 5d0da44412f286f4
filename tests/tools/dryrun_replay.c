/* dryrun_replay PLAN: runs the steps of a recorded `nvcc -dryrun` (dryrun.h's parse), one
 * after the other, the way nvcc would: with the plan's environment lines that are one plain
 * word (PATH, CICC_PATH, NVVMIR_LIBRARY_DIR, ...) set, each step's "> file"/"2>file"
 * redirections honoured and those files copied to stdout/stderr once the step ends, and
 * its tmpxft_ temporaries removed at the end.
 * Prints the work items on stdout first when given --items; with --times FILE, writes one
 * line a step to FILE: its dryrun line, tool, architecture and seconds (tab-separated). Exit: 0, 1
 * when a step fails (naming it), 2 when the plan does not parse or split. A test tool (tests/e2e/
 * t_dryrun_replay.sh): it shows that the parse holds all of nvcc's pipeline, since its
 * objects are nvcc's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dryrun.h"

static int copy_file(const char *path, FILE *to)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, to);
    fclose(f);
    return 0;
}

static int run_step(const struct dr_step *st)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const char *paths[2] = {st->stdout_path, st->stderr_path};
        for (int fd = 1; fd <= 2; fd++) {
            if (!paths[fd - 1])
                continue;
            int o = open(paths[fd - 1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (o < 0 || dup2(o, fd) < 0)
                _exit(127);
            close(o);
        }
        execvp(st->argv.v[0], st->argv.v);
        fprintf(stderr, "dryrun_replay: cannot run %s\n", st->argv.v[0]);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (st->stdout_path)
        copy_file(st->stdout_path, stdout);
    if (st->stderr_path)
        copy_file(st->stderr_path, stderr);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int items = 0;
    const char *times = NULL;
    int i = 1;
    for (; i < argc - 1; i++) {
        if (strcmp(argv[i], "--items") == 0)
            items = 1;
        else if (strcmp(argv[i], "--times") == 0 && i + 2 < argc)
            times = argv[++i];
        else
            break;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: dryrun_replay [--items] [--times FILE] PLAN\n");
        return 2;
    }
    const char *plan_path = argv[i];
    FILE *tf = times ? fopen(times, "w") : NULL;
    if (times && !tf) {
        perror(times);
        return 2;
    }
    FILE *f = fopen(plan_path, "rb");
    if (!f) {
        perror(plan_path);
        return 2;
    }
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&text, buf, n);
    fclose(f);
    struct dr_plan plan;
    struct dr_split split;
    if (dr_parse(sb_str(&text), &plan, &err) != 0 || dr_split_plan(&plan, &split, &err) != 0) {
        fprintf(stderr, "dryrun_replay: %s\n", sb_str(&err));
        return 2;
    }
    if (items) {
        struct strbuf out = STRBUF_INIT;
        dr_describe(&plan, &split, &out);
        fputs(sb_str(&out), stdout);
        sb_release(&out);
    }
    for (size_t e = 0; e < plan.env.n; e++) {
        char *eq = strchr(plan.env.v[e], '=');
        if (!strpbrk(eq + 1, " \t\"'\\$")) {
            *eq = '\0';
            setenv(plan.env.v[e], eq + 1, 1);
            *eq = '=';
        }
    }
    for (size_t s = 0; s < plan.n; s++) {
        const struct dr_step *st = &plan.steps[s];
        if (plan.steps[s].tool == DR_RM) { /* a missing file is no error (dryrun.h) */
            for (size_t k = 0; k < st->reads.n; k++)
                unlink(st->reads.v[k]);
            continue;
        }
        double t0 = now();
        int rc = run_step(&st[0]);
        if (tf)
            fprintf(tf, "%u\t%s\t%s\t%.3f\n", st->line, dr_tool_name(st->tool),
                    st->arch ? st->arch : "-", now() - t0);
        if (rc != 0) {
            fprintf(stderr, "dryrun_replay: line %u: %s exited %d\n", st->line,
                    dr_tool_name(st->tool), rc);
            return 1;
        }
    }
    /* nvcc removes its tmpxft_ temporaries itself; the plan's rm lines name only some */
    for (size_t s = 0; s < plan.n; s++)
        for (size_t k = 0; k < plan.steps[s].writes.n; k++)
            if (strstr(plan.steps[s].writes.v[k], "tmpxft_"))
                unlink(plan.steps[s].writes.v[k]);
    dr_split_clear(&split);
    dr_plan_clear(&plan);
    if (tf)
        fclose(tf);
    sb_release(&text);
    sb_release(&err);
    return 0;
}
