/* cli: the subcommands' entry points, one cmd_<name>() per file, dispatched by main.c.
 * A subcommand parses its arguments, calls the modules of src/core/ and src/wrap/, prints
 * and chooses the exit status; nothing below src/cli/ includes this header. */
#ifndef SHARDCC_CLI_H
#define SHARDCC_CLI_H

#include "version.h"

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
