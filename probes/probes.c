/*
 * probes.c - the table of probe families. A new family is a .cu file with
 * its kernels, a .c file with its mp_probe, and one line here.
 */
#include <string.h>

#include "probe.h"

extern const mp_probe mp_probe_bank;

const mp_probe *const mp_probes[] = {
    &mp_probe_bank,
    NULL,
};

const mp_probe *mp_probe_find(const char *name)
{
    for (int i = 0; mp_probes[i]; i++)
        if (strcmp(mp_probes[i]->name, name) == 0)
            return mp_probes[i];
    return NULL;
}
