/*
 * test_async_model.c - CPU tests of the async-copy model
 * (probes/async/async_model.c) and of `memprobe predict async` and its refusals.
 *
 * Swizzle cases are derived by hand from the TMA's rule (CUTLASS
 * Swizzle<B,4,3>: byte address bits 4..4+B-1 XOR bits 7..7+B-1):
 *   - 128B (B = 3): byte 0x80 (row 1, chunk 0) -> chunk 1 = 0x90; byte
 *     0x3f0 (row 7, chunk 7) -> chunk 0 = 0x380; byte 0x404 (row 8 = row 0
 *     of the next 1024-byte period, chunk 0, byte 4) stays;
 *   - 64B (B = 2): byte 0x1a0 (row 3, chunk 2) -> chunk 1 = 0x190; only
 *     2 bits of the row count: byte 0x200 (row 4) stays;
 *   - 32B (B = 1): byte 0x80 (row 1) -> 0x90; byte 0x100 (row 2) stays;
 *   - none: every address stays.
 * Counts: a warp's STS / LDGSTS of `width` bytes per lane writes 32 x width
 * contiguous bytes, one wavefront per 128 (1, 2, 4); a 16384-byte tile of
 * 128-byte rows is one box of 128 rows; of 32-byte rows 512 rows, two
 * boxes of 256.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async_model.h"
#include "cli_util.h"

static void test_swizzle_hand_cases(void **state)
{
    (void)state;
    static const struct { int sw; long long in, out; } c[] = {
        {128, 0x80, 0x90}, {128, 0x3f0, 0x380}, {128, 0x404, 0x404},
        {128, 0x0f, 0x0f}, {128, 0x1c4, 0x1f4},
        {64, 0x1a0, 0x190}, {64, 0x200, 0x200}, {64, 0x180, 0x1b0},
        {32, 0x80, 0x90}, {32, 0x100, 0x100}, {32, 0x90, 0x80},
        {0, 0x80, 0x80}, {0, 0x3f0, 0x3f0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        long long got = mp_async_swizzle(c[i].in, c[i].sw);
        if (got != c[i].out)
            fail_msg("swizzle %d of 0x%llx: 0x%llx, expected 0x%llx",
                     c[i].sw, c[i].in, got, c[i].out);
    }
}

/* Each mode permutes the 16-byte chunks inside its period (256, 512,
 * 1024 bytes) and keeps the byte within its chunk. */
static void test_swizzle_is_a_permutation(void **state)
{
    (void)state;
    static const int modes[] = {0, 32, 64, 128};
    for (int m = 0; m < 4; m++) {
        unsigned char seen[4096] = {0};
        for (long long a = 0; a < 4096; a++) {
            long long s = mp_async_swizzle(a, modes[m]);
            assert_true(s >= 0 && s < 4096);
            assert_int_equal(s & 15, a & 15);
            assert_int_equal(s >> 10, a >> 10);
            assert_int_equal(seen[s], 0);
            seen[s] = 1;
        }
    }
}

/* The point of a swizzle: a column of 16-byte chunks (the same chunk of
 * consecutive rows, which a MMA fragment reads) spreads over distinct
 * 128-byte bank rows' chunk slots. With 128B, the 8 rows' chunk 0 land
 * in 8 different chunk slots (all 32 banks once); without, in one. */
static void test_swizzle_spreads_a_column(void **state)
{
    (void)state;
    int slots_none = 0, slots_128 = 0;
    unsigned seen_none = 0, seen_128 = 0;
    for (int row = 0; row < 8; row++) {
        seen_none |= 1u << ((mp_async_swizzle(128 * row, 0) >> 4) & 7);
        seen_128 |= 1u << ((mp_async_swizzle(128 * row, 128) >> 4) & 7);
    }
    for (int b = 0; b < 8; b++) {
        slots_none += (seen_none >> b) & 1;
        slots_128 += (seen_128 >> b) & 1;
    }
    assert_int_equal(slots_none, 1);
    assert_int_equal(slots_128, 8);
}

static void test_box_shape(void **state)
{
    (void)state;
    assert_int_equal(mp_async_row_bytes(0), 128);
    assert_int_equal(mp_async_row_bytes(32), 32);
    assert_int_equal(mp_async_row_bytes(64), 64);
    assert_int_equal(mp_async_row_bytes(128), 128);
    assert_int_equal(mp_async_box_rows(16384, 128), 128);
    assert_int_equal(mp_async_box_rows(16384, 32), 256);
    assert_int_equal(mp_async_box_rows(1024, 64), 16);
    assert_int_equal(mp_async_box_rows(131072, 0), 256);
}

static void test_predict_counts(void **state)
{
    (void)state;
    mp_async_prediction p;
    /* 1 MiB, 16 KiB tiles, 2 passes: 128 tile copies. */
    mp_async_predict(MP_ASYNC_STAGED, 4, 0, 16384, 1 << 20, 2, &p);
    assert_true(p.bytes_moved == 2.0 * (1 << 20));
    assert_true(p.tile_copies == 128);
    assert_true(p.requests == 2.0 * (1 << 20) / 128);
    assert_true(p.wavefronts_per_request == 1);
    mp_async_predict(MP_ASYNC_CPASYNC, 8, 0, 16384, 1 << 20, 1, &p);
    assert_true(p.requests == (1 << 20) / 256.0);
    assert_true(p.ideal_wavefronts_per_request == 2);
    mp_async_predict(MP_ASYNC_CPASYNC, 16, 0, 16384, 1 << 20, 1, &p);
    assert_true(p.wavefronts_per_request == 4);
    mp_async_predict(MP_ASYNC_BULK, 16, 0, 16384, 1 << 20, 1, &p);
    assert_true(p.requests == 64);
    assert_true(p.wavefronts_per_request == 0);
    mp_async_predict(MP_ASYNC_TENSOR, 16, 32, 16384, 1 << 20, 1, &p);
    assert_true(p.boxes_per_tile == 2);
    assert_true(p.requests == 128);
    mp_async_predict(MP_ASYNC_TENSOR, 16, 128, 16384, 1 << 20, 1, &p);
    assert_true(p.boxes_per_tile == 1);
    assert_true(p.requests == 64);
}

/* `memprobe predict async` prints the model's numbers without a GPU
 * (1 MiB in 8 KiB tiles: 128 tiles; 8-byte cp.async: 4096 LDGSTS of 2
 * wavefronts; the tensor copy with 32-byte rows: 2 boxes per 16 KiB
 * tile). */
/* cuBLAS's 4-byte copy (docs/findings.md): lanes 0-7 36 words apart,
 * each next 8 lanes a word on; sources 8 lanes a line, four lines */
#define CUBLAS_DST "0;144;288;432;576;720;864;1008;4;148;292;436;580;724;868;1012;8;152;296;440;584;728;872;1016;12;156;300;444;588;732;876;1020"
#define CUBLAS_SRC "0;4;8;12;16;20;24;28;512;516;520;524;528;532;536;540;1024;1028;1032;1036;1040;1044;1048;1052;1536;1540;1544;1548;1552;1556;1560;1564"
#define IDENT4_TAIL ";4;8;12;16;20;24;28;32;36;40;44;48;52;56;60;64;68;72;76;80;84;88;92;96;100;104;108;112;116;120;124"
#define IDENT4 "0" IDENT4_TAIL

static const cli_ok_case ok[] = {
    {{"predict", "async", "--method", "cpasync", "--width", "8", "--tile",
      "8192", "--bytes", "1048576", "--format", "csv", NULL},
     {"async,cpasync,8,ca,none,8192,1048576,1,none,none,0,1048576,128,4096,2,2,"
      "0",
      NULL}},
    {{"predict", "async", "--method", "tensor", "--swizzle", "32",
      "--bytes", "1048576", "--format", "csv", NULL},
     {"async,tensor,16,ca,32,16384,1048576,1,none,none,0,1048576,64,128,0,"
      "0,2", NULL}},
    /* the replay of cuBLAS's copy: conflict-free destinations, sources in
     * four lines; the model counts a group of lanes a source line */
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", CUBLAS_DST, "--src-offsets", CUBLAS_SRC, "--format",
      "csv", NULL},
     {"async,cpasync,4,ca,none,16384,268435456,1," CUBLAS_DST ","
      CUBLAS_SRC ",0,1024,4,1,1,4,4", NULL}},
};

/* Combinations the probe refuses with exit 2 and a line naming the
 * parameter. */
static const cli_bad_case bad[] = {
    {{"predict", "async", "--method", "cpasync", "--width", "8", "--cache",
      "cg", NULL}, "--cache"},
    {{"predict", "async", "--method", "bulk", "--width", "4", NULL},
     "--width"},
    {{"predict", "async", "--method", "cpasync", "--swizzle", "128", NULL},
     "--swizzle"},
    {{"predict", "async", "--bytes", "100000", NULL}, "--bytes"},
    {{"predict", "async", "--tile", "1024", "--threads", "128", NULL},
     "--tile"},
    {{"predict", "async", "--tile", "1000", NULL}, "--tile"},
    {{"predict", "async", "--threads", "48", NULL}, "--threads"},
    {{"predict", "async", "--swizzle", "16", NULL}, "--swizzle"},
    {{"async", "--method", "tensor", "--tile", "262144", NULL}, "--tile"},
    /* the replay: its options only with --offsets, the tile copy's only
     * without; the lanes' alignment, '-' and 'z', one writer a byte */
    {{"predict", "async", "--iterations", "8", NULL}, "--iterations"},
    {{"predict", "async", "--src-step", "16", NULL}, "--src-step"},
    {{"predict", "async", "--method", "staged", "--offsets", IDENT4, NULL},
     "--offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", IDENT4, "--tile", "8192", NULL}, "--tile"},
    {{"predict", "async", "--method", "cpasync", "--width", "16",
      "--offsets", IDENT4, NULL}, "--offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", IDENT4, "--src-offsets", "2" IDENT4_TAIL, NULL},
     "--src-offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", "-" IDENT4_TAIL, "--src-offsets", IDENT4, NULL},
     "--src-offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", IDENT4, "--src-offsets", "-" IDENT4_TAIL, NULL},
     "--src-offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", "4" IDENT4_TAIL, "--src-offsets", "8" IDENT4_TAIL, NULL},
     "--offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", IDENT4, "--src-step", "6", NULL}, "--src-step"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", IDENT4, "--src-step", "1048576", "--iterations",
      "1048576", NULL}, "--src-step"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", "z" IDENT4_TAIL, NULL}, "--offsets"},
    {{"predict", "async", "--method", "cpasync", "--width", "4",
      "--offsets", "-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;-;"
      "-;-;-;-;-", NULL}, "--offsets"},
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swizzle_hand_cases),
        cmocka_unit_test(test_swizzle_is_a_permutation),
        cmocka_unit_test(test_swizzle_spreads_a_column),
        cmocka_unit_test(test_box_shape),
        cmocka_unit_test(test_predict_counts),
    };
    return CLI_RUN_ALL("async", ok, bad, tests);
}
