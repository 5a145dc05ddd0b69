/*
 * test_matrix.c - CPU tests of the bank probe's matrix ops and lane
 * offsets: the swizzle function and the ldmatrix/stmatrix row addresses
 * (model/pattern.c), the matrix model (model/bank_model.c,
 * mp_bank_predict_matrix - a hypothesis the H200 decides; these tests pin
 * what it says), and through the built binary: `predict bank` with --op
 * ldsm|stsm and --offsets, and the refused inputs (count, alignment, tile
 * size, overlapping stmatrix rows, pitch). Expected values are worked out
 * by hand in the comments: a 16-byte row at byte a covers the 4 banks of
 * group (a / 16) % 8; a matrix (8 rows) costs its busiest group's number
 * of distinct rows.
 */
#include "cli_util.h"

#include <stdio.h>
#include <string.h>

#include "bank_model.h"
#include "pattern.h"

/* Swizzle<B,4,3>: a ^ (((a >> 7) & (2^B - 1)) << 4). */
static void test_swizzle(void **state)
{
    (void)state;
    for (long long a = 0; a < 4096; a += 16)
        assert_int_equal(mp_swizzle(MP_SWIZZLE_NONE, a), a);
    static const struct {
        int swizzle;
        long long in, out;
    } c[] = {
        /* 32B (B = 1): bit 7 flips bit 4. */
        {MP_SWIZZLE_32, 0, 0},
        {MP_SWIZZLE_32, 128, 144},
        {MP_SWIZZLE_32, 144, 128},
        {MP_SWIZZLE_32, 256, 256},
        {MP_SWIZZLE_32, 384, 400},
        /* 64B (B = 2): bits 7-8 into bits 4-5. */
        {MP_SWIZZLE_64, 128, 144},
        {MP_SWIZZLE_64, 256, 288},
        {MP_SWIZZLE_64, 384, 432},
        {MP_SWIZZLE_64, 512, 512},
        /* 128B (B = 3): row 7 of a 1024-byte period, chunk 0 -> chunk 7
         * (896 + 112), chunk 1 -> chunk 6 (896 + 96); the next period
         * starts unswizzled. */
        {MP_SWIZZLE_128, 896, 1008},
        {MP_SWIZZLE_128, 912, 992},
        {MP_SWIZZLE_128, 1024, 1024},
        {MP_SWIZZLE_128, 1024 + 128 + 5, 1024 + 144 + 5},
    };
    for (size_t i = 0; i < CLI_COUNT(c); i++)
        if (mp_swizzle(c[i].swizzle, c[i].in) != c[i].out)
            fail_msg("swizzle %d of %lld: %lld, want %lld", c[i].swizzle,
                     c[i].in, mp_swizzle(c[i].swizzle, c[i].in), c[i].out);
    /* A bijection on each period: 64 chunks of 1024 bytes map onto all. */
    int seen[64] = {0};
    for (long long a = 0; a < 1024; a += 16)
        seen[mp_swizzle(MP_SWIZZLE_128, a) / 16]++;
    for (int c = 0; c < 64; c++)
        assert_int_equal(seen[c], 1);
}

static void test_row_offsets(void **state)
{
    (void)state;
    mp_matrix_rows plain = {4, 128, MP_ROWS_PLAIN, MP_SWIZZLE_NONE};
    assert_int_equal(mp_matrix_row_offset(&plain, 9), 1152);
    assert_int_equal(mp_matrix_row_offset(&plain, 31), 31 * 128);
    /* MMA quadrants, pitch 32 (a 16x16 b16 tile): lane 8 = matrix 1 row 0
     * = tile row 8 -> 256; lane 16 = matrix 2 row 0 = row 0, column 8 ->
     * 16; lane 27 = matrix 3 row 3 = row 11, column 8 -> 11 x 32 + 16. */
    mp_matrix_rows mma = {4, 32, MP_ROWS_MMA, MP_SWIZZLE_NONE};
    assert_int_equal(mp_matrix_row_offset(&mma, 8), 256);
    assert_int_equal(mp_matrix_row_offset(&mma, 16), 16);
    assert_int_equal(mp_matrix_row_offset(&mma, 27), 368);
    /* .x1 uses lanes 0-7 only. */
    mp_matrix_rows x1 = {1, 64, MP_ROWS_PLAIN, MP_SWIZZLE_NONE};
    assert_int_equal(mp_matrix_row_offset(&x1, 7), 448);
    assert_int_equal(mp_matrix_row_offset(&x1, 8), 0);
    /* Swizzled MMA, pitch 128: lane 17 = row 1, column 8 = 144 -> 128. */
    mp_matrix_rows sw = {4, 128, MP_ROWS_MMA, MP_SWIZZLE_128};
    assert_int_equal(mp_matrix_row_offset(&sw, 17), 128);
    assert_int_equal(mp_matrix_row_offset(&sw, 16), 16);
}

static mp_bank_prediction matrix(int n, long long pitch, int rows, int sw)
{
    mp_matrix_rows m = {n, pitch, rows, sw};
    long long off[32];
    for (int i = 0; i < 32; i++)
        off[i] = mp_matrix_row_offset(&m, i);
    mp_bank_prediction p;
    mp_bank_predict_matrix(off, n, &p);
    print_message("# x%d pitch %lld rows %d swizzle %d: %d wavefronts, ideal "
                  "%d\n", n, pitch, rows, sw, p.wavefronts, p.ideal);
    return p;
}

static void test_matrix_model(void **state)
{
    (void)state;
    /* Plain rows 16 bytes apart: 8 rows in 8 groups: 1 per matrix. */
    for (int n = 1; n <= 4; n *= 2) {
        mp_bank_prediction p = matrix(n, 16, MP_ROWS_PLAIN, 0);
        assert_int_equal(p.wavefronts, n);
        assert_int_equal(p.ideal, n);
    }
    /* Pitch 128, no swizzle: all rows in group 0: 8 per matrix. */
    assert_int_equal(matrix(4, 128, MP_ROWS_PLAIN, 0).wavefronts, 32);
    /* Pitch 32: groups 0,2,4,6,0,2,4,6: 2 per matrix. */
    assert_int_equal(matrix(1, 32, MP_ROWS_PLAIN, 0).wavefronts, 2);
    /* Pitch 128 with swizzle: row r's chunk 0 becomes r & (2^B - 1):
     * 32B: groups {0,1} 4 each -> 4; 64B: {0..3} 2 each -> 2;
     * 128B: 8 groups -> 1 per matrix. */
    assert_int_equal(matrix(4, 128, MP_ROWS_PLAIN, MP_SWIZZLE_32).wavefronts,
                     16);
    assert_int_equal(matrix(4, 128, MP_ROWS_PLAIN, MP_SWIZZLE_64).wavefronts,
                     8);
    assert_int_equal(matrix(4, 128, MP_ROWS_PLAIN, MP_SWIZZLE_128).wavefronts,
                     4);
    /* MMA quadrants, pitch 32: matrix 0 rows at 32r -> groups 0,2,4,6
     * twice (2); matrix 2 at 32r + 16 -> 1,3,5,7 twice (2): 8 in all. */
    assert_int_equal(matrix(4, 32, MP_ROWS_MMA, 0).wavefronts, 8);
    /* MMA, pitch 128 with 128B swizzle: each matrix's 8 rows r (or 8 + r)
     * land on chunk (c ^ r) for a fixed c: 8 groups -> 4 in all. */
    assert_int_equal(matrix(4, 128, MP_ROWS_MMA, MP_SWIZZLE_128).wavefronts,
                     4);
    /* Pitch 272 (256 + 16): row r at group r % 8 -> conflict-free. */
    assert_int_equal(matrix(4, 272, MP_ROWS_PLAIN, 0).wavefronts, 4);
    /* Every row at one address: 1 distinct row per matrix. */
    long long zero[32] = {0};
    mp_bank_prediction p;
    mp_bank_predict_matrix(zero, 2, &p);
    assert_int_equal(p.wavefronts, 2);
    assert_int_equal(p.ideal, 2);
}

/* predict with --offsets: the pasted lane addresses give the model's
 * figure for them. */
static void test_predict_offsets(void **state)
{
    (void)state;
    char stride1[512] = "", stride32[512] = "", rows128[512] = "";
    for (int i = 0; i < 32; i++) {
        size_t n = strlen(stride1);
        snprintf(stride1 + n, sizeof stride1 - n, "%s%d", i ? ";" : "", 4 * i);
        n = strlen(stride32);
        snprintf(stride32 + n, sizeof stride32 - n, "%s%d", i ? ";" : "",
                 128 * i);
        n = strlen(rows128);
        snprintf(rows128 + n, sizeof rows128 - n, "%s%d", i ? ";" : "",
                 128 * i);
    }
    struct {
        const char *op, *offsets;
        double wavefronts;
    } cases[] = {
        {"ld", stride1, 1},     /* 32 consecutive words */
        {"st", stride32, 32},   /* all in bank 0 */
        {"ldsm", rows128, 32},  /* 4 matrices x 8 rows in group 0 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"predict", "bank", "--op", cases[i].op,
                              "--offsets", cases[i].offsets, "--format",
                              "csv", NULL};
        cli_csv_row c;
        cli_predict_row(args, "bank", &c);
        assert_string_equal(cli_csv_text(&c, "offsets"), cases[i].offsets);
        assert_true(cli_csv_number(&c, "wavefronts_per_request")
                    == cases[i].wavefronts);
        cli_result_free(&c.r);
    }
}

/* The pitch/swizzle form through predict: x4, pitch 128, 128B swizzle. */
static void test_predict_swizzle(void **state)
{
    (void)state;
    const char *args[] = {"predict", "bank", "--op", "ldsm", "--matrices",
                          "4", "--trans", "0", "--pitch", "128",
                          "--swizzle", "128", "--format", "csv", NULL};
    cli_csv_row c;
    cli_predict_row(args, "bank", &c);
    assert_true(cli_csv_number(&c, "wavefronts_per_request") == 4);
    assert_true(cli_csv_number(&c, "ideal_wavefronts_per_request") == 4);
    cli_result_free(&c.r);
}

#define L31 "0;16;32;48;64;80;96;112;128;144;160;176;192;208;224;240;" \
            "256;272;288;304;320;336;352;368;384;400;416;432;448;464;480"
#define L32 L31 ";496"

static const cli_bad_case bad_cases[] = {
    {{"predict", "bank", "--offsets", L31}, "--offsets"},        /* 31 */
    {{"predict", "bank", "--offsets", L32 ";512"}, "--offsets"}, /* 33 */
    {{"predict", "bank", "--offsets", "0;4;x"}, "--offsets"},
    {{"predict", "bank", "--offsets", ";" L31}, "--offsets"},
    {{"predict", "bank", "--offsets", L31 ";"}, "--offsets"},
    {{"predict", "bank", "--offsets", L31 ";-16"}, "--offsets"},
    /* Alignment: 8-byte lanes at 4-byte offsets; ldsm rows at 8. */
    {{"predict", "bank", "--width", "8", "--offsets", "4;" L31},
     "--offsets"},
    {{"predict", "bank", "--op", "ldsm", "--offsets", "8;" L31},
     "--offsets"},
    /* Tile size: 300000 bytes > 227 KB of shared memory. */
    {{"predict", "bank", "--offsets", L31 ";300000"}, "--offsets"},
    /* stmatrix rows that overlap. */
    {{"predict", "bank", "--op", "stsm", "--offsets", "0;" L31},
     "--offsets"},
    {{"predict", "bank", "--op", "ldsm", "--pitch", "8"}, "--pitch"},
    {{"predict", "bank", "--op", "ldsm", "--rows", "mma", "--pitch", "16"},
     "--pitch"},
    {{"predict", "bank", "--op", "ldsm", "--matrices", "3"}, "--matrices"},
    {{"predict", "bank", "--op", "ldsm", "--trans", "2"}, "--trans"},
    {{"predict", "bank", "--op", "ldsm", "--swizzle", "256"}, "--swizzle"},
    {{"predict", "bank", "--op", "ldsm", "--index", "xy"}, "--index"},
    {{"bank", "--op", "stsm", "--pitch", "40"}, "--pitch"},
};

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_swizzle),
        cmocka_unit_test(test_row_offsets),
        cmocka_unit_test(test_matrix_model),
        cmocka_unit_test(test_predict_offsets),
        cmocka_unit_test(test_predict_swizzle),
    };
    return CLI_RUN_BAD("matrix", bad_cases, fixed);
}
