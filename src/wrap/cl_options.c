/* cl_options: the options of MSVC's cl.exe and LLVM's clang-cl that the host seat must
 * understand when its real compiler is one of them (seat.h, msvc_dialect): phase, output,
 * sources given by option, and the options whose value is a separate argument. cl takes
 * '/' and '-' alike; the rows are spelled with '-' and the seat looks a '/' argument up
 * as if it began with '-' (cl_match). Sources: learn.microsoft.com "Compiler options
 * listed alphabetically" (MSVC 17) and clang's Options.td (CL* option classes, LLVM 14).
 * OPT_JOINED rows take a value glued on only (/Fo<path>; a bare /Fo takes none). */
#include "options.h"

static const struct opt rows[] = {
    {"--help", OPT_INFO, NULL},
    {"--target", OPT_ARG | OPT_EQ_ONLY, NULL},
    {"--version", OPT_INFO, NULL},
    {"-?", OPT_INFO, NULL},
    {"-AI", OPT_ARG | OPT_CONCAT, NULL},
    {"-D", OPT_ARG | OPT_CONCAT, NULL},
    {"-E", OPT_NONTU, NULL},
    {"-EP", OPT_NONTU, NULL},
    {"-FA", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-FI", OPT_ARG | OPT_CONCAT, NULL},
    {"-FR", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-FU", OPT_ARG | OPT_CONCAT, NULL},
    {"-Fa", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fd", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fe", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fe:", OPT_ARG | OPT_CONCAT, NULL},
    {"-Fi", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fi:", OPT_ARG | OPT_CONCAT, NULL},
    {"-Fm", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fo", OPT_ARG | OPT_CONCAT | OPT_JOINED | OPT_OUTPUT, NULL},
    {"-Fo:", OPT_ARG | OPT_CONCAT | OPT_OUTPUT, NULL},
    {"-Fp", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Fr", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-I", OPT_ARG | OPT_CONCAT, NULL},
    {"-P", OPT_NONTU, NULL},
    {"-Tc", OPT_ARG | OPT_CONCAT | OPT_SOURCE, NULL},
    {"-Tp", OPT_ARG | OPT_CONCAT | OPT_SOURCE, NULL},
    {"-U", OPT_ARG | OPT_CONCAT, NULL},
    {"-Xclang", OPT_ARG, NULL},
    {"-Yc", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-Yu", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-ZI", 0, NULL},
    {"-Zi", 0, NULL},
    {"-Zs", OPT_NONTU, NULL},
    {"-c", OPT_COMPILE, NULL},
    {"-clang:", OPT_ARG | OPT_CONCAT | OPT_JOINED, NULL},
    {"-external:I", OPT_ARG | OPT_CONCAT, NULL},
    {"-help", OPT_INFO, NULL},
    {"-imsvc", OPT_ARG | OPT_CONCAT, NULL},
    {"-link", OPT_NONTU, NULL},
    {"-o", OPT_ARG | OPT_CONCAT | OPT_OUTPUT, NULL},
    {"-sourceDependencies", OPT_ARG, NULL},
    {"-sourceDependencies:directives", OPT_ARG, NULL},
    {"-target", OPT_ARG, NULL},
    {"-vctoolsdir", OPT_ARG | OPT_CONCAT, NULL},
    {"-winsdkdir", OPT_ARG | OPT_CONCAT, NULL},
    {"-winsysroot", OPT_ARG | OPT_CONCAT, NULL},
};

const struct opt_table cl_options = {"cl", rows, sizeof rows / sizeof rows[0], 0};
