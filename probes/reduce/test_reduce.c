/*
 * test_reduce.c - CPU tests of the reduction probe's model and checks
 * (probes/reduce/reduce_model.c) and of the probe's own functions that need no
 * GPU (probes/reduce/reduce.c): the shared-memory requests and wavefronts of
 * every reduction step, the block totals of every variant, the float
 * rounding bound and the two result checks, the inputs and the exact
 * reference, and the probe's check, label, describe and predict.
 *
 * Hand-derived values use only these rules:
 *   - the block's shared array holds 4-byte elements, element k in word
 *     k; word w is in bank w % 32 (the base does not matter: a constant
 *     shift moves every lane's bank alike);
 *   - a 4-byte warp request costs as many wavefronts as its busiest bank
 *     has distinct words (model/bank_model.c); ideal = ceil(distinct
 *     words / 32);
 *   - a warp executes a step's LDS/STS when at least one of its lanes
 *     takes part (one request); a warp whose lanes all skip it issues
 *     nothing (probes/reduce/reduce.cu branches around the body);
 *   - a tree step `cache[x] += cache[x + s]` is two loads (x and x + s)
 *     and a store (x);
 *   - float rounding: u = 2^-24, gamma_k = k u / (1 - k u); a term passes
 *     k = ceil(n / grid) roundings in its thread's loop, then log2 T in a
 *     tree, T - 1 in thread 0's chain, 5 + 5 in the shuffles, blocks - 1
 *     in the atomic chain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "probe.h"
#include "reduce.h"
#include "reduce_model.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- which thread touches which word --------------------------------- */

static void test_access_words(void **state)
{
    (void)state;
    mp_red_access all = {MP_RED_ACC_ALL, 0, 0};
    assert_int_equal(mp_red_access_word(&all, 256, 0), 0);
    assert_int_equal(mp_red_access_word(&all, 256, 255), 255);
    /* Thread 0 reads cache[5]; nobody else. */
    mp_red_access t0 = {MP_RED_ACC_THREAD0, 5, 0};
    assert_int_equal(mp_red_access_word(&t0, 256, 0), 5);
    assert_int_equal(mp_red_access_word(&t0, 256, 1), -1);
    /* Interleaved s = 4: threads 0, 8, 16, ... read cache[tid + 4]. */
    mp_red_access il = {MP_RED_ACC_INTERLEAVED, 4, 4};
    assert_int_equal(mp_red_access_word(&il, 256, 8), 12);
    assert_int_equal(mp_red_access_word(&il, 256, 4), -1);
    assert_int_equal(mp_red_access_word(&il, 256, 248), 252);
    /* Strided s = 2: index = 4 tid < 256, so threads 0..63; 63 -> 252. */
    mp_red_access sd = {MP_RED_ACC_STRIDED, 2, 0};
    assert_int_equal(mp_red_access_word(&sd, 256, 63), 252);
    assert_int_equal(mp_red_access_word(&sd, 256, 64), -1);
    /* Sequential i = 16: threads 0..15 read cache[tid + 16]. */
    mp_red_access sq = {MP_RED_ACC_SEQUENTIAL, 16, 16};
    assert_int_equal(mp_red_access_word(&sq, 256, 15), 31);
    assert_int_equal(mp_red_access_word(&sq, 256, 16), -1);
    /* Warp leaders write cache[warp]; warp 0 reads the T/32 of them. */
    mp_red_access wl = {MP_RED_ACC_WARP_LEADERS, 0, 0};
    assert_int_equal(mp_red_access_word(&wl, 256, 224), 7);
    assert_int_equal(mp_red_access_word(&wl, 256, 225), -1);
    mp_red_access fw = {MP_RED_ACC_FIRST_WARP, 0, 0};
    assert_int_equal(mp_red_access_word(&fw, 256, 7), 7);
    assert_int_equal(mp_red_access_word(&fw, 256, 8), -1);
    assert_int_equal(mp_red_access_word(&fw, 1024, 31), 31);
}

/* ---- one access of one step, for a whole block ----------------------- */

typedef struct {
    const char *what;
    mp_red_access_kind kind;
    long long p, q;
    int threads, is_store;
    double requests, wavefronts, ideal;
} step_case;

static const step_case step_cases[] = {
    /* Every thread stores cache[tid]: 8 warps of 32 consecutive words. */
    {"store cache[tid]", MP_RED_ACC_ALL, 0, 0, 256, 1, 8, 8, 8},
    /* Interleaved s = 1: in every warp the even lanes 2k read word
     * 32w + 2k: 16 words 2 apart inside one 32-word row, banks 0, 2, ...,
     * 30, all distinct: 1 wavefront. Only the lanes that take part count,
     * so `tid % (2*s)` has NO bank conflict (the textbook 2-way conflict
     * belongs to the strided form below, where all 32 lanes are 2 words
     * apart). 8 warps, 8 requests. */
    {"interleaved s=1 ld cache[tid]", MP_RED_ACC_INTERLEAVED, 1, 0, 256, 0,
     8, 8, 8},
    /* ... and the partners 32w + 2k + 1: odd banks, 1 wavefront. */
    {"interleaved s=1 ld cache[tid+1]", MP_RED_ACC_INTERLEAVED, 1, 1, 256, 0,
     8, 8, 8},
    /* s = 16: lanes 0 and 16 of each warp, words 32w and 32w + 16. */
    {"interleaved s=16 ld cache[tid]", MP_RED_ACC_INTERLEAVED, 16, 0, 256, 0,
     8, 8, 8},
    /* s = 32: tid % 64 == 0: lane 0 of warps 0, 2, 4, 6: 4 requests;
     * warps 1, 3, 5, 7 issue nothing. */
    {"interleaved s=32 ld cache[tid+32]", MP_RED_ACC_INTERLEAVED, 32, 32, 256,
     0, 4, 4, 4},
    /* s = 128: thread 0 only. */
    {"interleaved s=128 st cache[tid]", MP_RED_ACC_INTERLEAVED, 128, 0, 256,
     1, 1, 1, 1},
    /* Strided s = 1: index = 2 tid < 256: warps 0..3 whole; warp w's lanes
     * read words 64w + 2k, k = 0..31: 32 words over 64, banks 2k mod 32:
     * 16 banks with 2 words each: 2 wavefronts (ideal 1). */
    {"strided s=1 ld cache[2tid]", MP_RED_ACC_STRIDED, 1, 0, 256, 0,
     4, 8, 4},
    {"strided s=1 ld cache[2tid+1]", MP_RED_ACC_STRIDED, 1, 1, 256, 0,
     4, 8, 4},
    {"strided s=1 st cache[2tid]", MP_RED_ACC_STRIDED, 1, 0, 256, 1,
     4, 8, 4},
    /* s = 2: 4 tid < 256: warps 0, 1; words 4k: banks 0, 4, ..., 28,
     * 4 words each: 4 wavefronts. */
    {"strided s=2 ld cache[4tid]", MP_RED_ACC_STRIDED, 2, 0, 256, 0,
     2, 8, 2},
    /* s = 4: 8 tid < 256: warp 0; words 8k: banks 0, 8, 16, 24, 8 each. */
    {"strided s=4 ld cache[8tid]", MP_RED_ACC_STRIDED, 4, 0, 256, 0,
     1, 8, 1},
    /* s = 8: 16 tid < 256: lanes 0..15; words 16k: banks 0 and 16, 8
     * words each: 8 wavefronts from 16 lanes. */
    {"strided s=8 ld cache[16tid]", MP_RED_ACC_STRIDED, 8, 0, 256, 0,
     1, 8, 1},
    /* s = 16: lanes 0..7; words 32k: all in bank 0: 8 wavefronts. */
    {"strided s=16 ld cache[32tid+16]", MP_RED_ACC_STRIDED, 16, 16, 256, 0,
     1, 8, 1},
    /* s = 32: lanes 0..3, words 64k: bank 0: 4. s = 64: 2. s = 128: 1. */
    {"strided s=32 ld cache[64tid]", MP_RED_ACC_STRIDED, 32, 0, 256, 0,
     1, 4, 1},
    {"strided s=64 ld cache[128tid]", MP_RED_ACC_STRIDED, 64, 0, 256, 0,
     1, 2, 1},
    {"strided s=128 ld cache[256tid+128]", MP_RED_ACC_STRIDED, 128, 128, 256,
     0, 1, 1, 1},
    /* With 32 threads the strided form is conflict-free: at s = 1 lanes
     * 0..15 read words 0, 2, ..., 30: 16 distinct banks. */
    {"strided T=32 s=1 ld cache[2tid]", MP_RED_ACC_STRIDED, 1, 0, 32, 0,
     1, 1, 1},
    {"strided T=32 s=8 ld cache[16tid]", MP_RED_ACC_STRIDED, 8, 0, 32, 0,
     1, 1, 1},
    /* Sequential i = 128: warps 0..3 whole, consecutive words: 1 each. */
    {"sequential i=128 ld cache[tid+128]", MP_RED_ACC_SEQUENTIAL, 128, 128,
     256, 0, 4, 4, 4},
    /* i = 16: lanes 0..15 of warp 0 read words 16..31. */
    {"sequential i=16 ld cache[tid+16]", MP_RED_ACC_SEQUENTIAL, 16, 16, 256,
     0, 1, 1, 1},
    /* 1024 threads, i = 512: 16 warps. */
    {"sequential T=1024 i=512 st cache[tid]", MP_RED_ACC_SEQUENTIAL, 512, 0,
     1024, 1, 16, 16, 16},
    /* Warp leaders: lane 0 of each of 32 warps stores one word. */
    {"leaders T=1024 st cache[warp]", MP_RED_ACC_WARP_LEADERS, 0, 0, 1024, 1,
     32, 32, 32},
    /* Warp 0 reads 32 consecutive words: one request, 1 wavefront. */
    {"first warp T=1024 ld cache[lane]", MP_RED_ACC_FIRST_WARP, 0, 0, 1024, 0,
     1, 1, 1},
};

static void test_step_traffic(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(step_cases); i++) {
        const step_case *c = &step_cases[i];
        mp_red_access a = {c->kind, c->p, c->q};
        mp_red_traffic t = {7, 7, 7};   /* adds to what is there */
        mp_red_access_traffic(&a, c->threads, c->is_store, &t);
        print_message("# T=%d %s: %g requests, %g wavefronts (ideal %g)\n",
                      c->threads, c->what, t.requests - 7, t.wavefronts - 7,
                      t.ideal - 7);
        assert_true(t.requests == 7 + c->requests);
        assert_true(t.wavefronts == 7 + c->wavefronts);
        assert_true(t.ideal == 7 + c->ideal);
    }
}

/* ---- whole block reductions ------------------------------------------ */

typedef struct {
    int variant, threads;
    double ld_req, ld_wf, ld_ideal, st_req, st_wf, st_ideal;
} block_case;

static const block_case block_cases[] = {
    /* host-partials: no shared memory at all. */
    {MP_RED_HOST_PARTIALS, 256, 0, 0, 0, 0, 0, 0},
    /* thread0-serial, T = 256: 8 stores of the partials; then for i =
     * 1..255 two single-lane loads (cache[0], cache[i]) and one store
     * (cache[0]); then the read of cache[0]: loads 2 x 255 + 1 = 511,
     * stores 8 + 255 = 263, 1 wavefront each. */
    {MP_RED_THREAD0_SERIAL, 256, 511, 511, 511, 263, 263, 263},
    /* T = 32: loads 2 x 31 + 1 = 63, stores 1 + 31 = 32. */
    {MP_RED_THREAD0_SERIAL, 32, 63, 63, 63, 32, 32, 32},
    /* tree-interleaved, T = 256: s = 1, 2, 4, 8, 16 reach every warp
     * (2s <= 32: some lane of each warp is a multiple of 2s): 5 x 8 = 40
     * requests per access; s = 32: 4, s = 64: 2, s = 128: 1 (warps with a
     * multiple of 2s): 47 per access. Loads 2 x 47 + 1 = 95, stores
     * 8 + 47 = 55; conflict-free (above). */
    {MP_RED_TREE_INTERLEAVED, 256, 95, 95, 95, 55, 55, 55},
    /* tree-strided, T = 256 (steps above): per access requests 4, 2, 1, 1,
     * 1, 1, 1, 1 = 12 and wavefronts 8, 8, 8, 8, 8, 4, 2, 1 = 47. Loads:
     * 2 x 12 + 1 = 25 requests, 2 x 47 + 1 = 95 wavefronts (3.8 per
     * request), ideal 25. Stores: 8 + 12 = 20 requests, 8 + 47 = 55
     * wavefronts, ideal 20. */
    {MP_RED_TREE_STRIDED, 256, 25, 95, 25, 20, 55, 20},
    /* T = 32: every step in warp 0, conflict-free (above): 5 steps. */
    {MP_RED_TREE_STRIDED, 32, 11, 11, 11, 6, 6, 6},
    /* tree-sequential, T = 256: i = 128: 4 warps, 64: 2, 32: 1, 16..1: 1
     * each (5 steps): 12 per access, all consecutive words. Loads 25,
     * stores 20, 1 wavefront each: the same requests as tree-strided, a
     * quarter of its load wavefronts. */
    {MP_RED_TREE_SEQUENTIAL, 256, 25, 25, 25, 20, 20, 20},
    /* T = 1024: i = 512: 16 warps, 8, 4, 2, 1, then 5 steps of 1: 36 per
     * access. Loads 73, stores 32 + 36 = 68. */
    {MP_RED_TREE_SEQUENTIAL, 1024, 73, 73, 73, 68, 68, 68},
    /* warp-shuffle, T = 256: 8 single-lane stores, one 8-lane load. */
    {MP_RED_WARP_SHUFFLE, 256, 1, 1, 1, 8, 8, 8},
    {MP_RED_ATOMIC, 256, 1, 1, 1, 8, 8, 8},
    {MP_RED_ATOMIC, 32, 1, 1, 1, 1, 1, 1},
};

static void test_block_model(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(block_cases); i++) {
        const block_case *c = &block_cases[i];
        mp_red_block_traffic m;
        memset(&m, 0x5a, sizeof m);   /* garbage: the model must set all */
        mp_red_block_model(c->variant, c->threads, &m);
        print_message("# %s T=%d: ld %g requests %g wavefronts (ideal %g), "
                      "st %g / %g (%g)\n", mp_red_variant_names[c->variant],
                      c->threads, m.ld.requests, m.ld.wavefronts, m.ld.ideal,
                      m.st.requests, m.st.wavefronts, m.st.ideal);
        assert_true(m.ld.requests == c->ld_req);
        assert_true(m.ld.wavefronts == c->ld_wf);
        assert_true(m.ld.ideal == c->ld_ideal);
        assert_true(m.st.requests == c->st_req);
        assert_true(m.st.wavefronts == c->st_wf);
        assert_true(m.st.ideal == c->st_ideal);
    }
}

static void test_variant_facts(void **state)
{
    (void)state;
    int trees = 0;
    for (int v = 0; v < MP_RED_VARIANTS; v++) {
        assert_non_null(mp_red_variant_names[v]);
        trees += mp_red_is_tree(v);
    }
    assert_null(mp_red_variant_names[MP_RED_VARIANTS]);
    assert_null(mp_red_workload_names[MP_RED_WORKLOADS]);
    assert_int_equal(trees, 3);
    assert_true(mp_red_is_tree(MP_RED_TREE_SEQUENTIAL));
    assert_false(mp_red_is_tree(MP_RED_WARP_SHUFFLE));
    /* Shared bytes: T words, T / 32 words, or none. */
    assert_int_equal(mp_red_shared_bytes(MP_RED_HOST_PARTIALS, 256), 0);
    assert_int_equal(mp_red_shared_bytes(MP_RED_THREAD0_SERIAL, 256), 1024);
    assert_int_equal(mp_red_shared_bytes(MP_RED_TREE_STRIDED, 1024), 4096);
    assert_int_equal(mp_red_shared_bytes(MP_RED_WARP_SHUFFLE, 256), 32);
    assert_int_equal(mp_red_shared_bytes(MP_RED_ATOMIC, 96), 12);
}

/* ---- the float bound and the checks ----------------------------------- */

/* What mp_red_float_depth (roundings a term passes) or, with depth < 0,
 * mp_red_host_values (values the host sums) gives for one variant. */
typedef struct {
    int variant;
    long long n;
    int threads;
    long long blocks, depth, host_values;
} depth_case;

static const depth_case depth_cases[] = {
    /* Seeds 003/004: n = 33792, 32 blocks of 256 = 8192 threads: a thread
     * adds ceil(33792 / 8192) = 5 products; tree: + log2 256 = 8. */
    {MP_RED_TREE_SEQUENTIAL, 33792, 256, 32, 13, -1},
    {MP_RED_TREE_INTERLEAVED, 33792, 256, 32, 13, -1},
    /* thread 0's chain: 5 + 255. */
    {MP_RED_THREAD0_SERIAL, 33792, 256, 32, 260, -1},
    /* shuffles 5 + 5; atomic adds the chain of 1056 blocks (k = 1). */
    {MP_RED_WARP_SHUFFLE, 33792, 256, 32, 15, -1},
    {MP_RED_ATOMIC, 33792, 256, 1056, 1 + 10 + 1055, -1},
    /* host-partials: the thread's loop only; one element: 1. */
    {MP_RED_HOST_PARTIALS, 1, 32, 1, 1, -1},
    {MP_RED_HOST_PARTIALS, 8193, 256, 32, 2, -1},
    /* Host sums: every thread's partial, every block's, or none. */
    {MP_RED_HOST_PARTIALS, 0, 256, 32, -1, 8192},
    {MP_RED_TREE_STRIDED, 0, 256, 32, -1, 32},
    {MP_RED_ATOMIC, 0, 256, 32, -1, 1},
};

static void test_depth(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(depth_cases); i++) {
        const depth_case *c = &depth_cases[i];
        if (c->depth >= 0)
            assert_int_equal(mp_red_float_depth(c->variant, c->n, c->threads,
                                                c->blocks), c->depth);
        else
            assert_int_equal(mp_red_host_values(c->variant, c->threads,
                                                c->blocks), c->host_values);
    }
}

static void test_gamma_and_tolerance(void **state)
{
    (void)state;
    double u = ldexp(1.0, -24);
    assert_true(mp_red_gamma(0, 0) == 0);
    assert_true(mp_red_gamma(1, 0) == u / (1 - u));
    assert_true(mp_red_gamma(1, 1) == ldexp(1.0, -53) / (1 - ldexp(1.0, -53)));
    assert_true(isinf(mp_red_gamma(1LL << 24, 0)));
    /* The seeds' dot, tree-sequential, 32 blocks: depth 13 -> gamma_13 =
     * 13 u / (1 - 13 u) = 7.7486e-7; the host's double sum of 32 values
     * adds 31 x 2^-53 = 3.4e-15, and 2^-52: relative 7.7486e-7. */
    double rel = mp_red_float_tolerance(1.0, 13, 32);
    print_message("# relative bound, depth 13, 32 host values: %.6g\n", rel);
    assert_true(rel > 7.7486e-7 && rel < 7.7487e-7);
    /* It scales with the sum of |terms|. */
    assert_true(fabs(mp_red_float_tolerance(8448.0, 13, 32) - 8448.0 * rel)
                <= 1e-12 * 8448.0 * rel);
    /* The atomic chain of 1056 blocks: 1066 u / (1 - 1066 u) = 6.354e-5. */
    rel = mp_red_float_tolerance(1.0, 1066, 1);
    assert_true(rel > 6.353e-5 && rel < 6.355e-5);
    /* No bound once k u >= 1. */
    assert_true(isinf(mp_red_float_tolerance(1.0, 1LL << 24, 1)));
    assert_true(MP_RED_MAX_RELATIVE_BOUND < 1);
}

static void test_check_float(void **state)
{
    (void)state;
    char err[256];
    /* exact 100, tolerance 1e-3: 0.0009 off passes, 0.0011 fails. */
    assert_int_equal(mp_red_check_float(100.0009, 100.0, 1e-3, err,
                                        sizeof err), 0);
    assert_int_equal(mp_red_check_float(99.9991, 100.0, 1e-3, err,
                                        sizeof err), 0);
    assert_int_equal(mp_red_check_float(100.0, 100.0, 0.0, err, sizeof err),
                     0);
    assert_int_equal(mp_red_check_float(100.0011, 100.0, 1e-3, err,
                                        sizeof err), -1);
    assert_non_null(strstr(err, "more than"));
    assert_int_equal(mp_red_check_float(99.9989, 100.0, 1e-3, err,
                                        sizeof err), -1);
    /* The poison (NaN) and infinities never pass. */
    assert_int_equal(mp_red_check_float(NAN, 100.0, 1e-3, err, sizeof err),
                     -1);
    assert_int_equal(mp_red_check_float(INFINITY, 100.0, 1e-3, err,
                                        sizeof err), -1);
    assert_int_equal(mp_red_check_float(100.0, 100.0, NAN, err, sizeof err),
                     -1);
    assert_null(strchr(err, '\n'));
}

static void test_check_int(void **state)
{
    (void)state;
    char err[256];
    /* 2^32 + 5 is 5 modulo 2^32. */
    uint64_t exact = (1ULL << 32) + 5;
    assert_int_equal(mp_red_check_int(5, exact, err, sizeof err), 0);
    assert_int_equal(mp_red_check_int(6, exact, err, sizeof err), -1);
    assert_non_null(strstr(err, "modulo 2^32"));
    assert_non_null(strstr(err, "4294967301"));
    /* The seed's 1M elements: at most 729 x 2^20 = 764411904 < 2^31. */
    assert_int_equal(mp_red_check_int(764411904u, 764411904u, err,
                                      sizeof err), 0);
    assert_int_equal(mp_red_check_int(0, 0, err, sizeof err), 0);
    assert_int_equal(mp_red_check_int(0xffffffffu, 0, err, sizeof err), -1);
}

/* The bound holds for the sums the kernels compute: emulate tree-
 * sequential (fused multiply-adds in each thread, the tree in float, the
 * host's double sum) and the worst order for a single chain (one thread
 * adding every product in float), and compare with the exact sum. */
static void test_bound_holds_for_emulated_sums(void **state)
{
    (void)state;
    enum { n = 33792, T = 256, B = 32 };
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    float cache[T];
    assert_non_null(a);
    assert_non_null(b);
    mp_red_sum sum = {0, 0};
    mp_red_fill(MP_RED_DOT, 0, n, a, b, &sum);
    double exact = mp_red_dot_value(&sum), host = 0;
    for (int blk = 0; blk < B; blk++) {
        for (int t = 0; t < T; t++) {
            float s = 0;
            for (int i = blk * T + t; i < n; i += B * T)
                s = fmaf(a[i], b[i], s);
            cache[t] = s;
        }
        for (int i = T / 2; i != 0; i /= 2)
            for (int t = 0; t < i; t++)
                cache[t] += cache[t + i];
        host += cache[0];
    }
    double tol = mp_red_float_tolerance(
        exact, mp_red_float_depth(MP_RED_TREE_SEQUENTIAL, n, T, B),
        mp_red_host_values(MP_RED_TREE_SEQUENTIAL, T, B));
    print_message("# tree-sequential emulated: off by %.3g, bound %.3g\n",
                  fabs(host - exact), tol);
    assert_true(fabs(host - exact) <= tol);
    /* One chain of n float additions: depth n. */
    float chain = 0;
    for (int i = 0; i < n; i++)
        chain += a[i] * b[i];
    tol = mp_red_float_tolerance(exact, n, 1);
    print_message("# one float chain: off by %.3g, bound %.3g\n",
                  fabs(chain - exact), tol);
    assert_true(fabs(chain - exact) <= tol);
    /* A bound that is too small is caught: the chain's error is well
     * above what a depth-13 tree allows. */
    assert_true(fabs(chain - exact)
                > mp_red_float_tolerance(exact, 13, 32));
    free(a);
    free(b);
}

/* ---- inputs and the exact reference ----------------------------------- */

static void test_inputs(void **state)
{
    (void)state;
    enum { n = 100000 };
    int count[10] = {0};
    for (unsigned long long i = 0; i < n; i++) {
        int c = mp_red_cube_input(i);
        assert_true(c >= 0 && c <= 9);
        assert_int_equal(c, mp_red_cube_input(i));   /* deterministic */
        count[c]++;
        assert_true(mp_red_dot_mantissa(i, 0) < (1u << 24));
        assert_true(mp_red_dot_mantissa(i, 1) < (1u << 24));
    }
    /* Uniform: each digit 10000 +- 5%. */
    for (int d = 0; d < 10; d++)
        assert_true(count[d] > 9500 && count[d] < 10500);
    /* a and b are not the same stream. */
    int same = 0;
    for (unsigned long long i = 0; i < 1000; i++)
        same += mp_red_dot_mantissa(i, 0) == mp_red_dot_mantissa(i, 1);
    assert_true(same < 5);
}

static void test_fill_and_reference(void **state)
{
    (void)state;
    enum { n = 5000, cut = 1234 };
    int x[n];
    float a[n], b[n], a2[n], b2[n];
    mp_red_sum whole = {0, 0}, parts = {0, 0};
    mp_red_fill(MP_RED_CUBES, 0, n, x, NULL, &whole);
    uint64_t cubes = 0;
    for (int i = 0; i < n; i++) {
        assert_int_equal(x[i], mp_red_cube_input((unsigned long long)i));
        cubes += (uint64_t)(x[i] * x[i] * x[i]);
    }
    assert_true(whole.cubes == cubes);
    /* Two chunks give the same inputs and sum as one. */
    int x2[n];
    mp_red_fill(MP_RED_CUBES, 0, cut, x2, NULL, &parts);
    mp_red_fill(MP_RED_CUBES, cut, n - cut, x2 + cut, NULL, &parts);
    assert_memory_equal(x, x2, sizeof x);
    assert_true(parts.cubes == cubes);

    mp_red_sum dw = {0, 0}, dp = {0, 0};
    mp_red_fill(MP_RED_DOT, 0, n, a, b, &dw);
    mp_red_fill(MP_RED_DOT, 0, cut, a2, b2, &dp);
    mp_red_fill(MP_RED_DOT, cut, n - cut, a2 + cut, b2 + cut, &dp);
    assert_memory_equal(a, a2, sizeof a);
    assert_memory_equal(b, b2, sizeof b);
    assert_true(dw.dot == dp.dot);
    /* Each float is its mantissa x 2^-24, and the exact sum is the sum of
     * the mantissa products; in long double (64-bit mantissa) the
     * products (48 bits) of 5000 terms add up exactly. */
    long double ref = 0;
    for (int i = 0; i < n; i++) {
        assert_true(a[i] == ldexpf((float)mp_red_dot_mantissa(i, 0), -24));
        assert_true(b[i] >= 0 && b[i] < 1);
        ref += (long double)a[i] * b[i];
    }
    assert_true((double)ref == mp_red_dot_value(&dw));
    /* 2^48 x 3 in the 128-bit sum is the dot product 3. */
    mp_red_sum three = {0, (unsigned __int128)3 << 48};
    assert_true(mp_red_dot_value(&three) == 3.0);
}

/* ---- the probe's own functions ----------------------------------------- */

static const mp_probe *probe(void)
{
    const mp_probe *p = mp_probe_find("reduce");
    assert_non_null(p);
    return p;
}

static void test_labels(void **state)
{
    (void)state;
    long long v[MP_MAX_PARAMS];
    char buf[128];
    /* Defaults: tree-sequential, cubes, the seed's 1M, 256 threads, fill. */
    cli_param_values(probe(), v, NULL);
    probe()->label(v, buf, sizeof buf);
    assert_string_equal(buf, "reduce/tree-sequential/cubes/n1048576/t256/b0");
    /* The dot seeds' 33 x 1024 by default. */
    cli_param_values(probe(), v, "workload", (long long)MP_RED_DOT, "blocks", 32LL, NULL);
    probe()->label(v, buf, sizeof buf);
    assert_string_equal(buf, "reduce/tree-sequential/dot/n33792/t256/b32");
    cli_param_values(probe(), v, "variant", (long long)MP_RED_ATOMIC, "size", 257LL, "threads",
           1024LL, NULL);
    probe()->label(v, buf, sizeof buf);
    assert_string_equal(buf, "reduce/atomic/cubes/n257/t1024/b0");
}

static void check_is(long long *v, const char *needle)
{
    char err[512] = "";
    int rc = probe()->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err);
    if (!needle) {
        if (rc)
            fail_msg("check refused a good configuration: %s", err);
        return;
    }
    assert_int_equal(rc, -1);
    if (!strstr(err, needle))
        fail_msg("check said '%s', which lacks '%s'", err, needle);
    assert_null(strchr(err, '\n'));
}

static void test_check(void **state)
{
    (void)state;
    long long v[MP_MAX_PARAMS];
    cli_param_values(probe(), v, NULL);
    check_is(v, NULL);
    /* Not a power of two: only the trees refuse 96. */
    static const int variants[] = {MP_RED_TREE_INTERLEAVED,
                                   MP_RED_TREE_STRIDED,
                                   MP_RED_TREE_SEQUENTIAL};
    for (size_t i = 0; i < N(variants); i++) {
        cli_param_values(probe(), v, "variant", (long long)variants[i], "threads", 96LL, NULL);
        check_is(v, "--threads: 96 is not a power of two");
    }
    cli_param_values(probe(), v, "variant", (long long)MP_RED_WARP_SHUFFLE, "threads", 96LL,
           NULL);
    check_is(v, NULL);
    cli_param_values(probe(), v, "variant", (long long)MP_RED_THREAD0_SERIAL, "threads", 992LL,
           NULL);
    check_is(v, NULL);
    /* Not a multiple of 32: every variant refuses. */
    cli_param_values(probe(), v, "variant", (long long)MP_RED_HOST_PARTIALS, "threads", 48LL,
           NULL);
    check_is(v, "--threads: 48 is not a multiple of 32");
    /* The float bound: 2^30 products over 1 x 32 threads (a thread adds
     * 2^25 of them) have no useful bound; over 4 x 1024 atomic threads
     * 262157 roundings = 1.6% > 1%; over 132 x 1024 it is 0.05%. */
    cli_param_values(probe(), v, "workload", (long long)MP_RED_DOT, "size", 1LL << 30,
           "threads", 32LL, "blocks", 1LL, NULL);
    check_is(v, "--size: 1073741824 float products");
    cli_param_values(probe(), v, "workload", (long long)MP_RED_DOT, "variant",
           (long long)MP_RED_ATOMIC, "size", 1LL << 30, "threads", 1024LL,
           "blocks", 4LL, NULL);
    check_is(v, "--size");
    cli_param_values(probe(), v, "workload", (long long)MP_RED_DOT, "size", 1LL << 30,
           "threads", 1024LL, "blocks", 132LL, NULL);
    check_is(v, NULL);
    /* Cubes are exact at any size; blocks 0 (unknown grid) is not
     * refused here (setup knows the grid; verify refuses then). */
    cli_param_values(probe(), v, "size", 1LL << 30, "threads", 32LL, "blocks", 1LL, NULL);
    check_is(v, NULL);
    cli_param_values(probe(), v, "workload", (long long)MP_RED_DOT, "size", 1LL << 30,
           "threads", 32LL, NULL);
    check_is(v, NULL);
}

static void test_predict_and_describe(void **state)
{
    (void)state;
    long long v[MP_MAX_PARAMS];
    mp_prediction pr;
    cli_param_values(probe(), v, "variant", (long long)MP_RED_TREE_STRIDED, "workload",
           (long long)MP_RED_DOT, NULL);
    probe()->predict(v, &pr);
    assert_int_equal(pr.n, 8);
    /* 33792 elements, 2 floats each; the block model above. */
    const double want[8] = {33792, 270336, 25, 3.8, 1, 3.8, 20, 2.75};
    for (int i = 0; i < 8; i++) {
        print_message("# %s = %g\n", pr.name[i], pr.value[i]);
        assert_true(fabs(pr.value[i] - want[i]) < 1e-12);
    }
    mp_row row;
    assert_int_equal(mp_row_init(&row), 0);
    probe()->describe(v, &row);
    assert_string_equal(mp_row_get(&row, MP_COL_PROBE), "reduce");
    assert_string_equal(mp_row_get(&row, MP_COL_MODEL_WAVEFRONTS), "3.8");
    assert_string_equal(mp_row_get(&row, MP_COL_MODEL_IDEAL), "1");
    assert_string_equal(mp_row_get(&row, MP_COL_MODEL_CONFLICT_WAYS), "3.8");
    assert_string_equal(mp_row_get(&row, MP_COL_ARRAY_BYTES), "135168");
    assert_string_equal(mp_row_get(&row, MP_COL_SHARED_BYTES), "1024");
    /* host-partials has no shared loads: no model cells. */
    mp_row_clear(&row);
    cli_param_values(probe(), v, "variant", (long long)MP_RED_HOST_PARTIALS, NULL);
    probe()->describe(v, &row);
    assert_string_equal(mp_row_get(&row, MP_COL_MODEL_WAVEFRONTS), "");
    assert_string_equal(mp_row_get(&row, MP_COL_ARRAY_BYTES), "4194304");
    assert_string_equal(mp_row_get(&row, MP_COL_SHARED_BYTES), "0");
    probe()->predict(v, &pr);
    assert_true(pr.value[2] == 0 && pr.value[3] == 0 && pr.value[6] == 0);
    mp_row_free(&row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_access_words),
        cmocka_unit_test(test_step_traffic),
        cmocka_unit_test(test_block_model),
        cmocka_unit_test(test_variant_facts),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_gamma_and_tolerance),
        cmocka_unit_test(test_check_float),
        cmocka_unit_test(test_check_int),
        cmocka_unit_test(test_bound_holds_for_emulated_sums),
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_fill_and_reference),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_predict_and_describe),
    };
    return cmocka_run_group_tests_name("reduce", tests, NULL, NULL);
}
