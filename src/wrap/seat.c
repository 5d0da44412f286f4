/* seat: the seat's names and option tables, the phase names and the "I/N" form. What
 * argv expansion and classification both need; nothing here reads the environment or
 * the file system. */
#include "seat.h"
#include "path.h"
#include "strbuf.h"
#include "stub_coff.h"

#include <string.h>

enum seat seat_of_compiler(const char *compiler)
{
    const char *b = path_basename(compiler);
    if (strstr(b, "nvcc"))
        return SEAT_NVCC;
    if (msvc_dialect(compiler))
        return SEAT_CXX; /* cl and clang-cl compile C and C++ alike */
    size_t n = strlen(b);
    if (!strcmp(b, "cc") || !strcmp(b, "gcc") || !strcmp(b, "clang") ||
        (n > 4 && !strcmp(b + n - 4, "-gcc")) || (n > 3 && !strcmp(b + n - 3, "-cc")))
        return SEAT_CC;
    return SEAT_CXX;
}

int msvc_dialect(const char *compiler)
{
    char name[64];
    if (!path_program_name(compiler, name, sizeof name))
        return 0;
    if (!strcmp(name, "cl"))
        return MSVC_CL;
    const char *cc = strstr(name, "clang-cl");
    if (!cc || (cc != name && cc[-1] != '-'))
        return 0;
    const char *rest = cc + 8; /* "", or "-" and a version: clang-cl-14 */
    if (*rest == '-' && rest[1])
        rest += 1 + strspn(rest + 1, "0123456789.");
    return *rest ? 0 : MSVC_CLANG_CL;
}

int msvc_machine(const char *compiler)
{
    /* the last directory's name: ...\\bin\\Hostx64\\arm64\\cl.exe */
    const char *end = NULL, *start = NULL;
    for (const char *p = compiler; *p; p++)
        if (*p == '/' || *p == '\\') {
            start = end;
            end = p;
        }
    if (!end)
        return 0;
    start = start ? start + 1 : compiler;
    size_t n = (size_t)(end - start);
    if (n == 5 && !path_ncasecmp(start, "arm64", 5))
        return COFF_MACHINE_ARM64;
    if (n == 3 && !path_ncasecmp(start, "x64", 3))
        return COFF_MACHINE_AMD64;
    if (n == 3 && !path_ncasecmp(start, "x86", 3))
        return COFF_MACHINE_I386;
    return 0;
}

const struct opt_table *call_table(enum seat s, const struct wrap_config *c)
{
    return s != SEAT_NVCC && c && c->msvc ? &cl_options : seat_table(s);
}

const char *seat_name(enum seat s)
{
    static const char *const n[] = {"nvcc", "c++", "cc", "ld"};
    return n[s];
}

const struct opt_table *seat_table(enum seat s)
{
    return s == SEAT_NVCC ? &nvcc_options : &gcc_options;
}

int seat_modes(enum seat s, const char *host_seat, const char *reproducible, struct wrap_config *c,
               struct strbuf *err)
{
    if (reproducible && *reproducible && strcmp(reproducible, "1") != 0) {
        sb_addf(err, "SHARDCC_REPRODUCIBLE=\"%s\" is not 1 (shardcc env --reproducible sets it)",
                reproducible);
        return EXIT_USAGE;
    }
    c->reproducible = s == SEAT_NVCC && reproducible && *reproducible;
    c->torch_only = 0;
    if (s != SEAT_NVCC && host_seat && *host_seat) {
        if (strcmp(host_seat, "torch") != 0 && strcmp(host_seat, "all") != 0) {
            sb_addf(err, "SHARDCC_HOST_SEAT=\"%s\" is not one of torch, all (shardcc env sets it)",
                    host_seat);
            return EXIT_USAGE;
        }
        c->torch_only = !strcmp(host_seat, "torch");
    }
    return EXIT_OK;
}

const char *phase_name(enum phase p)
{
    static const char *const n[] = {"off", "shard", "link", "plain"};
    return n[p];
}

int parse_shard_spec(const char *s, int *shard, int *count)
{
    long v[2] = {0, 0};
    const char *p = s;
    for (int k = 0; k < 2; k++) {
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9') {
            v[k] = v[k] * 10 + (*p - '0');
            if (v[k] > 100000)
                return -1;
            p++;
        }
        if (k == 0 && *p++ != '/')
            return -1;
    }
    if (*p || v[0] < 1 || v[1] < 1 || v[0] > v[1])
        return -1;
    *shard = (int)v[0];
    *count = (int)v[1];
    return 0;
}
