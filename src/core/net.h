/* net: the stream sockets of the remote cache client (remote.h): a TCP or Unix-domain
 * connection with a connect timeout, and reads and writes against a deadline. Kept out of
 * src/common/platform_posix.c: the seat, which never talks to a network, is built from
 * src/common whole. */
#ifndef SHARDCC_NET_H
#define SHARDCC_NET_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Connects to host:port (any address family getaddrinfo offers, in its order), or to the
 * Unix-domain socket unix_path when that is not NULL, waiting at most connect_ms for each
 * address. *fd is the connected socket. 0, or -1 with the reason in err. */
int net_connect(const char *host, const char *port, const char *unix_path, int connect_ms, int *fd,
                struct strbuf *err);
/* Writes all of data before deadline_us (plat_monotonic_us). 0, or -1 with err. */
int net_write_all(int fd, const void *data, size_t len, uint64_t deadline_us, struct strbuf *err);
/* Reads what is there (at most cap bytes), waiting until deadline_us for the first byte.
 * The count (0 at the peer's end of stream), or -1 with err. */
long net_read_some(int fd, void *buf, size_t cap, uint64_t deadline_us, struct strbuf *err);
void net_close(int fd);

#endif
