/*
 * mp_sets.h - the metric sets in tests: by name as the families spell
 * them (MP_SET_SHARED is the bank family's "shared", ...), and all of the
 * registered ones by position (MP_SET_COUNT, mp_test_set_at), as
 * mp_metric_sets lists them. The sets live with their families; the
 * registry is in place before a test runs (tests/cli_util.c).
 */
#ifndef MP_TEST_SETS_H
#define MP_TEST_SETS_H

#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

static inline mp_metric_set mp_test_set(const char *name)
{
    mp_metric_set s = NULL;
    if (mp_metric_set_from_name(name, &s)) {
        fprintf(stderr, "no registered metric set '%s'\n", name);
        abort();
    }
    return s;
}

static inline int mp_test_nsets(void)
{
    mp_metric_set s[MP_MAX_METRIC_SETS];
    return mp_metric_sets(s, MP_MAX_METRIC_SETS);
}

static inline mp_metric_set mp_test_set_at(int i)
{
    mp_metric_set s[MP_MAX_METRIC_SETS];
    int n = mp_metric_sets(s, MP_MAX_METRIC_SETS);
    return i >= 0 && i < n ? s[i] : NULL;
}

#define MP_SET_SHARED mp_test_set("shared")
#define MP_SET_SHARED_MIXED mp_test_set("shared-mixed")
#define MP_SET_GLOBAL mp_test_set("global")
#define MP_SET_CONSTANT mp_test_set("constant")
#define MP_SET_TEXTURE mp_test_set("tex")
#define MP_SET_LATENCY mp_test_set("latency")
#define MP_SET_ASYNC mp_test_set("async")
#define MP_SET_CLUSTER mp_test_set("cluster")
#define MP_SET_COUNT mp_test_nsets()

#endif
