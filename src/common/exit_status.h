/* exit_status: the exit statuses of every shardcc program (docs/design.md, "Exit statuses"),
 * shared by the seat, the modules and the subcommands. */
#ifndef SHARDCC_EXIT_STATUS_H
#define SHARDCC_EXIT_STATUS_H

enum { EXIT_OK = 0, EXIT_BUILD = 1, EXIT_USAGE = 2, EXIT_GUARD = 3, EXIT_IO = 4 };

#endif
