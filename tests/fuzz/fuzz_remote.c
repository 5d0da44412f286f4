/* fuzz_remote: the remote storage client (src/core/remote.c), which reads a server's answers
 * and a URL from a configuration: the first byte picks what the rest is.
 *   0: a URL for remote_parse: it parses or says why; a parsed one has a kind, a port of
 *      digits, and a display that holds no literal password;
 *   1, 2: a Redis answer (1) or an HTTP answer (2) to a GET (capped at 16 bytes when the
 *      second byte has bit 2), a STAT or a PUT (the second byte picks), read from a socket pair
 * whose other end holds the rest of the input and is then closed: the operation gives -1, 0 or 1,
 * and a value no longer than the input. Nothing here reaches a server: a retry connects to a socket
 * path that does not exist, or to this machine's port 1. */
#include "fuzz_support.h"
#include "remote.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define INPUT_MAX (64u << 10)

static void check_url(const uint8_t *data, size_t size)
{
    char *url = fuzz_cstr(data, size);
    struct remote r;
    struct strbuf err = STRBUF_INIT;
    if (remote_parse(url, &r, &err) == 0) {
        if (r.kind != REMOTE_HTTP && r.kind != REMOTE_REDIS)
            fuzz_fail("a URL parsed to kind %d", (int)r.kind);
        if (!r.ccache || !r.display)
            fuzz_fail("a parsed URL without its ccache or display form");
        if (r.port && strspn(r.port, "0123456789") != strlen(r.port))
            fuzz_fail("a port that is not digits: \"%s\"", r.port);
        if (r.literal_password && strstr(r.display, "********") == NULL)
            fuzz_fail("a literal password not masked in \"%s\"", r.display);
        for (const char *c = r.host ? r.host : ""; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == '@')
                fuzz_fail("a host with a control character or an '@': \"%s\"", r.host);
        for (const char *c = r.path ? r.path : ""; *c; c++)
            if ((unsigned char)*c < 0x20)
                fuzz_fail("a path with a control character (sent into the request line)");
        remote_release(&r);
    } else if (!err.len) {
        fuzz_fail("remote_parse failed without saying why");
    }
    sb_release(&err);
    free(url);
}

static void check_answer(int http, uint8_t op, const uint8_t *data, size_t size)
{
    struct remote r;
    struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    /* the client tries a fresh connection once when a kept one fails: to a socket that does
     * not exist, or a port that refuses at once */
    if (remote_parse(http ? "http://127.0.0.1:1/c|connect-timeout=1|operation-timeout=1000"
                          : "redis+unix:/nonexistent/shardcc-fuzz.sock|operation-timeout=1000",
                     &r, &err) != 0)
        fuzz_fail("the fixed URL: %s", sb_str(&err));
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    /* the answer waits in the pair's buffer (at most 64 KiB, within its size); the server's
     * end is then closed for writing, so a short answer ends in an end of stream */
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(sv[1], data + off, size - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    shutdown(sv[1], SHUT_WR);
    r.fd = sv[0];
    int rc;
    uint64_t got = 0;
    switch (op % 3) {
    case 0:
        if (op & 4) { /* a capped read: nothing over the cap is kept */
            rc = remote_get_max(&r, "shardcc/d/abc", 16, &out, &err);
            if (rc == 1 && out.len > 16)
                fuzz_fail("a value of %zu bytes under a cap of 16", out.len);
        } else {
            rc = remote_get(&r, "shardcc/d/abc", &out, &err);
        }
        if (rc == 1 && out.len > size)
            fuzz_fail("a value of %zu bytes from an answer of %zu", out.len, size);
        break;
    case 1:
        rc = remote_stat(&r, "f534obs558ae8tvq96q1cvg82nlru47nm", &got, &err);
        break;
    default:
        rc = remote_put(&r, "shardcc/run/r/c/shard-1-of-1.json", "{}", 2, &err);
        if (rc == 1)
            fuzz_fail("a PUT gave 1");
        break;
    }
    if (rc < (op % 3 == 0 && (op & 4) ? -2 : -1) || rc > 1)
        fuzz_fail("an operation gave %d", rc); /* -2: over remote_get_max's cap */
    if (rc < 0 && !err.len)
        fuzz_fail("an operation failed without saying why");
    /* remote_release closes the client's end (or it was dropped already) */
    remote_release(&r);
    close(sv[1]);
    sb_release(&err);
    sb_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > INPUT_MAX)
        return 0;
    switch (data[0] % 3) {
    case 0:
        check_url(data + 1, size - 1);
        break;
    case 1:
        check_answer(0, data[1], data + 2, size - 2);
        break;
    default:
        check_answer(1, data[1], data + 2, size - 2);
        break;
    }
    return 0;
}
