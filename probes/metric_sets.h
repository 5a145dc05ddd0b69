/*
 * metric_sets.h - the metric sets several families share (metric_sets.c).
 * A family's own set is declared in its NAME.c beside its use.
 */
#ifndef MP_METRIC_SETS_H
#define MP_METRIC_SETS_H

#include "metrics.h"

extern const mp_metric_set_def mp_set_shared_mixed, mp_set_global;
#define MP_SET_SHARED_MIXED (&mp_set_shared_mixed)
#define MP_SET_GLOBAL (&mp_set_global)

#endif
