/* platform_win32: the Windows implementation of platform.h (mingw-w64 or MSVC), for the
 * seat first (shardcc-wrap.exe). Owns process creation, the atomic-write protocol and the
 * translation between the rest of the code's UTF-8 paths and Windows' UTF-16 ones; owns no
 * policy. Where Windows has no equivalent, the function says so (errno ENOSYS) and its
 * callers take the way they take on a POSIX system without it (no memfd: a real file).
 * Paths this file hands out are spelled with '/' (C:/work/a.cu): Windows takes both
 * separators, and path.c splits on '/'.
 *
 * What differs from platform_posix.c, on purpose:
 * - plat_exec cannot replace the process: it runs the program, waits for it and exits
 *   with its status (the seat's parent sees the same status and output);
 * - plat_run_parallel runs the jobs one after the other in this process (no fork);
 * - a command line over 32,767 characters (CreateProcess's limit) goes out as a response
 *   file, @FILE, holding every argument after the program (and after the compiler, for
 *   ccache), quoted as the command line is;
 * - there are no signals: plat_last_signal and plat_interrupted_by are 0. */
#include "platform.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>
#include <tlhelp32.h>

/* ---- UTF-8 and UTF-16 -------------------------------------------------------------- */

/* s as UTF-16 (malloc'd), '/' kept: Win32 takes it. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    if (n <= 0)
        n = 1;
    wchar_t *w = xmalloc((size_t)n * sizeof *w);
    if (MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0)
        w[0] = 0;
    return w;
}

/* Appends w as UTF-8 to out. */
static void narrow_add(struct strbuf *out, const wchar_t *w, int len)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, len, NULL, 0, NULL, NULL);
    if (n <= 0)
        return;
    sb_grow(out, (size_t)n + 1);
    WideCharToMultiByte(CP_UTF8, 0, w, len, out->buf + out->len, n, NULL, NULL);
    out->len += (size_t)n;
    out->buf[out->len] = '\0';
}

static void slashes(struct strbuf *p)
{
    for (size_t i = 0; i < p->len; i++)
        if (p->buf[i] == '\\')
            p->buf[i] = '/';
}

/* A Win32 error as the errno value the callers know. */
static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_PATHNAME:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER:
        return EINVAL;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED:
        return ENOSYS;
    default:
        return EIO;
    }
}

/* GetLastError as an errno, also left in errno for callers that print strerror(errno) */
static int last_errno(void)
{
    int e = errno_of(GetLastError());
    errno = e;
    return e;
}

/* ---- the environment ---------------------------------------------------------------- */

int setenv(const char *name, const char *value, int overwrite)
{
    if (!overwrite && getenv(name))
        return 0;
    /* "" would remove it (_putenv_s): an empty value is kept as Windows can keep it */
    if (_putenv_s(name, value) != 0)
        return -1;
    if (!*value)
        SetEnvironmentVariableA(name, "");
    return 0;
}

int unsetenv(const char *name)
{
    return _putenv_s(name, "") == 0 ? 0 : -1;
}

int link(const char *from, const char *to)
{
    wchar_t *wf = wide(from), *wt = wide(to);
    BOOL ok = CreateHardLinkW(wt, wf, NULL);
    int e = ok ? 0 : last_errno();
    free(wf);
    free(wt);
    if (e)
        errno = e;
    return ok ? 0 : -1;
}

const char *strsignal(int sig)
{
    switch (sig) {
    case SIGINT:
        return "Interrupt";
    case SIGTERM:
        return "Terminated";
    case SIGABRT:
        return "Aborted";
    case SIGSEGV:
        return "Segmentation fault";
    case SIGFPE:
        return "Floating point exception";
    case SIGILL:
        return "Illegal instruction";
    default:
        return "Unknown signal";
    }
}

char **plat_environ(void)
{
    return _environ;
}

void plat_main_args(int *argc, char ***argv)
{
    /* files and the standard streams in binary: artifacts, journals and objects are bytes,
     * and what the CLI prints (sh for eval in bash too) ends its lines with LF alone */
    _fmode = _O_BINARY;
    _setmode(0, _O_BINARY);
    _setmode(1, _O_BINARY);
    _setmode(2, _O_BINARY);
    int n;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w)
        return; /* keep the C runtime's */
    char **v = xmalloc(((size_t)n + 1) * sizeof *v);
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        sb_reset(&sb);
        narrow_add(&sb, w[i], -1);
        if (sb.len && sb.buf[sb.len - 1] == '\0')
            sb.len--;
        v[i] = xstrdup(sb_str(&sb));
    }
    v[n] = NULL;
    sb_release(&sb);
    LocalFree(w);
    *argc = n;
    *argv = v; /* lives until exit */
}

void plat_env_save(struct strvec *out)
{
    for (char **e = _environ; e && *e; e++)
        sv_push(out, *e);
}

void plat_env_restore(const struct strvec *saved)
{
    struct strvec now = STRVEC_INIT;
    plat_env_save(&now);
    for (size_t i = 0; i < now.n; i++) {
        char *eq = strchr(now.v[i], '=');
        if (eq && eq != now.v[i]) { /* "=C:=C:\x", the drives' directories, stay */
            *eq = '\0';
            unsetenv(now.v[i]);
        }
    }
    sv_clear(&now);
    for (size_t i = 0; i < saved->n; i++) {
        const char *eq = strchr(saved->v[i], '=');
        if (!eq || eq == saved->v[i])
            continue;
        char *name = xstrndup(saved->v[i], (size_t)(eq - saved->v[i]));
        setenv(name, eq + 1, 1);
        free(name);
    }
}

/* ---- paths ---------------------------------------------------------------------------- */

static HANDLE open_any(const char *path, DWORD access)
{
    wchar_t *w = wide(path);
    HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    return h;
}

int plat_realpath(const char *path, struct strbuf *out)
{
    HANDLE h = open_any(path, 0);
    if (h == INVALID_HANDLE_VALUE)
        return last_errno();
    wchar_t buf[32768];
    DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED);
    int e = n == 0 || n >= 32768 ? last_errno() : 0;
    CloseHandle(h);
    if (e)
        return e;
    const wchar_t *p = buf;
    if (!wcsncmp(p, L"\\\\?\\UNC\\", 8)) {
        p += 6; /* \\?\UNC\server\share -> \\server\share */
        buf[6] = L'\\';
    } else if (!wcsncmp(p, L"\\\\?\\", 4)) {
        p += 4;
    }
    sb_reset(out);
    narrow_add(out, p, -1);
    if (out->len && out->buf[out->len - 1] == '\0')
        out->len--;
    slashes(out);
    return 0;
}

/* A path of n UTF-16 units that a call wrote into buf (0 or 32768 and more: failed), into
 * out as UTF-8 with '/'. 0 or an errno. */
static int path_out(const wchar_t *buf, DWORD n, struct strbuf *out)
{
    if (n == 0 || n >= 32768)
        return last_errno();
    sb_reset(out);
    narrow_add(out, buf, (int)n);
    slashes(out);
    return 0;
}

int plat_getcwd(struct strbuf *out)
{
    wchar_t buf[32768];
    return path_out(buf, GetCurrentDirectoryW(32768, buf), out);
}

int plat_self_exe(struct strbuf *out)
{
    wchar_t buf[32768];
    return path_out(buf, GetModuleFileNameW(NULL, buf, 32768), out);
}

int plat_file_exists(const char *path)
{
    wchar_t *w = wide(path);
    DWORD a = GetFileAttributesW(w);
    free(w);
    return a != INVALID_FILE_ATTRIBUTES;
}

int plat_is_dir(const char *path)
{
    wchar_t *w = wide(path);
    DWORD a = GetFileAttributesW(w);
    free(w);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

int plat_mtime(const char *path, long long *usec, int *is_dir)
{
    wchar_t *w = wide(path);
    WIN32_FILE_ATTRIBUTE_DATA d;
    BOOL ok = GetFileAttributesExW(w, GetFileExInfoStandard, &d);
    free(w);
    if (!ok)
        return ENOENT;
    /* 100 ns ticks since 1601 to microseconds since 1970 */
    unsigned long long t = ((unsigned long long)d.ftLastWriteTime.dwHighDateTime << 32) |
                           d.ftLastWriteTime.dwLowDateTime;
    *usec = (long long)(t / 10ull) - 11644473600000000ll;
    *is_dir = (d.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    return 0;
}

/* The extensions Windows runs (PATHEXT, else .COM;.EXE;.BAT;.CMD). */
static const char *pathext(void)
{
    const char *e = getenv("PATHEXT");
    return e && *e ? e : ".COM;.EXE;.BAT;.CMD";
}

static int has_run_ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strpbrk(dot, "/\\"))
        return 0;
    size_t n = strlen(dot);
    for (const char *p = pathext(); *p;) {
        const char *e = strchr(p, ';');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && !_strnicmp(p, dot, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int plat_is_executable(const char *path)
{
    return plat_file_exists(path) && !plat_is_dir(path) && has_run_ext(path);
}

/* The file's identity: its volume and index. 0, or an errno. */
static int file_id(const char *path, unsigned long long id[2])
{
    HANDLE h = open_any(path, 0);
    if (h == INVALID_HANDLE_VALUE)
        return last_errno();
    BY_HANDLE_FILE_INFORMATION fi;
    int e = GetFileInformationByHandle(h, &fi) ? 0 : last_errno();
    CloseHandle(h);
    id[0] = fi.dwVolumeSerialNumber;
    id[1] = (unsigned long long)fi.nFileIndexHigh << 32 | fi.nFileIndexLow;
    return e;
}

int plat_is_self_exe(const char *path)
{
    struct strbuf self = STRBUF_INIT;
    unsigned long long a[2], b[2];
    int same = plat_self_exe(&self) == 0 && file_id(path, a) == 0 &&
               file_id(sb_str(&self), b) == 0 && a[0] == b[0] && a[1] == b[1];
    sb_release(&self);
    return same;
}

/* path, or path + one of PATHEXT's extensions, that Windows would run: 1 and out. */
static int runnable(const char *path, int skip_self, struct strbuf *out)
{
    sb_reset(out);
    sb_adds(out, path);
    if (plat_is_executable(sb_str(out)) && !(skip_self && plat_is_self_exe(sb_str(out))))
        return 1;
    for (const char *p = pathext(); *p;) {
        const char *e = strchr(p, ';');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        sb_reset(out);
        sb_adds(out, path);
        sb_add(out, p, k);
        if (k && plat_is_executable(sb_str(out)) && !(skip_self && plat_is_self_exe(sb_str(out))))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int find_in_path(const char *name, int skip_self, struct strbuf *out)
{
    if (strpbrk(name, "/\\:")) {
        if (runnable(name, 0, out))
            return 0;
        sb_reset(out);
        sb_adds(out, name);
        return ENOENT;
    }
    const char *p = getenv("PATH");
    struct strbuf cand = STRBUF_INIT;
    while (p && *p) {
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) {
            sb_reset(&cand);
            sb_add(&cand, p, n);
            if (cand.buf[cand.len - 1] != '/' && cand.buf[cand.len - 1] != '\\')
                sb_addc(&cand, '/');
            sb_adds(&cand, name);
            if (runnable(sb_str(&cand), skip_self, out)) {
                sb_release(&cand);
                return 0;
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    sb_release(&cand);
    sb_reset(out);
    return ENOENT;
}

int plat_find_in_path(const char *name, struct strbuf *out)
{
    return find_in_path(name, 0, out);
}

int plat_find_in_path_other(const char *name, struct strbuf *out)
{
    return find_in_path(name, 1, out);
}

int plat_free_bytes(const char *path, unsigned long long *out)
{
    wchar_t *w = wide(path);
    ULARGE_INTEGER avail;
    int ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
    free(w);
    if (!ok)
        return last_errno();
    *out = avail.QuadPart;
    return 0;
}

/* ---- processes -------------------------------------------------------------------------- */

int plat_last_signal(void)
{
    return 0;
}

int plat_interrupted_by(void)
{
    return 0;
}

/* Appends arg to a command line as the C runtime's argument parser (and
 * CommandLineToArgvW) reads it back: quoted when it holds a blank or a quote or is empty;
 * inside quotes, the backslashes before a quote (and before the closing one) doubled. */
static void quote_arg(struct strbuf *cmd, const char *arg)
{
    if (*arg && !strpbrk(arg, " \t\n\v\"")) {
        sb_adds(cmd, arg);
        return;
    }
    sb_addc(cmd, '"');
    for (const char *p = arg;; p++) {
        size_t bs = 0;
        while (*p == '\\') {
            bs++;
            p++;
        }
        if (!*p) {
            for (size_t i = 0; i < 2 * bs; i++)
                sb_addc(cmd, '\\');
            break;
        }
        for (size_t i = 0; i < (*p == '"' ? 2 * bs + 1 : bs); i++)
            sb_addc(cmd, '\\');
        sb_addc(cmd, *p);
    }
    sb_addc(cmd, '"');
}

#define CMDLINE_MAX 32767

/* The command line for argv; one over CreateProcess's limit puts the arguments after the
 * program (and after the compiler a ccache runs) into a response file, *rsp (malloc'd,
 * removed by the caller). 0, or an errno. */
static int command_line(char *const argv[], struct strbuf *cmd, char **rsp)
{
    *rsp = NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            sb_addc(cmd, ' ');
        quote_arg(cmd, argv[i]);
    }
    if (cmd->len < CMDLINE_MAX)
        return 0;
    const char *base = path_basename_any(argv[0]);
    size_t keep = !_strnicmp(base, "ccache", 6) && argv[1] ? 2 : 1;
    struct strbuf body = STRBUF_INIT, name = STRBUF_INIT;
    for (size_t i = keep; argv[i]; i++) {
        if (i > keep)
            sb_addc(&body, '\n');
        quote_arg(&body, argv[i]);
    }
    wchar_t dir[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, dir);
    if (n == 0) {
        sb_release(&body);
        return last_errno();
    }
    narrow_add(&name, dir, (int)n);
    slashes(&name);
    sb_addf(&name, "shardcc-%lu-%llu.rsp", (unsigned long)GetCurrentProcessId(),
            (unsigned long long)plat_monotonic_us());
    int e = plat_write_atomic(sb_str(&name), body.buf ? body.buf : "", body.len);
    sb_release(&body);
    if (e) {
        sb_release(&name);
        return e;
    }
    sb_reset(cmd);
    for (size_t i = 0; i < keep; i++) {
        quote_arg(cmd, argv[i]);
        sb_addc(cmd, ' ');
    }
    sb_addc(cmd, '@');
    quote_arg(cmd, sb_str(&name));
    *rsp = sb_detach(&name);
    return 0;
}

static int cmp_env(const void *a, const void *b)
{
    return _wcsicmp(*(wchar_t *const *)a, *(wchar_t *const *)b);
}

/* envp as a sorted UTF-16 environment block (malloc'd). */
static wchar_t *env_block(char *const envp[])
{
    size_t n = 0, total = 1;
    while (envp && envp[n])
        n++;
    wchar_t **w = xmalloc((n ? n : 1) * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        w[i] = wide(envp[i]);
        total += wcslen(w[i]) + 1;
    }
    qsort(w, n, sizeof *w, cmp_env);
    wchar_t *block = xmalloc((total + 1) * sizeof *block), *p = block;
    for (size_t i = 0; i < n; i++) {
        size_t k = wcslen(w[i]) + 1;
        memcpy(p, w[i], k * sizeof *p);
        p += k;
        free(w[i]);
    }
    *p++ = 0;
    *p = 0;
    free(w);
    return block;
}

/* Starts path (argv, envp; NULL: this process's environment) with its standard streams
 * out and err (NULL: this process's). 0 and *proc, or an errno. */
static int start(const char *path, char *const argv[], char *const envp[], HANDLE out, HANDLE err,
                 HANDLE *proc, char **rsp)
{
    struct strbuf cmd = STRBUF_INIT;
    int e = command_line(argv, &cmd, rsp);
    if (e) {
        sb_release(&cmd);
        return e;
    }
    wchar_t *wpath = wide(path), *wcmd = wide(sb_str(&cmd));
    wchar_t *block = envp ? env_block(envp) : NULL;
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    BOOL inherit = FALSE;
    if (out || err) {
        si.dwFlags = STARTF_USESTDHANDLES;
        si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
        si.hStdOutput = out ? out : GetStdHandle(STD_OUTPUT_HANDLE);
        si.hStdError = err ? err : GetStdHandle(STD_ERROR_HANDLE);
        inherit = TRUE;
    }
    PROCESS_INFORMATION pi;
    fflush(stdout);
    fflush(stderr);
    BOOL ok = CreateProcessW(wpath, wcmd, NULL, NULL, inherit,
                             block ? CREATE_UNICODE_ENVIRONMENT : 0, block, NULL, &si, &pi);
    e = ok ? 0 : last_errno();
    free(wpath);
    free(wcmd);
    free(block);
    sb_release(&cmd);
    if (e)
        return e;
    CloseHandle(pi.hThread);
    *proc = pi.hProcess;
    return 0;
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
    return _isatty(2);
}

static int wait_proc(HANDLE proc, char *rsp)
{
    DWORD code = 1;
    if (tick_interval)
        while (WaitForSingleObject(proc, tick_interval * 1000u) == WAIT_TIMEOUT)
            tick_fn(tick_ctx);
    else
        WaitForSingleObject(proc, INFINITE);
    GetExitCodeProcess(proc, &code);
    CloseHandle(proc);
    if (rsp) {
        plat_unlink(rsp);
        free(rsp);
    }
    return (int)code;
}

static int spawn_handles(const char *path, char *const argv[], char *const envp[], HANDLE out,
                         HANDLE err)
{
    HANDLE proc;
    char *rsp;
    int e = start(path, argv, envp, out, err, &proc, &rsp);
    if (e) {
        errno = e;
        return -1;
    }
    return wait_proc(proc, rsp);
}

/* An inheritable handle to path, created or truncated (append: appended to). */
static HANDLE open_out(const char *path, int append)
{
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    wchar_t *w = wide(path);
    HANDLE h = CreateFileW(w, append ? FILE_APPEND_DATA : GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
                           append ? OPEN_ALWAYS : CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    return h;
}

int plat_spawn_wait(const char *path, char *const argv[], char *const envp[])
{
    return spawn_handles(path, argv, envp, NULL, NULL);
}

int plat_spawn_wait_redirect(const char *path, char *const argv[], char *const envp[],
                             const char *out, const char *err)
{
    HANDLE ho = out ? open_out(out, 0) : NULL, he = err ? open_out(err, 0) : NULL;
    if (ho == INVALID_HANDLE_VALUE || he == INVALID_HANDLE_VALUE) {
        int e = last_errno();
        if (ho && ho != INVALID_HANDLE_VALUE)
            CloseHandle(ho);
        if (he && he != INVALID_HANDLE_VALUE)
            CloseHandle(he);
        errno = e;
        return -1;
    }
    int st = spawn_handles(path, argv, envp, ho, he);
    if (ho)
        CloseHandle(ho);
    if (he)
        CloseHandle(he);
    return st;
}

int plat_exec(const char *path, char *const argv[], char *const envp[])
{
    int st = plat_spawn_wait(path, argv, envp);
    if (st < 0)
        return -1;
    fflush(NULL);
    ExitProcess((UINT)st);
}

int plat_run_parallel(size_t n, size_t max, int (*fn)(void *ctx, size_t i), void *ctx)
{
    (void)max; /* no fork: one job after the other, in this process */
    int first = 0;
    for (size_t i = 0; i < n; i++) {
        int st = fn(ctx, i) & 0xff;
        if (st && !first)
            first = st;
    }
    return first;
}

long plat_processors(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (long)n : 1;
}

static int spawn_path_handles(char *const argv[], HANDLE out, HANDLE err)
{
    struct strbuf exe = STRBUF_INIT;
    if (plat_find_in_path(argv[0], &exe) != 0) {
        sb_release(&exe);
        errno = ENOENT;
        return -1;
    }
    int st = spawn_handles(sb_str(&exe), argv, NULL, out, err);
    sb_release(&exe);
    return st;
}

int plat_spawn_wait_path(char *const argv[])
{
    return spawn_path_handles(argv, NULL, NULL);
}

int plat_spawn_wait_log(char *const argv[], const char *log)
{
    HANDLE h = open_out(log, 1);
    if (h == INVALID_HANDLE_VALUE) {
        errno = last_errno();
        return -1;
    }
    int st = spawn_path_handles(argv, h, h);
    CloseHandle(h);
    return st;
}

int plat_run_capture(char *const argv[], struct strbuf *out)
{
    return plat_run_capture_fd(argv, 1, out);
}

int plat_run_capture_fd(char *const argv[], int fd, struct strbuf *out)
{
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE rd, wr;
    if (!CreatePipe(&rd, &wr, &sa, 0)) {
        errno = last_errno();
        return -1;
    }
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    struct strbuf exe = STRBUF_INIT;
    HANDLE proc;
    char *rsp = NULL;
    int e = plat_find_in_path(argv[0], &exe) != 0
                ? ENOENT
                : start(sb_str(&exe), argv, NULL, fd == 1 ? wr : NULL, fd == 2 ? wr : NULL, &proc,
                        &rsp);
    sb_release(&exe);
    CloseHandle(wr);
    if (e) {
        CloseHandle(rd);
        errno = e;
        return -1;
    }
    char buf[4096];
    DWORD r;
    while (ReadFile(rd, buf, sizeof buf, &r, NULL) && r > 0)
        sb_add(out, buf, r);
    CloseHandle(rd);
    return wait_proc(proc, rsp);
}

int plat_parent_exe(struct strbuf *out)
{
    DWORD self = GetCurrentProcessId(), parent = 0;
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return last_errno();
    PROCESSENTRY32W pe;
    pe.dwSize = sizeof pe;
    for (BOOL ok = Process32FirstW(snap, &pe); ok; ok = Process32NextW(snap, &pe))
        if (pe.th32ProcessID == self) {
            parent = pe.th32ParentProcessID;
            break;
        }
    CloseHandle(snap);
    if (!parent)
        return ESRCH;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, parent);
    if (!h)
        return last_errno();
    wchar_t buf[32768];
    DWORD n = 32768;
    int e = QueryFullProcessImageNameW(h, 0, buf, &n) ? 0 : last_errno();
    CloseHandle(h);
    if (e)
        return e;
    sb_reset(out);
    narrow_add(out, buf, (int)n);
    slashes(out);
    return 0;
}

/* ---- files ---------------------------------------------------------------------------- */

/* A C runtime descriptor for handle h (binary): the rest of the code passes ints. */
static int fd_of(HANDLE h, int flags)
{
    int fd = _open_osfhandle((intptr_t)h, flags | _O_BINARY);
    if (fd < 0)
        CloseHandle(h);
    return fd;
}

int plat_lock_patient(const char *path, int *fd, unsigned notice, const char *who, const char *what)
{
    (void)notice;
    (void)who;
    (void)what;
    return plat_lock(path, fd);
}

int plat_lock(const char *path, int *fd)
{
    for (;;) {
        wchar_t *w = wide(path);
        HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                               FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                               OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        free(w);
        if (h == INVALID_HANDLE_VALUE)
            return last_errno();
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) {
            int e = last_errno();
            CloseHandle(h);
            return e;
        }
        /* the holder before us removes the file as it lets go: take the one now at path */
        BY_HANDLE_FILE_INFORMATION a;
        unsigned long long b[2];
        if (GetFileInformationByHandle(h, &a) && file_id(path, b) == 0 &&
            a.dwVolumeSerialNumber == b[0] &&
            ((unsigned long long)a.nFileIndexHigh << 32 | a.nFileIndexLow) == b[1]) {
            *fd = fd_of(h, _O_RDWR);
            return *fd < 0 ? EMFILE : 0;
        }
        CloseHandle(h);
    }
}

void plat_unlock_remove(const char *path, int fd)
{
    plat_unlink(path);
    _close(fd);
}

static int write_handle(HANDLE h, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        DWORD chunk = len > 1u << 30 ? 1u << 30 : (DWORD)len, w;
        if (!WriteFile(h, p, chunk, &w, NULL))
            return last_errno();
        p += w;
        len -= w;
    }
    return 0;
}

/* "PATH.shardcc-tmp.PID.N" made with CREATE_NEW (which fails on a name that is there,
 * a reparse point included), the next N when it is taken. 0 or an errno. */
static int create_new(const char *path, struct strbuf *tmp, HANDLE *h)
{
    static unsigned long seq;
    for (int tries = 0; tries < 64; tries++) {
        sb_reset(tmp);
        sb_addf(tmp, "%s.shardcc-tmp.%lu.%lx", path, (unsigned long)GetCurrentProcessId(),
                (unsigned long)((GetTickCount() ^ (++seq << 24)) & 0xffffffffu));
        wchar_t *w = wide(sb_str(tmp));
        *h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        free(w);
        if (*h != INVALID_HANDLE_VALUE)
            return 0;
        if (GetLastError() != ERROR_FILE_EXISTS && GetLastError() != ERROR_ALREADY_EXISTS)
            return last_errno();
    }
    return EEXIST;
}

int plat_create_temp(const char *path, int executable, struct strbuf *tmp, int *fd)
{
    (void)executable; /* Windows runs a file by its extension */
    HANDLE h;
    int e = create_new(path, tmp, &h);
    if (e)
        return e;
    *fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY | _O_NOINHERIT);
    if (*fd < 0) {
        CloseHandle(h);
        return EBADF;
    }
    return 0;
}

int plat_write_atomic(const char *path, const void *data, size_t len)
{
    return plat_write_atomic_mode(path, data, len, 0);
}

int plat_write_atomic_mode(const char *path, const void *data, size_t len, int executable)
{
    (void)executable; /* Windows runs a file by its extension */
    struct strbuf tmp = STRBUF_INIT;
    HANDLE h;
    int rc = create_new(path, &tmp, &h);
    wchar_t *wt = wide(sb_str(&tmp)), *wp = wide(path);
    if (!rc) {
        rc = write_handle(h, data, len);
        if (!CloseHandle(h) && !rc)
            rc = last_errno();
        if (!rc && !MoveFileExW(wt, wp, MOVEFILE_REPLACE_EXISTING))
            rc = last_errno();
        if (rc)
            DeleteFileW(wt);
    }
    free(wt);
    free(wp);
    sb_release(&tmp);
    return rc;
}

int plat_open_append(const char *path, int *fd)
{
    HANDLE h = open_out(path, 1);
    if (h == INVALID_HANDLE_VALUE)
        return last_errno();
    SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
    *fd = fd_of(h, _O_WRONLY | _O_APPEND);
    return *fd < 0 ? EMFILE : 0;
}

int plat_append_fd(int fd, const void *data, size_t len)
{
    /* one WriteFile on a handle opened for FILE_APPEND_DATA alone: the system puts each
     * write at the end as one piece, whoever else appends (the C runtime would seek) */
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    DWORD w;
    if (h == INVALID_HANDLE_VALUE || len > 0xffffffffu)
        return EBADF;
    if (!WriteFile(h, data, (DWORD)len, &w, NULL))
        return last_errno();
    return w == len ? 0 : EIO;
}

int plat_close(int fd)
{
    return _close(fd) == 0 ? 0 : errno;
}

int plat_append_record(const char *path, const void *data, size_t len)
{
    int fd = -1;
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

/* A handle to path for reading when it is a regular file: 0, EISDIR, PLAT_ENOTREG or
 * another errno; *size its size. */
static int open_regular_h(const char *path, HANDLE *h, unsigned long long *size)
{
    *size = 0;
    *h = open_any(path, GENERIC_READ);
    if (*h == INVALID_HANDLE_VALUE) {
        int e = last_errno();
        return e == EACCES && plat_is_dir(path) ? EISDIR : e;
    }
    BY_HANDLE_FILE_INFORMATION fi;
    int e = GetFileType(*h) != FILE_TYPE_DISK                ? PLAT_ENOTREG
            : !GetFileInformationByHandle(*h, &fi)           ? last_errno()
            : fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? EISDIR
                                                             : 0;
    if (e) {
        CloseHandle(*h);
        *h = INVALID_HANDLE_VALUE;
        return e;
    }
    *size = (unsigned long long)fi.nFileSizeHigh << 32 | fi.nFileSizeLow;
    return 0;
}

enum plat_kind plat_kind_of(const char *path)
{
    wchar_t *w = wide(path);
    DWORD a = GetFileAttributesW(w);
    free(w);
    return a == INVALID_FILE_ATTRIBUTES         ? PLAT_ABSENT
           : (a & FILE_ATTRIBUTE_DIRECTORY)     ? PLAT_DIR
           : (a & FILE_ATTRIBUTE_REPARSE_POINT) ? PLAT_OTHER
                                                : PLAT_FILE;
}

int plat_open_lone(const char *path, int *fd, unsigned long *links)
{
    *links = 1; /* hard links are not told apart here (docs/windows.md) */
    return plat_open_regular(path, fd);
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
        int n = _read(fd, buf, 1u << 20);
        if (n <= 0) {
            e = n < 0 ? errno : 0;
            break;
        }
        for (int w = 0; w < n && !e;) {
            int k = _write(out, buf + w, (unsigned)(n - w));
            if (k <= 0)
                e = k < 0 ? errno : EIO;
            w += k > 0 ? k : 0;
        }
        if (e)
            break;
    }
    free(buf);
    if (_close(out) != 0 && !e)
        e = errno;
    if (!e)
        e = plat_rename(sb_str(&tmp), path);
    if (e)
        plat_unlink(sb_str(&tmp));
    sb_release(&tmp);
    return e;
}

int plat_open_regular(const char *path, int *fd)
{
    HANDLE h;
    unsigned long long size;
    int e = open_regular_h(path, &h, &size);
    if (e)
        return e;
    *fd = fd_of(h, _O_RDONLY);
    return *fd < 0 ? EMFILE : 0;
}

static int read_handle(HANDLE h, unsigned long long size, size_t max, struct strbuf *out)
{
    if (size > max - out->len) {
        CloseHandle(h);
        return EFBIG;
    }
    sb_grow(out, (size_t)size + 1);
    out->buf[out->len] = '\0';
    int e = 0;
    for (;;) {
        size_t room = out->alloc - out->len - 1;
        if (room == 0) {
            sb_grow(out, 65536);
            room = out->alloc - out->len - 1;
        }
        DWORD r;
        if (!ReadFile(h, out->buf + out->len, room > 1u << 30 ? 1u << 30 : (DWORD)room, &r, NULL)) {
            e = last_errno();
            break;
        }
        if (r == 0)
            break;
        if ((size_t)r > max - out->len) {
            e = EFBIG;
            break;
        }
        out->len += r;
        out->buf[out->len] = '\0';
        if (size && out->len >= size)
            break; /* a snapshot of the size it had, as on POSIX */
    }
    CloseHandle(h);
    return e;
}

int plat_read_file(const char *path, struct strbuf *out)
{
    return plat_read_file_max(path, SIZE_MAX, out);
}

int plat_read_file_max(const char *path, size_t max, struct strbuf *out)
{
    HANDLE h;
    unsigned long long size;
    int e = open_regular_h(path, &h, &size);
    return e ? e : read_handle(h, size, max, out);
}

int plat_map_file(const char *path, size_t max, const char **text, size_t *len,
                  struct strbuf *spare)
{
    int e = plat_read_file_max(path, max, spare); /* read: no mapping with a NUL after it */
    *text = sb_str(spare);
    *len = spare->len;
    return e;
}

int plat_same_content(const char *path, const void *data, size_t len)
{
    struct strbuf b = STRBUF_INIT;
    int same = len <= 4096 && plat_read_file_max(path, 4096, &b) == 0 && b.len == len &&
               memcmp(b.buf ? b.buf : "", data, len) == 0;
    sb_release(&b);
    return same;
}

int plat_touch(const char *path)
{
    HANDLE h = open_any(path, FILE_WRITE_ATTRIBUTES);
    if (h == INVALID_HANDLE_VALUE)
        return last_errno();
    FILETIME now;
    GetSystemTimeAsFileTime(&now);
    int e = SetFileTime(h, NULL, NULL, &now) ? 0 : last_errno();
    CloseHandle(h);
    return e;
}

uint64_t plat_monotonic_us(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (uint64_t)(c.QuadPart / f.QuadPart) * 1000000u +
           (uint64_t)(c.QuadPart % f.QuadPart) * 1000000u / (uint64_t)f.QuadPart;
}

uint64_t plat_wall_us(void)
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    uint64_t t = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime; /* 100 ns since 1601 */
    return (t - 116444736000000000ull) / 10u;
}

long plat_pid(void)
{
    return (long)GetCurrentProcessId();
}

static int is_sep(char c)
{
    return c == '/' || c == '\\';
}

int plat_mkdir_p(const char *dir)
{
    struct strbuf p = STRBUF_INIT;
    sb_adds(&p, dir);
    size_t start = 1;
    if (p.len >= 2 && p.buf[1] == ':')
        start = 3; /* C:/ */
    else if (p.len >= 2 && is_sep(p.buf[0]) && is_sep(p.buf[1])) {
        /* \\server\share: the share exists or nothing does */
        int seps = 0;
        for (start = 2; start < p.len && seps < 2; start++)
            seps += is_sep(p.buf[start]);
    }
    for (size_t i = start; i <= p.len; i++) {
        if (i < p.len && !is_sep(p.buf[i]))
            continue;
        char c = p.buf[i];
        p.buf[i] = '\0';
        wchar_t *w = wide(p.buf);
        int ok = CreateDirectoryW(w, NULL) || GetLastError() == ERROR_ALREADY_EXISTS;
        free(w);
        if (!ok) {
            int e = last_errno();
            sb_release(&p);
            return e;
        }
        p.buf[i] = c;
    }
    sb_release(&p);
    if (!plat_file_exists(dir))
        return ENOENT;
    return plat_is_dir(dir) ? 0 : ENOTDIR;
}

int plat_unlink(const char *path)
{
    wchar_t *w = wide(path);
    int ok = DeleteFileW(w);
    DWORD err = GetLastError();
    free(w);
    return ok || err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? 0 : errno_of(err);
}

int plat_rmtree(const char *dir)
{
    wchar_t *w = wide(dir);
    DWORD a = GetFileAttributesW(w);
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        int e = last_errno();
        return e == ENOENT ? 0 : e;
    }
    if (!(a & FILE_ATTRIBUTE_DIRECTORY))
        return plat_unlink(dir);
    int rc = 0;
    if (!(a & FILE_ATTRIBUTE_REPARSE_POINT)) { /* a link to a directory: removed, not walked */
        struct strvec names = STRVEC_INIT;
        rc = plat_list_dir(dir, &names);
        struct strbuf p = STRBUF_INIT;
        for (size_t i = 0; i < names.n && !rc; i++) {
            sb_reset(&p);
            sb_addf(&p, "%s/%s", dir, names.v[i]);
            rc = plat_rmtree(sb_str(&p));
        }
        sb_release(&p);
        sv_clear(&names);
    }
    if (!rc) {
        w = wide(dir);
        if (!RemoveDirectoryW(w))
            rc = last_errno();
        free(w);
    }
    return rc;
}

int plat_rename(const char *from, const char *to)
{
    wchar_t *a = wide(from), *b = wide(to);
    int e = MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING) ? 0 : last_errno();
    free(a);
    free(b);
    return e;
}

int plat_list_dir(const char *dir, struct strvec *out)
{
    struct strbuf pat = STRBUF_INIT, name = STRBUF_INIT;
    sb_addf(&pat, "%s/*", dir);
    wchar_t *w = wide(sb_str(&pat));
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    sb_release(&pat);
    if (h == INVALID_HANDLE_VALUE) {
        int e = last_errno();
        sb_release(&name);
        return e;
    }
    do {
        if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
            continue;
        sb_reset(&name);
        narrow_add(&name, fd.cFileName, -1);
        if (name.len && name.buf[name.len - 1] == '\0')
            name.len--;
        sv_push(out, sb_str(&name));
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    sb_release(&name);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cstr_cmp);
    return 0;
}

int plat_symlink(const char *target, const char *path)
{
    wchar_t *t = wide(target), *p = wide(path);
    DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
    if (plat_is_dir(target))
        flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
    int e = CreateSymbolicLinkW(p, t, flags) ? 0 : last_errno();
    free(t);
    free(p);
    return e;
}

int plat_memfd(const char *name)
{
    (void)name;
    errno = ENOSYS;
    return -1;
}

int plat_read_fd(int fd, struct strbuf *out)
{
    if (_lseeki64(fd, 0, SEEK_SET) < 0)
        return errno;
    char buf[65536];
    for (;;) {
        int r = _read(fd, buf, sizeof buf);
        if (r < 0)
            return errno;
        if (r == 0)
            return 0;
        sb_add(out, buf, (size_t)r);
    }
}

static const void *find_bytes(const char *hay, size_t n, const char *needle, size_t k)
{
    for (size_t i = 0; k && i + k <= n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, k))
            return hay + i;
    return NULL;
}

int plat_file_find(const char *path, const char *const *pats, const size_t *lens, int npats,
                   int *found)
{
    *found = -1;
    HANDLE h;
    unsigned long long size;
    int e = open_regular_h(path, &h, &size);
    if (e)
        return e == EISDIR || e == PLAT_ENOTREG ? 0 : e; /* a directory holds no pattern */
    size_t keep = 0;
    for (int i = 0; i < npats; i++)
        if (lens[i] > keep + 1)
            keep = lens[i] - 1;
    enum { CHUNK = 1 << 20 };
    char *buf = xmalloc(CHUNK + keep);
    size_t have = 0;
    int rc = 0;
    for (;;) {
        DWORD r;
        if (!ReadFile(h, buf + have, CHUNK, &r, NULL)) {
            rc = last_errno();
            break;
        }
        have += r;
        for (int i = 0; i < npats && *found < 0; i++)
            if (lens[i] && lens[i] <= have && find_bytes(buf, have, pats[i], lens[i]))
                *found = i;
        if (*found >= 0 || r == 0)
            break;
        size_t tail = have < keep ? have : keep;
        memmove(buf, buf + have - tail, tail);
        have = tail;
    }
    free(buf);
    CloseHandle(h);
    return rc;
}
