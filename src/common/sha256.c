/* sha256: FIPS 180-4 SHA-256. */
#include "sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5],
             g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
    s->h[5] += f;
    s->h[6] += g;
    s->h[7] += h;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The x86 SHA extensions (SHA-NI: sha256rnds2, sha256msg1, sha256msg2), where the processor
 * has them: about five times the portable code's speed, which the link job's check of
 * every artifact member's SHA-256 needs to keep merge as fast as tar. Intrinsics only, no
 * library: the seat (libc only) links this file too. */
#include <cpuid.h>
#include <immintrin.h>

#define SHANI __attribute__((target("sha,sse4.1,ssse3")))

SHANI static void blocks_shani(uint32_t h[8], const unsigned char *p, size_t n)
{
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);  /* EFGH */
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                       /* ABEF */
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                            /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = s0, cdgh = s1, m[4];
        for (int g = 0; g < 16; g++) { /* four rounds each */
            __m128i *cur = &m[g % 4], *prev = &m[(g + 3) % 4], *next = &m[(g + 1) % 4];
            if (g < 4)
                *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
            __m128i msg = _mm_add_epi32(*cur, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
            if (g >= 3 && g <= 14) { /* the schedule's next four words */
                *next = _mm_add_epi32(*next, _mm_alignr_epi8(*cur, *prev, 4));
                *next = _mm_sha256msg2_epu32(*next, *cur);
            }
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
            if (g >= 1 && g <= 12)
                *prev = _mm_sha256msg1_epu32(*prev, *cur);
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);   /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);    /* DCHG */
    s0 = _mm_blend_epi16(tmp, s1, 0xF0); /* DCBA */
    s1 = _mm_alignr_epi8(s1, tmp, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

static int use_shani = -1; /* -1: not asked yet */

static int have_shani(void)
{
    if (use_shani < 0) {
        unsigned a, b, c, d;
        int sse = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);
        use_shani = sse && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
    }
    return use_shani;
}

void sha256_portable_only(int on)
{
    use_shani = on ? 0 : -1;
}
#else
void sha256_portable_only(int on)
{
    (void)on;
}
#endif

/* n whole blocks of p into s's state. */
static void blocks(struct sha256 *s, const unsigned char *p, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (have_shani()) {
        blocks_shani(s->h, p, n);
        return;
    }
#endif
    for (; n; n--, p += 64)
        block(s, p);
}

void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->nbuf = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    if (s->nbuf) {
        size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take;
        p += take;
        len -= take;
        if (s->nbuf < 64)
            return;
        blocks(s, s->buf, 1);
        s->nbuf = 0;
    }
    blocks(s, p, len / 64);
    p += len / 64 * 64;
    len %= 64;
    memcpy(s->buf, p, len);
    s->nbuf = len;
}

void sha256_update_str(struct sha256 *s, const char *str)
{
    sha256_update(s, str, strlen(str) + 1);
}

void sha256_final(struct sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_update(s, pad, npad + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void sha256_hex(const unsigned char digest[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[64] = '\0';
}

void sha256_hex_of(const void *data, size_t len, char out[65])
{
    struct sha256 s;
    unsigned char d[32];
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, d);
    sha256_hex(d, out);
}
