/*
 * stats.c - median, minimum and coefficient of variation of timings.
 */
#include "stats.h"

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mp_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mp_median(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(x, n, sizeof *x, mp_cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void mp_clock64_summary(const long long *stamps, int blocks, long long *span,
                        double *block_median)
{
    const long long *start = stamps, *end = stamps + blocks;
    long long first = start[0], last = end[0];
    double *durations = mp_xmalloc((size_t)blocks * sizeof *durations);
    for (int i = 0; i < blocks; i++) {
        if (start[i] < first)
            first = start[i];
        if (end[i] > last)
            last = end[i];
        durations[i] = (double)(end[i] - start[i]);
    }
    mp_stats st;
    mp_stats_compute(durations, (size_t)blocks, &st);
    free(durations);
    *span = last - first;
    *block_median = st.median;
}

void mp_stats_compute(double *x, size_t n, mp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0)
        return;
    s->median = mp_median(x, n);   /* sorts x */
    s->min = x[0];
    s->max = x[n - 1];
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    s->mean = sum / n;
    if (n > 1 && s->mean != 0) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (x[i] - s->mean) * (x[i] - s->mean);
        s->cov = sqrt(ss / (n - 1)) / s->mean;
    }
}

double mp_eta_seconds(double elapsed, int done, int total)
{
    if (done <= 0 || total < done || !(elapsed >= 0))
        return -1;
    return elapsed * (double)(total - done) / (double)done;
}

void mp_sort(void *base, size_t n, size_t size,
             int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}
