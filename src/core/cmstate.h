/* cmstate: the CMake configure state a shard hands to the link job.
 *
 * A CMake build directory configured once holds what CMake learned of the compilers
 * (CMakeFiles/<version>/CMake<LANG>Compiler.cmake, CMakeSystem.cmake) and the cache
 * (CMakeCache.txt); a configure run over them skips the compiler identification and the ABI
 * probes, which are most of a fresh configure (for nvcc, two compile-and-link runs). The
 * shards configure the same build at the same root, so each records these files in its
 * manifest ("cmake"); the link job writes them into a build directory that does not exist
 * yet, when every shard recorded the same bytes (docs/shardcc-link.md, CONFIGURE STATE). */
#ifndef SHARDCC_CMSTATE_H
#define SHARDCC_CMSTATE_H

#include <jansson.h>

#include "strbuf.h"
#include "strvec.h"

#define CMSTATE_MAX_DIRS 16
#define CMSTATE_MAX_FILES 32
#define CMSTATE_MAX_FILE (4u << 20)

/* The configured CMake build directories under root: a JSON array (maybe empty) of
 * {"dir": ROOT-RELATIVE, "files": {NAME: TEXT}} with NAME CMakeCache.txt,
 * CMakeFiles/<version>/CMakeSystem.cmake and CMakeFiles/<version>/CMake<LANG>Compiler.cmake.
 * A directory that cannot be handed on (several CMake versions, a cache of another path, a
 * file too large or not UTF-8) is left out and named in *notes, with the reason. Looks
 * breadth first, at most 6 levels deep and 20000 directories, skips names starting with '.'
 * and symbolic links, and does not look inside a build directory. */
json_t *cmstate_collect(const char *root, struct strvec *notes);

/* Checks a "cmake" member read from an artifact's manifest (untrusted): the shape above,
 * each dir a relative path without "..", "." or hidden components, each NAME one of the
 * three forms, at most CMSTATE_MAX_DIRS directories, CMSTATE_MAX_FILES files each,
 * CMSTATE_MAX_FILE bytes a file. 0, or -1 with the reason in err. */
int cmstate_check(const json_t *v, struct strbuf *err);

/* A line saying where two checked states differ ("build/CMakeCache.txt"), or "" when equal. */
void cmstate_diff(const json_t *a, const json_t *b, struct strbuf *out);

/* Writes each directory of the checked state v under root, where root/dir holds neither a
 * CMakeCache.txt nor a CMakeFiles/ and no component of the path is a symbolic link, and its
 * CMakeCache.txt says it was made at root/dir. The directories written are pushed on *done,
 * those left (and why) on *notes. Returns 0, or an errno when writing failed (the directory
 * is removed again, and named in *notes). */
int cmstate_restore(const char *root, const json_t *v, struct strvec *done, struct strvec *notes);

#endif
