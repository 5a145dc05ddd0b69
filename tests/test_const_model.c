/*
 * test_const_model.c - CPU tests of the constant-memory model and the
 * texture probe's linear-layout sector model (model/const_model.c).
 *
 * Expected values are derived by hand in the comments, from these rules:
 *   - lane l reads address number k = (l % period) / group, at byte
 *     k * spacing; default group = 32 / spread (integer division), default
 *     period = spread * group, a given period alone gives group =
 *     ceil(period / spread); lanes 0..period-1 give k = 0..ceil(period /
 *     group) - 1, which must equal spread;
 *   - distinct addresses = distinct byte offsets of the 32 lanes;
 *     replays = distinct - 1 (one pass per distinct address, the CUDA
 *     Programming Guide's rule; the GPU run decides whether it holds);
 *   - 64-byte lines = distinct offset / 64;
 *   - the seeds' half-warp reads = distinct offsets of lanes 0..15 plus
 *     those of lanes 16..31;
 *   - footprint = largest offset + 4 + 7 x 256 (the kernel's 8 slots).
 * Texture: an n x n row-major float grid, rows 128-byte aligned, 32-byte
 * sectors; checked by hand for small cases and against a brute-force count
 * of every warp-level load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "const_model.h"

/* ---- lane mapping ------------------------------------------------------ */

typedef struct {
    int spread, group, period;   /* inputs (0 = derive) */
    int rc, g, p;                /* expected */
} lanes_case;

/* mp_const_lanes on each case: its return, group and period. */
static void check_lanes(const lanes_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const lanes_case *c = &cases[i];
        int g = -1, p = -1;
        print_message("# spread %d group %d period %d\n", c->spread,
                      c->group, c->period);
        assert_int_equal(mp_const_lanes(c->spread, c->group, c->period, &g,
                                        &p), c->rc);
        assert_int_equal(g, c->g);
        assert_int_equal(p, c->p);
    }
}

static void test_lanes_default(void **state)
{
    (void)state;
    /* Every spread 1..32 resolves with the defaults, to exactly spread
     * addresses: g = 32 / s, p = s * g <= 32, and ceil(p / g) = s because
     * p / g = s exactly. */
    for (int s = 1; s <= 32; s++) {
        int g = -1, p = -1;
        assert_int_equal(mp_const_lanes(s, 0, 0, &g, &p), 0);
        assert_int_equal(g, 32 / s);
        assert_int_equal(p, s * (32 / s));
        assert_true(p <= 32);
    }
    static const lanes_case cases[] = {
        {1, 0, 0, 0, 32, 32},   /* broadcast: every lane address 0 */
        {2, 0, 0, 0, 16, 32},   /* halves */
        {3, 0, 0, 0, 10, 30},   /* 32/3 = 10 lanes, period 30 */
        {8, 0, 0, 0, 4, 32},    /* the brief's g4/p32 */
        {9, 0, 0, 0, 3, 27},    /* 32/9 = 3, 9 x 3 = 27 */
        {11, 0, 0, 0, 2, 22},
        {17, 0, 0, 0, 1, 17},   /* 32/17 = 1 */
        {32, 0, 0, 0, 1, 32},   /* every lane its own address */
    };
    check_lanes(cases, sizeof cases / sizeof cases[0]);
}

static void test_lanes_explicit(void **state)
{
    (void)state;
    static const lanes_case cases[] = {
        /* Interleaved: lane l reads l % spread. */
        {2, 1, 2, 0, 1, 2},
        {16, 1, 16, 0, 1, 16},
        /* Group given: period = spread x group. */
        {2, 16, 0, 0, 16, 32},
        {16, 2, 0, 0, 2, 32},
        {4, 3, 0, 0, 3, 12},     /* lanes 0-2 -> 0 .. 9-11 -> 3, repeat */
        /* Period given: group = ceil(period / spread); 8 / 3 -> 3, and
         * ceil(8 / 3) = 3 addresses. */
        {3, 0, 8, 0, 3, 8},
        {2, 0, 32, 0, 16, 32},
        /* 8 addresses of 8 lanes need 64 lanes. */
        {8, 8, 0, -1, 8, 64},
        {32, 2, 0, -1, 2, 64},
        /* Period 32 / group ceil(32 / 9) = 4 gives ceil(32/4) = 8, not 9. */
        {9, 0, 32, -2, 4, 32},
        /* Group 16 over period 2: every lane k = 0, 1 address, not 2. */
        {2, 16, 2, -2, 16, 2},
        /* Group 1, period 4: 4 addresses, not 8. */
        {8, 1, 4, -2, 1, 4},
    };
    check_lanes(cases, sizeof cases / sizeof cases[0]);
}

/* ---- offsets and footprint ------------------------------------------- */

static void test_offsets(void **state)
{
    (void)state;
    long long off[MP_WARP_SIZE];

    /* spread 8, spacing 4, g4/p32: lanes 4k..4k+3 at byte 4k; largest 28,
     * footprint 28 + 4 + 1792 = 1824. */
    assert_int_equal(mp_const_offsets(4, 4, 32, off), 1824);
    for (int l = 0; l < 32; l++)
        assert_int_equal(off[l], (l / 4) * 4);

    /* spread 3, spacing 128, g10/p30: lanes 0-9 -> 0, 10-19 -> 128,
     * 20-29 -> 256, 30-31 -> 0 again; footprint 256 + 4 + 1792 = 2052. */
    assert_int_equal(mp_const_offsets(128, 10, 30, off), 2052);
    assert_int_equal(off[0], 0);
    assert_int_equal(off[9], 0);
    assert_int_equal(off[10], 128);
    assert_int_equal(off[29], 256);
    assert_int_equal(off[30], 0);
    assert_int_equal(off[31], 0);

    /* spread 1: every lane at 0, footprint 4 + 1792 whatever the spacing. */
    assert_int_equal(mp_const_offsets(65536, 32, 32, off), 1796);
    for (int l = 0; l < 32; l++)
        assert_int_equal(off[l], 0);

    /* The largest spread-32 spacing that fits: 31 x 2056 + 4 + 1792 =
     * 65532 <= 65536; 2060 gives 65656, past the bank. */
    assert_int_equal(mp_const_offsets(2056, 1, 32, off), 65532);
    assert_int_equal(off[31], 31 * 2056);
    assert_int_equal(mp_const_offsets(2060, 1, 32, off), 65656);
    assert_true(mp_const_offsets(2060, 1, 32, off) > MP_CONST_BANK_BYTES);

    /* Interleaved spread 2, spacing 64 (g1/p2): lane l at (l % 2) * 64. */
    assert_int_equal(mp_const_offsets(64, 1, 2, off), 64 + 4 + 1792);
    for (int l = 0; l < 32; l++)
        assert_int_equal(off[l], (l % 2) * 64);
}

/* ---- the prediction ---------------------------------------------------- */

static mp_const_prediction predict(long long spacing, int g, int p)
{
    long long off[MP_WARP_SIZE];
    mp_const_prediction r;
    memset(&r, 0x5a, sizeof r);   /* garbage: the model must set all */
    mp_const_offsets(spacing, g, p, off);
    mp_const_predict(off, &r);
    return r;
}

/* Every spread x spacing of the GPU sweep, and more: distinct = spread,
 * replays = spread - 1. 64-byte lines: spacing >= 64 puts every address
 * on its own line (spread lines); spacing 4 packs 16 words per line, so
 * the offsets 0..4(s-1) cover lines 0 .. floor(4(s-1)/64); spacing 32 packs
 * 2 per line: lines 0 .. floor(32(s-1)/64). */
static void test_predict_spread_spacing(void **state)
{
    (void)state;
    static const long long spacings[] = {4, 32, 64, 128, 256, 2048};
    for (size_t i = 0; i < sizeof spacings / sizeof spacings[0]; i++) {
        long long sp = spacings[i];
        for (int s = 1; s <= 32; s++) {
            int g, p;
            long long off[MP_WARP_SIZE];
            assert_int_equal(mp_const_lanes(s, 0, 0, &g, &p), 0);
            if (mp_const_offsets(sp, g, p, off) > MP_CONST_BANK_BYTES)
                continue;   /* the probe refuses it: test_cli_constant */
            mp_const_prediction r = predict(sp, g, p);
            int lines = sp >= 64 ? s : (int)((sp * (s - 1)) / 64) + 1;
            assert_int_equal(r.distinct_addresses, s);
            assert_int_equal(r.replays, s - 1);
            assert_int_equal(r.distinct_lines, lines);
        }
    }
}

typedef struct {
    int spread, group, period;
    long long spacing;
    int distinct, replays, lines, halfwarp;
} predict_case;

static void test_predict_cases(void **state)
{
    (void)state;
    static const predict_case cases[] = {
        /* Broadcast: 1 address, 0 replays, 1 line; the seeds count one
         * read per half-warp: 2. */
        {1, 0, 0, 4, 1, 0, 1, 2},
        /* Halves (g16): each half-warp reads one address: 2 reads, the
         * same as the full-warp rule's 2 passes. */
        {2, 0, 0, 4, 2, 1, 1, 2},
        /* Interleaved spread 2 (g1/p2): every half-warp reads both
         * addresses: 4 half-warp reads, but still 2 distinct per warp. */
        {2, 1, 2, 4, 2, 1, 1, 4},
        /* spread 3 (g10/p30): half 0 = lanes 0-15 -> k 0, 1 (2); half 1 =
         * lanes 16-31 -> k 1, 2, 0 (3): 5 reads. */
        {3, 0, 0, 128, 3, 2, 3, 5},
        /* spread 8 (g4): 4 addresses per half: 8 reads; spacing 4 puts all
         * 8 words (32 bytes) on one 64-byte line. */
        {8, 0, 0, 4, 8, 7, 1, 8},
        /* Blocked spread 16 (g2): half 0 has k 0..7, half 1 k 8..15: 16
         * reads. spacing 4: bytes 0..60, one line. */
        {16, 0, 0, 4, 16, 15, 1, 16},
        /* Interleaved spread 16 (g1/p16): each half has all 16: 32 reads. */
        {16, 1, 16, 4, 16, 15, 1, 32},
        /* spread 17 (g1/p17): half 0 = k 0..15 (16), half 1 = lane 16 ->
         * 16, lanes 17..31 -> 0..14 (16 distinct): 32. spacing 4: bytes
         * 0..64, lines 0 and 1. */
        {17, 0, 0, 4, 17, 16, 2, 32},
        /* spread 32, spacing 4: 128 bytes = 2 lines; 16 + 16 reads. */
        {32, 0, 0, 4, 32, 31, 2, 32},
        {32, 0, 0, 128, 32, 31, 32, 32},
        /* Group 4, period 16: k = (l % 16) / 4 = 0..3 in both halves. */
        {4, 4, 16, 64, 4, 3, 4, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const predict_case *c = &cases[i];
        int g, p;
        assert_int_equal(mp_const_lanes(c->spread, c->group, c->period, &g,
                                        &p), 0);
        mp_const_prediction r = predict(c->spacing, g, p);
        print_message("# spread %d g%d p%d spacing %lld: distinct %d replays "
                      "%d lines %d half-warp reads %d\n", c->spread, g, p,
                      c->spacing, r.distinct_addresses, r.replays,
                      r.distinct_lines, r.halfwarp_reads);
        assert_int_equal(r.distinct_addresses, c->distinct);
        assert_int_equal(r.replays, c->replays);
        assert_int_equal(r.distinct_lines, c->lines);
        assert_int_equal(r.halfwarp_reads, c->halfwarp);
    }
}

/* mp_const_predict on off: distinct addresses, replays, distinct lines and
 * half-warp reads. */
static void expect_raw(const long long *off, int addresses, int replays,
                       int lines, int reads)
{
    mp_const_prediction r;
    mp_const_predict(off, &r);
    assert_int_equal(r.distinct_addresses, addresses);
    assert_int_equal(r.replays, replays);
    assert_int_equal(r.distinct_lines, lines);
    assert_int_equal(r.halfwarp_reads, reads);
}

/* Arbitrary offsets, not from the mapping. */
static void test_predict_raw_offsets(void **state)
{
    (void)state;
    long long off[MP_WARP_SIZE];

    /* Lanes 0-15 read bytes 0 and 4 alternately, lanes 16-31 bytes 1024
     * and 1028: 4 distinct words on 2 lines (0 and 16), 2 + 2 half-warp
     * reads. */
    for (int l = 0; l < 32; l++)
        off[l] = (l % 2) * 4 + (l / 16) * 1024;
    expect_raw(off, 4, 3, 2, 4);

    /* Lane l at 4 * (31 - l): 32 words, reversed; 2 lines; 32 reads. */
    for (int l = 0; l < 32; l++)
        off[l] = 4 * (31 - l);
    expect_raw(off, 32, 31, 2, 32);

    /* Only lane 31 differs (byte 60, same line as 0): 2 addresses, 1 line;
     * half 0 reads 1, half 1 reads 2. */
    for (int l = 0; l < 32; l++)
        off[l] = l == 31 ? 60 : 0;
    expect_raw(off, 2, 1, 1, 3);
}

/* ---- texture: linear-layout sectors ----------------------------------- */

static int clampi(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Distinct 32-byte sectors of 32 float element indices. */
static int sectors_of(const long long idx[32])
{
    long long s[32];
    int n = 0;
    for (int l = 0; l < 32; l++) {
        long long sec = idx[l] * 4 / 32;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = s[j] == sec;
        if (!seen)
            s[n++] = sec;
    }
    return n;
}

/* Counts every warp-level load of the access pattern on an n x n grid,
 * the way texture.cu's kernels issue them. */
static void brute_force(mp_tex_access a, int n, double *requests,
                        double *sectors)
{
    long long idx[32];
    *requests = *sectors = 0;
    if (a == MP_TEX_STENCIL) {
        static const int dx[5] = {0, -1, 1, 0, 0}, dy[5] = {0, 0, 0, -1, 1};
        for (int y = 0; y < n; y++)
            for (int x0 = 0; x0 < n; x0 += 32)
                for (int k = 0; k < 5; k++) {
                    for (int l = 0; l < 32; l++)
                        idx[l] = (long long)clampi(y + dy[k], n) * n
                                 + clampi(x0 + l + dx[k], n);
                    *requests += 1;
                    *sectors += sectors_of(idx);
                }
    } else {
        for (int seg = 0; seg < n / MP_TEX_WALK; seg++)
            for (int w0 = 0; w0 < n; w0 += 32)
                for (int k = 0; k < MP_TEX_WALK; k++) {
                    for (int l = 0; l < 32; l++) {
                        int along = seg * MP_TEX_WALK + k, lane = w0 + l;
                        /* column: lanes are rows y, the walk goes along x;
                         * row: lanes are columns x, the walk goes down y. */
                        idx[l] = a == MP_TEX_COLUMN
                                     ? (long long)lane * n + along
                                     : (long long)along * n + lane;
                    }
                    *requests += 1;
                    *sectors += sectors_of(idx);
                }
    }
}

static void test_texture_hand_values(void **state)
{
    (void)state;
    mp_tex_prediction t;
    /* n = 32: one warp per row; centre/up/down 4 sectors, left and right
     * clamped inside the row: 4 each; 5 loads x 32 rows = 160 requests,
     * 640 sectors. */
    mp_tex_predict_linear(MP_TEX_STENCIL, 32, &t);
    assert_true(t.requests == 160 && t.sectors == 640
                && t.ideal_sectors == 640);
    /* n = 64: two warps per row: 12 + 4 + 5 and 12 + 5 + 4 = 42 sectors
     * per row for 10 requests; 64 rows. */
    mp_tex_predict_linear(MP_TEX_STENCIL, 64, &t);
    assert_true(t.requests == 640 && t.sectors == 64 * 42);
    /* n = 4096: (128 x 22 - 2) / (128 x 5) = 2814 / 640 = 4.396875. */
    mp_tex_predict_linear(MP_TEX_STENCIL, 4096, &t);
    assert_true(t.sectors / t.requests == 4.396875);
    assert_true(t.requests == 5.0 * 4096 * 4096 / 32);
    /* Column walk: 32 rows per load, 32 sectors; n*n/32 loads. */
    mp_tex_predict_linear(MP_TEX_COLUMN, 4096, &t);
    assert_true(t.requests == 4096.0 * 4096 / 32);
    assert_true(t.sectors == 32 * t.requests);
    assert_true(t.ideal_sectors == 4 * t.requests);
    /* Row walk: 128 contiguous aligned bytes, 4 sectors. */
    mp_tex_predict_linear(MP_TEX_ROW, 4096, &t);
    assert_true(t.requests == 4096.0 * 4096 / 32);
    assert_true(t.sectors == 4 * t.requests);
}

static void test_texture_brute_force(void **state)
{
    (void)state;
    static const int sizes[] = {32, 64, 96, 256, 288};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int a = MP_TEX_STENCIL; a <= MP_TEX_ROW; a++) {
            double req, sec;
            mp_tex_prediction t;
            brute_force((mp_tex_access)a, sizes[i], &req, &sec);
            mp_tex_predict_linear((mp_tex_access)a, sizes[i], &t);
            print_message("# access %d n %d: %g requests %g sectors\n", a,
                          sizes[i], req, sec);
            assert_true(t.requests == req);
            assert_true(t.sectors == sec);
            assert_true(t.ideal_sectors == 4 * req);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_default),
        cmocka_unit_test(test_lanes_explicit),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_predict_spread_spacing),
        cmocka_unit_test(test_predict_cases),
        cmocka_unit_test(test_predict_raw_offsets),
        cmocka_unit_test(test_texture_hand_values),
        cmocka_unit_test(test_texture_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
