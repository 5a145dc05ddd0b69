/*
 * probe_table.c - the probes the engine knows, as the layer above
 * registered them (probes/registry.c), looked up by position and name,
 * and the metric sets they use.
 */
#include "probe.h"

#include <string.h>

static const mp_probe *const *probe_table;

void mp_probe_table_set(const mp_probe *const *table)
{
    probe_table = table;
}

const mp_probe *mp_probe_at(int i)
{
    return probe_table && i >= 0 ? probe_table[i] : NULL;
}

const mp_probe *mp_probe_find(const char *name)
{
    for (int i = 0; mp_probe_at(i); i++)
        if (strcmp(mp_probe_at(i)->name, name) == 0)
            return mp_probe_at(i);
    return NULL;
}

int mp_metric_sets(mp_metric_set *out, int max)
{
    int n = 0;
    for (int i = 0; mp_probe_at(i); i++) {
        mp_metric_set s = mp_probe_at(i)->metrics;
        int seen = !s;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j] == s;
        if (!seen && n < max)
            out[n++] = s;
    }
    return n;
}

int mp_metric_set_from_name(const char *name, mp_metric_set *out)
{
    mp_metric_set sets[MP_MAX_METRIC_SETS];
    int n = mp_metric_sets(sets, MP_MAX_METRIC_SETS);
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, sets[i]->name) == 0) {
            if (out)
                *out = sets[i];
            return 0;
        }
    return -1;
}
