/* net: POSIX sockets (see net.h). */
#include "net.h"
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Waits for fd to be ready for events until deadline_us: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, uint64_t deadline_us)
{
    for (;;) {
        uint64_t now = plat_monotonic_us();
        if (now >= deadline_us)
            return 0;
        uint64_t left = (deadline_us - now + 999) / 1000;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
        if (r > 0)
            return 1;
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

/* A non-blocking connect of fd to addr, waiting at most ms. 0 or an errno. */
static int connect_wait(int fd, const struct sockaddr *addr, socklen_t len, int ms)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return errno;
    int e = 0;
    if (connect(fd, addr, len) != 0) {
        if (errno != EINPROGRESS)
            return errno;
        int w = wait_fd(fd, POLLOUT, plat_monotonic_us() + (uint64_t)ms * 1000);
        if (w <= 0)
            return w == 0 ? ETIMEDOUT : errno;
        socklen_t el = sizeof e;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
            return errno;
    }
    return e;
}

int net_connect(const char *host, const char *port, const char *unix_path, int connect_ms, int *fd,
                struct strbuf *err)
{
    *fd = -1;
    /* a peer that closes mid-request must be an error of the write, not a SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    if (unix_path) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        if (strlen(unix_path) >= sizeof sa.sun_path) {
            sb_addf(err, "the socket path \"%s\" is too long", unix_path);
            return -1;
        }
        memcpy(sa.sun_path, unix_path, strlen(unix_path) + 1);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int e = s < 0 ? errno : connect_wait(s, (struct sockaddr *)&sa, sizeof sa, connect_ms);
        if (e) {
            if (s >= 0)
                close(s);
            sb_addf(err, "cannot connect to \"%s\": %s", unix_path, strerror(e));
            return -1;
        }
        *fd = s;
        return 0;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g) {
        sb_addf(err, "cannot resolve \"%s\": %s", host, gai_strerror(g));
        return -1;
    }
    int e = ENOENT;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (s < 0) {
            e = errno;
            continue;
        }
        e = connect_wait(s, ai->ai_addr, ai->ai_addrlen, connect_ms);
        if (!e) {
            *fd = s;
            break;
        }
        close(s);
    }
    freeaddrinfo(res);
    if (*fd < 0) {
        sb_addf(err, "cannot connect to %s:%s: %s%s", host, port, strerror(e),
                e == ETIMEDOUT ? " (connect timeout)" : "");
        return -1;
    }
    return 0;
}

int net_write_all(int fd, const void *data, size_t len, uint64_t deadline_us, struct strbuf *err)
{
    const char *p = data;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(fd, POLLOUT, deadline_us);
            if (r > 0)
                continue;
            sb_adds(err, r == 0 ? "the server did not take the request in time (operation "
                                  "timeout)"
                                : strerror(errno));
            return -1;
        }
        sb_addf(err, "write: %s", strerror(errno));
        return -1;
    }
    return 0;
}

long net_read_some(int fd, void *buf, size_t cap, uint64_t deadline_us, struct strbuf *err)
{
    for (;;) {
        ssize_t r = recv(fd, buf, cap, 0);
        if (r >= 0)
            return (long)r;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int w = wait_fd(fd, POLLIN, deadline_us);
            if (w > 0)
                continue;
            sb_adds(err, w == 0 ? "the server did not answer in time (operation timeout)"
                                : strerror(errno));
            return -1;
        }
        sb_addf(err, "read: %s", strerror(errno));
        return -1;
    }
}

void net_close(int fd)
{
    if (fd >= 0)
        close(fd);
}
