/* toolchain: the real compilers behind the seats (nvcc, the nvcc torch would run, the host
 * C and C++ compilers, ccache) and the fingerprint of them that ccache gets as
 * compiler_check=string:<fp>. */
#ifndef SHARDCC_TOOLCHAIN_H
#define SHARDCC_TOOLCHAIN_H

#include "strbuf.h"

/* the oldest ccache the suite runs against (Debian 12's) */
#define SHARDCC_CCACHE_MIN "4.7.5"

struct toolchain {
    char *nvcc;       /* real nvcc, absolute: the CUDACXX seat's (shardcc-nvcc) */
    char *torch_nvcc; /* the nvcc torch would run: the PYTORCH_NVCC seat's (shardcc-nvcc-torch) */
    char *cxx;        /* real host C++ compiler, absolute */
    char *cc;         /* real host C compiler, absolute */
    char *ccache;
};

/* Finds the real tools: explicit values first, then SHARDCC_REAL_*, CUDACXX / CXX / CC
 * (unless they point at a shardcc seat), PATH, $CUDA_HOME/bin, /usr/local/cuda/bin.
 * cuda_home_first (the shadow CUDA_HOME seat) puts $CUDA_HOME/bin/nvcc, then
 * $CUDA_PATH/bin/nvcc, before CUDACXX and PATH, spelled as the caller spelled them: that is
 * the nvcc torch runs without the seat, and nvcc derives its include paths (which land in
 * the debug info) from the path it was started by. torch_nvcc is found by torch's own rule
 * (see toolchain.c); it is nvcc itself with an explicit nvcc or cuda_home_first.
 * Returns 0, or 2 with a message printed. */
int toolchain_find(struct toolchain *tc, const char *nvcc, const char *cxx, const char *cc,
                   const char *ccache, int cuda_home_first);
/* "shardcc1-" + XXH3-128 over the toolchain's files (nvcc, cicc, ptxas, fatbinary, nvlink,
 * cudafe++, nvcc.profile, the host compiler and its cc1plus). The toolkit's files are read
 * from the directory nvcc reports as its own (_HERE_ in its -dryrun output), so an nvcc
 * that is a script exec'ing the real one (/usr/local/bin/nvcc) fingerprints the real
 * toolkit, not the script's neighbours. When torch_nvcc runs from another directory, its
 * toolkit is digested too. 0 or 4 with a message. */
int toolchain_fingerprint(const struct toolchain *tc, struct strbuf *out);
void toolchain_release(struct toolchain *tc);
/* Whether nvcc and torch_nvcc run from one toolkit (the directories nvcc reports as its
 * own, resolved): a script on PATH that execs the toolkit's nvcc is that toolkit. */
int toolchain_same_toolkit(const struct toolchain *tc);

/* The CUDA release nvcc reports ("13.0.88" from "release 13.0, V13.0.88"; "13.0" when only
 * the release is printed), allocated; NULL when nvcc cannot be run or prints neither. */
char *nvcc_release(const char *nvcc);
/* Whether want ("X.Y" or "X.Y.Z", digits and dots) names release ("X.Y.Z" or "X.Y"): X.Y
 * matches any X.Y.*; X.Y.Z matches only X.Y.Z. 1, 0, or -1 when want is not such a version. */
int cuda_version_matches(const char *want, const char *release);

/* Whether `nvcc --help` lists the option name ("--objdir-as-tempdir") at the start of a
 * line: 1, or 0 (also when nvcc cannot be run). */
int nvcc_has_option(const char *nvcc, const char *name);

/* "4.7.5" from `ccache --version` (allocated; "unknown" when it cannot be read). */
char *ccache_version(const char *ccache);

#endif
