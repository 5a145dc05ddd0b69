/*
 * reduce_model.h - the CPU model of the reduction probe (probes/reduce/):
 * which shared-memory requests each variant's block reduction makes and
 * how many wavefronts each costs (model/bank_model.c on the lanes'
 * addresses of every step), and the rounding-error bound that the float
 * dot product is checked against. Pure C, no CUDA.
 *
 * A "request" is one warp-level LDS or STS executed by a warp that has at
 * least one lane taking part. The kernels make sure that a warp whose
 * lanes all skip a step does not execute that step's LDS/STS at all (a
 * real branch, not a predicated-off instruction: see probes/reduce/reduce.cu), so
 * this is what the instruction counters count. The reduction's shared
 * array holds 4-byte elements (int or float) from word 0 of the block's
 * dynamic shared memory, element k in word k.
 */
#ifndef MP_REDUCE_MODEL_H
#define MP_REDUCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the order of the --variant choices. */
enum {
    MP_RED_HOST_PARTIALS,     /* every thread's partial to the host */
    MP_RED_THREAD0_SERIAL,    /* thread 0 adds the block's shared array */
    MP_RED_TREE_INTERLEAVED,  /* if (tid % (2*s) == 0) c[tid] += c[tid+s] */
    MP_RED_TREE_STRIDED,      /* i = 2*s*tid; if (i < T) c[i] += c[i+s] */
    MP_RED_TREE_SEQUENTIAL,   /* the seeds' halving: c[tid] += c[tid+i] */
    MP_RED_WARP_SHUFFLE,      /* __shfl_down_sync, then one warp */
    MP_RED_ATOMIC,            /* warp-shuffle block sums, atomicAdd'ed */
    MP_RED_VARIANTS
};

/* The workloads, in the order of the --workload choices. */
enum {
    MP_RED_CUBES,   /* sum of x^3, x random in 0..9, 32-bit integers */
    MP_RED_DOT,     /* sum of a[i] * b[i], random floats in [0, 1) */
    MP_RED_WORKLOADS
};

/* Choice names (NULL-terminated) for the parameter tables. */
extern const char *const mp_red_variant_names[];
extern const char *const mp_red_workload_names[];

/* 1 for the three tree variants, which need a power-of-two block. */
int mp_red_is_tree(int variant);

/* Dynamic shared memory of one block: T words for the variants that
 * reduce a T-element shared array, T / 32 for the warp-shuffle ones, 0
 * for host-partials. */
unsigned mp_red_shared_bytes(int variant, int threads);

/* ---- shared-memory traffic -------------------------------------------- */

/* Which threads touch which element in one access of a reduction step:
 * word(tid) as below, or no access for the threads the condition leaves
 * out. T = threads per block. */
typedef enum {
    MP_RED_ACC_ALL,          /* every thread: word tid */
    MP_RED_ACC_THREAD0,      /* thread 0 only: word p */
    MP_RED_ACC_INTERLEAVED,  /* tid % (2p) == 0: word tid + q */
    MP_RED_ACC_STRIDED,      /* 2p * tid < T: word 2p * tid + q */
    MP_RED_ACC_SEQUENTIAL,   /* tid < p: word tid + q */
    MP_RED_ACC_WARP_LEADERS, /* lane 0 of each warp: word tid / 32 */
    MP_RED_ACC_FIRST_WARP    /* lanes < T / 32 of warp 0: word lane */
} mp_red_access_kind;

typedef struct {
    mp_red_access_kind kind;
    long long p, q;
} mp_red_access;

/* Requests and wavefronts (the bank model's prediction, and its ideal
 * without bank conflicts), summed over requests. */
typedef struct {
    double requests, wavefronts, ideal;
} mp_red_traffic;

typedef struct {
    mp_red_traffic ld, st;
} mp_red_block_traffic;

/* Element a thread touches in access a, or -1 when it takes no part. */
long long mp_red_access_word(const mp_red_access *a, int threads, int tid);

/* Adds access a of one block (every warp that has a lane taking part is
 * one request) to t. */
void mp_red_access_traffic(const mp_red_access *a, int threads, int is_store,
                           mp_red_traffic *t);

/* The whole block reduction of `variant` with `threads` threads (a
 * multiple of 32; a power of two for the tree variants): every shared
 * load and store of one block, from the partials' store to the read of
 * the block's result. All blocks of a launch do the same, whatever the
 * size. */
void mp_red_block_model(int variant, int threads, mp_red_block_traffic *m);

/* ---- the float check ------------------------------------------------- */

/* Float roundings on the longest path from one product a[i] * b[i] to the
 * result the kernel leaves (see docs/reduce.md): k = ceil(n / (blocks x
 * threads)) in the thread's own loop, plus the block reduction (T - 1 for
 * thread0-serial's serial chain, log2 T for the trees, 5 + 5 for the two
 * shuffle stages, 0 for host-partials), plus blocks - 1 for the atomic
 * variant's chain of float atomicAdds. */
long long mp_red_float_depth(int variant, long long n, int threads,
                             long long blocks);

/* Values the host adds up in double precision: every thread's partial
 * (host-partials), every block's (the block variants), none (atomic). */
long long mp_red_host_values(int variant, int threads, long long blocks);

/* gamma_k = k u / (1 - k u), u = 2^-24 (float) or 2^-53 (double);
 * infinity when k u >= 1. */
double mp_red_gamma(long long k, int is_double);

/* The bound |result - exact| <= tolerance for a float sum whose terms
 * have absolute values summing to abs_sum, computed with at most `depth`
 * float roundings per term and then `host_values` partials added in
 * double (Higham, Accuracy and Stability of Numerical Algorithms, 4.2:
 * a summation tree multiplies each term by at most depth factors
 * (1 + d), |d| <= u):
 *     abs_sum * (g_f + g_d (1 + g_f) + 2^-52)
 * g_f = gamma(depth) in float, g_d = gamma(host_values - 1) in double; the
 * 2^-52 covers rounding the exact reference and the difference to
 * double. */
double mp_red_float_tolerance(double abs_sum, long long depth,
                              long long host_values);

/* The dot check is refused above this relative bound: it would prove
 * nothing (a thread adding millions of products in float). */
#define MP_RED_MAX_RELATIVE_BOUND 0.01

/* 0 when |got - exact| <= tolerance (NaN and infinity fail); else -1 and
 * a one-line reason. */
int mp_red_check_float(double got, double exact, double tolerance, char *err,
                       size_t errlen);

/* The cubes check: the 32-bit sum (the seeds' int, kept as unsigned so
 * that it is exact modulo 2^32 at any size) must equal the exact 64-bit
 * sum modulo 2^32. 0 when it does; else -1 and a one-line reason. */
int mp_red_check_int(uint32_t got, uint64_t exact, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
