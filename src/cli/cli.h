/* cli: the subcommands' entry points, one cmd_<name>() per file, dispatched by main.c.
 * A subcommand parses its arguments, calls the modules of src/core/ and src/wrap/, prints
 * and chooses the exit status; nothing below src/cli/ includes this header. */
#ifndef SHARDCC_CLI_H
#define SHARDCC_CLI_H

#include "version.h"

/* The help of the options every job command (env, shard, link, local) shares, one text. */
#define CLI_HELP_SEATS                                                                             \
    "  --host-seat, --no-host-seat\n"                                                              \
    "                   the host seats (CXX/CC) shard every host TU, or are left out (default:\n"  \
    "                   they shard torch extensions' TUs only; see shardcc env --help)\n"          \
    "  --cuda-home-seat, --no-cuda-home-seat\n"                                                    \
    "                   always, or never, seat $CUDA_HOME/bin/nvcc through a shadow toolkit\n"     \
    "                   (default: where it is safe; see shardcc env --help)\n"                     \
    "  --relocatable    set CCACHE_BASEDIR=ROOT: jobs may run at different paths (objects\n"       \
    "                   then differ from an unsharded build's; see shardcc env)\n"                 \
    "  --reproducible, --no-reproducible\n"                                                        \
    "                   the nvcc seats run nvcc's steps with temporary names of their own:\n"      \
    "                   the same bytes for the same -o in every job (default: on where nvcc\n"     \
    "                   has the objtemp option; see shardcc env)\n"                                \
    "  --split-archs N  split a reproducible TU with N real architectures or more into\n"          \
    "                   device items that different shards own (default 0: only what a\n"          \
    "                   plan splits; SHARDCC_SPLIT_ARCHS; see shardcc env)\n"
#define CLI_HELP_SEED                                                                              \
    "  --seed-from SRC  a warm start (read-only): an earlier run's artifact, a directory of\n"     \
    "                   artifacts, a ccache directory or a remote storage URL; TUs that did\n"     \
    "                   not change are hits from it (docs/remote.md)\n"
#define CLI_HELP_TOOLS                                                                             \
    "  --real-nvcc PATH, --real-cxx PATH, --real-cc PATH, --ccache PATH\n"                         \
    "                   the real tools (default: found on PATH, CUDA_HOME, /usr/local/cuda)\n"     \
    "  --cuda X.Y       the cell's CUDA release (default: SHARDCC_CELL_CUDA when set): exit 2\n"   \
    "                   when the nvcc the seats would run reports another (nvcc --version)\n"

/* What a subcommand's option parser returns when it answered --help: not an exit status;
 * cmd_X then exits 0. */
#define CLI_HELP_SHOWN (-1)

int cmd_env(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_shard(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_local(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_explain(int argc, char **argv);

#endif
