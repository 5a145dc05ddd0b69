/*
 * test_profile_expect.c - CPU tests of the expectations of the profiler's
 * test program (tests/profile/expect.c): the models must give the known
 * figures on the program's lines, worked out by hand below per launch,
 * and every marker must sit on one line of tests/profile/app.cu.
 *
 * Per launch: transposes 8 x 8 blocks of 32 warps = 2048 warps; loads 256
 * blocks of 8 warps = 2048 warps; reductions 64 blocks of 8 warps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "reduce_model.h"

typedef struct {
    const char *marker;
    long long measured, ideal;
} figure;

/* The counts of each of the n figures' lines. */
static void check(const figure *figures, size_t n)
{
    for (const figure *f = figures; f < figures + n; f++) {
        const mp_expect_line *l = mp_expect_find(f->marker);
        if (!l)
            fail_msg("%s: no such line", f->marker);
        mp_expect_counts c;
        mp_expect_compute(l, &c);
        if (c.measured != f->measured || c.ideal != f->ideal)
            fail_msg("%s: %lld for an ideal of %lld, expected %lld for %lld",
                     f->marker, c.measured, c.ideal, f->measured, f->ideal);
    }
}

static void check_ratio(const char *marker, double ratio)
{
    mp_expect_counts c;
    mp_expect_compute(mp_expect_find(marker), &c);
    assert_true(c.ideal > 0);
    if ((double)c.measured / (double)c.ideal != ratio)
        fail_msg("%s: ratio %g, expected %g", marker,
                 (double)c.measured / (double)c.ideal, ratio);
}

/* The naive transpose's column read is 32 wavefronts a warp (every lane
 * in bank ty), 32x its ideal; padded to 33 columns it is 1x. Row writes
 * are 1x either way; the global rows are 4 sectors a warp. */
static void test_transposes(void **state)
{
    (void)state;
    static const figure f[] = {
        {"tr_naive_lds", 32 * 2048, 2048}, {"tr_padded_lds", 2048, 2048},
        {"tr_naive_sts", 2048, 2048},      {"tr_padded_sts", 2048, 2048},
        {"tr_naive_in", 4 * 2048, 4 * 2048},
        {"tr_naive_out", 4 * 2048, 4 * 2048},
        {"tr_padded_in", 4 * 2048, 4 * 2048},
        {"tr_padded_out", 4 * 2048, 4 * 2048},
    };
    check(f, sizeof f / sizeof f[0]);
    check_ratio("tr_naive_lds", 32.0);
    check_ratio("tr_padded_lds", 1.0);
}

/* A warp's 128 bytes one float past a sector boundary straddle 5 sectors
 * for an ideal of 4; 8-byte loads 16 bytes apart touch 16 sectors for
 * 256 bytes, ideal 8. */
static void test_loads(void **state)
{
    (void)state;
    static const figure f[] = {
        {"ld_aligned_in", 4 * 2048, 4 * 2048},
        {"ld_shifted_in", 5 * 2048, 4 * 2048},
        {"ld_stride2_in", 16 * 2048, 8 * 2048},
        {"ld_aligned_out", 4 * 2048, 4 * 2048},
        {"ld_shifted_out", 4 * 2048, 4 * 2048},
        {"ld_stride2_out", 4 * 2048, 4 * 2048},
    };
    check(f, sizeof f / sizeof f[0]);
    check_ratio("ld_shifted_in", 1.25);
    check_ratio("ld_stride2_in", 2.0);
    check_ratio("ld_aligned_in", 1.0);
}

/* Per block and step line (2 LDS + 1 STS), T = 256, 8 warps:
 * interleaved (tid % 2s == 0): the active lanes of a warp stay inside
 * its own 32 words, so every request is 1 wavefront; warps with a lane
 * taking part: 8 while 2s <= 32, then 4, 2, 1 -> 24 24 24 24 24 12 6 3.
 * strided (2s tid < T): 128/s lanes take part, words 2s apart:
 *   s=1  4 warps, 2-way: 3 x 8 = 24 wavefronts, ideal 3 x 4 = 12
 *   s=2  2 warps, 4-way: 24, ideal 6
 *   s=4  1 warp of 32 lanes on 4 banks, 8-way: 24, ideal 3
 *   s=8  16 lanes on banks 0, 16: 8-way: 24, ideal 3
 *   s=16 8 lanes on bank 0: 24, ideal 3
 *   s=32 4 lanes: 12, s=64 2 lanes: 6, s=128 1 lane: 3, ideal 3. */
static void test_reduction_steps(void **state)
{
    (void)state;
    static const char *const steps[] = {"s1", "s2", "s4", "s8", "s16",
                                        "s32", "s64", "s128"};
    static const long long il[8][2] = {{24, 24}, {24, 24}, {24, 24},
                                       {24, 24}, {24, 24}, {12, 12},
                                       {6, 6},   {3, 3}};
    static const long long si[8][2] = {{24, 12}, {24, 6}, {24, 3}, {24, 3},
                                       {24, 3},  {12, 3}, {6, 3},  {3, 3}};
    /* sequential step s: the threads tid < s, consecutive words: ideal
     * (s=128 4 warps x 3, 64 2 warps, 32 and under one warp) */
    static const long long sq[8][2] = {{3, 3},  {3, 3},  {3, 3},   {3, 3},
                                       {3, 3},  {3, 3},  {6, 6},   {12, 12}};
    const long long b = APP_RED_BLOCKS;
    for (int s = 0; s < 8; s++) {
        char name[32];
        snprintf(name, sizeof name, "red_il_%s", steps[s]);
        figure f = {name, il[s][0] * b, il[s][1] * b};
        check(&f, 1);
        snprintf(name, sizeof name, "red_si_%s", steps[s]);
        figure g = {name, si[s][0] * b, si[s][1] * b};
        check(&g, 1);
        snprintf(name, sizeof name, "red_sq_%s", steps[s]);
        figure h = {name, sq[s][0] * b, sq[s][1] * b};
        check(&h, 1);
    }
    static const figure ends[] = {
        {"red_il_in", 4 * 8 * 64, 4 * 8 * 64}, {"red_il_sts", 8 * 64, 8 * 64},
        {"red_il_lds", 64, 64},                {"red_il_out", 64, 64},
        {"red_si_in", 4 * 8 * 64, 4 * 8 * 64}, {"red_si_sts", 8 * 64, 8 * 64},
        {"red_si_lds", 64, 64},                {"red_si_out", 64, 64},
        {"red_sq_in", 4 * 8 * 64, 4 * 8 * 64}, {"red_sq_sts", 8 * 64, 8 * 64},
        {"red_sq_lds", 64, 64},                {"red_sq_out", 64, 64},
    };
    check(ends, sizeof ends / sizeof ends[0]);
}

/* The reduction lines of one kernel, summed, are the reduce probe's block
 * model (docs/reduce.md: interleaved 95 load and 55 store wavefronts,
 * strided 95 and 55 on 25 LDS and 20 STS, sequential 25 and 20 on the
 * same instructions) times the blocks. */
static void test_reduction_matches_block_model(void **state)
{
    (void)state;
    static const struct {
        int kernel, variant;
        long long lds, sts, ld_wf, st_wf;
    } k[] = {{APP_K_RED_INTERLEAVED, MP_RED_TREE_INTERLEAVED, 95, 55, 95, 55},
             {APP_K_RED_STRIDED, MP_RED_TREE_STRIDED, 25, 20, 95, 55},
             {APP_K_RED_SEQUENTIAL, MP_RED_TREE_SEQUENTIAL, 25, 20, 25, 20}};
    for (int v = 0; v < 3; v++) {
        int n;
        const mp_expect_line *lines = mp_expect_lines(&n);
        long long ld = 0, st = 0, req = 0;
        for (int i = 0; i < n; i++) {
            if (lines[i].kernel != k[v].kernel
                || lines[i].space != MP_EXPECT_SHARED)
                continue;
            mp_expect_counts c;
            mp_expect_compute(&lines[i], &c);
            ld += c.ld_measured;
            st += c.st_measured;
            req += c.requests;
        }
        mp_red_block_traffic m;
        mp_red_block_model(k[v].variant, APP_RED_T, &m);
        assert_int_equal(ld, (long long)m.ld.wavefronts * APP_RED_BLOCKS);
        assert_int_equal(st, (long long)m.st.wavefronts * APP_RED_BLOCKS);
        assert_int_equal(ld, k[v].ld_wf * APP_RED_BLOCKS);
        assert_int_equal(st, k[v].st_wf * APP_RED_BLOCKS);
        assert_int_equal(req, (k[v].lds + k[v].sts) * APP_RED_BLOCKS);
    }
}

static void test_launches(void **state)
{
    (void)state;
    long long graph;
    assert_int_equal(mp_expect_launches(APP_K_TR_NAIVE, APP_MODE_FULL, 1,
                                        &graph), 2);
    assert_int_equal(graph, 1);
    assert_int_equal(mp_expect_launches(APP_K_TR_PADDED, APP_MODE_FULL, 3,
                                        &graph), 3);
    assert_int_equal(graph, 0);
    assert_int_equal(mp_expect_launches(APP_K_TR_NAIVE, APP_MODE_PADDED, 1,
                                        NULL), 0);
    assert_int_equal(mp_expect_launches(APP_K_TR_PADDED, APP_MODE_PADDED, 2,
                                        &graph), 4);
    assert_int_equal(graph, 2);
    assert_int_equal(mp_expect_launches(APP_K_LD_SHIFTED, APP_MODE_PADDED, 1,
                                        NULL), 0);
    assert_int_equal(mp_expect_kernel("reduce_strided"), APP_K_RED_STRIDED);
    assert_int_equal(mp_expect_kernel("nope"), -1);
}

/* Every line of the table is marked once in app.cu, on the line where
 * its access is, and app.cu marks nothing else. */
static void test_markers(void **state)
{
    (void)state;
    int n;
    char err[512] = "";
    const char *dir = getenv("MP_TEST_SOURCE");
    int *at = mp_expect_marker_table(dir ? dir : ".", err, sizeof err);
    if (!at || err[0])
        fail_msg("%s", err);
    const mp_expect_line *lines = mp_expect_lines(&n);
    for (int i = 1; i < n; i++)
        if (lines[i].kernel == lines[i - 1].kernel)
            assert_true(at[i] > at[i - 1]);   /* in source order */
    free(at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transposes),
        cmocka_unit_test(test_loads),
        cmocka_unit_test(test_reduction_steps),
        cmocka_unit_test(test_reduction_matches_block_model),
        cmocka_unit_test(test_launches),
        cmocka_unit_test(test_markers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
