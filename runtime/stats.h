/*
 * stats.h - summary statistics of repeated timings.
 */
#ifndef MP_STATS_H
#define MP_STATS_H

#include <stddef.h>

typedef struct {
    size_t n;
    double median, min, max, mean;
    double cov;   /* coefficient of variation: stddev / mean (sample) */
} mp_stats;

/* Summarises x[0..n); sorts x in place. n == 0 gives all zeros. */
void mp_stats_compute(double *x, size_t n, mp_stats *s);

#endif
