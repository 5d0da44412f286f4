/* stub: writing the stub object and its depfile (see stub.h). Owns no policy: the
 * decision to stub is classify.c's. */
#include "stub.h"
#include "platform.h"
#include "stub_coff.h"
#ifndef _WIN32
#include "stub_elf.h"
#endif

#include <string.h>

#ifdef _WIN32
#if defined(_M_ARM64) || defined(__aarch64__)
#define HOST_COFF_MACHINE COFF_MACHINE_ARM64
#else
#define HOST_COFF_MACHINE COFF_MACHINE_AMD64
#endif
size_t stub_object(unsigned char *buf)
{
    return stub_coff_build(buf, HOST_COFF_MACHINE);
}

size_t stub_object_comment(unsigned char *buf, size_t cap, const char *comment, size_t len)
{
    return stub_coff_build_comment(buf, cap, HOST_COFF_MACHINE, comment, len);
}
#else
size_t stub_object(unsigned char *buf)
{
    return stub_elf_build(buf, stub_host_machine());
}

size_t stub_object_comment(unsigned char *buf, size_t cap, const char *comment, size_t len)
{
    return stub_elf_build_comment(buf, cap, stub_host_machine(), comment, len);
}
#endif

void stub_depfile_text(const struct call *call, struct strbuf *out)
{
    for (size_t i = 0; i < call->dep_targets.n; i++) {
        if (i)
            sb_addc(out, ' ');
        sb_adds(out, call->dep_targets.v[i]);
    }
    sb_adds(out, ":\n");
}

/* Writes data to path atomically, unless path already holds exactly data: then only its
 * time is updated (a rename over an existing file makes ext4 flush the new one to disk, a
 * cost a rebuild of a shard would pay for every stub). */
static int put(const char *path, const void *data, size_t len)
{
    if (plat_same_content(path, data, len) && plat_touch(path) == 0)
        return 0;
    return plat_write_atomic(path, data, len);
}

int stub_write(const struct call *call, struct strbuf *err)
{
    unsigned char obj[STUB_OBJECT_MAX];
    /* cl's and clang-cl's objects are COFF wherever they run (clang-cl on Linux too) */
    size_t len = call->coff_machine ? stub_coff_build(obj, call->coff_machine) : stub_object(obj);
    int e = put(call->output, obj, len);
    if (e) {
        sb_addf(err, "cannot write stub object \"%s\": %s", call->output, plat_strerror(e));
        return EXIT_IO;
    }
    if (call->depfile) {
        struct strbuf dep = STRBUF_INIT;
        stub_depfile_text(call, &dep);
        e = put(call->depfile, dep.buf, dep.len);
        sb_release(&dep);
        if (e) {
            sb_addf(err, "cannot write stub depfile \"%s\": %s", call->depfile, plat_strerror(e));
            return EXIT_IO;
        }
    }
    return EXIT_OK;
}
