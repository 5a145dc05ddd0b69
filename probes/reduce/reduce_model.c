/*
 * reduce_model.c - shared-memory traffic of each reduction variant and the
 * float rounding bound of the dot product (see reduce_model.h).
 *
 * The traffic model walks a block's reduction the way the kernels in
 * probes/reduce/reduce.cu run it, access by access; for each warp it collects
 * the lanes that take part and their word addresses and asks the bank
 * model (model/bank_model.c, measured on the H200) for the wavefronts.
 * Nothing about conflicts is assumed here: the bank model finds them.
 */
#include "reduce_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bank_model.h"

const char *const mp_red_variant_names[] = {
    "host-partials", "thread0-serial", "tree-interleaved", "tree-strided",
    "tree-sequential", "warp-shuffle", "atomic", NULL};

const char *const mp_red_workload_names[] = {"cubes", "dot", NULL};

int mp_red_is_tree(int variant)
{
    return variant == MP_RED_TREE_INTERLEAVED
           || variant == MP_RED_TREE_STRIDED
           || variant == MP_RED_TREE_SEQUENTIAL;
}

unsigned mp_red_shared_bytes(int variant, int threads)
{
    switch (variant) {
    case MP_RED_HOST_PARTIALS:
        return 0;
    case MP_RED_WARP_SHUFFLE:
    case MP_RED_ATOMIC:
        return (unsigned)(threads / 32) * 4u;
    default:
        return (unsigned)threads * 4u;
    }
}

/* ---- shared-memory traffic -------------------------------------------- */

long long mp_red_access_word(const mp_red_access *a, int threads, int tid)
{
    long long t = tid;
    switch (a->kind) {
    case MP_RED_ACC_ALL:
        return t;
    case MP_RED_ACC_THREAD0:
        return t == 0 ? a->p : -1;
    case MP_RED_ACC_INTERLEAVED:
        return t % (2 * a->p) == 0 ? t + a->q : -1;
    case MP_RED_ACC_STRIDED:
        return 2 * a->p * t < threads ? 2 * a->p * t + a->q : -1;
    case MP_RED_ACC_SEQUENTIAL:
        return t < a->p ? t + a->q : -1;
    case MP_RED_ACC_WARP_LEADERS:
        return t % 32 == 0 ? t / 32 : -1;
    case MP_RED_ACC_FIRST_WARP:
        return t < threads / 32 ? t : -1;
    }
    return -1;
}

void mp_red_access_traffic(const mp_red_access *a, int threads, int is_store,
                           mp_red_traffic *t)
{
    for (int w = 0; w < threads / 32; w++) {
        mp_warp_access acc;
        memset(&acc, 0, sizeof acc);
        acc.width = 4;
        acc.is_store = is_store;
        for (int lane = 0; lane < 32; lane++) {
            long long word = mp_red_access_word(a, threads, 32 * w + lane);
            if (word < 0)
                continue;
            acc.active |= 1u << lane;
            acc.offset[lane] = word * 4;
        }
        if (!acc.active)
            continue;   /* the warp branches around it: no request */
        mp_bank_prediction p;
        mp_bank_predict(&acc, &p);
        t->requests += 1;
        t->wavefronts += p.wavefronts;
        t->ideal += p.ideal;
    }
}

static void ld(mp_red_block_traffic *m, int threads, mp_red_access_kind kind,
               long long p, long long q)
{
    mp_red_access a = {kind, p, q};
    mp_red_access_traffic(&a, threads, 0, &m->ld);
}

static void st(mp_red_block_traffic *m, int threads, mp_red_access_kind kind,
               long long p, long long q)
{
    mp_red_access a = {kind, p, q};
    mp_red_access_traffic(&a, threads, 1, &m->st);
}

/* One tree step `cache[x] += cache[x + s]` of the given addressing: the
 * two loads (the element and its partner) and the store. */
static void tree_step(mp_red_block_traffic *m, int threads,
                      mp_red_access_kind kind, long long s)
{
    ld(m, threads, kind, s, 0);
    ld(m, threads, kind, s, s);
    st(m, threads, kind, s, 0);
}

void mp_red_block_model(int variant, int threads, mp_red_block_traffic *m)
{
    memset(m, 0, sizeof *m);
    switch (variant) {
    case MP_RED_HOST_PARTIALS:
        return;   /* partials go straight to global memory */
    case MP_RED_WARP_SHUFFLE:
    case MP_RED_ATOMIC:
        /* Lane 0 of each warp stores its warp's sum; warp 0 loads them. */
        st(m, threads, MP_RED_ACC_WARP_LEADERS, 0, 0);
        ld(m, threads, MP_RED_ACC_FIRST_WARP, 0, 0);
        return;
    default:
        break;
    }
    /* Every thread stores its partial: cache[tid] = sum. */
    st(m, threads, MP_RED_ACC_ALL, 0, 0);
    switch (variant) {
    case MP_RED_THREAD0_SERIAL:
        /* The seed: for (i = 1; i < T; i++) cache[0] += cache[i]; */
        for (int i = 1; i < threads; i++) {
            ld(m, threads, MP_RED_ACC_THREAD0, 0, 0);
            ld(m, threads, MP_RED_ACC_THREAD0, i, 0);
            st(m, threads, MP_RED_ACC_THREAD0, 0, 0);
        }
        break;
    case MP_RED_TREE_INTERLEAVED:
        for (long long s = 1; s < threads; s *= 2)
            tree_step(m, threads, MP_RED_ACC_INTERLEAVED, s);
        break;
    case MP_RED_TREE_STRIDED:
        for (long long s = 1; s < threads; s *= 2)
            tree_step(m, threads, MP_RED_ACC_STRIDED, s);
        break;
    case MP_RED_TREE_SEQUENTIAL:
        for (long long i = threads / 2; i != 0; i /= 2)
            tree_step(m, threads, MP_RED_ACC_SEQUENTIAL, i);
        break;
    }
    /* Thread 0 reads the block's sum: out[bid] = cache[0]. */
    ld(m, threads, MP_RED_ACC_THREAD0, 0, 0);
}

/* ---- the float check ------------------------------------------------- */

static long long log2_of(long long x)
{
    long long l = 0;
    while ((1LL << l) < x)
        l++;
    return l;
}

long long mp_red_float_depth(int variant, long long n, int threads,
                             long long blocks)
{
    long long grid = (long long)threads * blocks;
    long long depth = (n + grid - 1) / grid;   /* the thread's own loop */
    switch (variant) {
    case MP_RED_THREAD0_SERIAL:
        depth += threads - 1;
        break;
    case MP_RED_TREE_INTERLEAVED:
    case MP_RED_TREE_STRIDED:
    case MP_RED_TREE_SEQUENTIAL:
        depth += log2_of(threads);
        break;
    case MP_RED_WARP_SHUFFLE:
        depth += 10;
        break;
    case MP_RED_ATOMIC:
        depth += 10 + blocks - 1;
        break;
    }
    return depth;
}

long long mp_red_host_values(int variant, int threads, long long blocks)
{
    switch (variant) {
    case MP_RED_HOST_PARTIALS:
        return (long long)threads * blocks;
    case MP_RED_ATOMIC:
        return 1;
    default:
        return blocks;
    }
}

double mp_red_gamma(long long k, int is_double)
{
    double u = is_double ? ldexp(1.0, -53) : ldexp(1.0, -24);
    double ku = (double)k * u;
    if (k <= 0)
        return 0.0;
    return ku >= 1.0 ? INFINITY : ku / (1.0 - ku);
}

double mp_red_float_tolerance(double abs_sum, long long depth,
                              long long host_values)
{
    double gf = mp_red_gamma(depth, 0);
    double gd = mp_red_gamma(host_values - 1, 1);
    if (isinf(gf) || isinf(gd))
        return INFINITY;   /* no bound: k u >= 1 */
    return abs_sum * (gf + gd * (1.0 + gf) + ldexp(1.0, -52));
}

int mp_red_check_float(double got, double exact, double tolerance, char *err,
                       size_t errlen)
{
    double diff = fabs(got - exact);
    if (diff <= tolerance)   /* false for NaN */
        return 0;
    snprintf(err, errlen, "the dot product is %.9g, the exact one %.9g: off "
             "by %.3g, more than the %.3g that float rounding allows", got,
             exact, diff, tolerance);
    return -1;
}

int mp_red_check_int(uint32_t got, uint64_t exact, char *err, size_t errlen)
{
    if (got == (uint32_t)exact)
        return 0;
    snprintf(err, errlen, "the sum of cubes is %u, the exact sum %llu is %u "
             "modulo 2^32", got, (unsigned long long)exact,
             (uint32_t)exact);
    return -1;
}
