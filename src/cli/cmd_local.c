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

int cmd_local(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *n_s = NULL, *jobs = NULL, *clean = NULL, *cell = "local", *root = ".", *plan = NULL;
    const char *rate = NULL, *val;
    int baseline = 1, reproducible = 0;
    struct strvec pins = STRVEC_INIT, fwd = STRVEC_INIT, compare = STRVEC_INIT;
    const char *pin;
    static const char *const fwd_flags[] = {
        "--host-seat",   "--no-host-seat", "--cuda-home-seat", "--no-cuda-home-seat",
        "--relocatable", "--reproducible", "--no-reproducible"};
    static const char *const fwd_values[] = {"--real-nvcc", "--real-cxx", "--real-cc",
                                             "--ccache",    "--cuda",     "--split-archs",
                                             "--seed-from"};
    struct jobenv_opts jo; /* for the cell's CUDA check, before the first build */
    memset(&jo, 0, sizeof jo);
    const char **tool[] = {&jo.real_nvcc, &jo.real_cxx,    &jo.real_cc, &jo.ccache,
                           &jo.cuda,      &jo.split_archs, &jo.seed};
    const char *remote = NULL, *run_id = NULL;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_value(&a, "-n", &n_s) || args_value(&a, "--jobs", &jobs) ||
            args_value(&a, "--clean", &clean) || args_value(&a, "--cell", &cell) ||
            args_value(&a, "--root", &root) || args_value(&a, "--plan", &plan) ||
            args_value(&a, "--min-hit-rate", &rate) || args_value(&a, "--remote", &remote) ||
            args_value(&a, "--run-id", &run_id) ||
            (args_flag(&a, "--no-baseline") && !(baseline = 0)))
            continue;
        size_t k;
        for (k = 0; k < sizeof fwd_flags / sizeof *fwd_flags; k++)
            if (args_flag(&a, fwd_flags[k])) {
                sv_push(&fwd, fwd_flags[k]);
                break;
            }
        if (k < sizeof fwd_flags / sizeof *fwd_flags)
            continue;
        for (k = 0; k < sizeof fwd_values / sizeof *fwd_values; k++)
            if (args_value(&a, fwd_values[k], &val)) { /* checked by shard and link */
                sv_push(&fwd, fwd_values[k]);
                sv_push(&fwd, val);
                *tool[k] = val;
                break;
            }
        if (k < sizeof fwd_values / sizeof *fwd_values)
            continue;
        if (args_value(&a, "--pin", &pin)) { /* checked by shardcc shard */
            sv_push(&pins, pin);
            continue;
        }
        if (args_value(&a, "--compare", &val)) {
            if (!*val || val[0] == '/' || strstr(val, "..")) {
                report_error(CMD, "--compare \"%s\": a path relative to the root, inside it", val);
                return EXIT_USAGE;
            }
            sv_push(&compare, val);
            continue;
        }
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    int n = n_s ? parse_count(n_s) : 0;
    if (n < 1 || n > 1000) {
        report_error(CMD, "-n N is required, 1 <= N <= 1000 (a local run of more shards "
                          "than that is no rehearsal of CI)");
        return EXIT_USAGE;
    }
    if (jobs && parse_count(jobs) < 1) {
        report_error(CMD, "--jobs \"%s\" is not a positive number", jobs);
        return EXIT_USAGE;
    }
    if (!cell_id_ok(cell)) {
        report_error(CMD, "--cell \"%s\" is not a valid cell id", cell);
        return EXIT_USAGE;
    }
    if (a.i >= argc) {
        report_error(CMD, "no build command after -- (see --help)");
        return EXIT_USAGE;
    }
    if (compare.n && !baseline) {
        report_error(CMD, "--compare and --no-baseline: there is no unsharded build to compare "
                          "the link job's products with");
        return EXIT_USAGE;
    }
    char **build = argv + a.i;
    int nbuild = argc - a.i;
    /* the remote: every job gets it and one run id (a fresh one here, where no CI names one) */
    const char *remote_env = getenv("SHARDCC_REMOTE");
    if (!remote && remote_env && *remote_env)
        remote = remote_env;
    struct strbuf run_buf = STRBUF_INIT;
    if (remote) {
        char *r = jobenv_run_id(run_id);
        if (r)
            sb_adds(&run_buf, r);
        else
            sb_addf(&run_buf, "local-%ld-%llu", plat_pid(),
                    (unsigned long long)(plat_wall_us() / 1000000));
        free(r);
        sv_push(&fwd, "--remote");
        sv_push(&fwd, remote);
        sv_push(&fwd, "--run-id");
        sv_push(&fwd, sb_str(&run_buf));
    } else if (run_id) {
        report_error(CMD, "--run-id goes with --remote");
        return EXIT_USAGE;
    }
    int crc = jobenv_check_cuda(&jo, CMD);
    if (crc)
        return crc;
    struct strbuf rroot = STRBUF_INIT, self = STRBUF_INIT, work = STRBUF_INIT, arts = STRBUF_INIT,
                  logs = STRBUF_INIT, log = STRBUF_INIT, keep = STRBUF_INIT;
    if (jobenv_root(root, &rroot, CMD) != EXIT_OK)
        return EXIT_USAGE;
    /* the plan: absolute (the jobs run with another --root resolution), and its predictions */
    struct strbuf planbuf = STRBUF_INIT;
    const char *plan_abs = NULL;
    json_t *plan_doc = NULL, *plan_file = NULL;
    if (plan) {
        struct strbuf cwd = STRBUF_INIT;
        plat_getcwd(&cwd);
        path_absolute(sb_str(&cwd), plan, &planbuf);
        sb_release(&cwd);
        plan_abs = sb_str(&planbuf);
        json_error_t je;
        plan_file = json_file_load(plan_abs, JSON_FILE_MAX, &je);
        plan_doc = plan_file ? plan_section(plan_file, cell, NULL) : NULL; /* this cell's */
        if (!plan_doc || json_integer_value(json_object_get(plan_doc, "n")) != n) {
            report_error(CMD, "--plan \"%s\": %s", plan,
                         plan_file ? "not a plan for -n shards (of this cell)" : je.text);
            json_decref(plan_file);
            return EXIT_USAGE;
        }
    }
    plat_self_exe(&self);
    sb_addf(&work, "%s/.shardcc/local", sb_str(&rroot));
    sb_addf(&arts, "%s/artifacts", sb_str(&work));
    sb_addf(&logs, "%s/logs", sb_str(&work));
    int e = plat_rmtree(sb_str(&work));
    if (!e)
        e = plat_mkdir_p(sb_str(&arts));
    if (!e)
        e = plat_mkdir_p(sb_str(&logs));
    if (e) {
        report_error(CMD, "cannot prepare \"%s\": %s", sb_str(&work), plat_strerror(e));
        return EXIT_IO;
    }
    if (!clean)
        report_warning(CMD, "no --clean command: every build reuses the tree, unlike CI");
    if (jobs) {
        setenv("CMAKE_BUILD_PARALLEL_LEVEL", jobs, 1);
        setenv("MAX_JOBS", jobs, 1);
        struct strbuf mf = STRBUF_INIT;
        sb_addf(&mf, "-j%s", jobs);
        setenv("MAKEFLAGS", sb_str(&mf), 1);
        sb_release(&mf);
    }
    plain_environment();
    int steps = n + 1 + baseline, step = 0, rc = 0;
    double t_start = now_s(), base_wall = 0, link_wall = 0;
    double *wall = calloc((size_t)n + 1, sizeof *wall), *comp = calloc((size_t)n + 1, sizeof *comp);
    size_t *owned = calloc((size_t)n + 1, sizeof *owned);

    if (baseline) {
        fprintf(stderr, CMD ": [%d/%d] unsharded build (baseline) ... %.0f s elapsed\n", ++step,
                steps, now_s() - t_start);
        sb_reset(&log);
        sb_addf(&log, "%s/baseline.log", sb_str(&logs));
        rc = run_clean(clean, sb_str(&log));
        double t0 = now_s();
        if (!rc)
            rc = run_baseline(sb_str(&rroot), sb_str(&work), &fwd, build, sb_str(&log),
                              &reproducible);
        base_wall = now_s() - t0;
        sb_reset(&keep);
        sb_addf(&keep, "%s/baseline", sb_str(&work));
        for (size_t k = 0; k < compare.n && !rc; k++)
            rc = keep_copy(sb_str(&rroot), sb_str(&keep), compare.v[k], sb_str(&log));
    }
    for (int i = 1; i <= n && !rc; i++) {
        fprintf(stderr, CMD ": [%d/%d] shard %d/%d ... %.0f s elapsed\n", ++step, steps, i, n,
                now_s() - t_start);
        sb_reset(&log);
        sb_addf(&log, "%s/shard-%d-of-%d.log", sb_str(&logs), i, n);
        rc = run_clean(clean, sb_str(&log));
        if (rc)
            break;
        struct strvec v = STRVEC_INIT;
        struct strbuf spec = STRBUF_INIT;
        sb_addf(&spec, "%d/%d", i, n);
        sv_push(&v, sb_str(&self));
        sv_push(&v, "shard");
        sv_push(&v, "--shard");
        sv_push(&v, sb_str(&spec));
        sv_push(&v, "--cell");
        sv_push(&v, cell);
        if (remote) {
            sv_push(&v, "--no-artifact");
        } else {
            sv_push(&v, "--artifact");
            sv_push(&v, sb_str(&arts));
        }
        for (size_t k = 0; k < pins.n; k++) {
            sv_push(&v, "--pin");
            sv_push(&v, pins.v[k]);
        }
        push_job_tail(&v, sb_str(&rroot), &fwd, plan_abs, build, nbuild);
        double t0 = now_s();
        struct strbuf jp = STRBUF_INIT, what = STRBUF_INIT;
        sb_addf(&jp, "%s/.shardcc/shard-%d-of-%d/journal.tsv", sb_str(&rroot), i, n);
        sb_addf(&what, "shard %d/%d", i, n);
        rc = run_logged(sv_argv(&v), sb_str(&log), sb_str(&what), sb_str(&jp));
        sb_release(&what);
        wall[i] = now_s() - t0;
        sv_clear(&v);
        sb_release(&spec);
        /* what the shard did, from its journal: a failed shard's row too */
        struct jrnl j;
        if (jrnl_load(sb_str(&jp), &j) == 0) {
            struct jstats s;
            jrnl_stats(&j, &s);
            owned[i] = s.cached;
            comp[i] = s.cached_seconds;
            jrnl_release(&j);
        }
        sb_release(&jp);
        if (rc) {
            report_error(CMD, "shard %d/%d failed (exit status %d); log: %s", i, n, rc,
                         sb_str(&log));
            break;
        }
    }
    struct jstats ls;
    memset(&ls, 0, sizeof ls);
    if (!rc) {
        fprintf(stderr, CMD ": [%d/%d] link job ... %.0f s elapsed\n", ++step, steps,
                now_s() - t_start);
        sb_reset(&log);
        sb_addf(&log, "%s/link.log", sb_str(&logs));
        rc = run_clean(clean, sb_str(&log));
        if (!rc) {
            struct strvec v = STRVEC_INIT;
            struct strbuf ns = STRBUF_INIT;
            sb_addf(&ns, "%d", n);
            sv_push(&v, sb_str(&self));
            sv_push(&v, "link");
            if (remote) {
                sv_push(&v, "--cell");
                sv_push(&v, cell);
            } else {
                sv_push(&v, "--artifacts");
                sv_push(&v, sb_str(&arts));
            }
            sv_push(&v, "--expect-shards");
            sv_push(&v, sb_str(&ns));
            if (rate) {
                sv_push(&v, "--min-hit-rate");
                sv_push(&v, rate);
            }
            push_job_tail(&v, sb_str(&rroot), &fwd, plan_abs, build, nbuild);
            double t0 = now_s();
            struct strbuf jp = STRBUF_INIT;
            sb_addf(&jp, "%s/.shardcc/link/journal.tsv", sb_str(&rroot));
            rc = run_logged(sv_argv(&v), sb_str(&log), "link job", sb_str(&jp));
            link_wall = now_s() - t0;
            sv_clear(&v);
            sb_release(&ns);
            if (rc)
                report_error(CMD, "the link job failed (exit status %d); log: %s", rc,
                             sb_str(&log));
            struct jrnl j;
            if (jrnl_load(sb_str(&jp), &j) == 0) {
                jrnl_stats(&j, &ls);
                jrnl_release(&j);
            }
            sb_release(&jp);
        }
    }

    printf("\n%-8s %10s %12s%s %9s\n", "job", "TUs owned", "compile s",
           plan_doc ? "    planned s" : "", "wall s");
    double slowest = 0, total_comp = 0;
    for (int i = 1; i <= n; i++) {
        if (wall[i] == 0)
            continue;
        printf("%3d/%-4d %10zu %12.1f", i, n, owned[i], comp[i]);
        if (plan_doc)
            printf(" %12.1f", plan_shard_seconds(plan_doc, i));
        printf(" %9.1f\n", wall[i]);
        if (wall[i] > slowest)
            slowest = wall[i];
        total_comp += comp[i];
    }
    char dev[64] = "";
    if (ls.device)
        snprintf(dev, sizeof dev, ", %zu of them device-code outputs", ls.device);
    if (link_wall > 0)
        printf("%-8s %10s %12s%s %9.1f   hit rate %.1f%% (%zu/%zu TUs%s), %zu stubs\n", "link", "-",
               "-", plan_doc ? "            -" : "", link_wall,
               ls.tu ? 100.0 * (double)ls.hits / (double)ls.tu : 0.0, ls.hits, ls.tu, dev,
               ls.stubbed);
    struct tally cmp = {0, 0, 0};
    if (!rc && baseline && compare.n) {
        for (size_t k = 0; k < compare.n && !cmp.rc; k++)
            compare_tree(sb_str(&keep), sb_str(&rroot), compare.v[k], reproducible, &cmp);
        if (!cmp.rc && cmp.same == 0) {
            report_error(CMD, "--compare: no product (ELF file, static library, zip) under %s",
                         compare.v[0]);
            cmp.rc = EXIT_USAGE;
        }
        rc = cmp.rc;
    }
    /* the timings whenever every job ran, also when the compare or a guard failed */
    if (link_wall > 0) {
        printf("\npredicted CI makespan: %.1f s (slowest shard %.1f s + link %.1f s)",
               slowest + link_wall, slowest, link_wall);
        if (baseline && base_wall > 0)
            printf("; unsharded build %.1f s: %.2fx faster, link job %.1f%% of the unsharded "
                   "build\n",
                   base_wall, base_wall / (slowest + link_wall), 100.0 * link_wall / base_wall);
        else
            printf("\n");
        printf("total compile time over the shards: %.1f s\n", total_comp);
        if (!plan_doc && !remote && n > 1)
            suggest_plan(sb_str(&arts), n, comp);
        if (cmp.same && !cmp.rc)
            printf("the same as the unsharded build (through the seats): %zu products, %s%s\n",
                   cmp.same,
                   reproducible ? "byte for byte"
                                : "up to nvcc's temp names (the jobs are not reproducible)",
                   !cmp.stamped ? ""
                   : reproducible
                       ? " apart from the time stamps of the Windows objects and images in "
                         "them (compare(1))"
                       : " and the time stamps of Windows objects and images");
        struct strbuf sp = STRBUF_INIT;
        sb_addf(&sp, "%s/.shardcc/link/summary.json", sb_str(&rroot));
        json_error_t sje;
        json_t *sum = link_wall > 0 ? json_file_load(sb_str(&sp), JSON_FILE_MAX, &sje) : NULL;
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
    free(wall);
    free(comp);
    free(owned);
    sb_release(&rroot);
    sb_release(&planbuf);
    json_decref(plan_file);
    sb_release(&self);
    sb_release(&work);
    sb_release(&arts);
    sb_release(&logs);
    sb_release(&log);
    sb_release(&keep);
    sv_clear(&compare);
    return rc;
}
