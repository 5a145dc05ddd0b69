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

/* qsort comparator for doubles, ascending: -1, 0 or 1 (a NaN compares
 * equal to everything). The one copy for the whole tree: use it rather
 * than a file's own. */
int mp_cmp_double(const void *a, const void *b);

/* qsort(base, n, size, cmp), also for n == 0 with base NULL (an empty
 * table), which qsort itself may not be given. */
void mp_sort(void *base, size_t n, size_t size,
             int (*cmp)(const void *, const void *));

/* The median of x[0..n): sorts x in place (mp_cmp_double), then the middle
 * value, or the mean of the two middle ones when n is even. NAN when
 * n == 0. The one copy for the whole tree (mp_stats_compute uses it). */
double mp_median(double *x, size_t n);

/* Summarises x[0..n); sorts x in place. n == 0 gives all zeros. */
void mp_stats_compute(double *x, size_t n, mp_stats *s);

/* Launch timing (runtime/runner.c): how many back-to-back launches one
 * timed sample holds so that it lasts at least target_ns, when one launch
 * took one_ns: 1 for a launch that long already (or an unknown one_ns <=
 * 0), at most cap. A CUDA event pair resolves about 0.5 us, so a 5-us
 * kernel timed alone cannot repeat within 1%; 20 of them timed together
 * can, and each is still launched as written. */
int mp_launches_per_sample(double one_ns, double target_ns, int cap);

/* Has the warm-up settled? The medians of two consecutive windows of n
 * samples differ by at most rel of the earlier one. Reads only. */
int mp_timing_settled(const double *earlier, const double *later, size_t n,
                      double rel);

/* Samples of x[0..n) (sorted ascending, as mp_stats_compute leaves it)
 * farther from the median than both 4 scaled median absolute deviations
 * (1.4826 MAD, the standard deviation of a normal sample) and 1% of the
 * median: counted in the row, never dropped from its statistics. */
int mp_count_outliers(const double *x, size_t n, double median);

/* The seeds' in-kernel timing from clock64 stamps: starts[0..blocks) then
 * ends[0..blocks). *span = latest end - earliest start over all blocks (SM
 * counters are not in step: compare with care); *block_median = median of
 * each block's own end - start. */
void mp_clock64_summary(const long long *stamps, int blocks, long long *span,
                        double *block_median);

/* The time left of a run that has done `done` of `total` items in
 * `elapsed` seconds, at the rate so far: elapsed * (total - done) / done.
 * -1 when unknown (nothing done yet, or arguments out of range); 0 when
 * everything is done. */
double mp_eta_seconds(double elapsed, int done, int total);

#endif
