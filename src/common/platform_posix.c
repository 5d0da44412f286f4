/* platform_posix: the POSIX (Linux, macOS) implementation of platform.h.
 * Owns process creation and the atomic-write protocol; owns no policy. */
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

char **plat_environ(void)
{
    return environ;
}

void plat_main_args(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void plat_env_save(struct strvec *out)
{
    for (char **e = environ; *e; e++)
        sv_push(out, *e);
}

void plat_env_restore(const struct strvec *saved)
{
    clearenv();
    for (size_t i = 0; i < saved->n; i++) {
        const char *eq = strchr(saved->v[i], '=');
        if (!eq)
            continue;
        char *name = xstrndup(saved->v[i], (size_t)(eq - saved->v[i]));
        setenv(name, eq + 1, 1);
        free(name);
    }
}

int plat_realpath(const char *path, struct strbuf *out)
{
    char *r = realpath(path, NULL);
    if (!r)
        return errno ? errno : ENOENT;
    sb_reset(out);
    sb_adds(out, r);
    free(r);
    return 0;
}

int plat_getcwd(struct strbuf *out)
{
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf))
        return errno;
    sb_reset(out);
    sb_adds(out, buf);
    return 0;
}

int plat_self_exe(struct strbuf *out)
{
    return plat_realpath("/proc/self/exe", out);
}

int plat_is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int plat_is_self_exe(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int plat_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int find_in_path(const char *name, int skip_self, struct strbuf *out);

int plat_find_in_path(const char *name, struct strbuf *out)
{
    return find_in_path(name, 0, out);
}

int plat_find_in_path_other(const char *name, struct strbuf *out)
{
    return find_in_path(name, 1, out);
}

static int find_in_path(const char *name, int skip_self, struct strbuf *out)
{
    if (strchr(name, '/')) {
        sb_reset(out);
        sb_adds(out, name);
        return plat_is_executable(name) ? 0 : ENOENT;
    }
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        sb_reset(out);
        sb_add(out, n ? p : ".", n ? n : 1);
        sb_addc(out, '/');
        sb_adds(out, name);
        if (plat_is_executable(sb_str(out)) && !(skip_self && plat_is_self_exe(sb_str(out))))
            return 0;
        if (!e)
            break;
        p = e + 1;
    }
    sb_reset(out);
    return ENOENT;
}

/* Waits for pid: its exit status, 128+S for a signal S, or -1 (errno set). */
int plat_free_bytes(const char *path, unsigned long long *out)
{
    struct statvfs v;
    if (statvfs(path, &v) != 0)
        return errno;
    *out = (unsigned long long)v.f_bavail * (unsigned long long)v.f_frsize;
    return 0;
}

static int last_signal;

int plat_last_signal(void)
{
    return last_signal;
}

static int wait_status(pid_t pid)
{
    int st;
    last_signal = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        last_signal = WTERMSIG(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

int plat_spawn_wait(const char *path, char *const argv[], char *const envp[])
{
    pid_t pid;
    int rc = posix_spawn(&pid, path, NULL, NULL, argv, envp);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return wait_status(pid);
}

int plat_spawn_wait_redirect(const char *path, char *const argv[], char *const envp[],
                             const char *out, const char *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out)
        posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err)
        posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, path, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return wait_status(pid);
}

int plat_run_parallel(size_t n, size_t max, int (*fn)(void *ctx, size_t i), void *ctx)
{
    size_t next = 0, running = 0;
    int first = 0, err = 0;
    if (max < 1)
        max = 1;
    while (next < n || running > 0) {
        if (next < n && running < max && !err) {
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid == 0)
                _exit(fn(ctx, next) & 0xff);
            if (pid < 0) {
                err = errno;
                next = n;
                continue;
            }
            next++;
            running++;
            continue;
        }
        if (next < n && err)
            next = n;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        running--;
        int status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
        if (status && !first)
            first = status;
    }
    if (err) {
        errno = err;
        return -1;
    }
    return first;
}

long plat_processors(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int plat_lock(const char *path, int *fd)
{
    for (;;) {
        int f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f < 0)
            return errno;
        while (flock(f, LOCK_EX) != 0) {
            if (errno != EINTR) {
                int e = errno;
                close(f);
                return e;
            }
        }
        /* the holder before us removes the file as it lets go: a lock on that removed file
         * locks nothing, so take the one now at path */
        struct stat a, b;
        if (fstat(f, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            *fd = f;
            return 0;
        }
        close(f);
    }
}

int plat_lock_patient(const char *path, int *fd, unsigned notice, const char *who, const char *what)
{
    uint64_t t0 = plat_monotonic_us();
    int told = 0;
    for (;;) {
        int f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f < 0)
            return errno;
        while (flock(f, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                int e = errno;
                close(f);
                return e;
            }
            uint64_t waited = (plat_monotonic_us() - t0) / 1000000u;
            if (!told && waited >= notice) {
                fprintf(stderr,
                        "%s: waiting %llu s for the lock \"%s\", held by another process: %s\n",
                        who, (unsigned long long)waited, path, what);
                told = 1;
            }
            struct timespec nap = {0, 50 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        struct stat a, b;
        if (fstat(f, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            *fd = f;
            if (told)
                fprintf(stderr, "%s: took the lock \"%s\" after %.1f s\n", who, path,
                        (double)(plat_monotonic_us() - t0) / 1e6);
            return 0;
        }
        close(f);
    }
}

void plat_unlock_remove(const char *path, int fd)
{
    unlink(path);
    close(fd);
}

int plat_exec(const char *path, char *const argv[], char *const envp[])
{
    execve(path, argv, envp);
    return -1;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int plat_create_temp(const char *path, int executable, struct strbuf *tmp, int *fd)
{
    static unsigned long seq;
    *fd = -1;
    for (int tries = 0; tries < 64; tries++) {
        sb_reset(tmp);
        sb_addf(tmp, "%s.shardcc-tmp.%ld.%lx", path, (long)getpid(),
                (unsigned long)((plat_monotonic_us() ^ (++seq << 24)) & 0xffffffffu));
        *fd = open(sb_str(tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   executable ? 0777 : 0666);
        if (*fd >= 0)
            return 0;
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

int plat_write_atomic(const char *path, const void *data, size_t len)
{
    return plat_write_atomic_mode(path, data, len, 0);
}

/* The end of an atomic write into the temporary file tmp (fd, from plat_create_temp): fd
 * closed, then tmp renamed over path, or removed when the write (e: its errno) or either
 * step failed. tmp is released. 0 or the first errno. */
static int finish_temp(int fd, struct strbuf *tmp, const char *path, int e)
{
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(sb_str(tmp), path) != 0)
        e = errno;
    if (e)
        unlink(sb_str(tmp));
    sb_release(tmp);
    return e;
}

int plat_write_atomic_mode(const char *path, const void *data, size_t len, int executable)
{
    struct strbuf tmp = STRBUF_INIT;
    int fd, e = plat_create_temp(path, executable, &tmp, &fd);
    if (e) {
        sb_release(&tmp);
        return e;
    }
    return finish_temp(fd, &tmp, path, write_all(fd, data, len));
}

int plat_open_append(const char *path, int *fd)
{
    *fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    return *fd < 0 ? errno : 0;
}

int plat_append_fd(int fd, const void *data, size_t len)
{
    ssize_t w;
    do {
        w = write(fd, data, len);
    } while (w < 0 && errno == EINTR);
    return w < 0 ? errno : ((size_t)w != len ? EIO : 0);
}

int plat_close(int fd)
{
    return close(fd) == 0 ? 0 : errno;
}

int plat_append_record(const char *path, const void *data, size_t len)
{
    int fd;
    int rc = plat_open_append(path, &fd);
    if (rc)
        return rc;
    rc = plat_append_fd(fd, data, len);
    int e = plat_close(fd);
    return rc ? rc : e;
}

const char *plat_strerror(int e)
{
    return e == PLAT_ENOTREG ? "not a regular file (a FIFO, a device or a socket)" : strerror(e);
}

/* Opens path for reading when it is a regular file (plat_open_regular's checks) without
 * clearing O_NONBLOCK: the descriptor stays non-blocking, which Linux and the BSDs ignore
 * for regular files (open(2)); *size is the file's size then. flags: O_CLOEXEC or 0. */
static int open_regular_nb(const char *path, int flags, int *fd, off_t *size)
{
    *size = 0;
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | flags);
    if (*fd < 0)
        return errno;
    struct stat st;
    int e = fstat(*fd, &st) != 0   ? errno
            : S_ISDIR(st.st_mode)  ? EISDIR
            : !S_ISREG(st.st_mode) ? PLAT_ENOTREG
                                   : 0;
    if (e) {
        close(*fd);
        *fd = -1;
    }
    *size = e ? 0 : st.st_size;
    return e;
}

enum plat_kind plat_kind_of(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return PLAT_ABSENT;
    return S_ISREG(st.st_mode)   ? PLAT_FILE
           : S_ISDIR(st.st_mode) ? PLAT_DIR
           : S_ISLNK(st.st_mode) ? PLAT_SYMLINK
                                 : PLAT_OTHER;
}

int plat_open_lone(const char *path, int *fd, unsigned long *links)
{
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0)
        return errno;
    struct stat st;
    int e = fstat(*fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? PLAT_ENOTREG : 0;
    if (e) {
        close(*fd);
        *fd = -1;
        return e;
    }
    *links = (unsigned long)st.st_nlink;
    return 0;
}

int plat_copy_fd(int fd, const char *path)
{
    struct strbuf tmp = STRBUF_INIT;
    int out, e = plat_create_temp(path, 0, &tmp, &out);
    if (e) {
        sb_release(&tmp);
        return e;
    }
    char *buf = xmalloc(1u << 20);
    for (;;) {
        ssize_t n = read(fd, buf, 1u << 20);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : 0;
            break;
        }
        if ((e = write_all(out, buf, (size_t)n)) != 0)
            break;
    }
    free(buf);
    return finish_temp(out, &tmp, path, e);
}

int plat_open_regular(const char *path, int *fd)
{
    off_t size;
    int e = open_regular_nb(path, O_CLOEXEC, fd, &size);
    if (!e && fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        e = errno;
        close(*fd);
        *fd = -1;
    }
    return e;
}

int plat_read_file(const char *path, struct strbuf *out)
{
    return plat_read_file_max(path, SIZE_MAX, out);
}

/* Reads fd (open_regular_nb's, of that size) into out and closes it. */
static int read_whole(int fd, off_t size, size_t max, struct strbuf *out)
{
    int e = 0;
    if ((uintmax_t)size > max - out->len) {
        close(fd);
        return EFBIG;
    }
    size_t want = (size_t)size, got = 0;
    sb_grow(out, want + 1);
    out->buf[out->len] = '\0';
    while (want == 0 || got < want) {
        size_t room = out->alloc - out->len - 1; /* sb keeps a byte for the NUL */
        if (room == 0) {
            sb_grow(out, 65536);
            room = out->alloc - out->len - 1;
        }
        ssize_t r = read(fd, out->buf + out->len, want ? want - got : room);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
                continue; /* a file system that honours O_NONBLOCK on a regular file */
            e = errno;
            break;
        }
        if (r == 0)
            break;
        if ((size_t)r > max - out->len) { /* stop reading, e.g. a /proc file without end */
            e = EFBIG;
            break;
        }
        out->len += (size_t)r;
        got += (size_t)r;
        out->buf[out->len] = '\0';
    }
    close(fd);
    return e;
}

/* Four system calls: open, fstat, one read into a buffer of the file's size, close. The
 * descriptor is closed before this returns and neither program starts another from a
 * second thread, so it needs no O_CLOEXEC (musl's costs a fcntl). A regular file is read
 * up to the size fstat gave: a snapshot (shardcc replaces its plans and summaries by
 * rename, and reads a journal after the build that appends to it); one that reports size
 * 0 (a /proc file) is read to its end. */
int plat_read_file_max(const char *path, size_t max, struct strbuf *out)
{
    int fd;
    off_t size;
    int e = open_regular_nb(path, 0, &fd, &size);
    return e ? e : read_whole(fd, size, max, out);
}

int plat_map_file(const char *path, size_t max, const char **text, size_t *len,
                  struct strbuf *spare)
{
    int fd;
    off_t size;
    int e = open_regular_nb(path, 0, &fd, &size);
    if (e)
        return e;
    if ((uintmax_t)size > max) {
        close(fd);
        return EFBIG;
    }
    long page = sysconf(_SC_PAGESIZE);
    void *m = MAP_FAILED;
    if (size > 0 && page > 0 && size % page != 0)
        m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
        close(fd);
        *text = m;
        *len = (size_t)size;
        return 0;
    }
    e = read_whole(fd, size, max, spare); /* the same descriptor: no second open */
    *text = sb_str(spare);
    *len = spare->len;
    return e;
}

uint64_t plat_monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t plat_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

long plat_pid(void)
{
    return (long)getpid();
}

int plat_mkdir_p(const char *dir)
{
    struct strbuf p = STRBUF_INIT;
    sb_adds(&p, dir);
    for (size_t i = 1; i <= p.len; i++) {
        if (p.buf[i] != '/' && p.buf[i] != '\0')
            continue;
        char c = p.buf[i];
        p.buf[i] = '\0';
        if (mkdir(p.buf, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            sb_release(&p);
            return e;
        }
        p.buf[i] = c;
    }
    sb_release(&p);
    struct stat st;
    if (stat(dir, &st) != 0)
        return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int plat_run_capture(char *const argv[], struct strbuf *out)
{
    return plat_run_capture_fd(argv, 1, out);
}

int plat_run_capture_fd(char *const argv[], int fd, struct strbuf *out)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], fd);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        errno = rc;
        return -1;
    }
    char buf[4096];
    for (;;) {
        ssize_t r = read(fds[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        sb_add(out, buf, (size_t)r);
    }
    close(fds[0]);
    return wait_status(pid);
}

int plat_unlink(const char *path)
{
    return unlink(path) == 0 || errno == ENOENT ? 0 : errno;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int r = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    return r == 0 || errno == ENOENT ? 0 : errno;
}

int plat_rmtree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? 0 : errno;
    if (!S_ISDIR(st.st_mode))
        return unlink(dir) == 0 ? 0 : errno;
    int r = nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return r < 0 ? errno : r;
}

int plat_rename(const char *from, const char *to)
{
    return rename(from, to) == 0 ? 0 : errno;
}

int plat_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int plat_mtime(const char *path, long long *usec, int *is_dir)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno;
    *usec = (long long)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
    *is_dir = S_ISDIR(st.st_mode);
    return 0;
}

/* A build the CLI runs is stopped with it: SIGINT, SIGTERM and SIGHUP (a CI runner
 * cancelling the job, ^C) are passed on to the build's process group, and the CLI waits
 * for the build to end instead of leaving it running, orphaned, against the job's cache. */
static volatile sig_atomic_t fwd_pid, fwd_sig;
static const int fwd_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void fwd_handler(int sig)
{
    fwd_sig = sig;
    if (fwd_pid > 0)
        kill(-(pid_t)fwd_pid, sig);
}

int plat_interrupted_by(void)
{
    return fwd_sig;
}

static unsigned tick_interval;
static void (*tick_fn)(void *);
static void *tick_ctx;

void plat_wait_tick(unsigned interval, void (*fn)(void *ctx), void *ctx)
{
    tick_interval = fn ? interval : 0;
    tick_fn = fn;
    tick_ctx = ctx;
}

int plat_stderr_is_terminal(void)
{
    return isatty(2);
}

/* wait_status, calling the tick function every tick_interval seconds meanwhile */
static int wait_status_ticking(pid_t pid)
{
    if (!tick_interval)
        return wait_status(pid);
    uint64_t next = plat_monotonic_us() + (uint64_t)tick_interval * 1000000u;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r == pid) {
            last_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
            if (WIFEXITED(st))
                return WEXITSTATUS(st);
            return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
        }
        struct timespec nap = {0, 200 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (plat_monotonic_us() >= next) {
            tick_fn(tick_ctx);
            next = plat_monotonic_us() + (uint64_t)tick_interval * 1000000u;
        }
    }
}

static int spawn_wait_forwarding(char *const argv[], const posix_spawn_file_actions_t *fa)
{
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fwd_handler;
    sigemptyset(&sa.sa_mask);
    fwd_pid = 0;
    fwd_sig = 0;
    for (size_t i = 0; i < 3; i++)
        sigaction(fwd_signals[i], &sa, &old[i]);
    /* the build leads a process group of its own: a signal reaches every process of it
     * (make's and ninja's children, a shell's commands), none is left running orphaned */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    int st;
    if (rc != 0) {
        st = -1;
    } else {
        fwd_pid = pid;
        if (fwd_sig) /* arrived before the child existed */
            kill(-pid, fwd_sig);
        st = wait_status_ticking(pid);
        fwd_pid = 0;
    }
    for (size_t i = 0; i < 3; i++)
        sigaction(fwd_signals[i], &old[i], NULL);
    if (rc != 0)
        errno = rc;
    return st;
}

int plat_spawn_wait_path(char *const argv[])
{
    return spawn_wait_forwarding(argv, NULL);
}

int plat_spawn_wait_log(char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int st = spawn_wait_forwarding(argv, &fa);
    posix_spawn_file_actions_destroy(&fa);
    return st;
}

int plat_same_content(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
    if (same && len) {
        char buf[4096];
        if (len > sizeof buf) {
            same = 0;
        } else {
            ssize_t r = read(fd, buf, len);
            same = r == (ssize_t)len && memcmp(buf, data, len) == 0;
        }
    }
    close(fd);
    return same;
}

int plat_touch(const char *path)
{
    return utimensat(AT_FDCWD, path, NULL, 0) == 0 ? 0 : errno;
}

int plat_list_dir(const char *dir, struct strvec *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            sv_push(out, de->d_name);
    closedir(d);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cstr_cmp);
    return 0;
}

int plat_symlink(const char *target, const char *path)
{
    return symlink(target, path) == 0 ? 0 : errno;
}

int plat_memfd(const char *name)
{
#ifdef __linux__
    int fd = memfd_create(name, 0); /* no MFD_CLOEXEC: children inherit it */
    if (fd < 0)
        return -1;
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    int probe = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (probe < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    close(probe);
    return fd;
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

int plat_read_fd(int fd, struct strbuf *out)
{
    char buf[65536];
    off_t off = 0;
    for (;;) {
        ssize_t r = pread(fd, buf, sizeof buf, off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            return 0;
        sb_add(out, buf, (size_t)r);
        off += r;
    }
}

int plat_file_find(const char *path, const char *const *pats, const size_t *lens, int npats,
                   int *found)
{
    *found = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = S_ISREG(st.st_mode) ? errno : 0; /* a directory or a FIFO holds no pattern */
        close(fd);
        return e;
    }
    size_t keep = 0;
    for (int i = 0; i < npats; i++)
        if (lens[i] > keep + 1)
            keep = lens[i] - 1;
    enum { CHUNK = 1 << 20 };
    char *buf = xmalloc(CHUNK + keep);
    size_t have = 0;
    int rc = 0;
    for (;;) {
        ssize_t r = read(fd, buf + have, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = errno;
            break;
        }
        have += (size_t)r;
        for (int i = 0; i < npats && *found < 0; i++)
            if (lens[i] && lens[i] <= have && memmem(buf, have, pats[i], lens[i]))
                *found = i;
        if (*found >= 0 || r == 0)
            break;
        /* the last keep bytes may start a pattern the next read completes */
        size_t tail = have < keep ? have : keep;
        memmove(buf, buf + have - tail, tail);
        have = tail;
    }
    free(buf);
    close(fd);
    return rc;
}

int plat_parent_exe(struct strbuf *out)
{
    char link[64], buf[4096];
    snprintf(link, sizeof link, "/proc/%ld/exe", (long)getppid());
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    if (n < 0)
        return errno;
    sb_reset(out);
    sb_add(out, buf, (size_t)n);
    return 0;
}
