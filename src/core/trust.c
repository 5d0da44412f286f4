/* trust: what the link job took from the shards, checked against its owners' records
 * (see trust.h). */
#include "trust.h"
#include "artifact.h"
#include "devcode.h"
#include "exit_status.h"
#include "job.h"
#include "partition.h"
#include "platform.h"
#include "remote.h"
#include "sha256.h"
#include "strbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The index in in->m of shard's manifest, or in->nm. */
static size_t index_of(const struct trust_in *in, int shard)
{
    size_t i = 0;
    while (i < in->nm && json_integer_value(json_object_get(in->m[i], "shard")) != shard)
        i++;
    return i;
}

static json_t *manifest_of(const struct trust_in *in, int shard)
{
    size_t i = index_of(in, shard);
    return i < in->nm ? in->m[i] : NULL;
}

static int made_everywhere(json_t *t);

/* The shard that owns TU key whole. Without a plan, the partition's. With one (which the
 * link job may lack), the one whose manifest records it as owned, each shard having
 * decided by the plan as the seats did (a split TU's items have owners of their own:
 * item_owner). What
 * every shard makes (a pinned TU, device code), or no shard claims, belongs to the plan's
 * shard where the link job has the plan, else to the partition's. 0 when two shards claim
 * it, the two into claims[0] and claims[1]. */
static int tu_owner(const struct trust_in *in, const char *key, int claims[2])
{
    int owner = 0;
    if (!in->planned) /* the partition decided: no shard's record is needed, nor believed */
        return partition_owner(key, in->count);
    for (size_t i = 0; i < in->nm; i++) {
        int shard = (int)json_integer_value(json_object_get(in->m[i], "shard"));
        size_t x;
        json_t *t;
        json_array_foreach(json_object_get(in->m[i], "tus"), x, t)
        {
            const char *k = json_string_value(json_object_get(t, "key"));
            const char *d = json_string_value(json_object_get(t, "decision"));
            if (!k || strcmp(k, key) || !d || strcmp(d, "owned") || made_everywhere(t))
                continue;
            if (owner && owner != shard) {
                claims[0] = owner;
                claims[1] = shard;
                return 0;
            }
            owner = shard;
        }
    }
    if (owner)
        return owner;
    int s = in->plan ? plan_owner(in->plan, in->plan_len, key) : 0;
    return s > 0 && s <= in->count ? s : partition_owner(key, in->count);
}

/* Reports two shards' claims of one TU (tu_owner's claims). 0. */
static int claimed_twice(const struct trust_in *in, const char *key, const int claims[2])
{
    report_error(in->cmd,
                 "%s: shards %d and %d both record it as their own: one of them shipped a TU it "
                 "does not own",
                 key, claims[0], claims[1]);
    return 0;
}

/* The manifest's record of TU key, the one with result key R when R is given. */
static json_t *tu_record(json_t *m, const char *key, const char *result)
{
    size_t i;
    json_t *t, *any = NULL;
    json_array_foreach(json_object_get(m, "tus"), i, t)
    {
        const char *k = json_string_value(json_object_get(t, "key"));
        if (!k || strcmp(k, key))
            continue;
        const char *r = json_string_value(json_object_get(t, "result"));
        if (!result || (r && !strcmp(r, result)))
            return t;
        any = any ? any : t;
    }
    return result ? NULL : any;
}

/* Whether a manifest's TU record is of one every shard makes: a pinned TU, or a
 * device-code output made through the seat's store. */
static int made_everywhere(json_t *t)
{
    return json_is_true(json_object_get(t, "pinned")) || json_is_true(json_object_get(t, "device"));
}

/* The SHA-256 the manifest records for the cache entry whose path is cache/REL with
 * cache_entry_key(REL) == key (a result or a store entry, not a manifest), REL, and its
 * recorded size into *size (when size is not NULL). */
static const char *entry_sha_size(json_t *m, const char *key, const char **rel, uint64_t *size)
{
    size_t i;
    json_t *e;
    struct strbuf k = STRBUF_INIT;
    const char *sha = NULL;
    json_array_foreach(json_object_get(m, "entries"), i, e)
    {
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (!p || strncmp(p, "cache/", 6) || (kind && !strcmp(kind, "manifest")))
            continue;
        sb_reset(&k);
        cache_entry_key(p + 6, &k);
        if (!strcmp(sb_str(&k), key)) {
            sha = json_string_value(json_object_get(e, "sha256"));
            *rel = p + 6;
            if (size)
                *size = (uint64_t)json_integer_value(json_object_get(e, "size"));
            break;
        }
    }
    sb_release(&k);
    return sha;
}

static const char *entry_sha(json_t *m, const char *key, const char **rel)
{
    return entry_sha_size(m, key, rel, NULL);
}

size_t trust_own_copies(json_t *m, const char ***rels)
{
    size_t n = 0, x;
    json_t *t;
    *rels = NULL;
    json_array_foreach(json_object_get(m, "tus"), x, t)
    {
        const char *res = json_string_value(json_object_get(t, "result"));
        const char *rel = NULL;
        if (res && made_everywhere(t) && entry_sha(m, res, &rel)) {
            const char **grown = realloc(*rels, (n + 1) * sizeof *grown);
            if (!grown)
                break;
            *rels = grown;
            (*rels)[n++] = rel;
        }
    }
    return n;
}

/* Puts the owner's copy of rel (SHA-256 sha, size bytes), which shard owner of
 * in->count put in the remote under its own name, at dest. An exit status, the failure
 * named. */
static int fetch_own_copy(const struct trust_in *in, int owner, const char *rel, const char *sha,
                          uint64_t size, const char *dest)
{
    struct strbuf name = STRBUF_INIT, body = STRBUF_INIT, err = STRBUF_INIT;
    int rc = EXIT_OK;
    remote_copy_name(in->run, in->cell, owner, in->count, rel, &name);
    int g = remote_get_max(in->remote, sb_str(&name), size ? size : 1, &body, &err);
    char hex[65];
    if (g == 1)
        sha256_hex_of(body.buf ? body.buf : "", body.len, hex);
    if (g != 1 || strcmp(hex, sha)) {
        report_error(in->cmd,
                     "shard %d of %d's own copy of the cache entry %s (what every shard makes: "
                     "the link job takes its owner's) %s in the remote %s: %s",
                     owner, in->count, rel,
                     g == 1 ? "has other bytes than its manifest records" : "cannot be read",
                     in->remote->display,
                     g == 0    ? "it is not there"
                     : g == -2 ? "it is larger than its manifest records"
                     : g == 1  ? "its SHA-256 differs"
                               : sb_str(&err));
        rc = EXIT_IO;
    } else {
        int e = devcode_store_put(dest, body.buf, body.len); /* its directory made first */
        if (e) {
            report_error(in->cmd, "cannot write \"%s\": %s", dest, plat_strerror(e));
            rc = EXIT_IO;
        }
    }
    sb_release(&name);
    sb_release(&body);
    sb_release(&err);
    return rc;
}

/* Whether the bytes under key in the merged cache are what the owner's manifest m records.
 * Names what differs into why; 1 when they match, or cannot be read (out->unverified
 * counts those). */
static int bytes_ok(const struct trust_in *in, json_t *m, const char *key, struct trust_out *out,
                    struct strbuf *why)
{
    const char *rel = NULL, *sha = entry_sha(m, key, &rel);
    if (!sha) {
        sb_addf(why, "its manifest lists no cache entry for %s", key);
        return 0;
    }
    char hex[65];
    int e = cache_entry_sha(in->cache, rel, hex);
    if (e == ENOENT) {
        out->unverified++;
        return 1;
    }
    if (e) {
        sb_addf(why, "cannot read the merged cache's \"%s\": %s", rel, plat_strerror(e));
        return 0;
    }
    if (!strcmp(hex, sha))
        return 1;
    sb_addf(why, "the cache holds other bytes under %s than it recorded", key);
    return 0;
}

/* The check of one TU hit from ccache. 1 when it passed. */
static int check_hit(const struct trust_in *in, const struct jrec *r, struct trust_out *out)
{
    int claims[2] = {0, 0}, s = tu_owner(in, r->key, claims);
    if (!s)
        return claimed_twice(in, r->key, claims);
    json_t *m = manifest_of(in, s);
    if (!m)
        return 1; /* its shard is missing (--allow-partial): nothing of it was merged */
    struct strbuf why = STRBUF_INIT;
    json_t *t = tu_record(m, r->key, r->result_key);
    int ok = 0;
    if (!t) {
        json_t *any = tu_record(m, r->key, NULL);
        const char *d = any ? json_string_value(json_object_get(any, "decision")) : NULL;
        const char *res = any ? json_string_value(json_object_get(any, "result")) : NULL;
        if (!any)
            sb_adds(&why, "it recorded no such TU");
        else if (d && strcmp(d, "owned") && strcmp(d, "split"))
            sb_addf(&why, "it recorded the TU as %s", d);
        else
            sb_addf(&why, "it recorded the result %s", res ? res : "none (not cacheable)");
    } else {
        ok = bytes_ok(in, m, r->result_key, out, &why);
    }
    if (!ok)
        report_error(in->cmd,
                     "%s: the link job's cache hit (result %s) is not what its owner, shard "
                     "%d of %d, made: %s (a shard shipped a result for a TU it does not own, "
                     "or a remote storage holds bytes another wrote under its key)",
                     r->key, r->result_key, s, in->count, sb_str(&why));
    sb_release(&why);
    return ok;
}

/* The item's record in the manifest's TU record t, or NULL. */
static json_t *item_record(json_t *t, const char *name)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(t, "items"), i, it)
    {
        const char *n = json_string_value(json_object_get(it, "item"));
        if (n && !strcmp(n, name))
            return it;
    }
    return NULL;
}

/* The owner of a split TU's item as every shard that records the TU recorded it (each
 * computes the same from the plan or round robin), 0 when two disagree or none says. */
static int item_owner(const struct trust_in *in, const char *key, const char *item)
{
    int owner = 0;
    for (size_t i = 0; i < in->nm; i++) {
        size_t x;
        json_t *t;
        json_array_foreach(json_object_get(in->m[i], "tus"), x, t)
        {
            const char *k = json_string_value(json_object_get(t, "key"));
            json_t *rec = k && !strcmp(k, key) ? item_record(t, item) : NULL;
            int o = rec ? (int)json_integer_value(json_object_get(rec, "owner")) : 0;
            if (!rec)
                continue;
            if (o < 1 || (owner && o != owner))
                return 0;
            owner = o;
        }
    }
    return owner <= in->count ? owner : 0;
}

/* The check of one TU the link job assembled from split items (its journal's items k..):
 * every shard that records the TU recorded it as split (none compiled it whole), and each
 * item is its owner's, under the key the link job looked up. 1 when it passed. */
static int check_assembled(const struct trust_in *in, const struct jrnl *j, size_t k,
                           struct trust_out *out)
{
    const struct jrec *r = &j->r[k];
    int split = 0;
    for (size_t i = 0; i < in->nm; i++) {
        size_t x;
        json_t *t;
        json_array_foreach(json_object_get(in->m[i], "tus"), x, t)
        {
            const char *key = json_string_value(json_object_get(t, "key"));
            const char *d = json_string_value(json_object_get(t, "decision"));
            if (!key || strcmp(key, r->key) || !d || made_everywhere(t))
                continue; /* another call of the same source: device code, a pinned TU */
            int shard = (int)json_integer_value(json_object_get(in->m[i], "shard"));
            if (!strcmp(d, "owned")) {
                report_error(in->cmd,
                             "%s: the link job assembled it from split items, but shard %d of "
                             "%d compiled it whole: another shard's split marker or items",
                             r->key, shard, in->count);
                return 0;
            }
            split |= !strcmp(d, "split");
        }
    }
    if (!split) {
        report_error(in->cmd,
                     "%s: the link job assembled it from split items, but no shard recorded it "
                     "as split",
                     r->key);
        return 0;
    }
    int ok = 1;
    struct strbuf why = STRBUF_INIT;
    for (size_t q = 0; q < j->nitems && ok; q++) {
        const struct jitem *it = &j->items[q];
        if (it->rec != k || !strcmp(it->name, "host"))
            continue;
        out->items++;
        int o = item_owner(in, r->key, it->name);
        if (!o) {
            report_error(in->cmd,
                         "%s: device item %s: the shards do not agree on its owner, or none "
                         "recorded one",
                         r->key, it->name);
            ok = 0;
            break;
        }
        json_t *om = manifest_of(in, o);
        if (!om)
            continue; /* its shard is missing (--allow-partial) */
        json_t *rec = item_record(tu_record(om, r->key, NULL), it->name);
        const char *ik = rec ? json_string_value(json_object_get(rec, "key")) : NULL;
        sb_reset(&why);
        if (!it->key) {
            sb_adds(&why, "the link job found no key for it");
            ok = 0;
        } else if (!ik || strcmp(ik, it->key)) {
            sb_addf(&why, "it recorded the item under %.16s, the link job took %.16s",
                    ik ? ik : "no key", it->key);
            ok = 0;
        } else {
            ok = bytes_ok(in, om, it->key, out, &why);
        }
        if (!ok)
            report_error(in->cmd,
                         "%s: device item %s is not what its owner, shard %d of %d, made: %s",
                         r->key, it->name, o, in->count, sb_str(&why));
    }
    sb_release(&why);
    return ok;
}

int trust_pinned_owners(const struct trust_in *in, size_t *replaced)
{
    *replaced = 0;
    if (in->count < 1)
        return EXIT_OK;
    struct strbuf dest = STRBUF_INIT, err = STRBUF_INIT;
    int rc = EXIT_OK;
    for (size_t i = 0; i < in->nm && !rc; i++) {
        size_t x;
        json_t *t;
        json_array_foreach(json_object_get(in->m[i], "tus"), x, t)
        {
            const char *key = json_string_value(json_object_get(t, "key"));
            const char *res = json_string_value(json_object_get(t, "result"));
            if (!key || !res || !made_everywhere(t))
                continue;
            int claims[2] = {0, 0}, owner = tu_owner(in, key, claims);
            size_t o = index_of(in, owner);
            /* the owner's manifest: an artifact's, or (with in->remote) the remote's */
            json_t *ot =
                o < in->nart || (o < in->nm && in->remote) ? tu_record(in->m[o], key, res) : NULL;
            const char *rel = NULL;
            uint64_t size = 0;
            const char *sha =
                ot && made_everywhere(ot) ? entry_sha_size(in->m[o], res, &rel, &size) : NULL;
            char hex[65];
            if (!sha || (cache_entry_sha(in->cache, rel, hex) == 0 && !strcmp(hex, sha)))
                continue; /* guard 6 judges the rest */
            sb_reset(&dest);
            sb_reset(&err);
            sb_addf(&dest, "%s/%s", in->cache, rel);
            if (o < in->nart) {
                rc = artifact_extract_member(in->files[o], rel, sb_str(&dest), &err);
                if (rc)
                    report_error(in->cmd, "%s", sb_str(&err));
            } else {
                rc = fetch_own_copy(in, owner, rel, sha, size, sb_str(&dest));
            }
            if (rc)
                break;
            (*replaced)++;
        }
    }
    sb_release(&dest);
    sb_release(&err);
    return rc;
}

int trust_check(const struct trust_in *in, const struct jrnl *j, struct trust_out *out)
{
    memset(out, 0, sizeof *out);
    if (in->count < 1)
        return EXIT_OK;
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        if (!jrec_is_tu(r) || !r->key || r->status != 0 || !r->outcome ||
            !strcmp(r->action, "stub"))
            continue;
        int ok = 1;
        if (!strcmp(r->outcome, "hit") && !r->result_key) {
            out->unverified++; /* ccache's log named no result key: nothing to check it by */
        } else if (!strcmp(r->outcome, "hit")) {
            out->checked++;
            ok = check_hit(in, r, out);
        } else if (!strcmp(r->outcome, "assembled")) {
            out->checked++;
            ok = check_assembled(in, j, k, out);
        }
        out->refused += !ok;
    }
    return out->refused ? EXIT_GUARD : EXIT_OK;
}
