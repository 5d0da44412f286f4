/* platform: the few operating-system calls shardcc makes (spawn/exec, atomic file writes,
 * realpath, clocks, the environment). One implementation file per platform; the rest of
 * the code never includes <unistd.h> for these, so a Windows port is a new file. */
#ifndef SHARDCC_PLATFORM_H
#define SHARDCC_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

#define PLAT_DIRSEP '/'
#ifdef _WIN32
#define PLAT_PATHSEP ';' /* between the entries of PATH and of shardcc's own path lists */
#define PLAT_PATHSEP_S ";"
#define PLAT_EXE ".exe" /* what a program's file name ends with */
#else
#define PLAT_PATHSEP ':'
#define PLAT_PATHSEP_S ":"
#define PLAT_EXE ""
#endif

#ifdef _WIN32
/* POSIX's, which the Windows C runtime lacks (platform_win32.c, over _putenv_s and
 * CreateHardLinkW), as git's compat/mingw.h gives them to the rest of the code. */
#include <fcntl.h>
#include <sys/stat.h>
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);
int link(const char *from, const char *to);
const char *strsignal(int sig);
/* The code's lstat checks refuse symbolic links where it writes; the C runtime's stat
 * does not tell a reparse point apart, so on Windows nothing is a link to it
 * (docs/windows.md). */
#define lstat stat
#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
/* a descriptor a child does not inherit */
#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
/* CreateFile's CREATE_NEW, which plat_create_temp uses, does not follow a link either */
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#endif

/* Canonical absolute path of an existing file (symlinks resolved). 0 or an errno. */
int plat_realpath(const char *path, struct strbuf *out);
int plat_getcwd(struct strbuf *out);
/* The running executable's absolute path. 0 or an errno. */
int plat_self_exe(struct strbuf *out);
int plat_is_executable(const char *path);
/* Whether path is this process's own executable (the same file, whatever its name). */
int plat_is_self_exe(const char *path);
int plat_file_exists(const char *path);
/* Searches PATH for name (a name with a '/' is taken as is). 0 if found. */
int plat_find_in_path(const char *name, struct strbuf *out);
/* The same, passing over entries that are this program (a seat looking for the real tool
 * of its own name). */
int plat_find_in_path_other(const char *name, struct strbuf *out);

/* Runs path with argv/envp, waits, and returns its exit status; a child killed by
 * signal S yields 128+S. Returns -1 (errno set) if it could not be started. */
int plat_spawn_wait(const char *path, char *const argv[], char *const envp[]);
/* plat_spawn_wait with the child's stdout and stderr written to the files out and err
 * (created or truncated) where they are not NULL. */
int plat_spawn_wait_redirect(const char *path, char *const argv[], char *const envp[],
                             const char *out, const char *err);
/* Runs fn(ctx, 0) .. fn(ctx, n - 1), each in a child process of its own, at most max at
 * once (fn's return value is the child's exit status). Returns 0 when every one returned
 * 0, else the first non-zero status met (the others still run to their end); -1 with
 * errno when a child could not be started. The caller has no other child running. */
int plat_run_parallel(size_t n, size_t max, int (*fn)(void *ctx, size_t i), void *ctx);
/* The number of processors online (at least 1). */
long plat_processors(void);
/* Takes an exclusive lock on the file path (created if missing), waiting for it: *fd holds
 * it until plat_unlock_remove. 0 or an errno. */
int plat_lock(const char *path, int *fd);
/* plat_lock, saying on standard error once it has waited notice seconds for another
 * process ("WHO: waiting N s for the lock PATH, held by another process: WHAT"). On Windows
 * it waits as plat_lock does, without the notice. */
int plat_lock_patient(const char *path, int *fd, unsigned notice, const char *who,
                      const char *what);
/* Removes the lock file path and releases the lock fd. */
void plat_unlock_remove(const char *path, int fd);
/* Replaces the process; returns only on failure (errno set). */
int plat_exec(const char *path, char *const argv[], char *const envp[]);
char **plat_environ(void);
/* The program's arguments as UTF-8: on Windows read again from the UTF-16 command line
 * (GetCommandLineW; main's argv is in the ANSI code page, which cannot hold every name);
 * elsewhere left as they are. */
void plat_main_args(int *argc, char ***argv);
/* A copy of this process's environment into out, and back: plat_env_restore replaces the
 * environment with the saved one (what was set since is gone). */
void plat_env_save(struct strvec *out);
void plat_env_restore(const struct strvec *saved);

/* Creates "PATH.shardcc-tmp.PID.N", a new file beside path, for writing: created, never
 * opened (a name that is there, a symbolic link planted for it included, is passed over
 * for another N), so nothing is written through a link or into another's file. Its name
 * goes into *tmp, its descriptor into *fd. 0 or an errno. */
int plat_create_temp(const char *path, int executable, struct strbuf *tmp, int *fd);
/* Writes data to path through a temporary file in the same directory and a rename,
 * so readers see either the old file or the whole new one. 0 or an errno. */
int plat_write_atomic(const char *path, const void *data, size_t len);
/* The same, executable (mode 0777 less the umask) when executable is non-zero. */
int plat_write_atomic_mode(const char *path, const void *data, size_t len, int executable);
/* True when path is a regular file holding exactly these bytes. */
int plat_same_content(const char *path, const void *data, size_t len);
/* Sets a file's modification time to now. 0 or an errno. */
int plat_touch(const char *path);
/* Appends data with one write(2) on an O_APPEND descriptor (records up to PIPE_BUF
 * bytes from concurrent writers never interleave). 0 or an errno. */
int plat_append_record(const char *path, const void *data, size_t len);
/* The same in two steps, for a caller that must know the file is writable before it
 * has the record: open (created if missing) for appending, then one write per record. */
int plat_open_append(const char *path, int *fd);
int plat_append_fd(int fd, const void *data, size_t len);
/* Closes a descriptor from plat_open_append. 0 or an errno. */
int plat_close(int fd);
/* Not an errno: a path that names a FIFO, a device or a socket where a file is expected.
 * plat_strerror names it; strerror does not. */
#define PLAT_ENOTREG 0x10000
/* strerror, and PLAT_ENOTREG's reason. */
const char *plat_strerror(int e);
/* Opens path for reading only when it is a regular file: the open does not block (a FIFO
 * without a writer) and nothing is read from a device before it is refused. 0 and the
 * descriptor (blocking, close-on-exec), EISDIR, PLAT_ENOTREG or another errno. */
int plat_open_regular(const char *path, int *fd);
/* Opens path for reading when it is a regular file and no symbolic link (ELOOP then), with
 * its number of hard links in *links (1 on Windows). 0, PLAT_ENOTREG, or an errno. */
int plat_open_lone(const char *path, int *fd, unsigned long *links);
/* Copies what is left to read of fd into path (replaced), through plat_create_temp and a
 * rename, 1 MiB at a time: memory stays bounded whatever the size. 0 or an errno. */
int plat_copy_fd(int fd, const char *path);
/* Reads a whole regular file (plat_open_regular). 0 or an errno. */
int plat_read_file(const char *path, struct strbuf *out);
/* The same, stopping with EFBIG once more than max bytes would have been read. */
int plat_read_file_max(const char *path, size_t max, struct strbuf *out);
/* A regular file of at most max bytes as text: *text, *len and a NUL byte after it. Mapped
 * read-only for the rest of the process where a NUL comes free (the file does not end on a
 * page boundary: the page's tail reads as zeros), else read into spare (plat_read_file_max).
 * For the seat's plan, read on every call: a mapping costs one page fault (the kernel maps
 * the cached pages around it) where a read into fresh memory costs one per page and
 * malloc's own (bench/plan_stub_cost.sh). 0 or an errno, as plat_read_file_max. */
int plat_map_file(const char *path, size_t max, const char **text, size_t *len,
                  struct strbuf *spare);

uint64_t plat_monotonic_us(void);
uint64_t plat_wall_us(void);
long plat_pid(void);

#endif

#ifndef SHARDCC_PLATFORM_EXTRA
#define SHARDCC_PLATFORM_EXTRA
int plat_is_dir(const char *path);
/* What path names, a final symbolic link not followed (Windows: no link is told apart,
 * docs/windows.md). */
enum plat_kind { PLAT_ABSENT, PLAT_FILE, PLAT_DIR, PLAT_SYMLINK, PLAT_OTHER };
enum plat_kind plat_kind_of(const char *path);
/* A file's last modification, in microseconds since the epoch (not following a symbolic
 * link on POSIX); *is_dir says whether it is a directory. 0 or an errno. */
int plat_mtime(const char *path, long long *usec, int *is_dir);
/* Runs argv (argv[0] looked up on PATH) with this process's environment and standard
 * streams, waits, and returns its exit status (128+S for a signal S), or -1 (errno set).
 * SIGINT, SIGTERM and SIGHUP received meanwhile are passed on to the child. */
int plat_spawn_wait_path(char *const argv[]);
/* While plat_spawn_wait_path or plat_spawn_wait_log waits for its child, fn(ctx) is called
 * every interval seconds (progress lines on long builds); interval 0 or fn NULL: never. */
void plat_wait_tick(unsigned interval, void (*fn)(void *ctx), void *ctx);
/* Whether standard error is a terminal (a person watching, not a CI log). */
int plat_stderr_is_terminal(void);
/* As plat_spawn_wait_path, with standard output and error appended to the file log. */
int plat_spawn_wait_log(char *const argv[], const char *log);
/* The names in a directory (not "." and ".."), sorted. 0 or an errno. */
int plat_list_dir(const char *dir, struct strvec *out);
/* Creates a symbolic link at path pointing to target. 0 or an errno. */
int plat_symlink(const char *target, const char *path);
/* Removes a directory tree (links are removed, never followed); a missing one is not an
 * error. 0 or an errno. */
int plat_rmtree(const char *dir);
/* Renames a file or directory (same file system). 0 or an errno. */
int plat_rename(const char *from, const char *to);
/* Removes a file; a missing one is not an error. 0 or an errno. */
int plat_unlink(const char *path);
/* Creates dir and its missing parents. 0 or an errno. */
int plat_mkdir_p(const char *dir);
/* Runs argv (argv[0] looked up on PATH when it has no '/'), captures its standard output
 * into out (stderr passes through) and returns its exit status, or -1 (errno set). */
int plat_run_capture(char *const argv[], struct strbuf *out);
/* Bytes an unprivileged writer can still use on the file system holding path. 0 or errno. */
int plat_free_bytes(const char *path, unsigned long long *out);
/* The signal (SIGINT, SIGTERM, SIGHUP) this process received while plat_spawn_wait_path or
 * plat_spawn_wait_log waited, and passed on to the child; 0 when none. */
int plat_interrupted_by(void);
/* The signal that ended the child last waited for by a plat_spawn_* or plat_run_* call
 * (whose status was then 128 + that signal), or 0 when it exited. */
int plat_last_signal(void);
/* The same, capturing file descriptor fd (1 or 2) instead of standard output. */
int plat_run_capture_fd(char *const argv[], int fd, struct strbuf *out);
/* A file in memory that the children started afterwards inherit and can open by the name
 * /dev/fd/<fd> (Linux's memfd_create): for a log a child writes, with nothing to create
 * or remove on disk. -1 with errno when there is none here, or when /dev/fd does not
 * reach it (no /proc in a container): the caller then uses a real file. */
int plat_memfd(const char *name);
/* Appends the whole content of fd, read from offset 0, to out: 0 or an errno value. */
int plat_read_fd(int fd, struct strbuf *out);
/* Which of the npats byte strings path contains, read in chunks (any size of file): *found
 * is the first pattern's index found, or -1. Anything but a regular file holds none. 0 or
 * an errno. */
/* The program file of this process's parent (/proc/PPID/exe). 0 or an errno. */
int plat_parent_exe(struct strbuf *out);
int plat_file_find(const char *path, const char *const *pats, const size_t *lens, int npats,
                   int *found);

#endif
