/* jobenv: building and applying one job's environment (see jobenv.h). */
#include "jobenv.h"
#include "seed.h"
#include "exit_status.h"
#include "path.h"
#include "plan.h"
#include "platform.h"
#include "split.h"
#include "strvec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --pin GLOB: repeatable, joined with ':' into SHARDCC_PIN for the seat. */
static int pin_arg(struct args *a, struct jobenv_opts *o)
{
    const char *glob;
    if (!args_value(a, "--pin", &glob))
        return 0;
    if (!*glob || strchr(glob, ':') || strchr(glob, '\n')) {
        report_error(a->cmd,
                     "--pin \"%s\": a glob of TU keys (source paths relative to the root, "
                     "'*' matching '/' too), not empty and without ':'",
                     glob);
        a->error = 1;
        return 0;
    }
    if (o->pins.len)
        sb_addc(&o->pins, ':');
    sb_adds(&o->pins, glob);
    return 1;
}

int jobenv_arg(struct args *a, struct jobenv_opts *o)
{
    return args_value(a, "--root", &o->root) || args_value(a, "--cache", &o->cache) ||
           args_value(a, "--journal", &o->journal) || args_value(a, "--real-nvcc", &o->real_nvcc) ||
           args_value(a, "--real-cxx", &o->real_cxx) || args_value(a, "--real-cc", &o->real_cc) ||
           args_value(a, "--ccache", &o->ccache) || args_value(a, "--cuda", &o->cuda) ||
           (args_flag(a, "--host-seat") && (o->host_seat = 1)) ||
           (args_flag(a, "--no-host-seat") && (o->host_seat = -1)) ||
           (args_flag(a, "--cuda-home-seat") && (o->cuda_home_seat = 1)) ||
           (args_flag(a, "--no-cuda-home-seat") && (o->cuda_home_seat = -1)) ||
           (args_flag(a, "--relocatable") && (o->relocatable = 1)) ||
           (args_flag(a, "--reproducible") && (o->reproducible = 1)) ||
           (args_flag(a, "--no-reproducible") && (o->reproducible = -1)) ||
           args_value(a, "--plan", &o->plan) || args_value(a, "--split-archs", &o->split_archs) ||
           args_value(a, "--remote", &o->remote) || args_value(a, "--run-id", &o->run_id) ||
           args_value(a, "--seed-from", &o->seed) || pin_arg(a, o);
}

static void add(json_t *vars, const char *name, const char *value)
{
    json_object_set_new(vars, name, json_string(value));
}

/* Whether the variable name (CXX, CC) is unset, empty, or names one program: a path or a
 * name on PATH (a shardcc seat too: env eval'd twice), not a command line. */
static int host_var_plain(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 1;
    struct strbuf found = STRBUF_INIT;
    int ok = plat_find_in_path(v, &found) == 0;
    sb_release(&found);
    return ok;
}

/* Builds the shadow CUDA_HOME at dir: every entry of the real toolkit root is a symbolic
 * link to the real one, except bin/, a directory of links in which nvcc is the seat. The
 * seat runs the real nvcc at its real path (nvcc finds cicc and the rest relative to
 * itself), so nothing but $CUDA_HOME/bin/nvcc changes for a build. */
static int make_shadow_cuda_home(const char *dir, const char *real_root, const char *seat,
                                 const char *cmd)
{
    struct strbuf p = STRBUF_INIT, t = STRBUF_INIT;
    int e = plat_rmtree(dir);
    if (!e)
        e = plat_mkdir_p(dir);
    if (!e) {
        sb_addf(&p, "%s/bin", dir);
        e = plat_mkdir_p(sb_str(&p));
    }
    struct strvec top = STRVEC_INIT, bin = STRVEC_INIT;
    if (!e)
        e = plat_list_dir(real_root, &top);
    sb_reset(&t);
    sb_addf(&t, "%s/bin", real_root);
    if (!e)
        e = plat_list_dir(sb_str(&t), &bin);
    for (size_t i = 0; !e && i < top.n; i++) {
        if (!strcmp(top.v[i], "bin"))
            continue;
        sb_reset(&p);
        sb_reset(&t);
        sb_addf(&p, "%s/%s", dir, top.v[i]);
        sb_addf(&t, "%s/%s", real_root, top.v[i]);
        e = plat_symlink(sb_str(&t), sb_str(&p));
    }
    for (size_t i = 0; !e && i < bin.n; i++) {
        sb_reset(&p);
        sb_reset(&t);
        sb_addf(&p, "%s/bin/%s", dir, bin.v[i]);
        if (!strcmp(bin.v[i], "nvcc"))
            sb_adds(&t, seat);
        else
            sb_addf(&t, "%s/bin/%s", real_root, bin.v[i]);
        e = plat_symlink(sb_str(&t), sb_str(&p));
    }
    if (e)
        report_error(cmd, "cannot make the shadow CUDA_HOME \"%s\" for \"%s\": %s", dir, real_root,
                     plat_strerror(e));
    sv_clear(&top);
    sv_clear(&bin);
    sb_release(&p);
    sb_release(&t);
    return e ? EXIT_IO : EXIT_OK;
}

int jobenv_root(const char *root, struct strbuf *out, const char *cmd)
{
    if (!root)
        root = ".";
    int e = plat_realpath(root, out);
    if (e) {
        report_error(cmd, "--root \"%s\": %s", root, plat_strerror(e));
        return EXIT_USAGE;
    }
    if (!plat_is_dir(sb_str(out))) {
        report_error(cmd, "--root \"%s\" is not a directory (the project root)", root);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int jobenv_state_defaults(struct jobenv_opts *o, const char *state, struct strbuf *cache,
                          struct strbuf *journal, const char *cmd)
{
    struct strbuf root = STRBUF_INIT;
    int rc = jobenv_root(o->root, &root, cmd);
    if (rc) {
        sb_release(&root);
        return rc;
    }
    sb_addf(cache, "%s/.shardcc/%s/cache", sb_str(&root), state);
    sb_addf(journal, "%s/.shardcc/%s/journal.tsv", sb_str(&root), state);
    sb_release(&root);
    if (!o->cache) {
        int e = plat_rmtree(sb_str(cache));
        if (e) {
            report_error(cmd, "cannot clear \"%s\": %s", sb_str(cache), plat_strerror(e));
            return EXIT_IO;
        }
        o->cache = sb_str(cache);
    }
    if (!o->journal)
        o->journal = sb_str(journal);
    return EXIT_OK;
}

static char *parent_dir(const char *path)
{
    return xstrndup(path, (size_t)(path_basename(path) - path));
}

/* The toolkit path the build would have used without the seat: the caller's CUDA_HOME (or
 * CUDA_PATH) when it names the same toolkit as the real nvcc's root, spelled as the caller
 * spelled it (/usr/local/cuda, not /usr/local/cuda-13.0), else the real nvcc's root. The
 * shadow is mapped back to it in the debug info, so the wheel matches an unsharded build's. */
static char *debug_root(const char *real_root, const char *shadow, const char *cmd)
{
    const char *names[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < 2; i++) {
        const char *old = getenv(names[i]);
        if (!old || !*old || !strcmp(old, shadow))
            continue; /* unset, or this job's own shadow: eval'd twice */
        struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
        int same = plat_realpath(old, &a) == 0 && plat_realpath(real_root, &b) == 0 &&
                   !strcmp(sb_str(&a), sb_str(&b));
        sb_release(&a);
        sb_release(&b);
        if (same) {
            size_t n = strlen(old);
            while (n > 1 && old[n - 1] == '/')
                n--;
            return xstrndup(old, n);
        }
        report_warning(cmd,
                       "%s=\"%s\" is not the toolkit of the real nvcc (\"%s\"): the shadow "
                       "CUDA_HOME follows the real nvcc, so the build uses another toolkit than "
                       "it would without the seat (pass --real-nvcc %s/bin/nvcc to keep %s's)",
                       names[i], old, real_root, old, names[i]);
        break;
    }
    return xstrdup(real_root);
}

/* Compares dotted version numbers ("4.7.5" < "4.10"); text after the numbers is ignored. */
static int version_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        char *ea, *eb;
        long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        a = *ea == '.' ? ea + 1 : ea + strlen(ea);
        b = *eb == '.' ? eb + 1 : eb + strlen(eb);
    }
    return 0;
}

/* shardcc reads ccache's per-call log and stats log lines and relies on its nvcc support:
 * a ccache older than the one it is tested with is refused (manylinux images offer EPEL's
 * ccache 3.7). */
static int check_ccache_version(const char *ccache, const char *v, const char *cmd)
{
    int ok = strcmp(v, "unknown") != 0 && v[0] >= '0' && v[0] <= '9' &&
             version_cmp(v, SHARDCC_CCACHE_MIN) >= 0;
    if (!ok)
        report_error(cmd,
                     "ccache %s (\"%s\") is older than %s, the oldest ccache shardcc is tested "
                     "with%s; install a newer one (the GitHub action does) or pass --ccache PATH",
                     v, ccache, SHARDCC_CCACHE_MIN,
                     strcmp(v, "unknown") ? "" : " (its --version could not be read)");
    return ok ? EXIT_OK : EXIT_USAGE;
}

/* The linker seat's directory: beside the binaries in a build tree, libexec/shardcc/ld-seat
 * in an installed one. */
static char *find_ld_seat(const char *bindir)
{
    const char *tails[] = {"/ld-seat", "/../libexec/shardcc/ld-seat"};
    struct strbuf p = STRBUF_INIT, r = STRBUF_INIT;
    for (size_t i = 0; i < 2; i++) {
        sb_reset(&p);
        sb_addf(&p, "%s%s/ld", bindir, tails[i]);
        if (plat_is_executable(sb_str(&p)) && plat_realpath(sb_str(&p), &r) == 0) {
            sb_reset(&p);
            sb_addf(&p, "%s%s", bindir, tails[i]);
            sb_reset(&r);
            plat_realpath(sb_str(&p), &r);
            sb_release(&p);
            return sb_detach(&r);
        }
    }
    sb_release(&p);
    sb_release(&r);
    return NULL;
}

/* The seats' paths as the build's programs are run by: on Windows with '\\', which cmd.exe
 * needs in a program's name (it reads "C:/dir/cc.exe" as "C:" and options); elsewhere as
 * they are. Returns sb's string. */
static const char *native_path(struct strbuf *sb)
{
#ifdef _WIN32
    for (size_t i = 0; i < sb->len; i++)
        if (sb->buf[i] == '/')
            sb->buf[i] = '\\';
#endif
    return sb_str(sb);
}

/* dir first in the path-list value of name (':' between entries, ';' on Windows; once: an
 * environment eval'd twice stays the same) */
static void add_path_first(json_t *vars, const char *name, const char *dir)
{
    const char *old = getenv(name);
    struct strbuf sb = STRBUF_INIT;
    size_t n = strlen(dir);
    if (old && !strncmp(old, dir, n) && (old[n] == PLAT_PATHSEP || !old[n]))
        sb_adds(&sb, old);
    else
        sb_addf(&sb, "%s%s%s", dir, old && *old ? PLAT_PATHSEP_S : "", old ? old : "");
    add(vars, name, sb_str(&sb));
    sb_release(&sb);
}

/* The linker seat on PATH (gcc's collect2 looks for ld there) and COMPILER_PATH (clang and
 * gcc look there first). ccache hashes COMPILER_PATH: it is the same in every job that uses
 * one installation of shardcc. */
static int ld_seat_env(struct jobenv *env, const char *bindir, const char *cmd)
{
#ifdef _WIN32
    /* none on Windows: link.exe and lld-link are run by their paths, and _LINK_ lets a
     * shard's links finish (link_env; docs/windows.md) */
    (void)env, (void)bindir, (void)cmd, (void)find_ld_seat;
    return EXIT_OK;
#endif
    env->ld_seat = find_ld_seat(bindir);
    if (!env->ld_seat) {
        report_error(cmd,
                     "the linker seat is missing: neither %s/ld-seat/ld nor "
                     "%s/../libexec/shardcc/ld-seat/ld exists (reinstall shardcc)",
                     bindir, bindir);
        return EXIT_IO;
    }
    add_path_first(env->set, "PATH", env->ld_seat);
    add_path_first(env->set, "COMPILER_PATH", env->ld_seat);
    return EXIT_OK;
}

#define FORCE_UNRESOLVED "/FORCE:UNRESOLVED"

/* MSVC's link.exe and lld-link read more options from the variable _LINK_ (and LINK). In
 * a shard the objects of other shards' TUs are stubs: a DLL links without their exports,
 * and what links against its import library misses them. /FORCE:UNRESOLVED lets every
 * link of a shard finish (nothing it links is kept: the link job links again); the link
 * job and a plain build get _LINK_ without it (an earlier eval's removed). */
static void link_env(struct jobenv *env, int shard)
{
    const char *old = getenv("_LINK_");
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = old; p && *p;) { /* old, less every /FORCE:UNRESOLVED */
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n && !(n == sizeof FORCE_UNRESOLVED - 1 && !strncmp(p, FORCE_UNRESOLVED, n))) {
            if (sb.len)
                sb_addc(&sb, ' ');
            sb_add(&sb, p, n);
        }
        p += n;
    }
    if (shard) {
        if (sb.len)
            sb_addc(&sb, ' ');
        sb_adds(&sb, FORCE_UNRESOLVED);
    }
    if (sb.len)
        add(env->set, "_LINK_", sb_str(&sb));
    else if (old)
        json_array_append_new(env->unset, json_string("_LINK_"));
    sb_release(&sb);
}

/* Whether the shadow CUDA_HOME is safe by default: the nvcc torch would run
 * ($CUDA_HOME/bin/nvcc by torch's rule) is the nvcc CMake's seat runs, and its root is a
 * CUDA toolkit of its own (ROOT/bin/nvcc, ROOT/include/cuda_runtime.h; not /usr, whose
 * every entry the shadow would link). Then builds that run $CUDA_HOME/bin/nvcc (torch's
 * setuptools backend, older torch, setup.py files that overwrite PYTORCH_NVCC) reach a seat
 * with no flag, and nothing else changes for the others. */
/* The toolkit root the shadow stands for, without a trailing '/': the nvcc that
 * $CUDA_HOME/bin/nvcc means (torch's; with --cuda-home-seat, the real nvcc itself) is
 * ROOT/bin/nvcc. */
static char *shadow_root(const struct toolchain *tc)
{
    char *bin = parent_dir(tc->torch_nvcc ? tc->torch_nvcc : tc->nvcc); /* ROOT/bin/ */
    if (strlen(bin) > 1)
        bin[strlen(bin) - 1] = '\0';
    char *root = parent_dir(bin); /* ROOT/ */
    if (strlen(root) > 1)
        root[strlen(root) - 1] = '\0';
    free(bin);
    return root;
}

static int cuda_home_auto(const struct toolchain *tc)
{
    if (!toolchain_same_toolkit(tc))
        return 0;
    const char *nvcc = tc->torch_nvcc ? tc->torch_nvcc : tc->nvcc;
    char *root = shadow_root(tc);
    struct strbuf p = STRBUF_INIT, r = STRBUF_INIT;
    sb_addf(&p, "%s/include/cuda_runtime.h", root);
    int ok = !strcmp(path_basename(nvcc), "nvcc") && plat_file_exists(sb_str(&p)) &&
             plat_realpath(root, &r) == 0 && strcmp(sb_str(&r), "/") && strcmp(sb_str(&r), "/usr");
    free(root);
    sb_release(&p);
    sb_release(&r);
    return ok;
}

/* The cell's CUDA against the toolkit the seats would run: a cell built for one CUDA by
 * another is a wrong artifact that every other guard passes (the seat resolves nvcc before
 * the build runs, so a build command that puts another toolkit on PATH does not change it). */
static int check_cell_cuda(const struct jobenv_opts *o, const struct toolchain *tc, const char *cmd)
{
    if (o->cuda_checked)
        return EXIT_OK;
    const char *want = o->cuda, *from = "--cuda";
    if (!want) {
        want = getenv("SHARDCC_CELL_CUDA");
        from = "SHARDCC_CELL_CUDA";
        if (!want || !*want)
            return EXIT_OK;
    }
    if (cuda_version_matches(want, "0.0") < 0) {
        report_error(cmd, "%s \"%s\": the cell's CUDA is a release X.Y or X.Y.Z (13.0, 12.8.1)",
                     from, want);
        return EXIT_USAGE;
    }
    const char *nvccs[] = {tc->nvcc, tc->torch_nvcc};
    for (size_t i = 0; i < 2; i++) {
        if (!nvccs[i] || (i && tc->nvcc && !strcmp(nvccs[i], tc->nvcc)))
            continue;
        char *have = nvcc_release(nvccs[i]);
        int ok = have && cuda_version_matches(want, have) == 1;
        if (!ok)
            report_error(cmd,
                         "the cell's CUDA is %s (%s) but %s, the nvcc this job's %s would run, "
                         "%s%s: install the cell's toolkit before shardcc starts and name it "
                         "(--real-nvcc, CUDACXX, CUDA_HOME or PATH); a build command that "
                         "changes PATH itself comes too late, the seat has resolved nvcc",
                         want, from, nvccs[i], i ? "PYTORCH_NVCC seat" : "seats",
                         have ? "is CUDA " : "does not say its version (nvcc --version)",
                         have ? have : "");
        free(have);
        if (!ok)
            return EXIT_USAGE;
    }
    return EXIT_OK;
}

int jobenv_check_cuda(struct jobenv_opts *o, const char *cmd)
{
    const char *cell = getenv("SHARDCC_CELL_CUDA");
    if (!o->cuda && !(cell && *cell))
        return EXIT_OK;
    struct toolchain tc;
    memset(&tc, 0, sizeof tc);
    int rc = toolchain_find(&tc, o->real_nvcc, o->real_cxx, o->real_cc, o->ccache,
                            o->cuda_home_seat > 0);
    if (!rc)
        rc = check_cell_cuda(o, &tc, cmd);
    toolchain_release(&tc);
    o->cuda_checked = rc == EXIT_OK;
    return rc;
}

/* Reproducible objects (the seats run nvcc's plan, src/wrap/pipeline.h) fall back to
 * nvcc's --objdir-as-tempdir for a call whose plan they cannot run, so they need it in
 * every nvcc the seats run (the CUDACXX seat's and the torch seat's): on by default where
 * they all list it in --help, refused when asked for and one does not. */
static int resolve_reproducible(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    const char *nv[] = {env->tc.nvcc, env->tc.torch_nvcc};
    const char *lacking = NULL;
    for (size_t i = 0; i < 2 && !lacking && o->reproducible >= 0; i++)
        if (nv[i] && (i == 0 || !nv[0] || strcmp(nv[0], nv[i]) != 0) &&
            !nvcc_has_option(nv[i], "--objdir-as-tempdir"))
            lacking = nv[i];
    if (lacking && o->reproducible > 0) {
        report_error(cmd,
                     "--reproducible: \"%s\" has no --objdir-as-tempdir option (its --help "
                     "does not list it; an older CUDA): drop --reproducible",
                     lacking);
        return EXIT_USAGE;
    }
    env->reproducible = o->reproducible > 0 || (o->reproducible == 0 && !lacking);
    return EXIT_OK;
}

int jobenv_remote(const struct jobenv_opts *o, struct remote **remote, char **run_id,
                  const char *cmd)
{
    *remote = NULL;
    *run_id = NULL;
    const char *url = o->remote ? o->remote : getenv("SHARDCC_REMOTE");
    if (!url || !*url) {
        if (o->run_id && !remote_run_id_ok(o->run_id)) {
            report_error(cmd, "--run-id \"%s\": use letters, digits, '.', '_', '+', '-'",
                         o->run_id);
            return EXIT_USAGE;
        }
        return EXIT_OK;
    }
    struct remote *r = xmalloc(sizeof *r);
    struct strbuf err = STRBUF_INIT;
    if (remote_parse(url, r, &err) != 0) {
        report_error(cmd, "%s%s", o->remote ? "--remote " : "SHARDCC_REMOTE=", sb_str(&err));
        sb_release(&err);
        free(r);
        return EXIT_USAGE;
    }
    sb_release(&err);
    if (r->literal_password && !o->remote_checked)
        report_warning(cmd,
                       "%s: the password is written in the URL, so it is in the build's "
                       "environment (CCACHE_REMOTE_STORAGE) and in shardcc env's output: keep "
                       "it in a variable and write ${NAME} in its place (ccache and shardcc "
                       "expand it)",
                       r->display);
    if (r->password && !r->loopback && !o->remote_checked)
        report_warning(cmd,
                       "%s: the credentials travel in clear text to %s: ccache 4.7 speaks "
                       "neither TLS to Redis nor HTTPS; use a private network or a tunnel",
                       r->display, r->host);
    *remote = r;
    *run_id = jobenv_run_id(o->run_id);
    if (*run_id && !remote_run_id_ok(*run_id)) {
        report_error(cmd, "the run id \"%s\" (%s): use letters, digits, '.', '_', '+', '-'",
                     *run_id, o->run_id ? "--run-id" : "from the environment");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The job's places: the root, the cache and the journal (absolute). */
static int build_paths(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    struct strbuf sb = STRBUF_INIT, cwd = STRBUF_INIT;
    int rc = jobenv_root(o->root, &sb, cmd);
    if (rc) {
        sb_release(&sb);
        return rc;
    }
    env->root = sb_detach(&sb);
    plat_getcwd(&cwd);
    if (o->cache)
        path_absolute(sb_str(&cwd), o->cache, &sb);
    else
        sb_addf(&sb, "%s/.shardcc/cache", env->root);
    env->cache = sb_detach(&sb);
    if (o->journal)
        path_absolute(sb_str(&cwd), o->journal, &sb);
    else
        sb_addf(&sb, "%s/.shardcc/journal.tsv", env->root);
    env->journal = sb_detach(&sb);
    sb_release(&cwd);
    return EXIT_OK;
}

/* The tools and what follows from them: the toolchain (the cell's CUDA and ccache's version
 * checked), reproducible objects, --split-archs, the remote, the fingerprint. */
static int build_tools(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    int rc = toolchain_find(&env->tc, o->real_nvcc, o->real_cxx, o->real_cc, o->ccache,
                            o->cuda_home_seat > 0);
    if (!rc)
        rc = check_cell_cuda(o, &env->tc, cmd);
    if (!rc) {
        env->ccache_version = ccache_version(env->tc.ccache);
        rc = check_ccache_version(env->tc.ccache, env->ccache_version, cmd);
    }
    if (!rc)
        rc = resolve_reproducible(o, env, cmd);
    if (rc)
        return rc;
    /* --split-archs, else the caller's SHARDCC_SPLIT_ARCHS, else the default */
    const char *sa = o->split_archs ? o->split_archs : getenv(SPLIT_ARCHS_ENV);
    if (split_archs_parse(sa, &env->split_archs) != 0) {
        report_error(cmd, "%s\"%s\" is not a number of architectures 0..1000",
                     o->split_archs ? "--split-archs " : SPLIT_ARCHS_ENV "=", sa);
        return EXIT_USAGE;
    }
    if ((rc = jobenv_remote(o, &env->remote, &env->run_id, cmd)) != EXIT_OK)
        return rc;
    struct strbuf sb = STRBUF_INIT;
    rc = toolchain_fingerprint(&env->tc, &sb);
    if (rc) {
        sb_release(&sb);
        return rc;
    }
    env->fingerprint = sb_detach(&sb);
    return EXIT_OK;
}

/* The journal's directory and the cache made (shardcc env makes the journal's only for the
 * plan it writes there), and a warm start's seed where ccache and the seat read it, beside
 * the journal. */
static int build_dirs_and_seed(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    char *jdir = parent_dir(env->journal);
    const char *dirs[] = {jdir, env->cache};
    int rc = EXIT_OK;
    for (size_t i = 0; i < (o->print_only ? (o->plan && o->count ? 1u : 0u) : 2u) && !rc; i++) {
        int e = plat_mkdir_p(dirs[i]);
        if (e) {
            report_error(cmd, "cannot create \"%s\": %s", dirs[i], plat_strerror(e));
            rc = EXIT_IO;
        }
    }
    struct strbuf sb = STRBUF_INIT;
    if (!rc && o->seed && seed_is_url(o->seed)) {
        struct remote sr;
        struct strbuf err = STRBUF_INIT;
        if (remote_parse(o->seed, &sr, &err) != 0) {
            report_error(cmd, "--seed-from %s", sb_str(&err));
            rc = EXIT_USAGE;
        } else {
            sb_addf(&sb, "%s%s", sr.ccache, sr.read_only ? "" : "|read-only");
            env->seed_storage = sb_detach(&sb);
            env->seed_display = xstrdup(sr.display);
            remote_release(&sr);
        }
        sb_release(&err);
    } else if (!rc && o->seed) {
        sb_addf(&sb, "%s/seed", jdir);
        rc = seed_prepare(o->seed, sb_str(&sb), &env->seed_entries, cmd);
        if (!rc) {
            struct strbuf st = STRBUF_INIT;
            sb_addf(&st, "file:%s/ccache|read-only", sb_str(&sb));
            env->seed_storage = sb_detach(&st);
            sb_adds(&sb, "/store");
            env->seed_store = sb_detach(&sb);
            env->seed_display = xstrdup(o->seed);
            fprintf(stderr, "%s: a warm start from %s: %zu entries\n", cmd, o->seed,
                    env->seed_entries);
        }
    }
    sb_release(&sb);
    free(jdir);
    return rc;
}

/* The seat's own variables: the root, the phase, the shard, the real tools, the host
 * compilers the fingerprint covers (an nvcc -ccbin naming another is hashed), the journal. */
static void build_seat_vars(const struct jobenv_opts *o, struct jobenv *env)
{
    json_t *v = env->set;
    struct strbuf sb = STRBUF_INIT;
    add(v, "SHARDCC_ROOT", env->root);
    add(v, "SHARDCC_PHASE", o->count ? "shard" : o->plain ? "plain" : "link");
    if (o->count) {
        sb_addf(&sb, "%d/%d", o->shard, o->count);
        add(v, "SHARDCC_SHARD", sb_str(&sb));
        sb_reset(&sb);
    } else {
        json_array_append_new(env->unset, json_string("SHARDCC_SHARD"));
    }
    json_array_append_new(env->unset, json_string("SHARDCC_DEPTH"));
    add(v, "SHARDCC_REAL_NVCC", env->tc.nvcc);
    add(v, "SHARDCC_REAL_NVCC_TORCH", env->tc.torch_nvcc);
    add(v, "SHARDCC_REAL_CXX", env->tc.cxx);
    add(v, "SHARDCC_REAL_CC", env->tc.cc);
    struct strbuf rx = STRBUF_INIT, rc = STRBUF_INIT;
    if (plat_realpath(env->tc.cxx, &rx) != 0)
        sb_adds(&rx, env->tc.cxx);
    if (plat_realpath(env->tc.cc, &rc) != 0)
        sb_adds(&rc, env->tc.cc);
    sb_addf(&sb, "%s%c%s", sb_str(&rx), PLAT_PATHSEP, sb_str(&rc));
    add(v, "SHARDCC_HOST_COVERED", sb_str(&sb));
    sb_release(&rx);
    sb_release(&rc);
    sb_release(&sb);
    add(v, "SHARDCC_CCACHE", env->tc.ccache);
    add(v, "SHARDCC_JOURNAL", env->journal);
}

/* The plan: its digest, and for a shard the seat's form beside the journal (SHARDCC_PLAN);
 * the pins. */
static int build_plan_vars(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    json_t *v = env->set;
    if (o->plan) {
        struct strbuf seat = STRBUF_INIT, digest = STRBUF_INIT, err = STRBUF_INIT,
                      path = STRBUF_INIT;
        int prc = plan_load(o->plan, o->count, o->cell, &seat, &digest, &err);
        if (prc) {
            report_error(cmd, "%s", sb_str(&err));
        } else if (o->count) {
            char *dir = parent_dir(env->journal);
            sb_addf(&path, "%splan.tsv", dir);
            free(dir);
            int e = plat_write_atomic(sb_str(&path), seat.buf, seat.len);
            if (e) {
                report_error(cmd, "cannot write \"%s\": %s", sb_str(&path), plat_strerror(e));
                prc = EXIT_IO;
            } else {
                add(v, "SHARDCC_PLAN", sb_str(&path));
            }
        }
        if (!prc)
            env->plan_digest = sb_detach(&digest);
        sb_release(&seat);
        sb_release(&digest);
        sb_release(&err);
        sb_release(&path);
        if (prc)
            return prc;
    }
    if (!o->plan || !o->count)
        json_array_append_new(env->unset, json_string("SHARDCC_PLAN"));
    if (o->count && o->pins.len)
        add(v, "SHARDCC_PIN", sb_str(&o->pins));
    else
        json_array_append_new(env->unset, json_string("SHARDCC_PIN"));
    return EXIT_OK;
}

/* The compiler seats: ccache off for a launcher of the build's own (CMAKE_<LANG>_COMPILER_
 * LAUNCHER=ccache would cache a shard's stubs under keys of its own and hand them to the
 * link job without the seat seeing the call; the seat removes it from the environment of
 * the ccache it runs), PYTORCH_NVCC and CUDACXX (torch runs $CUDA_HOME/bin/nvcc where CMake
 * runs CUDACXX or PATH's nvcc: a seat each, so that each runs the nvcc its build would have
 * run), and the host seats. With --host-seat they shard every host TU; by default ("torch")
 * only the TUs of torch extensions (-DTORCH_EXTENSION_NAME=), which run nothing they build,
 * and every other call goes straight to the real compiler; --no-host-seat leaves CXX and CC
 * alone. By default a CXX or CC that is not one program (CXX="ccache g++") is left alone
 * too: the seat would drop the rest of it. */
static void build_compiler_seats(const struct jobenv_opts *o, struct jobenv *env,
                                 const char *bindir)
{
    json_t *v = env->set;
    struct strbuf sb = STRBUF_INIT;
    add(v, "CCACHE_DISABLE", "1");
    sb_addf(&sb, "%s/shardcc-nvcc-torch" PLAT_EXE, bindir);
    add(v, "PYTORCH_NVCC", native_path(&sb));
    sb_reset(&sb);
    sb_addf(&sb, "%s/shardcc-nvcc" PLAT_EXE, bindir);
    add(v, "CUDACXX", native_path(&sb));
    sb_reset(&sb);
    if (o->host_seat >= 0) {
        static const char *const var[] = {"CXX", "CC"}, *const seat[] = {"c++", "cc"};
        const char *given[] = {o->real_cxx, o->real_cc};
        for (size_t i = 0; i < 2; i++) {
            if (o->host_seat == 0 && !given[i] && !host_var_plain(var[i]))
                continue;
            sb_addf(&sb, "%s/shardcc-%s" PLAT_EXE, bindir, seat[i]);
            add(v, var[i], native_path(&sb));
            sb_reset(&sb);
        }
        add(v, "SHARDCC_HOST_SEAT", o->host_seat > 0 ? "all" : "torch");
    } else {
        json_array_append_new(env->unset, json_string("SHARDCC_HOST_SEAT"));
    }
    sb_release(&sb);
}

/* The shadow CUDA_HOME, where it is made: its bin/nvcc the seat (shardcc-env(1)). */
static int build_cuda_home(const struct jobenv_opts *o, struct jobenv *env, const char *bindir,
                           const char *cmd)
{
    json_t *v = env->set;
#ifdef _WIN32
    /* the shadow toolkit is made of symbolic links, which need a privilege on Windows:
     * torch's $CUDA_HOME/bin/nvcc is seated through PYTORCH_NVCC alone (docs/windows.md) */
    (void)bindir;
    if (o->cuda_home_seat > 0) {
        report_error(cmd, "--cuda-home-seat: the shadow CUDA_HOME is not made on Windows "
                          "(it is symbolic links); PYTORCH_NVCC and CUDACXX are the seats");
        return EXIT_USAGE;
    }
    int shadow = 0;
    (void)cuda_home_auto;
#else
    int shadow = o->cuda_home_seat > 0 || (o->cuda_home_seat == 0 && cuda_home_auto(&env->tc));
#endif
    if (!shadow) {
        json_array_append_new(env->unset, json_string("SHARDCC_CUDA_SHADOW"));
        json_array_append_new(env->unset, json_string("SHARDCC_CUDA_REAL"));
        return EXIT_OK;
    }
    struct strbuf sb = STRBUF_INIT, seat = STRBUF_INIT;
    char *real_root = shadow_root(&env->tc);
    sb_addf(&sb, "%s/.shardcc/cuda-home", env->root);
    sb_addf(&seat, "%s/shardcc-wrap", bindir);
    int rc = make_shadow_cuda_home(sb_str(&sb), real_root, sb_str(&seat), cmd);
    sb_release(&seat);
    if (rc) {
        free(real_root);
        sb_release(&sb);
        return rc;
    }
    env->cuda_home = sb_detach(&sb);
    env->cuda_real = debug_root(real_root, env->cuda_home, cmd);
    free(real_root);
    add(v, "CUDA_HOME", env->cuda_home);
    add(v, "SHARDCC_CUDA_SHADOW", env->cuda_home);
    add(v, "SHARDCC_CUDA_REAL", env->cuda_real);
    if (o->cuda_home_seat > 0) {
        /* asked for: also the builds that take CUDA_PATH or nvcc from PATH. By default
         * only CUDA_HOME (torch's), so that CMake's FindCUDAToolkit (CUDA_PATH, PATH)
         * finds the toolkit as it would without shardcc */
        add(v, "CUDA_PATH", env->cuda_home);
        const char *path = json_string_value(json_object_get(v, "PATH")); /* the ld seat's */
        sb_addf(&sb, "%s/bin%s%s", env->cuda_home, path && *path ? PLAT_PATHSEP_S : "",
                path ? path : "");
        add(v, "PATH", sb_str(&sb));
        sb_reset(&sb);
    }
    /* Builds pass -I$CUDA_HOME/include to the host compiler too; with -g the shadow's
     * path would land in the debug info. Map it back to the real toolkit's (GCC and
     * clang leave -fdebug-prefix-map out of the switches they record). CPPFLAGS, which
     * setuptools appends to the C and C++ flags alike: a CFLAGS or CXXFLAGS of ours
     * would replace Python's own (-O2 -g ...) in setuptools >= 75.7, so those two get
     * the map only where the caller set them already. */
    static const char *const flagvars[] = {"CPPFLAGS", "CFLAGS", "CXXFLAGS"};
    for (size_t i = 0; i < 3; i++) {
        const char *old = getenv(flagvars[i]);
        if (i > 0 && (!old || !*old))
            continue;
        if (old && strstr(old, "-fdebug-prefix-map=") && strstr(old, env->cuda_home))
            continue; /* already mapped: eval'd twice */
        sb_addf(&sb, "%s%s-fdebug-prefix-map=%s=%s", old ? old : "", old && *old ? " " : "",
                env->cuda_home, env->cuda_real);
        add(v, flagvars[i], sb_str(&sb));
        sb_reset(&sb);
    }
    sb_release(&sb);
    return EXIT_OK;
}

/* ccache's variables: the cache, the base directory (--relocatable), the remote storage and
 * the seed, and how it hashes. */
static void build_ccache_vars(const struct jobenv_opts *o, struct jobenv *env)
{
    json_t *v = env->set;
    struct strbuf sb = STRBUF_INIT;
    add(v, "CCACHE_DIR", env->cache);
    add(v, "SHARDCC_CCACHE_DIR", env->cache); /* the seat's ccache uses it, whatever a
                                                 launcher of the build sets CCACHE_DIR to */
    /* Without CCACHE_BASEDIR the compiler sees the argv the unsharded build gives it, so
     * debug info and __FILE__ hold the same absolute paths; the price is that every job must
     * run at one root (the link job's guard checks it). With it, ccache rewrites paths under
     * the root to relative ones, for the hash and for the compiler alike. */
    if (o->relocatable)
        add(v, "CCACHE_BASEDIR", env->root);
    else
        json_array_append_new(env->unset, json_string("CCACHE_BASEDIR"));
    if (env->reproducible)
        add(v, "SHARDCC_REPRODUCIBLE", "1");
    else
        json_array_append_new(env->unset, json_string("SHARDCC_REPRODUCIBLE"));
    sb_addf(&sb, "%d", env->split_archs);
    add(v, SPLIT_ARCHS_ENV, sb_str(&sb));
    sb_reset(&sb);
    /* ccache's remote storage: the hand-off (--remote), read-only in the link job; else none,
     * whatever ccache.conf or the caller's environment name: the shards' artifacts are the
     * one source of the link job's hits */
    if (env->remote && !o->plain) {
        sb_adds(&sb, env->remote->ccache);
        if (!o->count && !env->remote->read_only)
            sb_adds(&sb, "|read-only");
    }
    if (env->seed_storage) /* after the remote: ccache asks them in order */
        sb_addf(&sb, "%s%s", sb.len ? " " : "", env->seed_storage);
    add(v, "CCACHE_REMOTE_STORAGE", sb_str(&sb));
    sb_reset(&sb);
    if (env->seed_store)
        add(v, "SHARDCC_SEED_STORE", env->seed_store);
    else
        json_array_append_new(env->unset, json_string("SHARDCC_SEED_STORE"));
    add(v, "CCACHE_NOHASHDIR", "1");
    add(v, "CCACHE_MAXSIZE", "0");
    add(v, "CCACHE_SLOPPINESS", "include_file_mtime,include_file_ctime,time_macros,locale");
    sb_addf(&sb, "string:%s", env->fingerprint);
    add(v, "CCACHE_COMPILERCHECK", sb_str(&sb));
    sb_release(&sb);
}

int jobenv_build(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    memset(env, 0, sizeof *env);
    struct strbuf bindir = STRBUF_INIT;
    int rc;
    if ((rc = build_paths(o, env, cmd)) != EXIT_OK || (rc = build_tools(o, env, cmd)) != EXIT_OK)
        goto out;
    if (shardcc_bindir(&bindir) != 0) {
        report_error(cmd, "cannot find the directory of the shardcc binary");
        rc = EXIT_IO;
        goto out;
    }
    if ((rc = build_dirs_and_seed(o, env, cmd)) != EXIT_OK)
        goto out;
    env->set = json_object();
    env->unset = json_array();
    build_seat_vars(o, env);
    if ((rc = build_plan_vars(o, env, cmd)) != EXIT_OK ||
        (rc = ld_seat_env(env, sb_str(&bindir), cmd)) != EXIT_OK)
        goto out;
    link_env(env, o->count != 0);
    build_compiler_seats(o, env, sb_str(&bindir));
    if ((rc = build_cuda_home(o, env, sb_str(&bindir), cmd)) != EXIT_OK)
        goto out;
    build_ccache_vars(o, env);
out:
    sb_release(&bindir);
    if (rc)
        jobenv_release(env); /* nothing half-made is left to the caller */
    return rc;
}

char *jobenv_run_id(const char *given)
{
    if (given && *given)
        return xstrdup(given);
    static const char *const var[][2] = {{"SHARDCC_RUN_ID", ""},
                                         {"GITHUB_RUN_ID", "github-"},
                                         {"CI_PIPELINE_ID", "gitlab-"},
                                         {"BUILDKITE_BUILD_ID", "buildkite-"},
                                         {"CIRCLE_WORKFLOW_ID", "circleci-"}};
    for (size_t i = 0; i < sizeof var / sizeof *var; i++) {
        const char *v = getenv(var[i][0]);
        if (v && *v) {
            struct strbuf sb = STRBUF_INIT;
            sb_addf(&sb, "%s%s", var[i][1], v);
            return sb_detach(&sb);
        }
    }
    return NULL;
}

void jobenv_apply(const struct jobenv *env)
{
    const char *k;
    json_t *v;
    json_object_foreach(env->set, k, v) setenv(k, json_string_value(v), 1);
    size_t i;
    json_array_foreach(env->unset, i, v) unsetenv(json_string_value(v));
}

void jobenv_release(struct jobenv *env)
{
    json_decref(env->set);
    json_decref(env->unset);
    free(env->root);
    free(env->cache);
    free(env->journal);
    free(env->fingerprint);
    free(env->cuda_home);
    free(env->cuda_real);
    free(env->plan_digest);
    free(env->ccache_version);
    free(env->ld_seat);
    if (env->remote)
        remote_release(env->remote);
    free(env->remote);
    free(env->run_id);
    free(env->seed_storage);
    free(env->seed_store);
    free(env->seed_display);
    toolchain_release(&env->tc);
    memset(env, 0, sizeof *env);
}
