/* sha256: FIPS 180-4 SHA-256, for content addresses (the seat's device-code store).
 * libc only; incremental. */
#ifndef SHARDCC_SHA256_H
#define SHARDCC_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Adds the string and its terminating NUL, so that ("ab","c") and ("a","bc") differ. */
void sha256_update_str(struct sha256 *s, const char *str);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(const unsigned char digest[32], char out[65]);
/* The SHA-256 of data, as 64 hex digits, in one call. */
void sha256_hex_of(const void *data, size_t len, char out[65]);
/* With on, the portable code even where the processor has SHA extensions (the unit tests
 * check both); off, the fastest again. */
void sha256_portable_only(int on);

#endif
