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

int mp_launches_per_sample(double one_ns, double target_ns, int cap)
{
    if (cap < 1)
        cap = 1;
    if (!(one_ns > 0) || !(target_ns > one_ns))
        return 1;
    double k = ceil(target_ns / one_ns);
    return k > cap ? cap : (int)k;
}

/* The median of x[0..n) without touching x (n <= 64). */
static double median_of_copy(const double *x, size_t n)
{
    double tmp[64];
    if (n > 64)
        n = 64;
    memcpy(tmp, x, n * sizeof *x);
    return mp_median(tmp, n);
}

int mp_timing_settled(const double *earlier, const double *later, size_t n,
                      double rel)
{
    if (n == 0)
        return 0;
    double a = median_of_copy(earlier, n), b = median_of_copy(later, n);
    return a > 0 && fabs(b - a) <= rel * a;
}

int mp_count_outliers(const double *x, size_t n, double median)
{
    if (n == 0)
        return 0;
    double *dev = malloc(n * sizeof *dev);
    if (!dev)
        return 0;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(x[i] - median);
    double mad = mp_median(dev, n);
    free(dev);
    double bound = fmax(4 * 1.4826 * mad, 0.01 * fabs(median));
    int out = 0;
    for (size_t i = 0; i < n; i++)
        out += fabs(x[i] - median) > bound;
    return out;
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
