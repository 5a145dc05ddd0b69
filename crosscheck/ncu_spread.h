/*
 * ncu_spread.h - how far repeated Nsight Compute runs of the same
 * configurations disagree with each other, metric by metric, and whether
 * the tolerances of the metric sets cover three times that (tolerances
 * come from measured repeat spread, not from hope).
 */
#ifndef MP_NCU_SPREAD_H
#define MP_NCU_SPREAD_H

#include <stdio.h>

#include "probe.h"

/* Reads memprobe's CSV of the probe's standard set (for each row's
 * requests) and n >= 2 ncu CSVs of the same launches (ncu --csv --page
 * raw, as `memprobe ncu-check` writes them), and prints per metric of the
 * set with a non-zero tolerance: the largest difference between any two
 * ncu runs of one configuration (in the metric's unit, and per request or
 * relative to the value as its tolerance is), where it was seen, and the
 * tolerance that is 3x that spread at every configuration, beside the one
 * in force. Exact metrics (tolerance 0) must not differ at all. Returns 0
 * when every tolerance in force covers 3x the spread and every exact
 * metric agreed; 1 when one does not; 2 when a file cannot be read or the
 * runs do not hold the same launches. */
int mp_ncu_spread(const mp_probe *p, const char *memprobe_csv,
                  const char *const *ncu_csvs, int n, FILE *out);

#endif
