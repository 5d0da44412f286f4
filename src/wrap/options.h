/* options: the option-table model shared by the nvcc and gcc/clang seats.
 * A table is sorted by name (strcmp) and looked up with bsearch; each row is a set of
 * flag bits. Adding an option the wrapper must understand is adding one row. */
#ifndef SHARDCC_OPTIONS_H
#define SHARDCC_OPTIONS_H

#include <stddef.h>

enum opt_flags {
    OPT_ARG = 1u << 0,       /* takes a value: "-o x" or "-o=x" (nvcc) */
    OPT_CONCAT = 1u << 1,    /* the value may be glued on: "-Ifoo", "-O3" */
    OPT_COMPILE = 1u << 2,   /* selects a compile-only phase: -c, -dc, -dw */
    OPT_NONTU = 1u << 3,     /* selects a phase that is not "one source -> one object" */
    OPT_INFO = 1u << 4,      /* informational: run the real compiler, nothing else */
    OPT_OUTPUT = 1u << 5,    /* names the output file */
    OPT_DEPFILE = 1u << 6,   /* names the dependency file (-MF) */
    OPT_DEPTARGET = 1u << 7, /* names a dependency target (-MT) */
    OPT_DEPGEN = 1u << 8,    /* asks for a depfile beside the compile (-MD, -MMD) */
    OPT_OPTFILE = 1u << 9,   /* names options files to expand in place (nvcc -optf) */
    OPT_LANG = 1u << 10,     /* sets the source language (-x) */
    OPT_EQ_ONLY = 1u << 11,  /* the value is given only after '=' (gcc's -std=) */
    OPT_DEPQUOTE = 1u << 12, /* a dependency target to be make-quoted (-MQ) */
    OPT_DLINK = 1u << 13,    /* nvcc's device link (-dlink): links, though not the host */
    OPT_JOINED = 1u << 14,   /* the value is glued on only (cl's /Fo<path>); bare, a flag */
    OPT_SOURCE = 1u << 15,   /* the value is a source file (cl's /Tc<file>, /Tp<file>) */
};

struct opt {
    const char *name;
    unsigned flags;
    const char *rewrite; /* canonical spelling to use instead of name, or NULL */
};

struct opt_table {
    const char *seat;
    const struct opt *rows;
    size_t n;
    int eq_values; /* nvcc: every option with a value also takes "name=value" */
};

extern const struct opt_table nvcc_options;
extern const struct opt_table gcc_options;
extern const struct opt_table cl_options;

/* The row named exactly name, or NULL. */
const struct opt *opt_find(const struct opt_table *t, const char *name);
/* The row matching arg and where its value starts inside arg (NULL when the value,
 * if any, is the next argument): exact names, "name=value" and glued forms. */
const struct opt *opt_match(const struct opt_table *t, const char *arg, const char **inline_value);
/* Whether an option's value is the next argument when arg holds none (inline_value NULL). */
int opt_takes_next(const struct opt *o, const char *inline_value);
/* opt_match for cl and clang-cl, which take '/' for '-': "/Fox.obj" is looked up as
 * "-Fox.obj" (*inline_value points into arg). */
const struct opt *cl_match(const struct opt_table *t, const char *arg, const char **inline_value);
/* Table self-check for the unit tests: sorted, no duplicates, no forbidden flag
 * combination. Returns NULL when sound, else a description of the first problem. */
const char *opt_table_check(const struct opt_table *t);

#endif
