/* shardcc compare: are two build products "the same bytes" (compare.c)? */
#include "args.h"
#include "cli.h"
#include "compare.h"
#include "job.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: shardcc compare [--exact] [--] A B\n"
    "\n"
    "Exit 0 when A and B are the same up to nvcc's per-run temporary names\n"
    "(tmpxft_<8 hex>_<8 hex>, masked), the process id that ends a module id of a TU with no\n"
    "external entity (masked; the symbol hash tables then blanked), the GNU build-id\n"
    "(blanked) and the time stamps of\n"
    "Windows objects and images (blanked: a COFF object's, an import library member's, and\n"
    "in a .dll/.exe/.pyd the file header's, the checksum, the export and debug directories'\n"
    "stamps and the PDB's GUID and age); else exit 1 naming the first difference (member,\n"
    "section, offset, and what is there: a temporary name, a module id; with --exact, also\n"
    "whether the two are the same up to those names). Objects and shared libraries are\n"
    "compared as ELF images, static\n"
    "libraries member by member, wheels (zip) member by member with\n"
    "the RECORD hashes of members that differ only in masked names ignored; timestamps in\n"
    "archives are not content.\n"
    "\n"
    "  --exact   byte for byte: nothing masked or blanked (archives and wheels are still\n"
    "            compared member by member, their timestamps left out)\n"
    "\n"
    "Exit status: 0 same, 1 different, 2 usage, 4 unreadable input.\n";

int cmd_compare(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "shardcc compare"};
    int exact = 0;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_flag(&a, "--exact") && (exact = 1))
            continue;
        if (argv[a.i][0] != '-' || !argv[a.i][1])
            break; /* A */
        args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    if (argc - a.i != 2) {
        report_error("shardcc compare", "expects two files, A and B (see --help)");
        return EXIT_USAGE;
    }
    const char *pa = argv[a.i], *pb = argv[a.i + 1];
    struct cmp_result r;
    struct strbuf err = STRBUF_INIT;
    if (compare_files(pa, pb, exact ? CMP_EXACT : 0, &r, &err) != 0) {
        report_error("shardcc compare", "%s", sb_str(&err));
        sb_release(&err);
        return EXIT_IO;
    }
    int rc;
    if (r.same && !exact && (r.masked || r.masked_ids || r.stamped)) {
        /* masking found names: were they the same names anyway? */
        struct cmp_result x;
        struct strbuf xerr = STRBUF_INIT;
        if (compare_files(pa, pb, CMP_EXACT, &x, &xerr) == 0 && x.same)
            exact = 1;
        sb_release(&x.diff);
        sb_release(&xerr);
    }
    if (r.same) {
        if (exact)
            printf("same: %s and %s (byte for byte", pa, pb);
        else if (r.masked_ids)
            printf("same: %s and %s (%zu temp name%s and the module ids' process ids masked", pa,
                   pb, r.masked, r.masked == 1 ? "" : "s");
        else
            printf("same: %s and %s (%zu temp name%s masked", pa, pb, r.masked,
                   r.masked == 1 ? "" : "s");
        if (!exact && r.stamped)
            printf(", the time stamps of %zu Windows object%s or image%s blanked", r.stamped,
                   r.stamped == 1 ? "" : "s", r.stamped == 1 ? "" : "s");
        if (r.members)
            printf(", %zu members compared", r.members);
        printf(")\n");
        rc = EXIT_OK;
    } else {
        printf("different: %s and %s: %s\n", pa, pb, sb_str(&r.diff));
        rc = 1;
    }
    sb_release(&r.diff);
    return rc;
}
