/* fuzz_summary: the reader of the link job's summary.json that shardcc report trusts
 * (summary_invalid() and jtime_of_summary(), src/core/jrnl.c). The input is parsed as
 * JSON; a summary the validator accepts must hold only what report prints without a check
 * of its own: a string cell, counts from 0 to 10^8 with hits within the TUs, rates from 0
 * to 1, a wall time from 0 to 10^7 s, misses with string keys and reasons; and a "time"
 * that jtime_of_summary() takes must be finite seconds from 0 to 10^7 in every part. */
#include "fuzz_support.h"
#include "jrnl.h"

#include <jansson.h>
#include <math.h>

#define INPUT_MAX (1u << 20)

static json_int_t count(const json_t *sum, const char *name)
{
    const json_t *v = json_object_get(sum, name);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000000)
        fuzz_fail("summary_invalid accepted %s", name);
    return json_integer_value(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    json_error_t je;
    json_t *sum = json_loadb((const char *)data, size, JSON_DECODE_ANY, &je);
    if (!json_is_object(sum)) {
        json_decref(sum);
        return 0;
    }
    if (!summary_invalid(sum)) {
        if (!json_is_string(json_object_get(sum, "cell")))
            fuzz_fail("summary_invalid accepted a cell that is no string");
        const char *counts[] = {"present", "count", "tus", "hits", "stubs", "status"};
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            count(sum, counts[i]);
        if (count(sum, "hits") > count(sum, "tus"))
            fuzz_fail("summary_invalid accepted more hits than TUs");
        const char *rates[] = {"hit_rate", "min_hit_rate"};
        for (size_t i = 0; i < 2; i++) {
            double r = json_number_value(json_object_get(sum, rates[i]));
            if (!(r >= 0 && r <= 1))
                fuzz_fail("summary_invalid accepted %s %g", rates[i], r);
        }
        double w = json_number_value(json_object_get(sum, "wall_seconds"));
        if (!(w >= 0 && w <= 1e7))
            fuzz_fail("summary_invalid accepted wall_seconds %g", w);
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(sum, "misses"), i, x)
        {
            if (!json_is_string(json_object_get(x, "key")) ||
                !json_is_string(json_object_get(x, "reason")))
                fuzz_fail("summary_invalid accepted miss %zu", i);
        }
    }
    struct jtime t;
    if (jtime_of_summary(sum, &t) == 0) {
        const double parts[] = {t.wall, t.configure, t.compiles, t.links, t.other};
        for (size_t k = 0; k < 5; k++)
            if (!isfinite(parts[k]) || parts[k] < 0 || parts[k] > 1e7)
                fuzz_fail("jtime_of_summary gave a part %zu of %g", k, parts[k]);
    }
    json_decref(sum);
    return 0;
}
