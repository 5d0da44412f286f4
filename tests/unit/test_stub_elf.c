/* Unit tests: the stub object's ELF structure. (tests/e2e/t_stub.sh checks it with
 * readelf and real linkers.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <string.h>

#include "stub_elf.h"

static void test_header(void **state)
{
    (void)state;
    unsigned char buf[STUB_ELF_MAX];
    size_t n = stub_elf_build(buf, EM_AARCH64);
    assert_true(n <= STUB_ELF_MAX);
    Elf64_Ehdr eh;
    memcpy(&eh, buf, sizeof eh);
    assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
    assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
    assert_int_equal(eh.e_type, ET_REL);
    assert_int_equal(eh.e_machine, EM_AARCH64);
    assert_int_equal(eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr), n);
    Elf64_Shdr sh[5];
    memcpy(sh, buf + eh.e_shoff, sizeof sh);
    const char *names = (const char *)buf + sh[eh.e_shstrndx].sh_offset;
    assert_string_equal(names + sh[3].sh_name, ".symtab");
    assert_int_equal(sh[3].sh_type, SHT_SYMTAB);
    assert_int_equal(sh[3].sh_size, sizeof(Elf64_Sym));
    assert_string_equal(names + sh[4].sh_name, ".note.GNU-stack");
    for (int i = 1; i < 5; i++)
        assert_true(sh[i].sh_offset + sh[i].sh_size <= n);
}

static void test_host(void **state)
{
    (void)state;
#if defined(__x86_64__)
    assert_int_equal(stub_host_machine(), EM_X86_64);
#elif defined(__aarch64__)
    assert_int_equal(stub_host_machine(), EM_AARCH64);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
