/* version: shardcc's version, shared by the CLI and the seat. */
#ifndef SHARDCC_VERSION_H
#define SHARDCC_VERSION_H

#define SHARDCC_VERSION "0.1.0"

#endif
