/*
 * probes.c - the table of probe families. A new family is a .cu file with
 * its kernels, a .c file with its mp_probe, and one line here. Helpers
 * every probe uses live here too.
 */
#include <string.h>

#include "probe.h"

extern const mp_probe mp_probe_bank;
extern const mp_probe mp_probe_coalesce;
extern const mp_probe mp_probe_const;
extern const mp_probe mp_probe_texture;
extern const mp_probe mp_probe_bandwidth;
extern const mp_probe mp_probe_reduce;

const mp_probe *const mp_probes[] = {
    &mp_probe_bank,
    &mp_probe_coalesce,
    &mp_probe_const,
    &mp_probe_texture,
    &mp_probe_bandwidth,
    &mp_probe_reduce,
    NULL,
};

const mp_probe *mp_probe_find(const char *name)
{
    for (int i = 0; mp_probes[i]; i++)
        if (strcmp(mp_probes[i]->name, name) == 0)
            return mp_probes[i];
    return NULL;
}

double mp_counter(const mp_measurement *m, mp_metric_set set,
                  const char *name)
{
    size_t n;
    const mp_metric *metrics = mp_metric_set_get(set, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(metrics[i].name, name) == 0)
            return m->counters[i];
    return -1;
}
