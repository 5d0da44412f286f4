/* explain: why a TU missed the cache in the link job. Compares what its owner shard ran (the
 * canonical arguments in the artifact's manifest, recorded from the seat's SCA1 journal
 * lines) with what the link job ran (its journal's SCA1 line). The toolchain fingerprint is
 * already one (the link job checks it before building), so equal arguments leave the inputs:
 * a header or a generated file that differs between the two jobs. */
#include "explain.h"
#include "split.h"
#include "strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct owner {
    int shard, count, status;
    json_t *argv; /* array of strings, or NULL */
};

/* Whether the manifest m's shard owned an item of its split TU t (the item named, or any):
 * its store key into *key when asked. */
static int owns_item(json_t *m, json_t *t, const char *name, const char **key, const char **parts)
{
    json_int_t shard = json_integer_value(json_object_get(m, "shard"));
    size_t k;
    json_t *it;
    json_array_foreach(json_object_get(t, "items"), k, it)
    {
        const char *n = json_string_value(json_object_get(it, "item"));
        if (json_integer_value(json_object_get(it, "owner")) == shard && n &&
            (!name || !strcmp(n, name))) {
            if (key)
                *key = json_string_value(json_object_get(it, "key"));
            if (parts)
                *parts = json_string_value(json_object_get(it, "parts"));
            return 1;
        }
    }
    return 0;
}

/* Which of what an item's key covers differed between the owner's parts and this job's
 * ("A.T.M": split.h): the toolchain and arguments, the preprocessed text, the module id.
 * Nothing when either is missing (an older shard) or malformed. */
static void item_parts_differ(const char *owner, const char *here, struct strbuf *out)
{
    static const char *const what[] = {
        "the toolchain or the device steps' arguments (the include paths, defines, "
        "architectures: see the TU's arguments below)",
        "the preprocessed source (a header or a define that differs between the jobs; with "
        "jobs at different paths, a __FILE__ or a path outside the root)",
        "the module id the host side wrote (the source's path, or cudafe++'s own number)"};
    if (!owner || !here || strlen(owner) != SPLIT_PARTS_LEN || strlen(here) != SPLIT_PARTS_LEN)
        return;
    for (size_t q = 0; q < 3; q++)
        if (memcmp(owner + 9 * q, here + 9 * q, 8) != 0)
            sb_addf(out, "%s%s", out->len ? "; and " : "what differed: ", what[q]);
}

/* A split TU's items that the link job did not take from the store: who owned each, and
 * whether the owner stored it under the key this job looked for. */
static void explain_items(json_t *const *m, size_t nm, const struct jrnl *link, size_t rec,
                          const char *key, FILE *out)
{
    for (size_t q = 0; q < link->nitems; q++) {
        const struct jitem *it = &link->items[q];
        if (it->rec != rec || !strcmp(it->outcome, "hit"))
            continue;
        const char *stored = NULL, *sparts = NULL;
        int shard = 0, count = 0;
        for (size_t i = 0; i < nm && !shard; i++) {
            size_t k;
            json_t *t;
            json_array_foreach(json_object_get(m[i], "tus"), k, t)
            {
                const char *tk = json_string_value(json_object_get(t, "key"));
                if (tk && !strcmp(tk, link->r[rec].key) &&
                    owns_item(m[i], t, it->name, &stored, &sparts)) {
                    shard = (int)json_integer_value(json_object_get(m[i], "shard"));
                    count = (int)json_integer_value(json_object_get(m[i], "count"));
                    break;
                }
            }
        }
        if (!shard)
            fprintf(out, "explain: %s: item %s: no shard owned it (a missing shard?)\n", key,
                    it->name);
        else if (stored && it->key && strcmp(stored, it->key) != 0) {
            struct strbuf what = STRBUF_INIT;
            item_parts_differ(sparts, it->parts, &what);
            fprintf(out,
                    "explain: %s: item %s: shard %d/%d stored it under %.16s..., this job "
                    "looked for %.16s...: %s\n",
                    key, it->name, shard, count, stored, it->key,
                    what.len ? sb_str(&what) : "its inputs or arguments differed");
            sb_release(&what);
        } else
            fprintf(out,
                    "explain: %s: item %s: shard %d/%d stored it under the key this job "
                    "looked for, but the merged store lacks it (an artifact edited or "
                    "truncated?)\n",
                    key, it->name, shard, count);
    }
}

static int find_owner(json_t *const *m, size_t nm, const char *key, struct owner *o)
{
    for (size_t i = 0; i < nm; i++) {
        size_t k;
        json_t *t;
        json_array_foreach(json_object_get(m[i], "tus"), k, t)
        {
            const char *tk = json_string_value(json_object_get(t, "key"));
            const char *d = json_string_value(json_object_get(t, "decision"));
            if (tk && d && !strcmp(tk, key) &&
                (!strcmp(d, "owned") ||
                 (!strcmp(d, "split") && owns_item(m[i], t, NULL, NULL, NULL)))) {
                o->shard = (int)json_integer_value(json_object_get(m[i], "shard"));
                o->count = (int)json_integer_value(json_object_get(m[i], "count"));
                o->status = (int)json_integer_value(json_object_get(t, "status"));
                o->argv = json_object_get(t, "argv");
                return 1;
            }
        }
    }
    return 0;
}

/* Items of a (in order) that b lacks, counting repeats: a multiset difference. */
static void only_in(const char *const *a, size_t na, const char *const *b, size_t nb,
                    struct strbuf *out)
{
    char *used = calloc(nb ? nb : 1, 1);
    for (size_t i = 0; i < na; i++) {
        size_t k = 0;
        while (k < nb && (used[k] || strcmp(a[i], b[k])))
            k++;
        if (k < nb) {
            used[k] = 1;
        } else {
            if (out->len)
                sb_addc(out, ' ');
            sb_add_printable(out, a[i]); /* an artifact's argument: printable only */
        }
    }
    free(used);
}

size_t explain_misses(json_t *const *manifests, size_t nm, const struct jrnl *link, FILE *out)
{
    size_t n = 0;
    for (size_t i = 0; i < link->n; i++) {
        const struct jrec *r = &link->r[i];
        if (!jrec_is_tu(r) || !strcmp(r->action, "stub") || !r->key ||
            (r->status == 0 && r->outcome &&
             (!strcmp(r->outcome, "hit") || !strcmp(r->outcome, "assembled"))))
            continue;
        n++;
        struct strbuf kb = STRBUF_INIT; /* the key as printed: printable only */
        sb_add_printable(&kb, r->key);
        const char *key = sb_str(&kb);
        struct owner o = {0, 0, 0, NULL};
        const char *why = r->status ? "its compile failed" : r->outcome ? r->outcome : "no outcome";
        if (!strcmp(r->action, "split"))
            explain_items(manifests, nm, link, i, key, out);
        if (!find_owner(manifests, nm, r->key, &o)) {
            fprintf(out,
                    "explain: %s (%s): no shard owned it: every shard stubbed it or never "
                    "saw it (a TU only the link build compiles: a source generated here, "
                    "another target list, a missing shard?)\n",
                    key, why);
            sb_release(&kb);
            continue;
        }
        if (o.status) {
            fprintf(out,
                    "explain: %s (%s): its owner, shard %d/%d, failed to compile it (exit "
                    "status %d)\n",
                    key, why, o.shard, o.count, o.status);
            sb_release(&kb);
            continue;
        }
        const struct strvec *mine = jrnl_argv(link, r->key);
        if (!json_is_array(o.argv) || !mine) {
            fprintf(out,
                    "explain: %s (%s): owned by shard %d/%d; cannot compare: %s records no "
                    "arguments for it\n",
                    key, why, o.shard, o.count,
                    !mine ? "this job's journal" : "the shard's artifact (an older shardcc?)");
            sb_release(&kb);
            continue;
        }
        size_t na = json_array_size(o.argv);
        const char **theirs = xmalloc((na ? na : 1) * sizeof *theirs);
        for (size_t k = 0; k < na; k++) {
            const char *s = json_string_value(json_array_get(o.argv, k));
            theirs[k] = s ? s : "";
        }
        struct strbuf only_link = STRBUF_INIT, only_owner = STRBUF_INIT;
        only_in((const char *const *)mine->v, mine->n, theirs, na, &only_link);
        only_in(theirs, na, (const char *const *)mine->v, mine->n, &only_owner);
        int same_order = only_link.len == 0 && only_owner.len == 0 && na == mine->n;
        for (size_t k = 0; same_order && k < na; k++)
            same_order = !strcmp(theirs[k], mine->v[k]);
        if (only_link.len || only_owner.len) {
            fprintf(out,
                    "explain: %s (%s): this job ran it with other arguments than its owner, "
                    "shard %d/%d:\n",
                    key, why, o.shard, o.count);
            if (only_link.len)
                fprintf(out, "  only in the link job: %s\n", sb_str(&only_link));
            if (only_owner.len)
                fprintf(out, "  only in shard %d's: %s\n", o.shard, sb_str(&only_owner));
        } else if (!same_order) {
            fprintf(out,
                    "explain: %s (%s): the same arguments as its owner, shard %d/%d, in "
                    "another order\n",
                    key, why, o.shard, o.count);
        } else {
            fprintf(out,
                    "explain: %s (%s): the same arguments and toolchain as its owner, shard "
                    "%d/%d: an input differed (a header or a generated file). To see which, run "
                    "both builds with CCACHE_DEBUG=1 and diff the OBJECT.ccache-input-text "
                    "files ccache writes beside the object\n",
                    key, why, o.shard, o.count);
        }
        sb_release(&kb);
        sb_release(&only_link);
        sb_release(&only_owner);
        free(theirs);
    }
    return n;
}
