/*
 * configs.h - a probe's configurations: the cross product of the values
 * given for each parameter (defaults for the rest), in odometer order: the
 * first parameter of the probe's table changes slowest, so
 * "--op ld,st --stride 0..64" runs every stride for ld, then for st.
 */
#ifndef MP_CONFIGS_H
#define MP_CONFIGS_H

#include "params.h"
#include "probe.h"

#define MP_MAX_CONFIGS 1000000

typedef struct {
    const mp_probe *probe;
    int n;
    long long (*v)[MP_MAX_PARAMS];
} mp_config_list;

/* lists[i] == NULL means "the default of parameter i". Returns 0, or -1 with
 * a reason in err (too many configurations, no memory). */
int mp_configs_expand(const mp_probe *probe, mp_value_list *const *lists,
                      mp_config_list *out, char *err, size_t errlen);
void mp_configs_free(mp_config_list *c);

#endif
