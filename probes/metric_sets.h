/*
 * metric_sets.h - the metric sets several families share (metric_sets.c).
 * A family's own set is declared in its NAME.c beside its use.
 */
#ifndef MP_METRIC_SETS_H
#define MP_METRIC_SETS_H

#include "metrics.h"
#include "probe.h"

extern const mp_metric_set_def mp_set_shared_mixed, mp_set_global;
#define MP_SET_SHARED_MIXED (&mp_set_shared_mixed)
#define MP_SET_GLOBAL (&mp_set_global)

/* The LSU's shared-memory counters of op ("ld" or "st") in `set`: the
 * wavefronts the L1TEX data stage processed and the warp-level shared
 * instructions executed, each -1 where the set lacks it or the chip does
 * (mp_counter). */
void mp_shared_op_counters(const mp_measurement *m, mp_metric_set set,
                           const char *op, double *wavefronts, double *inst);

#endif
