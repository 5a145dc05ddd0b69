/*
 * test_block2d.c - CPU tests of the 2D block addresses (model/pattern.c,
 * mp_block2d) and the per-warp model over a whole block
 * (model/bank_model.c, mp_bank_predict_block), on cases worked out by hand
 * in the comments. Rules used: thread t has x = t % bx, y = t / bx; a warp
 * is 32 consecutive t; word w is in bank w % 32; a 4-byte request costs as
 * many wavefronts as its busiest bank has distinct words; the block's
 * figure is the mean over its warps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bank_model.h"
#include "pattern.h"

static void test_addresses_16x16(void **state)
{
    (void)state;
    mp_block2d xy = {MP_INDEX_XY, 16, 16, 0};
    /* shared[x][y] of [16][16]: element x * 16 + y. */
    assert_int_equal(mp_block2d_element(&xy, 0), 0);
    assert_int_equal(mp_block2d_element(&xy, 1), 16);     /* x 1, y 0 */
    assert_int_equal(mp_block2d_element(&xy, 15), 240);   /* x 15 */
    assert_int_equal(mp_block2d_element(&xy, 16), 1);     /* x 0, y 1 */
    assert_int_equal(mp_block2d_element(&xy, 17), 17);
    assert_int_equal(mp_block2d_element(&xy, 255), 255);
    assert_int_equal(mp_block2d_elements(&xy), 256);

    /* shared[y][x]: element y * 16 + x = t. */
    mp_block2d yx = {MP_INDEX_YX, 16, 16, 0};
    for (int t = 0; t < 256; t++)
        assert_int_equal(mp_block2d_element(&yx, t), t);

    /* The seed's read shared[15-x][15-y]: t 0 -> (15, 15) = 255;
     * t 1 -> (14, 15) = 14 * 16 + 15 = 239; t 16 -> (15, 14) = 254. */
    mp_block2d m = {MP_INDEX_XY_MIRROR, 16, 16, 0};
    assert_int_equal(mp_block2d_element(&m, 0), 255);
    assert_int_equal(mp_block2d_element(&m, 1), 239);
    assert_int_equal(mp_block2d_element(&m, 16), 254);
    /* [15-y][15-x]: t 1 -> y' 15, x' 14 = 15 * 16 + 14 = 254. */
    mp_block2d my = {MP_INDEX_YX_MIRROR, 16, 16, 0};
    assert_int_equal(mp_block2d_element(&my, 1), 254);

    /* Padded rows of 17: x * 17 + y; t 31 = (15, 1) -> 256; 16 x 17. */
    mp_block2d pad = {MP_INDEX_XY, 16, 16, 1};
    assert_int_equal(mp_block2d_element(&pad, 1), 17);
    assert_int_equal(mp_block2d_element(&pad, 16), 1);
    assert_int_equal(mp_block2d_element(&pad, 31), 256);
    assert_int_equal(mp_block2d_elements(&pad), 272);
    /* [y][x] padded: y * 17 + x; t 16 = (0, 1) -> 17; 16 x 17. */
    mp_block2d ypad = {MP_INDEX_YX, 16, 16, 1};
    assert_int_equal(mp_block2d_element(&ypad, 16), 17);
    assert_int_equal(mp_block2d_elements(&ypad), 272);

    /* A non-square block: 8 x 4, [x][y] of [8][4]: t 9 = (1, 1) -> 5. */
    mp_block2d r = {MP_INDEX_XY, 8, 4, 0};
    assert_int_equal(mp_block2d_element(&r, 9), 5);
    assert_int_equal(mp_block2d_elements(&r), 32);
}

static mp_bank_block_prediction block(int form, int bx, int by, int pad,
                                      int is_store)
{
    mp_block2d b = {form, bx, by, pad};
    long long off[1024];
    for (int t = 0; t < bx * by; t++)
        off[t] = mp_block2d_element(&b, t) * 4;
    mp_bank_block_prediction p;
    mp_bank_predict_block(off, bx * by, 4, is_store, &p);
    print_message("# form %d %dx%d pad %d %s: %.4f wavefronts (ideal %.4f, "
                  "worst warp %d)\n", form, bx, by, pad,
                  is_store ? "st" : "ld", p.wavefronts, p.ideal,
                  p.worst_warp);
    return p;
}

/* The seed's write shared[x][y] of a 16 x 16 block: warp w holds x 0..15
 * of rows y = 2w and 2w + 1, words 16x + y. 16x % 32 is 0 for even x and
 * 16 for odd x, so the warp's 32 distinct words fall in 4 banks (2w, 2w+1,
 * 16+2w, 17+2w), 8 each: 8 wavefronts; ideal 1 (32 words). Same for every
 * warp, loads and stores, and for the mirrored read (the same shape
 * reflected). */
static void test_seed_write_8_way(void **state)
{
    (void)state;
    for (int st = 0; st <= 1; st++) {
        mp_bank_block_prediction p = block(MP_INDEX_XY, 16, 16, 0, st);
        assert_true(p.wavefronts == 8.0 && p.ideal == 1.0);
        assert_int_equal(p.worst_warp, 8);
        assert_int_equal(p.max_words_per_bank, 8);
        assert_true(p.distinct_words == 32.0);
        p = block(MP_INDEX_XY_MIRROR, 16, 16, 0, st);
        assert_true(p.wavefronts == 8.0 && p.ideal == 1.0);
    }
}

/* [y][x]: warp w covers words 32w .. 32w+31, one per bank: 1. */
static void test_yx_fix(void **state)
{
    (void)state;
    mp_bank_block_prediction p = block(MP_INDEX_YX, 16, 16, 0, 1);
    assert_true(p.wavefronts == 1.0 && p.conflict_ways == 1.0);
    p = block(MP_INDEX_YX_MIRROR, 16, 16, 0, 0);
    assert_true(p.wavefronts == 1.0);
}

/* Padded [x][y], rows of 17: warp 0 has words 17x + y. Row y = 0:
 * 17x % 32 = 0,17,2,19,...,14,31 (evens 0..14, odds 17..31); row y = 1:
 * 1,18,3,20,...,15, and x = 15 gives 256 % 32 = 0. Bank 0 holds words 0
 * and 256, every other bank one word: 2 wavefronts, not 1 - with a 2D
 * block the warp covers two rows, and the second row's last word wraps
 * onto the first's bank 0. Warp w is warp 0 shifted by 2w: 2 for all. */
static void test_pad_fix_leaves_2_way(void **state)
{
    (void)state;
    for (int st = 0; st <= 1; st++) {
        mp_bank_block_prediction p = block(MP_INDEX_XY, 16, 16, 1, st);
        assert_true(p.wavefronts == 2.0 && p.ideal == 1.0);
        assert_int_equal(p.max_words_per_bank, 2);
        p = block(MP_INDEX_XY_MIRROR, 16, 16, 1, st);
        assert_true(p.wavefronts == 2.0);
    }
}

/* 8 x 8 blocks, [x][y] of [8][8 + pad]; warp 0 holds y 0..3, x 0..7.
 * pad 0: words 8x + y: x and x + 4 share banks -> 2.
 * pad 1: 9x % 32 = 0,9,18,27,4,13,22,31; + y 0..3, the last run 31,32,33,34
 *        wraps onto banks 0..2 of the first -> 2.
 * pad 4: 12x % 32 = 0,12,24,4,16,28,8,20; + 0..3: eight disjoint runs of 4
 *        -> 1. Warp 1 (y 4..7) is the same shifted by 4. */
static void test_8x8_padding(void **state)
{
    (void)state;
    assert_true(block(MP_INDEX_XY, 8, 8, 0, 0).wavefronts == 2.0);
    assert_true(block(MP_INDEX_XY, 8, 8, 1, 0).wavefronts == 2.0);
    assert_true(block(MP_INDEX_XY, 8, 8, 4, 0).wavefronts == 1.0);
}

/* Warps that differ: 48 x 2, [x][y] of [48][2], word 2x + y.
 *   warp 0: y 0, x 0..31 -> words 0,2,..,62: even banks, 2 each -> 2;
 *   warp 1: y 0, x 32..47 -> 64..94 (even banks, 1 each) and y 1,
 *           x 0..15 -> 1..31 (odd banks, 1 each) -> 1;
 *   warp 2: y 1, x 16..47 -> 33..95 odd: 2 each -> 2.
 * Mean 5/3, ideal 1, worst warp 2. */
static void test_warps_differ(void **state)
{
    (void)state;
    mp_bank_block_prediction p = block(MP_INDEX_XY, 48, 2, 0, 0);
    assert_true(p.wavefronts > 5.0 / 3 - 1e-12
                && p.wavefronts < 5.0 / 3 + 1e-12);
    assert_true(p.ideal == 1.0);
    assert_int_equal(p.worst_warp, 2);
}

/* A partial last warp: 40 threads of YX 40 x 1 -> warp 0 words 0..31 (1),
 * warp 1 words 32..39, 8 lanes (1, ideal 1). */
static void test_partial_warp(void **state)
{
    (void)state;
    mp_bank_block_prediction p = block(MP_INDEX_YX, 40, 1, 0, 0);
    assert_true(p.wavefronts == 1.0 && p.ideal == 1.0);
    assert_true(p.distinct_words == 20.0);   /* (32 + 8) / 2 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addresses_16x16),
        cmocka_unit_test(test_seed_write_8_way),
        cmocka_unit_test(test_yx_fix),
        cmocka_unit_test(test_pad_fix_leaves_2_way),
        cmocka_unit_test(test_8x8_padding),
        cmocka_unit_test(test_warps_differ),
        cmocka_unit_test(test_partial_warp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
