/* fuzz_support: what the libFuzzer targets share: one temporary directory per process
 * (created on first use, removed at exit), whole-file writes, and a loud failure for a
 * broken invariant. Every file a target writes lies under fuzz_tmpdir(). */
#ifndef SHARDCC_FUZZ_SUPPORT_H
#define SHARDCC_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* The process's temporary directory: canonical and absolute, made once under $TMPDIR
 * (else /tmp) and removed by an atexit handler. Aborts if it cannot be made. */
const char *fuzz_tmpdir(void);
/* fuzz_tmpdir() + "/" + rel, allocated. */
char *fuzz_path(const char *rel);
/* Writes data to fuzz_tmpdir()/rel (its parents created), replacing it. Aborts on error. */
void fuzz_write(const char *rel, const void *data, size_t len);
/* Removes fuzz_tmpdir()/rel and everything under it (missing: nothing to do). */
void fuzz_remove(const char *rel);
/* A copy of data with a NUL appended. */
char *fuzz_cstr(const uint8_t *data, size_t len);
struct call;
struct wrap_config;
/* Checks what classify_call() returned 0 with: enums in range, a TU has a source, an output
 * and a canonical root-relative key, its owner is a shard 1..N (the hash decides when there
 * is no plan), only a TU has a key, owner or depfile. Fails loudly otherwise. */
void fuzz_check_call(const struct call *call, const struct wrap_config *cfg);
/* Prints "fuzz invariant broken: ..." and aborts (libFuzzer saves the input). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
