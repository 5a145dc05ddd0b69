/*
 * configs.c - cross product of parameter value lists (see configs.h).
 */
#include "configs.h"

#include <stdio.h>
#include <stdlib.h>

int mp_configs_expand(const mp_probe *probe, mp_value_list *const *lists,
                      mp_config_list *out, char *err, size_t errlen)
{
    int np = probe->nparams;
    long long total = 1;
    for (int i = 0; i < np; i++) {
        if (lists[i])
            total *= lists[i]->n;
        if (total > MP_MAX_CONFIGS) {
            snprintf(err, errlen, "more than %d configurations in one run",
                     MP_MAX_CONFIGS);
            return -1;
        }
    }
    out->probe = probe;
    out->n = (int)total;
    out->v = calloc((size_t)total, sizeof *out->v);
    if (!out->v) {
        snprintf(err, errlen, "out of memory for %lld configurations", total);
        return -1;
    }
    int idx[MP_MAX_PARAMS] = {0};
    for (long long c = 0; c < total; c++) {
        for (int i = 0; i < np; i++)
            out->v[c][i] = lists[i] ? lists[i]->v[idx[i]] : probe->params[i].def;
        /* Advance the odometer: the last parameter turns fastest. */
        for (int i = np - 1; i >= 0; i--) {
            if (!lists[i])
                continue;
            if (++idx[i] < lists[i]->n)
                break;
            idx[i] = 0;
        }
    }
    return 0;
}

void mp_configs_free(mp_config_list *c)
{
    free(c->v);
    c->v = NULL;
    c->n = 0;
}
