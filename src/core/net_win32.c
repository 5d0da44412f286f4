/* net: Winsock 2 (see net.h), the Windows build's twin of net_posix.c. A socket is
 * handed out as an int: Winsock's SOCKET values are kernel handles, which Windows keeps
 * below 2^24 (they index a per-process table), so the cast loses nothing. AF_UNIX is
 * Windows 10's (afunix.h). */
#include "net.h"
#include "platform.h"

#include <stdio.h>
#include <string.h>
/* clang-format off: winsock2.h must come before windows.h */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <afunix.h>
/* clang-format on */

static int started;

/* Winsock's error text for code e, in `buf`. */
static const char *wsa_text(int e, char *buf, size_t cap)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             (DWORD)e, 0, buf, (DWORD)cap, NULL);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
        buf[--n] = 0;
    if (!n)
        snprintf(buf, cap, "Winsock error %d", e);
    return buf;
}

/* Waits for s to be ready for events until deadline_us: 1 ready, 0 timed out, -1 error. */
static int wait_fd(SOCKET s, short events, uint64_t deadline_us)
{
    uint64_t now = plat_monotonic_us();
    if (now >= deadline_us)
        return 0;
    uint64_t left = (deadline_us - now + 999) / 1000;
    WSAPOLLFD p = {s, events, 0};
    int r = WSAPoll(&p, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
    /* an error or hang-up is ready too: the next send or recv names it */
    return r > 0 ? 1 : r == 0 ? 0 : -1;
}

/* A non-blocking connect of s to addr, waiting at most ms. 0 or a Winsock error. */
static int connect_wait(SOCKET s, const struct sockaddr *addr, int len, int ms)
{
    u_long nb = 1;
    if (ioctlsocket(s, FIONBIO, &nb) != 0)
        return WSAGetLastError();
    if (connect(s, addr, len) == 0)
        return 0;
    int e = WSAGetLastError();
    if (e != WSAEWOULDBLOCK)
        return e;
    int w = wait_fd(s, POLLOUT, plat_monotonic_us() + (uint64_t)ms * 1000);
    if (w <= 0)
        return w == 0 ? WSAETIMEDOUT : WSAGetLastError();
    int so = 0, sl = sizeof so;
    if (getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&so, &sl) != 0)
        return WSAGetLastError();
    return so;
}

int net_connect(const char *host, const char *port, const char *unix_path, int connect_ms, int *fd,
                struct strbuf *err)
{
    char text[256];
    *fd = -1;
    if (!started) {
        WSADATA wd;
        int e = WSAStartup(MAKEWORD(2, 2), &wd);
        if (e) {
            sb_addf(err, "cannot start Winsock: %s", wsa_text(e, text, sizeof text));
            return -1;
        }
        started = 1;
    }
    if (unix_path) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        if (strlen(unix_path) >= sizeof sa.sun_path) {
            sb_addf(err, "the socket path \"%s\" is too long", unix_path);
            return -1;
        }
        memcpy(sa.sun_path, unix_path, strlen(unix_path) + 1);
        SOCKET s = socket(AF_UNIX, SOCK_STREAM, 0);
        int e = s == INVALID_SOCKET
                    ? WSAGetLastError()
                    : connect_wait(s, (struct sockaddr *)&sa, sizeof sa, connect_ms);
        if (e) {
            if (s != INVALID_SOCKET)
                closesocket(s);
            sb_addf(err, "cannot connect to \"%s\": %s", unix_path, wsa_text(e, text, sizeof text));
            return -1;
        }
        *fd = (int)s;
        return 0;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g) {
        sb_addf(err, "cannot resolve \"%s\": %s", host, wsa_text(g, text, sizeof text));
        return -1;
    }
    int e = WSAHOST_NOT_FOUND;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        SOCKET s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (s == INVALID_SOCKET) {
            e = WSAGetLastError();
            continue;
        }
        e = connect_wait(s, ai->ai_addr, (int)ai->ai_addrlen, connect_ms);
        if (!e) {
            *fd = (int)s;
            break;
        }
        closesocket(s);
    }
    freeaddrinfo(res);
    if (*fd < 0) {
        sb_addf(err, "cannot connect to %s:%s: %s%s", host, port, wsa_text(e, text, sizeof text),
                e == WSAETIMEDOUT ? " (connect timeout)" : "");
        return -1;
    }
    return 0;
}

int net_write_all(int fd, const void *data, size_t len, uint64_t deadline_us, struct strbuf *err)
{
    char text[256];
    const char *p = data;
    SOCKET s = (SOCKET)fd;
    while (len) {
        int chunk = len > 0x40000000 ? 0x40000000 : (int)len;
        int w = send(s, p, chunk, 0);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            continue;
        }
        int e = WSAGetLastError();
        if (w < 0 && e == WSAEWOULDBLOCK) {
            int r = wait_fd(s, POLLOUT, deadline_us);
            if (r > 0)
                continue;
            sb_adds(err, r == 0 ? "the server did not take the request in time (operation "
                                  "timeout)"
                                : wsa_text(WSAGetLastError(), text, sizeof text));
            return -1;
        }
        sb_addf(err, "write: %s", wsa_text(e, text, sizeof text));
        return -1;
    }
    return 0;
}

long net_read_some(int fd, void *buf, size_t cap, uint64_t deadline_us, struct strbuf *err)
{
    char text[256];
    SOCKET s = (SOCKET)fd;
    for (;;) {
        int r = recv(s, buf, cap > 0x40000000 ? 0x40000000 : (int)cap, 0);
        if (r >= 0)
            return (long)r;
        int e = WSAGetLastError();
        if (e == WSAEWOULDBLOCK) {
            int w = wait_fd(s, POLLIN, deadline_us);
            if (w > 0)
                continue;
            sb_adds(err, w == 0 ? "the server did not answer in time (operation timeout)"
                                : wsa_text(WSAGetLastError(), text, sizeof text));
            return -1;
        }
        sb_addf(err, "read: %s", wsa_text(e, text, sizeof text));
        return -1;
    }
}

void net_close(int fd)
{
    if (fd >= 0)
        closesocket((SOCKET)fd);
}
