/*
 * metric_sets.h - the metric sets several families share (metric_sets.c).
 * A family's own set is declared in its NAME.c beside its use. With them,
 * the reading of the LSU's shared counters, the verdict on them and the
 * model's columns that the shared-memory families (bank, bitmap) give
 * alike.
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

/* The wavefront columns of a shared-memory probe from its counters
 * (wavefronts and warp-level instructions, as mp_shared_op_counters reads
 * them) against its prediction p (value[0]: wavefronts per request, the
 * model's; value[1]: the conflict-free ideal) and the requests its kernel
 * issues: wavefronts_per_request, excess_wavefronts (over the ideal) and
 * model_match. A match needs exactly `requests` instructions (one per warp
 * and iteration; any other count means the probe is not what it claims)
 * and wavefronts per request within 0.5 of the prediction: the counter
 * carries a small positive excess from L1 arbitration with the kernel's
 * other traffic (docs/notes.md), so the measured value matches when it
 * rounds to the prediction. Writes nothing when inst <= 0 or wavefronts
 * < 0 (the chip lacks a counter). */
void mp_row_set_wavefronts(mp_row *row, double wavefronts, double inst,
                           double requests, const mp_prediction *p);

/* The model columns of a shared-memory probe's prediction p, for its
 * describe: value[0] (wavefronts per request), value[1] (the ideal) and
 * value[2] (conflict ways). */
void mp_row_set_wavefront_model(mp_row *row, const mp_prediction *p);

#endif
