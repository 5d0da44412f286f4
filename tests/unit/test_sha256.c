/* Unit tests: SHA-256 against FIPS 180-4's examples and a long input fed in odd pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sha256.h"

static void check(const char *data, size_t len, size_t piece, const char *want)
{
    struct sha256 s;
    unsigned char d[32];
    char hex[65];
    sha256_init(&s);
    for (size_t i = 0; i < len; i += piece)
        sha256_update(&s, data + i, len - i < piece ? len - i : piece);
    sha256_final(&s, d);
    sha256_hex(d, hex);
    assert_string_equal(hex, want);
}

static void test_vectors(void **state)
{
    (void)state;
    check("", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check("abc", 3, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (size_t piece = 1; piece <= 64; piece++)
        check(two, strlen(two), piece,
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a(void **state)
{
    (void)state;
    static char a[1000000];
    memset(a, 'a', sizeof a);
    check(a, sizeof a, 4099, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    check(a, 55, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    check(a, 56, 7, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

static void test_str_separates(void **state)
{
    (void)state;
    struct sha256 x, y;
    unsigned char dx[32], dy[32];
    sha256_init(&x);
    sha256_update_str(&x, "ab");
    sha256_update_str(&x, "c");
    sha256_init(&y);
    sha256_update_str(&y, "a");
    sha256_update_str(&y, "bc");
    sha256_final(&x, dx);
    sha256_final(&y, dy);
    assert_memory_not_equal(dx, dy, 32);
}

/* The processor's SHA extensions (where it has them) and the portable code must agree:
 * the same vectors through both, and a long random input hashed both ways. */
static void test_both_paths(void **state)
{
    (void)state;
    static unsigned char data[300007];
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < sizeof data; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        data[i] = (unsigned char)x;
    }
    char fast[65], slow[65];
    for (size_t len = 0; len < sizeof data; len = len * 3 + 1) {
        sha256_portable_only(0);
        sha256_hex_of(data, len, fast);
        sha256_portable_only(1);
        sha256_hex_of(data, len, slow);
        assert_string_equal(fast, slow);
    }
    sha256_portable_only(1);
    test_vectors(state);
    test_million_a(state);
    sha256_portable_only(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_million_a),
        cmocka_unit_test(test_str_separates),
        cmocka_unit_test(test_both_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
