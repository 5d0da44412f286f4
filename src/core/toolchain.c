/* toolchain: locating the real compilers behind the seats and digesting them into the
 * fingerprint ccache gets as compiler_check=string:<fp> (docs/design.md, "The fingerprint").
 * One digest of every program that does real work, computed once per job: faster than
 * ccache's per-call "content" check and it covers cicc and ptxas, which that does not. */
#include "toolchain.h"
#include "job.h"
#include "path.h"
#include "platform.h"
#include "seat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static int is_shardcc_seat(const char *path)
{
    struct strbuf r = STRBUF_INIT;
    const char *p = plat_realpath(path, &r) == 0 ? sb_str(&r) : path;
    int seat = strncmp(path_basename(p), "shardcc", 7) == 0;
    sb_release(&r);
    return seat;
}

/* The first candidate that is an executable file and not a seat; NULL when none. */
static char *first_real(const char *const *cands, size_t n)
{
    struct strbuf found = STRBUF_INIT, abs = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        if (plat_find_in_path(cands[i], &found) != 0)
            continue;
        if (is_shardcc_seat(sb_str(&found)))
            continue;
        if (plat_realpath(sb_str(&found), &abs) != 0)
            continue;
        /* keep the path as found (nvcc finds cicc relative to itself, via its own dir) */
        char *r = path_is_absolute(sb_str(&found)) ? sb_detach(&found) : sb_detach(&abs);
        sb_release(&found);
        sb_release(&abs);
        return r;
    }
    sb_release(&found);
    sb_release(&abs);
    return NULL;
}

/* out = home's bin/nvcc, spelled as torch's os.path.join spells it: home's trailing '/'s
 * dropped ("/" stays "/"). */
static void home_nvcc(const char *home, size_t n, struct strbuf *out)
{
    while (n > 1 && home[n - 1] == '/')
        n--;
    sb_add(out, home, n);
    sb_adds(out, n == 1 && home[0] == '/' ? "bin/nvcc" : "/bin/nvcc");
}

/* The nvcc torch.utils.cpp_extension runs, spelled as torch spells it (torch 2.11): a
 * PYTORCH_NVCC that names an nvcc, else (_find_cuda_home) cuda_home_nvcc (the
 * $CUDA_HOME/bin/nvcc, else $CUDA_PATH/bin/nvcc, toolchain_find built; "" when neither is
 * set), else the nvcc on PATH two directories up and then bin/nvcc, else
 * /usr/local/cuda/bin/nvcc. The PYTORCH_NVCC seat runs that one, not the CUDACXX seat's:
 * nvcc derives its include paths from the path it was started by, and -g or -lineinfo
 * writes them into the objects. SHARDCC_REAL_NVCC_TORCH (an earlier eval, or the user)
 * comes first; when none of them is an executable file that is not a seat, nvcc. */
static char *torch_nvcc(const char *nvcc, const char *cuda_home_nvcc)
{
    struct strbuf guess = STRBUF_INIT, found = STRBUF_INIT;
    if (!*cuda_home_nvcc) {
        if (plat_find_in_path("nvcc", &found) == 0) {
            /* dirname(dirname(found)) */
            const char *f = sb_str(&found);
            size_t n = (size_t)(path_basename(f) - f); /* "DIR/" */
            while (n > 1 && f[n - 1] == '/')
                n--;
            char *dir = xstrndup(f, n);
            size_t m = (size_t)(path_basename(dir) - dir);
            home_nvcc(dir, m > 1 ? m - 1 : m, &guess);
            free(dir);
        } else {
            home_nvcc("/usr/local/cuda", 15, &guess);
        }
    }
    const char *cands[] = {getenv("SHARDCC_REAL_NVCC_TORCH"), getenv("PYTORCH_NVCC"),
                           *cuda_home_nvcc ? cuda_home_nvcc : sb_str(&guess), nvcc};
    char *r = first_real(cands, sizeof cands / sizeof cands[0]);
    sb_release(&guess);
    sb_release(&found);
    return r ? r : xstrdup(nvcc);
}

int toolchain_find(struct toolchain *tc, const char *nvcc, const char *cxx, const char *cc,
                   const char *ccache, int cuda_home_first)
{
    memset(tc, 0, sizeof *tc);
    struct strbuf home = STRBUF_INIT;
    /* torch's order: a non-empty CUDA_HOME, else CUDA_PATH */
    const char *cuda_home = getenv("CUDA_HOME");
    if (!cuda_home || !*cuda_home)
        cuda_home = getenv("CUDA_PATH");
    if (cuda_home && *cuda_home)
        home_nvcc(cuda_home, strlen(cuda_home), &home);
    const char *first = cuda_home_first ? sb_str(&home) : NULL;
    const char *nv[] = {
        nvcc,          getenv("SHARDCC_REAL_NVCC"), first, getenv("CUDACXX"), "nvcc",
        sb_str(&home), "/usr/local/cuda/bin/nvcc"};
#ifdef _WIN32
    /* MSVC's cl first, as nvcc, torch and CMake take it there */
    const char *cx[] = {cxx, getenv("SHARDCC_REAL_CXX"), getenv("CXX"), "cl", "clang-cl", "g++"};
    const char *c[] = {cc, getenv("SHARDCC_REAL_CC"), getenv("CC"), "cl", "clang-cl", "gcc"};
#else
    const char *cx[] = {cxx, getenv("SHARDCC_REAL_CXX"), getenv("CXX"), "c++", "g++", "clang++"};
    const char *c[] = {cc, getenv("SHARDCC_REAL_CC"), getenv("CC"), "cc", "gcc", "clang"};
#endif
    const char *ca[] = {ccache, getenv("SHARDCC_CCACHE"), "ccache"};
    const char *given[] = {nvcc, cxx, cc, ccache};
    const char *flag[] = {"--real-nvcc", "--real-cxx", "--real-cc", "--ccache"};
    for (size_t i = 0; i < 4; i++) {
        char *r = given[i] ? first_real(&given[i], 1) : NULL;
        free(r);
        if (given[i] && !r) {
            sb_release(&home);
            report_error("shardcc", "%s \"%s\" is not an executable file (or is a shardcc seat)",
                         flag[i], given[i]);
            return 2;
        }
    }
    tc->nvcc = first_real(nv, sizeof nv / sizeof nv[0]);
    if (tc->nvcc)
        tc->torch_nvcc =
            nvcc || cuda_home_first ? xstrdup(tc->nvcc) : torch_nvcc(tc->nvcc, sb_str(&home));
    tc->cxx = first_real(cx, sizeof cx / sizeof cx[0]);
    tc->cc = first_real(c, sizeof c / sizeof c[0]);
    tc->ccache = first_real(ca, sizeof ca / sizeof ca[0]);
    sb_release(&home);
    const char *missing = !tc->nvcc ? "no real nvcc found (looked at SHARDCC_REAL_NVCC, "
                                      "CUDACXX, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin); "
                                      "pass --real-nvcc PATH"
                          : !tc->cxx || !tc->cc
                              ? "no host C/C++ compiler found (CXX, CC, c++, cc on PATH); pass "
                                "--real-cxx/--real-cc"
                          : !tc->ccache ? "ccache not found on PATH (install it: apt-get install "
                                          "ccache), or pass --ccache PATH"
                                        : NULL;
    if (missing) {
        report_error("shardcc", "%s", missing);
        return 2;
    }
    return 0;
}

void toolchain_release(struct toolchain *tc)
{
    free(tc->nvcc);
    free(tc->torch_nvcc);
    free(tc->cxx);
    free(tc->cc);
    free(tc->ccache);
    memset(tc, 0, sizeof *tc);
}

/* Feeds "<label>\0" and then the bytes of path into st, or "<label>\0missing" when the file
 * cannot be opened (a toolkit without that component still gets a stable digest). */
static int hash_file(XXH3_state_t *st, const char *label, const char *path)
{
    XXH3_128bits_update(st, label, strlen(label) + 1);
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) {
        XXH3_128bits_update(st, "missing", 7);
        return 0;
    }
    static char buf[1 << 20];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            report_error("shardcc", "fingerprint: cannot read \"%s\": %s", path, plat_strerror(e));
            return 4;
        }
        if (r == 0)
            break;
        XXH3_128bits_update(st, buf, (size_t)r);
    }
    close(fd);
    return 0;
}

static char *host_prog(const char *compiler, const char *prog)
{
    struct strbuf arg = STRBUF_INIT, out = STRBUF_INIT;
    sb_addf(&arg, "-print-prog-name=%s", prog);
    char *argv[] = {(char *)compiler, arg.buf, NULL};
    int st = plat_run_capture(argv, &out);
    sb_release(&arg);
    while (out.len && (out.buf[out.len - 1] == '\n' || out.buf[out.len - 1] == '\r'))
        out.buf[--out.len] = '\0';
    if (st != 0 || !out.len || !path_is_absolute(sb_str(&out))) {
        sb_release(&out);
        return NULL;
    }
    return sb_detach(&out);
}

/* The directory nvcc runs from, as nvcc itself reports it: the line "#$ _HERE_=DIR" of
 * `nvcc -dryrun -c F.cu` (printed on stderr without reading F; about 15 ms). NULL when
 * nvcc prints no such line. */
static char *nvcc_here(const char *nvcc)
{
    struct strbuf err = STRBUF_INIT;
    char *argv[] = {(char *)nvcc, "-dryrun", "-c", "/nonexistent/shardcc-probe.cu", NULL};
    char *dir = NULL;
    if (plat_run_capture_fd(argv, 2, &err) == 0) {
        static const char tag[] = "#$ _HERE_=";
        for (const char *l = sb_str(&err); l && *l;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            if (n > sizeof tag - 1 && !strncmp(l, tag, sizeof tag - 1)) {
                dir = xstrndup(l + sizeof tag - 1, n - (sizeof tag - 1));
                if (path_is_absolute(dir)) /* C:\... or C:/... on Windows */
                    break;
                free(dir);
                dir = NULL;
            }
            l = e ? e + 1 : NULL;
        }
    }
    sb_release(&err);
    return dir;
}

/* The directory of the toolkit nvcc runs from, symbolic links resolved and ending in '/':
 * nvcc's own _HERE_, else the directory of nvcc itself. */
static void toolkit_bin(const char *nvcc, struct strbuf *dir)
{
    struct strbuf real = STRBUF_INIT, p = STRBUF_INIT;
    char *here = nvcc_here(nvcc);
    if (here) {
        sb_addf(&p, "%s/nvcc", here);
        free(here);
        if (plat_realpath(sb_str(&p), &real) != 0)
            sb_adds(&real, sb_str(&p));
    } else if (plat_realpath(nvcc, &real) != 0) {
        sb_adds(&real, nvcc);
    }
    sb_add(dir, real.buf, (size_t)(path_basename(real.buf) - real.buf));
    sb_release(&real);
    sb_release(&p);
}

/* Feeds the toolkit's programs in dir (from toolkit_bin) into st. */
static int hash_toolkit(XXH3_state_t *st, const char *dir)
{
    static const char *const cuda[][2] = {{"nvcc", "nvcc"},
                                          {"cicc", "../nvvm/bin/cicc"},
                                          {"ptxas", "ptxas"},
                                          {"fatbinary", "fatbinary"},
                                          {"nvlink", "nvlink"},
                                          {"cudafe++", "cudafe++"},
                                          {"nvcc.profile", "nvcc.profile"},
                                          {"libdevice", "../nvvm/libdevice/libdevice.10.bc"}};
    struct strbuf p = STRBUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < sizeof cuda / sizeof cuda[0] && !rc; i++) {
        sb_reset(&p);
        sb_addf(&p, "%s%s", dir, cuda[i][1]);
#ifdef _WIN32
        if (!plat_file_exists(sb_str(&p)))
            sb_adds(&p, ".exe"); /* the toolkit's programs on Windows */
#endif
        rc = hash_file(st, cuda[i][0], sb_str(&p));
    }
    sb_release(&p);
    return rc;
}

int toolchain_same_toolkit(const struct toolchain *tc)
{
    if (!tc->torch_nvcc || !strcmp(tc->torch_nvcc, tc->nvcc))
        return 1;
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, ra = STRBUF_INIT, rb = STRBUF_INIT;
    toolkit_bin(tc->nvcc, &a);
    toolkit_bin(tc->torch_nvcc, &b);
    int same = plat_realpath(sb_str(&a), &ra) == 0 && plat_realpath(sb_str(&b), &rb) == 0 &&
               !strcmp(sb_str(&ra), sb_str(&rb));
    sb_release(&a);
    sb_release(&b);
    sb_release(&ra);
    sb_release(&rb);
    return same;
}

int toolchain_fingerprint(const struct toolchain *tc, struct strbuf *out)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    struct strbuf dir = STRBUF_INIT, tdir = STRBUF_INIT;
    toolkit_bin(tc->nvcc, &dir);
    int rc = hash_toolkit(st, sb_str(&dir));
    /* the PYTORCH_NVCC seat's toolkit, when it is another one (CUDACXX and CUDA_HOME naming
     * two toolkits): a change to either must change the fingerprint */
    if (!rc && tc->torch_nvcc && strcmp(tc->torch_nvcc, tc->nvcc) != 0) {
        toolkit_bin(tc->torch_nvcc, &tdir);
        if (strcmp(sb_str(&tdir), sb_str(&dir)) != 0) {
            XXH3_128bits_update(st, "torch", 6);
            rc = hash_toolkit(st, sb_str(&tdir));
        }
    }
    const char *hosts[] = {tc->cxx, tc->cc};
    const char *progs[] = {"cc1plus", "cc1"};
    for (size_t i = 0; i < 2 && !rc; i++) {
        rc = hash_file(st, "host", hosts[i]);
        /* cl and clang-cl have no -print-prog-name (clang-cl warns and fails): the driver
         * file alone stands for them */
        char *prog = rc || msvc_dialect(hosts[i]) ? NULL : host_prog(hosts[i], progs[i]);
        if (!rc)
            rc = hash_file(st, progs[i], prog);
        free(prog);
    }
    if (!rc) {
        XXH128_hash_t h = XXH3_128bits_digest(st);
        sb_addf(out, "shardcc1-%016llx%016llx", (unsigned long long)h.high64,
                (unsigned long long)h.low64);
    }
    XXH3_freeState(st);
    sb_release(&dir);
    sb_release(&tdir);
    return rc;
}

char *ccache_version(const char *ccache)
{
    struct strbuf out = STRBUF_INIT;
    char *argv[] = {(char *)ccache, "--version", NULL};
    int st = plat_run_capture(argv, &out);
    const char *p = strstr(sb_str(&out), "version ");
    char *v = NULL;
    if (st == 0 && p) {
        p += 8;
        size_t n = strcspn(p, " \n\r");
        v = xstrndup(p, n);
    }
    sb_release(&out);
    return v ? v : xstrdup("unknown");
}

int nvcc_has_option(const char *nvcc, const char *name)
{
    struct strbuf out = STRBUF_INIT;
    char *argv[] = {(char *)nvcc, "--help", NULL};
    int has = 0;
    if (plat_run_capture(argv, &out) == 0) {
        size_t n = strlen(name);
        for (const char *l = sb_str(&out); l && *l && !has; l = strchr(l, '\n'), l = l ? l + 1 : l)
            has = strncmp(l, name, n) == 0 &&
                  (l[n] == ' ' || l[n] == '\t' || l[n] == '\n' || l[n] == '\0');
    }
    sb_release(&out);
    return has;
}

char *nvcc_release(const char *nvcc)
{
    struct strbuf out = STRBUF_INIT;
    char *argv[] = {(char *)nvcc, "--version", NULL};
    int st = plat_run_capture(argv, &out);
    char *v = NULL;
    const char *p = st == 0 ? strstr(sb_str(&out), "release ") : NULL;
    if (p) {
        const char *full = strstr(p, ", V");
        const char *s = full ? full + 3 : p + 8;
        size_t n = strspn(s, "0123456789.");
        if (n && s[0] != '.')
            v = xstrndup(s, n);
    }
    sb_release(&out);
    return v;
}

/* "X.Y" or "X.Y.Z": 2 or 3 non-empty runs of at most 4 digits; the count, or 0 */
static int version_parts(const char *v)
{
    int parts = 0;
    for (const char *s = v;; s++) {
        size_t n = strspn(s, "0123456789");
        if (n == 0 || n > 4)
            return 0;
        parts++;
        s += n;
        if (*s == '\0')
            return parts >= 2 && parts <= 3 ? parts : 0;
        if (*s != '.')
            return 0;
    }
}

int cuda_version_matches(const char *want, const char *release)
{
    int w = version_parts(want);
    if (!w)
        return -1;
    size_t n = strlen(want);
    if (strncmp(want, release, n) != 0)
        return 0;
    return release[n] == '\0' || (w == 2 && release[n] == '.');
}
