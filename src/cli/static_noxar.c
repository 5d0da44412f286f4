/* static_noxar: in a static CLI (SHARDCC_STATIC_CLI), libarchive's xar writer in place of
 * libarchive's own. libarchive's archive_write_set_format.o, which its pax writer needs,
 * names every writer; the xar one needs libxml2 and, through it, ICU (30 MB). shardcc never
 * writes xar: this definition keeps the linker from taking the library's. */
#include <archive.h>

int archive_write_set_format_xar(struct archive *a);

int archive_write_set_format_xar(struct archive *a)
{
    archive_set_error(a, -1, "xar is not in this static build of shardcc");
    return ARCHIVE_FATAL;
}
