/* ldseat: the linker seat. In a job, the names ld, ld.bfd, ld.gold, ld.lld and ld.mold
 * lead to the seat first (PATH and COMPILER_PATH, where gcc's collect2 and clang look for
 * the linker), whichever driver links: gcc, g++, clang, nvcc's host link, CMake's
 * CMAKE_CUDA_HOST_LINK_LAUNCHER. A link whose inputs are stubs (or were linked from
 * stubs) cannot give a working program in a shard; this module tells such a link apart
 * and says what the shard writes instead. It owns no process handling: main.c runs it. */
#ifndef SHARDCC_LDSEAT_H
#define SHARDCC_LDSEAT_H

#include "seat.h"
#include "strbuf.h"
#include "strvec.h"

enum link_mode { LINK_EXE, LINK_SHARED, LINK_RELOC };

struct link_call {
    struct strvec argv;   /* the linker's arguments, @files expanded, linker excluded */
    char *output;         /* -o's value, or "a.out" */
    enum link_mode mode;  /* executable (also -pie), -shared, or -r */
    char *hollow;         /* the first input that is a stub or was linked from stubs, or NULL */
    int hollow_is_stub;   /* 1: a stub object (or an archive holding one); 0: a linked output */
    struct strvec inputs; /* the input files named on the command line, in order */
    struct strvec stubs;  /* those that are stubs or were linked from stubs */
};

/* Whether a program name is one of the linker names the seat answers to. */
int ldseat_name(const char *name);

/* Reads the linker call argv[0..argc) (linker excluded): expands @files, finds the output
 * and the mode, and looks through the inputs (files named on the command line, and -lNAME
 * found in the -L directories) for a stub or a hollow output. EXIT_OK, or EXIT_USAGE with
 * a message (an unreadable @file). */
int ldseat_inspect(const char *cwd, int argc, char *const *argv, struct link_call *lc,
                   struct strbuf *err);
void link_call_release(struct link_call *lc);

/* The first of paths (relative to cwd) that is a stub or was linked from stubs (*is_stub
 * says which), or NULL. */
const char *ldseat_first_hollow(const char *cwd, const struct strvec *paths, int *is_stub);

/* The arguments appended to a link with hollow inputs that must still give a file (a
 * shared library or a relocatable object that later links read): unresolved symbols are
 * allowed whatever the project asked for (-z defs, --no-undefined,
 * --no-allow-shlib-undefined), and the marker object (path) makes the output recognisable
 * as hollow to the links that read it. */
void ldseat_hollow_args(const char *marker_path, struct strvec *out);

/* The symbols a hollow shared library must define for GNU ld to write it: those that an
 * input object (an ELF relocatable named on the command line, or a member of an archive
 * named there) references with hidden, internal or protected visibility and that no input
 * object defines. nvcc 13 gives __global__ functions hidden visibility, so a library whose
 * host code launches a kernel another TU defines has such a reference whenever that TU
 * is a stub, and ld refuses an undefined hidden symbol whatever --unresolved-symbols says.
 * Appends "--defsym=NAME=0" for each to out (the hollow library is never run: it is
 * linked so that later links can read it); returns how many. */
size_t ldseat_hidden_defsyms(const char *cwd, const struct link_call *lc, struct strvec *out);

/* The marker object's bytes: an ELF relocatable whose .comment says the output was linked
 * from stubs. Returns its size; buf holds at least LDSEAT_MARKER_MAX bytes. */
#define LDSEAT_MARKER_MAX 768
size_t ldseat_marker_object(unsigned char *buf);

/* The placeholder written instead of an executable linked from stubs: a script that, when
 * run, names itself and the remedy (pinning) and exits 1. */
void ldseat_placeholder(const char *output, int shard, int count, const char *hollow,
                        struct strbuf *out);

#endif
