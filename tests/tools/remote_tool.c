/* remote_tool: the remote client (src/core/remote.c) from the command line, for the tests
 * of e2e.remote: what the shards and the link job do, one object at a time.
 *   remote_tool URL parse                 the fields, as shardcc sees them
 *   remote_tool URL put NAME FILE         0 stored
 *   remote_tool URL get NAME FILE         0 found (written to FILE), 1 absent
 *   remote_tool URL stat NAME             0 found (its size printed), 1 absent
 * 2 for bad arguments, 4 for a failed operation (the reason on stderr). */
#include "platform.h"
#include "remote.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: remote_tool URL parse|put|get|stat [NAME [FILE]]\n", stderr);
        return 2;
    }
    struct remote r;
    struct strbuf err = STRBUF_INIT, data = STRBUF_INIT;
    if (remote_parse(argv[1], &r, &err)) {
        fprintf(stderr, "remote_tool: %s\n", sb_str(&err));
        return 2;
    }
    const char *op = argv[2];
    int rc = 0;
    if (!strcmp(op, "parse")) {
        printf("kind=%s\nccache=%s\ndisplay=%s\nhost=%s\nport=%s\nsocket=%s\npath=%s\nuser=%s\n"
               "password=%s\ndb=%d\nread_only=%d\nflat=%d\nconnect_ms=%d\nop_ms=%d\n"
               "literal_password=%d\nloopback=%d\n",
               r.kind == REMOTE_HTTP ? "http" : "redis", r.ccache, r.display, r.host ? r.host : "-",
               r.port ? r.port : "-", r.unix_path ? r.unix_path : "-", r.path ? r.path : "-",
               r.user ? r.user : "-", r.password ? r.password : "-", r.db, r.read_only, r.flat,
               r.connect_ms, r.op_ms, r.literal_password, r.loopback);
    } else if (!strcmp(op, "put") && argc == 5) {
        int e = plat_read_file(argv[4], &data);
        if (e) {
            fprintf(stderr, "remote_tool: %s: %s\n", argv[4], plat_strerror(e));
            rc = 2;
        } else if (remote_put(&r, argv[3], data.buf ? data.buf : "", data.len, &err)) {
            rc = 4;
        }
    } else if (!strcmp(op, "get") && argc == 5) {
        int g = remote_get(&r, argv[3], &data, &err);
        if (g < 0)
            rc = 4;
        else if (g == 0)
            rc = 1;
        else if (plat_write_atomic(argv[4], data.buf ? data.buf : "", data.len))
            rc = 4;
    } else if (!strcmp(op, "stat") && argc == 4) {
        uint64_t size = 0;
        int g = remote_stat(&r, argv[3], &size, &err);
        if (g < 0)
            rc = 4;
        else if (g == 0)
            rc = 1;
        else
            printf("%llu\n", (unsigned long long)size);
    } else {
        fputs("remote_tool: unknown operation or wrong argument count\n", stderr);
        rc = 2;
    }
    if (rc == 4)
        fprintf(stderr, "remote_tool: %s\n", sb_str(&err));
    remote_release(&r);
    sb_release(&err);
    sb_release(&data);
    return rc;
}
