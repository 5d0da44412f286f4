/* job: what every job's modules share: counts and cell ids as a person writes them,
 * messages (with GitHub Actions annotations), running the package's build, and where
 * shardcc's own binaries are. */
#ifndef SHARDCC_JOB_H
#define SHARDCC_JOB_H

#include "exit_status.h"
#include "strbuf.h"

#include <jansson.h>

/* The size cap of the JSON files shardcc reads (plans, summaries): docs/security.md. */
#define JSON_FILE_MAX (64u << 20)
/* A JSON file of at most max bytes, read only when it is a regular file (a FIFO or device
 * is refused without blocking). NULL with je: line -1 and "unable to open: REASON" when it
 * cannot be read, else jansson's parse error. */
json_t *json_file_load(const char *path, size_t max, json_error_t *je);

/* A count 1..100000 written in decimal digits only; 0 when it is anything else. */
int parse_count(const char *s);
/* A cell id: letters, digits, '.', '_', '+', '-', not starting with '.' or '-'. */
int cell_id_ok(const char *id);
/* Runs a build command with this process's environment; its exit status (128 + N when
 * signal N ended it), or 127. how gets "exit status S" or "killed by signal N, NAME". */
int run_build(char **argv, struct strbuf *how);

/* Runs a job's --clean command (sh -c CMD, or cmd.exe /c on Windows) before its build.
 * EXIT_OK, or EXIT_BUILD with a message naming the command and its status. */
int run_clean_command(const char *cmd, const char *clean);

/* Why a build in which the seats saw no TU compile compiled nothing through them, from the
 * object files (.o, .obj) under root: written since started (microseconds since the epoch,
 * plat_wall_us) by a compiler that is not the seat, or all older, from an earlier build of an
 * up-to-date tree, or none at all. Appends one or two sentences naming an example file and the
 * remedy. */
void explain_no_tu(const char *root, long long started, struct strbuf *out);

/* Reads a job's build command before it runs (after jobenv_apply: the seats' variables
 * are this process's): a word that sets one of them again to something else (make's
 * CUDA_HOME=/usr/local/cuda, an "env CXX=g++" or "CC=gcc ./configure" prefix, cmake's
 * -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc), in the arguments or in the script of
 * sh -c, would take the build around the seat. EXIT_USAGE with the word, why and the fix
 * in why; else EXIT_OK. */
int check_build_command(char **build, struct strbuf *why);

/* Directory holding shardcc and its seats (shardcc-nvcc, ...). 0 or an errno. */
int shardcc_bindir(struct strbuf *out);

/* Prints "cmd: " and the message on standard error; under GitHub Actions
 * (GITHUB_ACTIONS=true) as one workflow command, "::error title=CMD::cmd: message", its
 * text escaped as GitHub asks (%25, %0D, %0A; in the title also %3A, %2C). */
void report_error(const char *cmd, const char *fmt, ...) SHARDCC_PRINTF(2, 3);
void report_warning(const char *cmd, const char *fmt, ...) SHARDCC_PRINTF(2, 3);
/* This CI run's id, for telling this run's files from an earlier one's: SHARDCC_RUN_ID,
 * else GitHub's GITHUB_RUN_ID-GITHUB_RUN_ATTEMPT, else GitLab's CI_PIPELINE_ID; NULL when
 * none is set. Allocated. */
char *ci_run_id(void);
/* Whether this runs under GitHub Actions (GITHUB_ACTIONS=true): messages are annotations. */
int in_github_actions(void);
/* How many annotations this process wrote. */
int report_annotations(void);

#endif
