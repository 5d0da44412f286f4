/* strbuf: a growable, always NUL-terminated byte string.
 * Owns its buffer; used by the wrapper and the CLI alike. Allocation failure aborts
 * (a compiler wrapper that cannot allocate a few bytes has nothing better to do). */
#ifndef SHARDCC_STRBUF_H
#define SHARDCC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
};

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
/* printf's format checks; mingw-w64's gcc checks "printf" against Microsoft's runtime, which
 * the seat does not use (it is built with __USE_MINGW_ANSI_STDIO: %zu and the rest work). */
#if defined(_MSC_VER) && !defined(__clang__)
#define SHARDCC_PRINTF(f, a)
#elif defined(__MINGW32__)
#define SHARDCC_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define SHARDCC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

void sb_addf(struct strbuf *sb, const char *fmt, ...) SHARDCC_PRINTF(2, 3);
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);
/* Appends s with every control character (bytes 0x00-0x1f and 0x7f: newlines, carriage
 * returns, terminal escapes) written as \xNN: text from an artifact, a summary or a build
 * can then neither start a line of its own (a forged "::error::" workflow command) nor
 * drive the terminal. The one path untrusted text takes to a message or a report. */
void sb_add_printable(struct strbuf *sb, const char *s);
/* The contents ("" when empty); valid until the next change. */
const char *sb_str(const struct strbuf *sb);
/* Hands the buffer to the caller (never NULL) and leaves sb empty. */
char *sb_detach(struct strbuf *sb);
void sb_release(struct strbuf *sb);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
