/* journal: one record per wrapper call, appended to $SHARDCC_JOURNAL with a single
 * write(2) so that records from `ninja -j 64` never interleave. The format (one line,
 * tab-separated, docs/journal.md) is read by the CLI's guards and reports. */
#ifndef SHARDCC_JOURNAL_H
#define SHARDCC_JOURNAL_H

#include <stdint.h>

#include "classify.h"
#include "split.h"
#include "strvec.h"

#define JOURNAL_MAGIC "SCJ2"
/* a TU compile's canonical arguments, the line after its record (shardcc explain) */
#define JOURNAL_ARGV_MAGIC "SCA1"
/* a reproducible TU that ran as nvcc whole instead of nvcc's plan, the line after its
 * record ("SCP1<TAB>key<TAB>fallback<TAB>why"); and a split TU's device items, a line each
 * ("SCP1<TAB>key<TAB>item<TAB>name<TAB>real<TAB>owner<TAB>outcome<TAB>us<TAB>item key"):
 * docs/journal.md */
#define JOURNAL_PIPE_MAGIC "SCP1"

struct journal_rec {
    uint64_t wall_us;
    long pid;
    enum seat seat;
    enum phase phase;
    int shard, count;
    enum call_kind kind;
    enum call_action action;
    int status;
    uint64_t dur_us;
    int owner;
    const char *key;           /* or NULL */
    const char *output;        /* or NULL */
    const char *outcome;       /* ccache's outcome for a cached call (hit, miss, ...), or NULL */
    const char *result_key;    /* ccache's result key for a cached call, or NULL */
    const struct strvec *argv; /* a cached TU's canonical arguments, or NULL */
    const char *fallback;      /* why a reproducible TU ran as nvcc whole (pipeline.h), or
                                  NULL */
    const struct split_item *items; /* a split TU's device items, or NULL */
    size_t nitems;
    int remote; /* a hit from ccache's remote storage: an SCP1 remote line follows */
};

/* Formats rec as one line (fields escaped: \t \n \\), followed by its SCA1 line
 * ("SCA1<TAB>key<TAB>arg<TAB>arg...") when rec->argv is set, and its SCP1 line when
 * rec->fallback is, an SCP1 line per item, and an SCP1 remote line when rec->remote is. */
void journal_format(const struct journal_rec *rec, struct strbuf *out);
/* Appends rec, with one write, to fd (from plat_open_append). 0 or an errno. */
int journal_append(int fd, const struct journal_rec *rec);

#endif
