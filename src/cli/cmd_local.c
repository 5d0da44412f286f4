/* shardcc local: the whole pipeline on one machine, as CI would run it: the unsharded
 * build (the baseline), N shard builds each from a clean tree, then the link job; a table
 * per shard and the predicted CI makespan against the unsharded build. */
#include "args.h"
#include "cli.h"
#include "compare.h"
#include "job.h"
#include "jobenv.h"
#include "jrnl.h"
#include "path.h"
#include "plan.h"
#include "platform.h"
#include "progress.h"
#include "plan_costs.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc local"

static const char usage[] =
    "usage: shardcc local -n N [--jobs J] [--clean CMD] [--cell ID] [--root DIR]\n"
    "                     [--min-hit-rate R] [--plan FILE] [--pin GLOB]... [--no-baseline]\n"
    "                     [--compare PATH]... [--remote URL [--run-id ID]] [--seed-from SRC]\n"
    "                     [--[no-]host-seat] [--[no-]cuda-home-seat] [--relocatable]\n"
    "                     [--[no-]reproducible] [--split-archs N] [--real-nvcc PATH]\n"
    "                     [--real-cxx PATH] [--real-cc PATH] [--ccache PATH] [--cuda X.Y]\n"
    "                     -- BUILD...\n"
    "\n"
    "Runs the whole pipeline here: the unsharded BUILD (the baseline, a plain build through\n"
    "the seats: shardcc env's plain phase), then shards 1..N, each after CMD cleaned the\n"
    "build tree (as in a fresh CI job), then the link job, and prints a table per shard (TUs\n"
    "owned, compile seconds, wall seconds) and the predicted CI makespan (slowest shard +\n"
    "link) against the unsharded build. Each build's output goes to\n"
    "ROOT/.shardcc/local/logs/; artifacts to ROOT/.shardcc/local/artifacts/.\n"
    "\n"
    "  -n N             the number of shards\n"
    "  --jobs J         build parallelism of one CI job (sets CMAKE_BUILD_PARALLEL_LEVEL,\n"
    "                   MAX_JOBS and MAKEFLAGS=-jJ)\n"
    "  --clean CMD      a shell command run before every build to make the tree clean\n"
    "                   (e.g. 'rm -rf build'); without it builds reuse the tree\n"
    "  --cell ID        the cell id (default: local)\n"
    "  --root DIR       the project root (default: .)\n"
    "  --min-hit-rate R the link job's threshold, 0..1 (default 0.90)\n"
    "  --plan FILE      the shards follow this plan (shardcc plan); the table shows its\n"
    "                   predicted seconds per shard next to the measured ones\n"
    "  --pin GLOB       compile the TUs whose key matches GLOB in every shard (repeatable;\n"
    "                   see shardcc shard)\n"
    "  --no-baseline    skip the unsharded build\n"
    "  --compare PATH   a product of the build (a file or a directory, relative to the root;\n"
    "                   repeatable): the baseline's copy is kept and the link job's must be\n"
    "                   the same, byte for byte when the jobs are reproducible, else up to\n"
    "                   nvcc's temp names (as shardcc compare); in a directory, every ELF\n"
    "                   file, static library and zip (wheel) is compared, less CMake's own\n"
    "                   probes (CMakeFiles/<version>/, CMakeFiles/CMakeScratch/); a\n"
    "                   difference is exit 3\n"
    "  --remote URL     hand off through ccache's remote storage instead of artifacts (else\n"
    "                   SHARDCC_REMOTE; see shardcc shard): the shards write no\n"
    "                   artifact, the link job takes them from the remote\n"
    "  --run-id ID      the run id of the shards' manifests there (default: SHARDCC_RUN_ID,\n"
    "                   a CI engine's run id, else local-PID-TIME: a fresh one)\n" CLI_HELP_SEED
        CLI_HELP_SEATS CLI_HELP_TOOLS "  (every job, shards and link, gets these as given)\n"
    "\n"
    "Exit status: 0 ok, 1 a build failed, 2 usage, 3 a guard failed or a product differs,\n"
    "4 I/O: that of the first step that failed.\n";

static double now_s(void)
{
    return (double)plat_monotonic_us() / 1e6;
}

static int run_clean(const char *clean, const char *log)
{
    if (!clean)
        return 0;
    char *argv[] = {"/bin/sh", "-c", (char *)clean, NULL};
    int st = plat_spawn_wait_log(argv, log);
    if (st != 0) {
        report_error(CMD, "the clean command failed (exit status %d): %s (log: %s)", st, clean,
                     log);
        return EXIT_BUILD;
    }
    return 0;
}

/* A hash-partitioned run whose shards are lopsided: what a plan made from its artifacts
 * would make the slowest shard's compiles (plan_costs.h), and the command, when that cuts
 * them by a fifth or more. comp[1..n]: each shard's seconds of compiles. */
static void suggest_plan(const char *arts, int n, const double *comp)
{
    double slowest = 0;
    for (int i = 1; i <= n; i++)
        slowest = comp[i] > slowest ? comp[i] : slowest;
    struct costs c = {.cmd = CMD};
    struct plan_makespan ms;
    if (slowest <= 0 || plan_costs_read_input(arts, &c, 0, NULL) != EXIT_OK || c.n == 0) {
        plan_costs_release(&c);
        return;
    }
    free(plan_costs_plan(&c, n, 0, 0, &ms));
    plan_costs_release(&c);
    if (ms.plan > 0.8 * slowest)
        return;
    printf("the shards are lopsided: the slowest shard's compiles took %.1f s; a plan made from "
           "this run's timings would make it %.1f s (%.2fx; the ideal %.1f s):\n"
           "  shardcc plan -n %d -o plan.json %s\n"
           "  then --plan plan.json for every job (shard, link, local)\n",
           slowest, ms.plan, ms.plan / slowest, ms.ideal, n, arts);
}

/* Runs argv with its output appended to log; progress lines (progress.h) for the phase
 * what, from the journal its seats write, meanwhile. */
static int run_logged(char **argv, const char *log, const char *what, const char *journal)
{
    struct progress pg = {.cmd = CMD, .what = what, .journal = journal};
    progress_start(&pg);
    int st = plat_spawn_wait_log(argv, log);
    progress_stop();
    if (st < 0) {
        report_error(CMD, "cannot run \"%s\": %s", argv[0], strerror(errno));
        return EXIT_IO;
    }
    return st;
}

/* The options shard and link jobs share, then "--" and the build command. */
/* fwd: the options both jobs take as given (the tools, --cuda, the seats' switches) */
static void push_job_tail(struct strvec *v, const char *root, const struct strvec *fwd,
                          const char *plan, char **build, int nbuild)
{
    sv_push(v, "--root");
    sv_push(v, root);
    if (plan) {
        sv_push(v, "--plan");
        sv_push(v, plan);
    }
    sv_pushv(v, fwd->v, fwd->n);
    sv_push(v, "--");
    sv_pushv(v, build, (size_t)nbuild);
}

/* Removes what would turn the baseline into a seat build. */
static void plain_environment(void)
{
    static const char *const vars[] = {"SHARDCC_ROOT",    "SHARDCC_PHASE", "SHARDCC_SHARD",
                                       "SHARDCC_JOURNAL", "SHARDCC_DEPTH", "CCACHE_DIR"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    static const char *const seats[] = {"PYTORCH_NVCC", "CUDACXX",   "CXX",
                                        "CC",           "CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < sizeof seats / sizeof seats[0]; i++) {
        const char *v = getenv(seats[i]);
        if (v && (strstr(v, "shardcc") || strstr(v, "/.shardcc/cuda-home")))
            unsetenv(seats[i]);
    }
    /* and a shadow CUDA_HOME's bin/ on PATH */
    const char *path = getenv("PATH");
    if (path && strstr(path, "/.shardcc/cuda-home")) {
        struct strbuf p = STRBUF_INIT;
        const char *s = path;
        while (*s) {
            const char *e = strchr(s, ':');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            char *part = xstrndup(s, n);
            if (!strstr(part, "/.shardcc/cuda-home"))
                sb_addf(&p, "%s%s", p.len ? ":" : "", part);
            free(part);
            if (!e)
                break;
            s = e + 1;
        }
        setenv("PATH", sb_str(&p), 1);
        sb_release(&p);
    }
}

/* A build product compare looks at, by its first bytes: an ELF file, a static library, a
 * zip (a wheel), a Windows image (.dll, .exe, .pyd: "MZ") or COFF object (x64, ARM64, x86
 * machine; no optional header). -1 when path cannot be opened. */
static int is_product(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char h[20];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'}, zip[4] = {'P', 'K', 3, 4};
    unsigned machine = n >= 20 ? (unsigned)h[0] | (unsigned)h[1] << 8 : 0;
    int coff = (machine == 0x8664 || machine == 0xAA64 || machine == 0x14C) && !h[16] && !h[17];
    return n >= 4 &&
           (!memcmp(h, elf, 4) || !memcmp(h, zip, 4) || (n >= 8 && !memcmp(h, "!<arch>\n", 8)) ||
            (h[0] == 'M' && h[1] == 'Z') || coff);
}

/* CMake's probes (compiler identification, try_compile) run the compilers directly */
static int cmake_probe_dir(const char *rel)
{
    const char *c = strstr(rel, "CMakeFiles/");
    return c && (c[11] >= '0' && c[11] <= '9' ? 1 : !strncmp(c + 11, "CMakeScratch", 12));
}

struct tally {
    size_t same;
    size_t stamped; /* Windows products compared without their time stamps */
    int rc;         /* the first failure's status */
};

/* Compares base/rel with cur/rel (a file, or every product under a directory). */
static void compare_tree(const char *base, const char *cur, const char *rel, int exact,
                         struct tally *t)
{
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    sb_addf(&a, "%s/%s", base, rel);
    sb_addf(&b, "%s/%s", cur, rel);
    if (plat_is_dir(sb_str(&a))) {
        struct strvec names = STRVEC_INIT;
        plat_list_dir(sb_str(&a), &names);
        for (size_t i = 0; i < names.n && !t->rc; i++) {
            struct strbuf r = STRBUF_INIT;
            sb_addf(&r, "%s/%s", rel, names.v[i]);
            if (!cmake_probe_dir(sb_str(&r)))
                compare_tree(base, cur, sb_str(&r), exact, t);
            sb_release(&r);
        }
        sv_clear(&names);
    } else if (is_product(sb_str(&a)) == 1) {
        if (is_product(sb_str(&b)) < 0) {
            report_error(CMD, "--compare: the link job made no \"%s\" (the unsharded build did)",
                         rel);
            t->rc = EXIT_GUARD;
            goto out;
        }
        struct cmp_result r;
        struct strbuf err = STRBUF_INIT;
        if (compare_files(sb_str(&a), sb_str(&b), exact ? CMP_EXACT | CMP_STAMPS : 0, &r, &err) !=
            0) {
            report_error(CMD, "--compare: %s", sb_str(&err));
            t->rc = EXIT_IO;
        } else if (!r.same) {
            report_error(CMD,
                         "--compare: the link job's \"%s\" is not the unsharded build's%s: %s "
                         "(the baseline's copy: %s)",
                         rel, exact ? " byte for byte" : "", sb_str(&r.diff), sb_str(&a));
            t->rc = EXIT_GUARD;
        } else {
            t->same++;
            t->stamped += r.stamped != 0;
        }
        sb_release(&r.diff);
        sb_release(&err);
    }
out:
    sb_release(&a);
    sb_release(&b);
}

/* Copies ROOT/rel to keep/rel (cp -a: a directory whole). */
static int keep_copy(const char *root, const char *keep, const char *rel, const char *log)
{
    struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
    sb_addf(&src, "%s/%s", root, rel);
    sb_addf(&dst, "%s/%s", keep, rel);
    char *dir = xstrdup(sb_str(&dst));
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    int e = plat_mkdir_p(dir);
    free(dir);
    int rc = EXIT_OK;
    if (e) {
        report_error(CMD, "cannot create a directory for \"%s\": %s", sb_str(&dst),
                     plat_strerror(e));
        rc = EXIT_IO;
    } else {
        char *argv[] = {"cp", "-a", (char *)sb_str(&src), (char *)sb_str(&dst), NULL};
        if (plat_spawn_wait_log(argv, log) != 0) {
            report_error(CMD,
                         "--compare \"%s\": the unsharded build made no such file or "
                         "directory, or it cannot be copied (log: %s)",
                         rel, log);
            rc = EXIT_IO;
        }
    }
    sb_release(&src);
    sb_release(&dst);
    return rc;
}

/* The baseline: the build through the seats in the plain phase (its own cache-less
 * environment, journal in WORK/baseline.tsv), the caller's environment restored after. */
static int run_baseline(const char *root, const char *work, const struct strvec *fwd, char **build,
                        const char *log, int *reproducible)
{
    struct jobenv_opts o;
    memset(&o, 0, sizeof o);
    struct args b = {.argc = (int)fwd->n, .argv = fwd->v, .i = 0, .cmd = CMD};
    while (b.i < b.argc && !b.error)
        if (!jobenv_arg(&b, &o))
            args_unknown(&b); /* cannot happen: fwd holds job options only */
    if (b.error)
        return EXIT_USAGE;
    struct strbuf cache = STRBUF_INIT, journal = STRBUF_INIT;
    sb_addf(&cache, "%s/baseline-cache", work);
    sb_addf(&journal, "%s/baseline.tsv", work);
    o.root = root;
    o.cache = sb_str(&cache);
    o.journal = sb_str(&journal);
    o.plain = 1;
    struct jobenv env;
    int rc = jobenv_build(&o, &env, CMD);
    if (!rc) {
        *reproducible = env.reproducible;
        struct strvec saved = STRVEC_INIT;
        plat_env_save(&saved);
        jobenv_apply(&env);
        rc = run_logged(build, log, "unsharded build", o.journal);
        plat_env_restore(&saved);
        sv_clear(&saved);
        if (rc) {
            report_error(CMD, "the unsharded build failed (exit status %d); log: %s", rc, log);
            rc = rc == EXIT_IO ? EXIT_IO : EXIT_BUILD;
        }
    }
    jobenv_release(&env);
    sb_release(&cache);
    sb_release(&journal);
    return rc;
}

/* One local run, from its options to its verdict; local_release frees what it holds
 * whichever phase it stopped in. */
struct local {
    const char *jobs, *clean, *cell, *root, *plan, *rate, *remote, *run_id;
    int n, baseline, reproducible, nbuild;
    char **build;
    struct strvec pins, fwd, compare; /* fwd: the options every job gets as given */
    struct jobenv_opts jo;            /* for the cell's CUDA check, before the first build */
    struct strbuf run_buf, rroot, self, work, arts, logs, log, keep, planbuf;
    const char *plan_abs;         /* the plan, absolute */
    json_t *plan_file, *plan_doc; /* the plan, and its section of this cell */
    int steps, step;
    double t_start, base_wall, link_wall;
    double *wall, *comp; /* each shard's wall and compile seconds, [1..n] */
    size_t *owned;       /* each shard's TUs owned */
    struct jstats ls;    /* the link job's journal */
    struct tally cmp;
};

static void local_release(struct local *l)
{
    sv_clear(&l->pins);
    sv_clear(&l->fwd);
    sv_clear(&l->compare);
    struct strbuf *bufs[] = {&l->run_buf, &l->rroot, &l->self, &l->work,   &l->arts,
                             &l->logs,    &l->log,   &l->keep, &l->planbuf};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++)
        sb_release(bufs[k]);
    json_decref(l->plan_file);
    free(l->wall);
    free(l->comp);
    free(l->owned);
}

/* One option of shard's and link's that local passes on to every job as given (the seats'
 * switches, the tools); 1 when argv's current one was. */
static int local_forwarded(struct args *a, struct local *l)
{
    static const char *const flags[] = {"--host-seat",         "--no-host-seat", "--cuda-home-seat",
                                        "--no-cuda-home-seat", "--relocatable",  "--reproducible",
                                        "--no-reproducible"};
    static const char *const values[] = {"--real-nvcc", "--real-cxx",    "--real-cc",  "--ccache",
                                         "--cuda",      "--split-archs", "--seed-from"};
    const char **tool[] = {&l->jo.real_nvcc, &l->jo.real_cxx,    &l->jo.real_cc, &l->jo.ccache,
                           &l->jo.cuda,      &l->jo.split_archs, &l->jo.seed};
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (args_flag(a, flags[k])) {
            sv_push(&l->fwd, flags[k]);
            return 1;
        }
    const char *val;
    for (size_t k = 0; k < sizeof values / sizeof *values; k++)
        if (args_value(a, values[k], &val)) { /* checked by shard and link */
            sv_push(&l->fwd, values[k]);
            sv_push(&l->fwd, val);
            *tool[k] = val;
            return 1;
        }
    return 0;
}

/* The options and the build command. EXIT_OK, CLI_HELP_SHOWN, or an exit status (reported). */
static int local_parse(struct local *l, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *n_s = NULL, *val;
    l->cell = "local";
    l->root = ".";
    l->baseline = 1;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_value(&a, "-n", &n_s) || args_value(&a, "--jobs", &l->jobs) ||
            args_value(&a, "--clean", &l->clean) || args_value(&a, "--cell", &l->cell) ||
            args_value(&a, "--root", &l->root) || args_value(&a, "--plan", &l->plan) ||
            args_value(&a, "--min-hit-rate", &l->rate) || args_value(&a, "--remote", &l->remote) ||
            args_value(&a, "--run-id", &l->run_id) ||
            (args_flag(&a, "--no-baseline") && !(l->baseline = 0)) || local_forwarded(&a, l))
            continue;
        if (args_value(&a, "--pin", &val)) { /* checked by shardcc shard */
            sv_push(&l->pins, val);
            continue;
        }
        if (args_value(&a, "--compare", &val)) {
            if (!*val || val[0] == '/' || strstr(val, "..")) {
                report_error(CMD, "--compare \"%s\": a path relative to the root, inside it", val);
                return EXIT_USAGE;
            }
            sv_push(&l->compare, val);
            continue;
        }
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    l->n = n_s ? parse_count(n_s) : 0;
    if (l->n < 1 || l->n > 1000) {
        report_error(CMD, "-n N is required, 1 <= N <= 1000 (a local run of more shards "
                          "than that is no rehearsal of CI)");
    } else if (l->jobs && parse_count(l->jobs) < 1) {
        report_error(CMD, "--jobs \"%s\" is not a positive number", l->jobs);
    } else if (!cell_id_ok(l->cell)) {
        report_error(CMD, "--cell \"%s\" is not a valid cell id", l->cell);
    } else if (a.i >= argc) {
        report_error(CMD, "no build command after -- (see --help)");
    } else if (l->compare.n && !l->baseline) {
        report_error(CMD, "--compare and --no-baseline: there is no unsharded build to compare "
                          "the link job's products with");
    } else {
        l->build = argv + a.i;
        l->nbuild = argc - a.i;
        return EXIT_OK;
    }
    return EXIT_USAGE;
}

/* The remote: every job gets it and one run id (a fresh one here, where no CI names one). */
static int local_remote(struct local *l)
{
    const char *remote_env = getenv("SHARDCC_REMOTE");
    if (!l->remote && remote_env && *remote_env)
        l->remote = remote_env;
    if (!l->remote && l->run_id) {
        report_error(CMD, "--run-id goes with --remote");
        return EXIT_USAGE;
    }
    if (!l->remote)
        return EXIT_OK;
    char *r = jobenv_run_id(l->run_id);
    if (r)
        sb_adds(&l->run_buf, r);
    else
        sb_addf(&l->run_buf, "local-%ld-%llu", plat_pid(),
                (unsigned long long)(plat_wall_us() / 1000000));
    free(r);
    sv_push(&l->fwd, "--remote");
    sv_push(&l->fwd, l->remote);
    sv_push(&l->fwd, "--run-id");
    sv_push(&l->fwd, sb_str(&l->run_buf));
    return EXIT_OK;
}

/* The plan: absolute (the jobs run with another --root resolution), and its predictions. */
static int local_plan(struct local *l)
{
    if (!l->plan)
        return EXIT_OK;
    struct strbuf cwd = STRBUF_INIT;
    plat_getcwd(&cwd);
    path_absolute(sb_str(&cwd), l->plan, &l->planbuf);
    sb_release(&cwd);
    l->plan_abs = sb_str(&l->planbuf);
    json_error_t je;
    l->plan_file = json_file_load(l->plan_abs, JSON_FILE_MAX, &je);
    l->plan_doc = l->plan_file ? plan_section(l->plan_file, l->cell, NULL) : NULL; /* this cell's */
    if (!l->plan_doc || json_integer_value(json_object_get(l->plan_doc, "n")) != l->n) {
        report_error(CMD, "--plan \"%s\": %s", l->plan,
                     l->plan_file ? "not a plan for -n shards (of this cell)" : je.text);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Before the first job: the remote, the cell's CUDA, the root, the plan, a fresh
 * ROOT/.shardcc/local (artifacts and logs), --jobs for the build tools, the environment of
 * the plain phase. */
static int local_prepare(struct local *l)
{
    int rc;
    if ((rc = local_remote(l)) != EXIT_OK || (rc = jobenv_check_cuda(&l->jo, CMD)) != EXIT_OK)
        return rc;
    if (jobenv_root(l->root, &l->rroot, CMD) != EXIT_OK)
        return EXIT_USAGE;
    if ((rc = local_plan(l)) != EXIT_OK)
        return rc;
    plat_self_exe(&l->self);
    sb_addf(&l->work, "%s/.shardcc/local", sb_str(&l->rroot));
    sb_addf(&l->arts, "%s/artifacts", sb_str(&l->work));
    sb_addf(&l->logs, "%s/logs", sb_str(&l->work));
    int e = plat_rmtree(sb_str(&l->work));
    if (!e)
        e = plat_mkdir_p(sb_str(&l->arts));
    if (!e)
        e = plat_mkdir_p(sb_str(&l->logs));
    if (e) {
        report_error(CMD, "cannot prepare \"%s\": %s", sb_str(&l->work), plat_strerror(e));
        return EXIT_IO;
    }
    if (!l->clean)
        report_warning(CMD, "no --clean command: every build reuses the tree, unlike CI");
    if (l->jobs) {
        setenv("CMAKE_BUILD_PARALLEL_LEVEL", l->jobs, 1);
        setenv("MAX_JOBS", l->jobs, 1);
        struct strbuf mf = STRBUF_INIT;
        sb_addf(&mf, "-j%s", l->jobs);
        setenv("MAKEFLAGS", sb_str(&mf), 1);
        sb_release(&mf);
    }
    plain_environment();
    l->steps = l->n + 1 + l->baseline;
    l->t_start = now_s();
    l->wall = calloc((size_t)l->n + 1, sizeof *l->wall);
    l->comp = calloc((size_t)l->n + 1, sizeof *l->comp);
    l->owned = calloc((size_t)l->n + 1, sizeof *l->owned);
    return EXIT_OK;
}

/* The next step's line, and its log's path into l->log. */
static void local_step(struct local *l, const char *what, const char *logname)
{
    fprintf(stderr, CMD ": [%d/%d] %s ... %.0f s elapsed\n", ++l->step, l->steps, what,
            now_s() - l->t_start);
    sb_reset(&l->log);
    sb_addf(&l->log, "%s/%s", sb_str(&l->logs), logname);
}

/* The unsharded build through the seats, and a copy of what --compare names. */
static int local_baseline(struct local *l)
{
    if (!l->baseline)
        return EXIT_OK;
    local_step(l, "unsharded build (baseline)", "baseline.log");
    int rc = run_clean(l->clean, sb_str(&l->log));
    double t0 = now_s();
    if (!rc)
        rc = run_baseline(sb_str(&l->rroot), sb_str(&l->work), &l->fwd, l->build, sb_str(&l->log),
                          &l->reproducible);
    l->base_wall = now_s() - t0;
    sb_reset(&l->keep);
    sb_addf(&l->keep, "%s/baseline", sb_str(&l->work));
    for (size_t k = 0; k < l->compare.n && !rc; k++)
        rc = keep_copy(sb_str(&l->rroot), sb_str(&l->keep), l->compare.v[k], sb_str(&l->log));
    return rc;
}

/* Shard i of n, and what it did from its journal (a failed shard's row too). */
static int local_shard(struct local *l, int i)
{
    int n = l->n;
    struct strbuf what = STRBUF_INIT, logname = STRBUF_INIT;
    sb_addf(&what, "shard %d/%d", i, n);
    sb_addf(&logname, "shard-%d-of-%d.log", i, n);
    local_step(l, sb_str(&what), sb_str(&logname));
    sb_release(&logname);
    int rc = run_clean(l->clean, sb_str(&l->log));
    if (rc) {
        sb_release(&what);
        return rc;
    }
    struct strvec v = STRVEC_INIT;
    struct strbuf spec = STRBUF_INIT, jp = STRBUF_INIT;
    sb_addf(&spec, "%d/%d", i, n);
    sv_push(&v, sb_str(&l->self));
    sv_push(&v, "shard");
    sv_push(&v, "--shard");
    sv_push(&v, sb_str(&spec));
    sv_push(&v, "--cell");
    sv_push(&v, l->cell);
    if (l->remote) {
        sv_push(&v, "--no-artifact");
    } else {
        sv_push(&v, "--artifact");
        sv_push(&v, sb_str(&l->arts));
    }
    for (size_t k = 0; k < l->pins.n; k++) {
        sv_push(&v, "--pin");
        sv_push(&v, l->pins.v[k]);
    }
    push_job_tail(&v, sb_str(&l->rroot), &l->fwd, l->plan_abs, l->build, l->nbuild);
    double t0 = now_s();
    sb_addf(&jp, "%s/.shardcc/shard-%d-of-%d/journal.tsv", sb_str(&l->rroot), i, n);
    rc = run_logged(sv_argv(&v), sb_str(&l->log), sb_str(&what), sb_str(&jp));
    l->wall[i] = now_s() - t0;
    struct jrnl j;
    if (jrnl_load(sb_str(&jp), &j) == 0) {
        struct jstats s;
        jrnl_stats(&j, &s);
        l->owned[i] = s.cached;
        l->comp[i] = s.cached_seconds;
        jrnl_release(&j);
    }
    if (rc)
        report_error(CMD, "shard %d/%d failed (exit status %d); log: %s", i, n, rc,
                     sb_str(&l->log));
    sv_clear(&v);
    sb_release(&spec);
    sb_release(&jp);
    sb_release(&what);
    return rc;
}

/* The link job, and its journal's counts. */
static int local_link(struct local *l)
{
    local_step(l, "link job", "link.log");
    int rc = run_clean(l->clean, sb_str(&l->log));
    if (rc)
        return rc;
    struct strvec v = STRVEC_INIT;
    struct strbuf ns = STRBUF_INIT, jp = STRBUF_INIT;
    sb_addf(&ns, "%d", l->n);
    sv_push(&v, sb_str(&l->self));
    sv_push(&v, "link");
    if (l->remote) {
        sv_push(&v, "--cell");
        sv_push(&v, l->cell);
    } else {
        sv_push(&v, "--artifacts");
        sv_push(&v, sb_str(&l->arts));
    }
    sv_push(&v, "--expect-shards");
    sv_push(&v, sb_str(&ns));
    if (l->rate) {
        sv_push(&v, "--min-hit-rate");
        sv_push(&v, l->rate);
    }
    push_job_tail(&v, sb_str(&l->rroot), &l->fwd, l->plan_abs, l->build, l->nbuild);
    double t0 = now_s();
    sb_addf(&jp, "%s/.shardcc/link/journal.tsv", sb_str(&l->rroot));
    rc = run_logged(sv_argv(&v), sb_str(&l->log), "link job", sb_str(&jp));
    l->link_wall = now_s() - t0;
    if (rc)
        report_error(CMD, "the link job failed (exit status %d); log: %s", rc, sb_str(&l->log));
    struct jrnl j;
    if (jrnl_load(sb_str(&jp), &j) == 0) {
        jrnl_stats(&j, &l->ls);
        jrnl_release(&j);
    }
    sv_clear(&v);
    sb_release(&ns);
    sb_release(&jp);
    return rc;
}

/* The table: each job's TUs owned, compile and wall seconds (planned seconds with a plan).
 * The slowest shard's wall and the shards' compile seconds into *slowest and *total. */
static void local_table(const struct local *l, double *slowest, double *total)
{
    int n = l->n;
    printf("\n%-8s %10s %12s%s %9s\n", "job", "TUs owned", "compile s",
           l->plan_doc ? "    planned s" : "", "wall s");
    *slowest = *total = 0;
    for (int i = 1; i <= n; i++) {
        if (l->wall[i] == 0)
            continue;
        printf("%3d/%-4d %10zu %12.1f", i, n, l->owned[i], l->comp[i]);
        if (l->plan_doc)
            printf(" %12.1f", plan_shard_seconds(l->plan_doc, i));
        printf(" %9.1f\n", l->wall[i]);
        if (l->wall[i] > *slowest)
            *slowest = l->wall[i];
        *total += l->comp[i];
    }
    const struct jstats *ls = &l->ls;
    char dev[64] = "";
    if (ls->device)
        snprintf(dev, sizeof dev, ", %zu of them device-code outputs", ls->device);
    if (l->link_wall > 0)
        printf("%-8s %10s %12s%s %9.1f   hit rate %.1f%% (%zu/%zu TUs%s), %zu stubs\n", "link", "-",
               "-", l->plan_doc ? "            -" : "", l->link_wall,
               ls->tu ? 100.0 * (double)ls->hits / (double)ls->tu : 0.0, ls->hits, ls->tu, dev,
               ls->stubbed);
}

/* --compare: the link job's products against the baseline's copy. An exit status. */
static int local_compare(struct local *l)
{
    for (size_t k = 0; k < l->compare.n && !l->cmp.rc; k++)
        compare_tree(sb_str(&l->keep), sb_str(&l->rroot), l->compare.v[k], l->reproducible,
                     &l->cmp);
    if (!l->cmp.rc && l->cmp.same == 0) {
        report_error(CMD, "--compare: no product (ELF file, static library, zip) under %s",
                     l->compare.v[0]);
        l->cmp.rc = EXIT_USAGE;
    }
    return l->cmp.rc;
}

/* The timings (whenever every job ran, also when the compare or a guard failed): the
 * predicted makespan, a plan's suggestion, the compare's verdict, the link job's build. */
static void local_timings(const struct local *l, double slowest, double total)
{
    double link = l->link_wall;
    printf("\npredicted CI makespan: %.1f s (slowest shard %.1f s + link %.1f s)", slowest + link,
           slowest, link);
    if (l->baseline && l->base_wall > 0)
        printf("; unsharded build %.1f s: %.2fx faster, link job %.1f%% of the unsharded "
               "build\n",
               l->base_wall, l->base_wall / (slowest + link), 100.0 * link / l->base_wall);
    else
        printf("\n");
    printf("total compile time over the shards: %.1f s\n", total);
    if (!l->plan_doc && !l->remote && l->n > 1)
        suggest_plan(sb_str(&l->arts), l->n, l->comp);
    const struct tally *cmp = &l->cmp;
    if (cmp->same && !cmp->rc)
        printf(
            "the same as the unsharded build (through the seats): %zu products, %s%s\n", cmp->same,
            l->reproducible ? "byte for byte"
                            : "up to nvcc's temp names (the jobs are not reproducible)",
            !cmp->stamped     ? ""
            : l->reproducible ? " apart from the time stamps of the Windows objects and images in "
                                "them (compare(1))"
                              : " and the time stamps of Windows objects and images");
    struct strbuf sp = STRBUF_INIT;
    sb_addf(&sp, "%s/.shardcc/link/summary.json", sb_str(&l->rroot));
    json_error_t sje;
    json_t *sum = json_file_load(sb_str(&sp), JSON_FILE_MAX, &sje);
    struct jtime jt;
    if (sum && jtime_of_summary(sum, &jt) == 0) {
        struct strbuf tl = STRBUF_INIT;
        jtime_format(&jt, &tl);
        printf("the link job's build: %s\n", sb_str(&tl));
        sb_release(&tl);
    }
    json_decref(sum);
    sb_release(&sp);
}

/* The phases of shardcc-local(1): the baseline, each shard, the link job, then the table,
 * the compare and the timings. */
int cmd_local(int argc, char **argv)
{
    struct local l;
    memset(&l, 0, sizeof l);
    int rc = local_parse(&l, argc, argv);
    if (rc == CLI_HELP_SHOWN || rc != EXIT_OK || (rc = local_prepare(&l)) != EXIT_OK) {
        local_release(&l);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    rc = local_baseline(&l);
    for (int i = 1; i <= l.n && !rc; i++)
        rc = local_shard(&l, i);
    if (!rc)
        rc = local_link(&l);
    double slowest, total;
    local_table(&l, &slowest, &total);
    if (!rc && l.baseline && l.compare.n)
        rc = local_compare(&l);
    if (l.link_wall > 0)
        local_timings(&l, slowest, total);
    local_release(&l);
    return rc;
}
