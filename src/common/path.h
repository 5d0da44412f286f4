/* path: lexical path arithmetic ('/'-separated): joining, normalising, "is under".
 * No file-system access here; realpath lives in platform. */
#ifndef SHARDCC_PATH_H
#define SHARDCC_PATH_H

#include "strbuf.h"

int path_is_absolute(const char *p);
/* out = normalise(base + "/" + p) when p is relative, else normalise(p):
 * repeated '/' collapsed, "." removed, ".." applied (never above "/"). */
void path_absolute(const char *base, const char *p, struct strbuf *out);
void path_normalize(const char *p, struct strbuf *out);
/* The part of abs below root ("" for root itself), or NULL when abs is not under root.
 * Both must be normalised absolute paths. */
const char *path_under(const char *root, const char *abs);
const char *path_basename(const char *p);
/* The last component after '/' or '\\', on every system: a Windows path's, wherever it is
 * read (clang-cl's sources on Linux, a cl.exe named in a table). */
const char *path_basename_any(const char *p);
/* A program's name as Windows matches it: path_basename_any, without ".exe", in lower
 * case ("C:\\VS\\CL.EXE" is "cl"), into buf; buf, or NULL when it is cap bytes or more. */
const char *path_program_name(const char *path, char *buf, size_t cap);
/* True when some '/'-separated component of p starts with prefix (exact when !prefix_ok). */
int path_has_component(const char *p, const char *name, int prefix_ok);
/* fnmatch(3) of pat against s without flags, for systems that lack it (Windows): '*' and
 * '?' match any character, '/' too; [set], [!set] and [^set] with ranges; '\\' quotes the
 * next character. 1 on a match. */
int path_glob(const char *pat, const char *s);
/* strncasecmp for ASCII letters, which every C library has under some name (MSVC's
 * lacks <strings.h>): 0 when the first n bytes of a and b are the same but for case. */
int path_ncasecmp(const char *a, const char *b, size_t n);
/* The extension after the last '.' of the basename ("" when none). */
const char *path_extension(const char *p);

#endif
