/* journal: formatting and appending the per-call record (see journal.h).
 * Fields: magic, wall time (us), pid, seat, phase, shard/N, kind, action, exit status,
 * duration (us), owner, key, output, ccache outcome, ccache result key. "-" stands for an
 * absent value. */
#include "journal.h"
#include "platform.h"

#include <inttypes.h>

/* An argument as it is: "" stays empty. */
static void add_escaped_arg(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '\t')
            sb_adds(sb, "\\t");
        else if (*s == '\n')
            sb_adds(sb, "\\n");
        else if (*s == '\\')
            sb_adds(sb, "\\\\");
        else
            sb_addc(sb, *s);
    }
}

/* A field: "-" stands for absent (NULL or empty). */
static void add_escaped(struct strbuf *sb, const char *s)
{
    if (!s || !*s)
        sb_addc(sb, '-');
    else
        add_escaped_arg(sb, s);
}

void journal_format(const struct journal_rec *r, struct strbuf *out)
{
    sb_addf(out, JOURNAL_MAGIC "\t%" PRIu64 "\t%ld\t%s\t%s\t%d/%d\t%s\t%s\t%d\t%" PRIu64 "\t",
            r->wall_us, r->pid, seat_name(r->seat), phase_name(r->phase), r->shard, r->count,
            kind_name(r->kind), action_name(r->action), r->status, r->dur_us);
    if (r->owner)
        sb_addf(out, "%d", r->owner);
    else
        sb_addc(out, '-');
    sb_addc(out, '\t');
    add_escaped(out, r->key);
    sb_addc(out, '\t');
    add_escaped(out, r->output);
    sb_addc(out, '\t');
    add_escaped(out, r->outcome);
    sb_addc(out, '\t');
    add_escaped(out, r->result_key);
    sb_addc(out, '\n');
    if (r->argv && r->key) {
        sb_adds(out, JOURNAL_ARGV_MAGIC "\t");
        add_escaped(out, r->key);
        for (size_t i = 0; i < r->argv->n; i++) {
            sb_addc(out, '\t');
            add_escaped_arg(out, r->argv->v[i]);
        }
        sb_addc(out, '\n');
    }
    if (r->fallback && r->key) {
        sb_adds(out, JOURNAL_PIPE_MAGIC "\t");
        add_escaped(out, r->key);
        sb_adds(out, "\tfallback\t");
        add_escaped(out, r->fallback);
        sb_addc(out, '\n');
    }
    if (r->remote && r->key) {
        sb_adds(out, JOURNAL_PIPE_MAGIC "\t");
        add_escaped(out, r->key);
        sb_adds(out, "\tremote\thit\n");
    }
    for (size_t i = 0; r->key && i < r->nitems; i++) {
        const struct split_item *it = &r->items[i];
        sb_adds(out, JOURNAL_PIPE_MAGIC "\t");
        add_escaped(out, r->key);
        sb_adds(out, "\titem\t");
        add_escaped(out, it->name);
        sb_addc(out, '\t');
        add_escaped(out, it->real);
        sb_addf(out, "\t%d\t", it->owner);
        add_escaped(out, it->outcome);
        sb_addf(out, "\t%" PRIu64 "\t", it->us);
        add_escaped(out, it->key);
        sb_addc(out, '\t');
        add_escaped(out, it->parts);
        sb_addc(out, '\n');
    }
}

int journal_append(int fd, const struct journal_rec *rec)
{
    struct strbuf line = STRBUF_INIT;
    journal_format(rec, &line);
    int rc = plat_append_fd(fd, line.buf, line.len);
    sb_release(&line);
    return rc;
}
