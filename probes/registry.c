/*
 * registry.c - the table of probe families, one line each, in the order
 * `memprobe list`, the report and the study show them. A new family is a
 * folder probes/NAME/ with its NAME_family.c, and one line here.
 */
#include "family.h"

#include <string.h>

extern const mp_family mp_family_bank, mp_family_coalesce, mp_family_const,
    mp_family_texture, mp_family_bandwidth, mp_family_reduce,
    mp_family_bitmap, mp_family_transfer, mp_family_latency,
    mp_family_async, mp_family_cluster, mp_family_hazards;

const mp_family *const mp_families[] = {
    &mp_family_bank,
    &mp_family_coalesce,
    &mp_family_const,
    &mp_family_texture,
    &mp_family_bandwidth,
    &mp_family_reduce,
    &mp_family_bitmap,
    &mp_family_transfer,
    &mp_family_latency,
    &mp_family_async,
    &mp_family_cluster,
    &mp_family_hazards,
    NULL,
};

#define NFAMILIES (sizeof mp_families / sizeof *mp_families - 1)

void mp_families_register(void)
{
    static const mp_probe *probes[NFAMILIES + 1];
    static const mp_rep_part *parts[NFAMILIES];
    static const char *names[NFAMILIES];
    int np = 0;
    for (size_t i = 0; i < NFAMILIES; i++) {
        parts[i] = &mp_families[i]->report;
        names[i] = mp_families[i]->name;
        if (mp_families[i]->probe)
            probes[np++] = mp_families[i]->probe;
    }
    probes[np] = NULL;
    mp_probe_table_set(probes);
    mp_report_register(parts, names, (int)NFAMILIES);
}

const mp_family *mp_family_find(const char *name)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        if (!strcmp(mp_families[i]->name, name))
            return mp_families[i];
    return NULL;
}
