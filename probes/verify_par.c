/*
 * verify_par.c - verification compares split across CPU threads
 * (verify_par.h): the thread count, the parallel for and first-wrong
 * search over pthreads, and the word compares built on them.
 */
#include "verify_par.h"

#include <pthread.h>
#include <unistd.h>

/* Words per block of the branch-free scans: the OR of the differences of
 * a block is tested once, and only a block with a difference is walked
 * word by word. */
#define SCAN_BLOCK 1024

static int forced_threads;

void mp_par_force_threads(int n)
{
    forced_threads = n < 0 ? 0 : n > MP_PAR_MAX_THREADS ? MP_PAR_MAX_THREADS
                                                        : n;
}

int mp_par_threads(size_t items)
{
    if (forced_threads > 0)
        return forced_threads;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t most = items / MP_PAR_MIN_ITEMS;
    if (cpus < 1)
        cpus = 1;
    if (most > (size_t)cpus)
        most = (size_t)cpus;
    if (most > MP_PAR_MAX_THREADS)
        most = MP_PAR_MAX_THREADS;
    return most < 2 ? 1 : (int)most;
}

size_t mp_par_part_start(size_t n, int threads, int k)
{
    size_t t = (size_t)(threads < 1 ? 1 : threads);
    size_t q = n / t, r = n % t, kk = (size_t)k;
    return kk * q + (kk < r ? kk : r);
}

typedef struct {
    mp_par_fn fn;
    mp_par_find_fn find;
    void *ctx;
    size_t from, to;
    size_t result;   /* find: the first wrong index of the part, or to */
} part;

static void run_part(part *p)
{
    if (p->find)
        p->result = p->find(p->ctx, p->from, p->to);
    else
        p->fn(p->ctx, p->from, p->to);
}

static void *part_thread(void *arg)
{
    run_part(arg);
    return NULL;
}

/* Runs the parts: 1..n-1 on their own threads (on the caller when a
 * thread cannot be started), part 0 on the caller; joins them all. */
static void run_parts(part *parts, int n)
{
    pthread_t tid[MP_PAR_MAX_THREADS];
    int started[MP_PAR_MAX_THREADS] = {0};
    for (int k = 1; k < n; k++) {
        if (parts[k].from == parts[k].to)
            continue;
        started[k] = pthread_create(&tid[k], NULL, part_thread, &parts[k]) == 0;
        if (!started[k])
            run_part(&parts[k]);
    }
    if (parts[0].from < parts[0].to)
        run_part(&parts[0]);
    for (int k = 1; k < n; k++)
        if (started[k])
            pthread_join(tid[k], NULL);
}

/* Splits [0, n) into parts; returns how many. */
static int split(part *parts, size_t n, int threads, mp_par_fn fn,
                 mp_par_find_fn find, void *ctx)
{
    if (threads < 1)
        threads = 1;
    if (threads > MP_PAR_MAX_THREADS)
        threads = MP_PAR_MAX_THREADS;
    for (int k = 0; k < threads; k++) {
        parts[k].fn = fn;
        parts[k].find = find;
        parts[k].ctx = ctx;
        parts[k].from = mp_par_part_start(n, threads, k);
        parts[k].to = mp_par_part_start(n, threads, k + 1);
        parts[k].result = parts[k].to;
    }
    return threads;
}

void mp_par_for(size_t n, int threads, mp_par_fn fn, void *ctx)
{
    part parts[MP_PAR_MAX_THREADS];
    run_parts(parts, split(parts, n, threads, fn, NULL, ctx));
}

size_t mp_par_first(size_t n, int threads, mp_par_find_fn find, void *ctx)
{
    part parts[MP_PAR_MAX_THREADS];
    int np = split(parts, n, threads, NULL, find, ctx);
    run_parts(parts, np);
    for (int k = 0; k < np; k++)
        if (parts[k].result < parts[k].to)
            return parts[k].result;   /* parts are in order */
    return n;
}

/* ---- the word compares ------------------------------------------------ */

typedef struct {
    const unsigned *got, *want;
    size_t period, phase;
    unsigned value;
} cmp;

/* Index of the first k < len with g[k] != w[k], else len: an OR of
 * differences over the run (a vectorisable loop), searched only when it
 * is not zero. */
static inline size_t first_diff_run(const unsigned *g, const unsigned *w,
                                    size_t len)
{
    unsigned d = 0;
    for (size_t k = 0; k < len; k++)
        d |= g[k] ^ w[k];
    if (d)
        for (size_t k = 0; k < len; k++)
            if (g[k] != w[k])
                return k;
    return len;
}

static size_t diff_range(void *ctx, size_t from, size_t to)
{
    const cmp *c = ctx;
    for (size_t a = from; a < to; a += SCAN_BLOCK) {
        size_t len = to - a < SCAN_BLOCK ? to - a : SCAN_BLOCK;
        size_t k = first_diff_run(c->got + a, c->want + a, len);
        if (k < len)
            return a + k;
    }
    return to;
}

size_t mp_first_diff(const unsigned *got, const unsigned *want, size_t n,
                     int threads)
{
    cmp c = {got, want, 0, 0, 0};
    return mp_par_first(n, threads, diff_range, &c);
}

/* got[t] against want[(phase + t) % period]: runs of whole periods
 * compared with want[0..period), each a vectorisable loop. */
static size_t periodic_range(void *ctx, size_t from, size_t to)
{
    const cmp *c = ctx;
    size_t p = c->period, t = from;
    size_t j = (c->phase % p + from % p) % p;   /* three divisions per part */
    while (t < to) {
        size_t len = p - j < to - t ? p - j : to - t;
        size_t k = first_diff_run(c->got + t, c->want + j, len);
        if (k < len)
            return t + k;
        t += len;
        j = 0;
    }
    return to;
}

size_t mp_first_diff_periodic(const unsigned *got, const unsigned *want,
                              size_t period, size_t phase, size_t n,
                              int threads)
{
    cmp c = {got, want, period ? period : 1, phase, 0};
    return mp_par_first(n, threads, periodic_range, &c);
}

static size_t value_range(void *ctx, size_t from, size_t to)
{
    const cmp *c = ctx;
    for (size_t a = from; a < to; a += SCAN_BLOCK) {
        size_t b = to - a < SCAN_BLOCK ? to : a + SCAN_BLOCK;
        unsigned d = 0;
        for (size_t t = a; t < b; t++)
            d |= c->got[t] ^ c->value;
        if (d)
            for (size_t t = a; t < b; t++)
                if (c->got[t] != c->value)
                    return t;
    }
    return to;
}

size_t mp_first_not(const unsigned *got, unsigned value, size_t n,
                    int threads)
{
    cmp c = {got, NULL, 0, 0, value};
    return mp_par_first(n, threads, value_range, &c);
}
