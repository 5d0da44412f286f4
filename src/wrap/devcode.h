/* devcode: nvcc calls whose output is device code only: -fatbin, -ptx, -cubin, -optix-ir,
 * -ltoir. Later steps of the build read these files (bin2c, .incbin, an embed step), and
 * ccache does not cache them (it counts them as called_for_link), so a shard never stubs
 * them: every shard and the link job make them, through the seat's own content-addressed
 * store, which lives in the job's ccache directory (and so in the artifact) as
 * <cache>/<k0>/<k1>/<k2..63>D, the bytes of the output.
 *
 * The key (SHA-256, hex) covers: a format tag; the toolchain fingerprint
 * (CCACHE_COMPILERCHECK, which shardcc env sets) and the host compilers ccache would hash
 * (CCACHE_EXTRAFILES); the canonical arguments without the output and depfile options,
 * with the project root written as "<root>"; and the path (root-relative where under the
 * root) and contents of every file `nvcc -M` lists for the call: the source and every
 * header the host-side preprocessor reads (what ccache's depend mode hashes, with its
 * limit: a header included only under __CUDA_ARCH__ is not seen). */
#ifndef SHARDCC_DEVCODE_H
#define SHARDCC_DEVCODE_H

#include "seat.h"
#include "strbuf.h"
#include "strvec.h"

#define DEVCODE_TAG "shardcc-devcode-1"
/* the largest file the key reads, and the largest output the store keeps */
#define DEVCODE_FILE_MAX (1024u << 20)

/* Whether the nvcc option (the table's name) makes device code only. */
int devcode_option(const char *name);

/* From the canonical argv: key_args, the arguments the key covers (output and depfile
 * options dropped, the root written as "<root>"); dep_args, the arguments of the
 * dependency run (output, depfile and device-code mode options dropped, then
 * "-M -MF depout"). */
void devcode_args(const struct wrap_config *cfg, const struct strvec *argv, struct strvec *key_args,
                  struct strvec *dep_args, const char *depout);

/* The prerequisites of a make rule text ("t: a b \\\n c", backslash-escaped spaces),
 * appended to deps. 0, or -1 when text has no rule. */
int devcode_parse_deps(const char *text, struct strvec *deps);

/* The key (64 hex digits) of a call: see above. The files in deps are read relative to
 * cfg->cwd. 0, or an errno with the file that failed in err. */
int devcode_key(const struct wrap_config *cfg, const char *fingerprint, const char *extrafiles,
                const struct strvec *key_args, const struct strvec *deps, char key[65],
                struct strbuf *err);

/* The store entry of key under the cache directory cache_dir. */
void devcode_entry_path(const char *cache_dir, const char *key, struct strbuf *out);

/* The store's directory, the job's cache: SHARDCC_CCACHE_DIR, else CCACHE_DIR, else NULL. */
const char *devcode_store_dir(void);

/* Writes data as the entry at path (devcode_entry_path), its directory made first,
 * atomically. 0 or an errno. The seat's store keeps device-code outputs and split TUs'
 * items and markers (split.h). */
int devcode_store_put(const char *path, const void *data, size_t len);

/* A warm start's store (shardcc --seed-from: SHARDCC_SEED_STORE, laid out as the cache): when
 * entry (devcode_entry_path of key under the store) is missing and the seed has key, the
 * seed's entry is copied in, so that the job's own cache (and a shard's artifact) holds
 * what it used. 1 when it was copied, 0 when not. */
int devcode_store_seed(const char *key, const char *entry);

/* The manifest of a call (as ccache's direct mode has one): what its key covers but the
 * files' contents, stored as an entry of its own under the manifest key, so that a job
 * that finds every file as the manifest recorded it knows the key without the dependency
 * run (nvcc -M, the host preprocessor: most of a hit's time). Like ccache's direct mode it
 * does not see a header that newly shadows a recorded one. Text:
 *   shardcc-devcode-manifest-1
 *   key <64 hex digits>
 *   dep <SHA-256 of the file> <path as nvcc -M named it>     (one per file) */
#define DEVCODE_MANIFEST_TAG "shardcc-devcode-manifest-1\n"

/* The manifest key: the tag, the toolchain, the key's arguments and the directory the call
 * ran in (root-relative: the recorded paths are relative to it). */
void devcode_manifest_key(const struct wrap_config *cfg, const char *fingerprint,
                          const char *extrafiles, const struct strvec *key_args, char mkey[65]);

/* The manifest text of key over deps (read relative to cfg->cwd). 0, or -1 when a path
 * holds a newline or a file cannot be read. */
int devcode_manifest_text(const struct wrap_config *cfg, const char *key, const struct strvec *deps,
                          struct strbuf *out);

/* Whether every file of a manifest's text (from the store: untrusted) has the recorded
 * contents: 0 with key (64 hex digits) and deps filled, else -1 (deps emptied). */
int devcode_manifest_match(const struct wrap_config *cfg, const char *text, char key[65],
                           struct strvec *deps);

/* A make rule "targets: deps" (targets already make-quoted; spaces in deps escaped). */
void devcode_depfile(const struct strvec *targets, const struct strvec *deps, struct strbuf *out);

#endif
