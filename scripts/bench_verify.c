/*
 * bench_verify.c - times the host side of verification on host buffers
 * (no GPU): the compares and generators of probes/verify_par.c and the
 * probes, on one thread and on all (up to MP_PAR_MAX_THREADS), beside the
 * loops they replaced. `make bench-verify` builds and runs it; the
 * numbers are medians of 5 runs in ms.
 *
 *   build/bench_verify [MiB]     compare buffers of MiB (default 256)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bandwidth.h"
#include "reduce.h"
#include "stats.h"
#include "verify_par.h"

#define RUNS 5

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static volatile size_t sink;

/* Median ms of RUNS calls of fn(ctx) with mp_par_force_threads(threads). */
static double time_it(void (*fn)(void *), void *ctx, int threads)
{
    double ms[RUNS];
    mp_par_force_threads(threads);
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        fn(ctx);
        ms[r] = now_ms() - t0;
    }
    mp_par_force_threads(0);
    return mp_median(ms, RUNS);
}

typedef struct {
    unsigned *got, *want;
    size_t n, period;
    size_t lo, hi;
    unsigned long long elements;
    size_t threads;
    void *x, *y;
} bench;

static void run_diff(void *ctx)
{
    bench *b = ctx;
    sink = mp_first_diff(b->got, b->want, b->n, mp_par_threads(b->n));
}

static void run_written(void *ctx)
{
    bench *b = ctx;
    sink = mp_bw_written_first(b->got, 0, b->n, b->lo, b->hi, MP_BW_WRITE,
                               mp_par_threads(b->n));
}

/* mp_launch_verify_words's loop before: a modulo per word. */
static void run_modulo(void *ctx)
{
    bench *b = ctx;
    size_t t;
    for (t = 0; t < b->n; t++)
        if (b->got[t] != b->want[t % b->period])
            break;
    sink = t;
}

static void run_periodic(void *ctx)
{
    bench *b = ctx;
    sink = mp_first_diff_periodic(b->got, b->want, b->period, 0, b->n,
                                  mp_par_threads(b->n));
}

static void run_read_reference(void *ctx)
{
    bench *b = ctx;
    mp_bw_read_reference(16, 1, b->elements, b->threads, b->got);
}

/* reduce's dot inputs before: ldexpf per float, one thread. */
static void run_fill_before(void *ctx)
{
    bench *b = ctx;
    float *a = b->x, *c = b->y;
    unsigned __int128 s = 0;
    for (size_t k = 0; k < b->elements; k++) {
        uint32_t ma = mp_red_dot_mantissa(k, 0), mb = mp_red_dot_mantissa(k, 1);
        a[k] = ldexpf((float)ma, -24);
        c[k] = ldexpf((float)mb, -24);
        s += (uint64_t)ma * mb;
    }
    sink = (size_t)s;
}

static void run_fill(void *ctx)
{
    bench *b = ctx;
    mp_red_sum s = {0, 0};
    mp_red_fill(MP_RED_DOT, 0, b->elements, b->x, b->y, &s);
    sink = (size_t)s.dot;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
    size_t n = mib << 18;   /* words */
    int all = mp_par_threads((size_t)1 << 40);
    bench b = {0};
    b.got = malloc(n * sizeof *b.got);
    b.want = malloc(n * sizeof *b.want);
    if (!b.got || !b.want || n == 0) {
        fprintf(stderr, "bench_verify: out of memory\n");
        return 1;
    }
    b.n = n;
    b.lo = 16;
    b.hi = n - 64;
    for (size_t w = 0; w < n; w++)
        b.got[w] = w < b.lo || w >= b.hi ? MP_BW_POISON
                                         : mp_bw_write_word((unsigned)(w - b.lo));
    memcpy(b.want, b.got, n * sizeof *b.got);
    printf("# host verification, %zu MiB buffers, median of %d runs (ms); "
           "all = %d threads\n", mib, RUNS, all);
    printf("%-44s %10s %10s\n", "what", "1 thread", "all");
    printf("%-44s %10.1f %10.1f\n", "first_diff (array vs array)",
           time_it(run_diff, &b, 1), time_it(run_diff, &b, all));
    printf("%-44s %10.1f %10.1f\n", "bandwidth write compare (pattern, guards)",
           time_it(run_written, &b, 1), time_it(run_written, &b, all));

    /* bank: a full wave of 256-thread blocks on 132 SMs, period 256 */
    bench k = b;
    k.n = 270336;
    k.period = 256;
    for (size_t t = 0; t < k.n; t++)
        k.got[t] = k.want[t % k.period];
    printf("%-44s %10.3f %10s\n", "bank words (1 MiB), modulo loop (before)",
           time_it(run_modulo, &k, 1), "-");
    printf("%-44s %10.3f %10.3f\n", "bank words (1 MiB), periodic compare",
           time_it(run_periodic, &k, 1), time_it(run_periodic, &k, all));

    /* bandwidth read: 1 GiB of 16-byte elements over 132 x 2048 threads */
    bench r = b;
    r.elements = (1ull << 30) / 16;
    r.threads = 270336;
    printf("%-44s %10.1f %10.1f\n", "bandwidth read reference (1 GiB)",
           time_it(run_read_reference, &r, 1),
           time_it(run_read_reference, &r, all));

    /* reduce: the dot inputs of n/2 elements (two float arrays = n words) */
    bench f = b;
    f.elements = n / 2;
    f.x = b.got;
    f.y = b.want;
    printf("%-44s %10.1f %10s\n", "reduce dot fill, ldexpf (before)",
           time_it(run_fill_before, &f, 1), "-");
    printf("%-44s %10.1f %10.1f\n", "reduce dot fill",
           time_it(run_fill, &f, 1), time_it(run_fill, &f, all));
    free(b.got);
    free(b.want);
    return 0;
}
