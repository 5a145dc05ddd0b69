/*
 * test_sector_model.c - CPU tests of the global-memory sector model
 * (model/sector_model.c): warp patterns at every width, raw address sets
 * with partial masks, and the seeds' layouts.
 *
 * Every expected value is derived by hand in the comment beside it, from
 * these rules only:
 *   - lane l accesses `width` bytes at a(l) = offset + width * element(l),
 *     element(l) = stride * ((l % period) / group);
 *   - an access at a touches sectors a/32 .. (a+width-1)/32 and lines
 *     a/128 .. (a+width-1)/128; the instruction costs the DISTINCT sectors
 *     (lines) of its active lanes;
 *   - ideal = ceil(distinct bytes / 32), distinct bytes = the union of the
 *     lanes' byte ranges;
 *   - one request per instruction (the H200 run decides whether wide
 *     accesses make more), so sectors per request = sectors.
 * With the offset a multiple of the width (the probe refuses anything
 * else), an access of 4, 8 or 16 bytes never crosses a sector boundary,
 * because 4, 8 and 16 divide 32: only the raw-address cases straddle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "pattern.h"
#include "sector_model.h"

/* What one pattern is expected to give. */
typedef struct {
    int width;
    long long offset, stride, group, period;
    int sectors, ideal, lines, distinct;
} pattern_case;

static void check_patterns(const pattern_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pattern_case *c = &cases[i];
        for (int is_store = 0; is_store <= 1; is_store++) {
            mp_pattern p = {0, c->stride, c->group, c->period, 0};
            mp_sector_prediction r;
            memset(&r, 0x5a, sizeof r);   /* garbage: the model sets all */
            mp_sector_predict_pattern(&p, c->offset, c->width, is_store, &r);
            print_message("# %s w%d o%lld s%lld g%lld p%lld: sectors %d "
                          "ideal %d lines %d distinct %d bytes %d\n",
                          is_store ? "st" : "ld", c->width, c->offset,
                          c->stride, c->group, c->period, r.sectors,
                          r.ideal_sectors, r.lines, r.distinct_addresses,
                          r.bytes);
            assert_int_equal(r.sectors, c->sectors);
            assert_int_equal(r.ideal_sectors, c->ideal);
            assert_int_equal(r.lines, c->lines);
            assert_int_equal(r.distinct_addresses, c->distinct);
            assert_int_equal(r.bytes, c->distinct * c->width);
            assert_int_equal(r.requests, 1);
            assert_true(r.sectors_per_request == (double)c->sectors);
        }
    }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- aligned and misaligned by one element ------------------------ */

static void test_aligned_and_misaligned(void **state)
{
    (void)state;
    static const pattern_case c[] = {
        /* w  off str g  p   sec ideal lines distinct */
        /* stride 1 from 0: 32 x w contiguous bytes from a line start. */
        {4, 0, 1, 1, 32, 4, 4, 1, 32},     /* bytes 0..127 */
        {8, 0, 1, 1, 32, 8, 8, 2, 32},     /* bytes 0..255 */
        {16, 0, 1, 1, 32, 16, 16, 4, 32},  /* bytes 0..511 */
        /* One element off: the same bytes, one sector further. */
        {4, 4, 1, 1, 32, 5, 4, 2, 32},     /* 4..131: sectors 0..4, lines 0..1 */
        {8, 8, 1, 1, 32, 9, 8, 3, 32},     /* 8..263: sectors 0..8, lines 0..2 */
        {16, 16, 1, 1, 32, 17, 16, 5, 32}, /* 16..527: sectors 0..16, lines 0..4 */
        /* Offset a whole sector: aligned to sectors again, not lines. */
        {4, 32, 1, 1, 32, 4, 4, 2, 32},    /* 32..159: sectors 1..4, lines 0..1 */
        {8, 24, 1, 1, 32, 9, 8, 3, 32},    /* 24..279: sectors 0..8, lines 0..2 */
        {4, 128, 1, 1, 32, 4, 4, 1, 32},   /* 128..255: sectors 4..7, line 1 */
        {16, 128, 1, 1, 32, 16, 16, 4, 32},/* 128..639: sectors 4..19, lines 1..4 */
        {16, 48, 1, 1, 32, 17, 16, 5, 32}, /* 48..559: sectors 1..17, lines 0..4 */
        {4, 124, 1, 1, 32, 5, 4, 2, 32},   /* 124..251: sectors 3..7, lines 0..1 */
    };
    check_patterns(c, N(c));
}

/* ---- strides at each width ------------------------------------------- */

static void test_strides(void **state)
{
    (void)state;
    static const pattern_case c[] = {
        /* w  off str g  p   sec ideal lines distinct */
        /* 4 bytes: lane l at 4 * s * l. */
        {4, 0, 2, 1, 32, 8, 4, 2, 32},    /* 8l: 4 lanes per sector, 0..7; 0..251 -> lines 0..1 */
        {4, 0, 3, 1, 32, 12, 4, 3, 32},   /* 12l up to 375: sectors 0..11 all hit (12 < 32), lines 0..2 */
        {4, 0, 4, 1, 32, 16, 4, 4, 32},   /* 16l: 2 lanes per sector, 0..15; lines 0..3 */
        {4, 0, 8, 1, 32, 32, 4, 8, 32},   /* 32l: one sector each; 992/128 -> lines 0..7 */
        {4, 0, 32, 1, 32, 32, 4, 32, 32}, /* 128l: one sector and one line each */
        /* 8 bytes: lane l at 8 * s * l. */
        {8, 0, 2, 1, 32, 16, 8, 4, 32},   /* 16l: 2 per sector, 0..15; 503/128 -> lines 0..3 */
        {8, 0, 3, 1, 32, 24, 8, 6, 32},   /* 24l: 24l % 32 in {0,8,16,24}, never crossing;
                                           * floor(0.75 l) hits 0..23; 751/128 -> lines 0..5 */
        {8, 0, 4, 1, 32, 32, 8, 8, 32},   /* 32l: 32 sectors; 999/128 -> lines 0..7 */
        {8, 0, 8, 1, 32, 32, 8, 16, 32},  /* 64l: 2 lanes per line -> 16 lines */
        {8, 0, 32, 1, 32, 32, 8, 32, 32}, /* 256l */
        /* 16 bytes: lane l at 16 * s * l. */
        {16, 0, 2, 1, 32, 32, 16, 8, 32}, /* 32l: 32 sectors, 4 lanes per line -> 8 */
        {16, 0, 3, 1, 32, 32, 16, 12, 32},/* 48l: 48l % 32 in {0,16}, never crossing;
                                           * floor(1.5 l) distinct; 1503/128 -> lines 0..11 */
        {16, 0, 4, 1, 32, 32, 16, 16, 32},/* 64l: 2 per line -> 16 */
        {16, 0, 8, 1, 32, 32, 16, 32, 32},/* 128l */
        {16, 0, 32, 1, 32, 32, 16, 32, 32},/* 512l */
        /* Strides with an offset. */
        {4, 4, 2, 1, 32, 8, 4, 2, 32},    /* 4+8l up to 255: sectors 0..7, lines 0..1 */
        {4, 64, 8, 1, 32, 32, 4, 9, 32},  /* 64+32l: sectors 2..33; last byte 1059 -> lines 0..8 */
    };
    check_patterns(c, N(c));
}

/* ---- broadcast, group and period -------------------------------------- */

static void test_broadcast_group_period(void **state)
{
    (void)state;
    static const pattern_case c[] = {
        /* w  off str g  p   sec ideal lines distinct */
        /* stride 0: every lane the same address -> 1 sector. */
        {4, 0, 0, 1, 32, 1, 1, 1, 1},
        {8, 0, 0, 1, 32, 1, 1, 1, 1},
        {16, 0, 0, 1, 32, 1, 1, 1, 1},
        {16, 16, 0, 1, 32, 1, 1, 1, 1},   /* bytes 16..31: still sector 0 */
        {8, 4088, 0, 1, 32, 1, 1, 1, 1},  /* bytes 4088..4095: sector 127 */
        /* group 32: element 0 for every lane whatever the stride. */
        {4, 0, 7, 32, 32, 1, 1, 1, 1},
        /* period 1: k = 0 for every lane. */
        {16, 0, 32, 1, 1, 1, 1, 1, 1},
        /* group 2 stride 1: elements 0..15 -> bytes 0..63 -> 2 sectors. */
        {4, 0, 1, 2, 32, 2, 2, 1, 16},
        /* period 8 stride 1: elements 0..7 -> bytes 0..31 -> 1 sector. */
        {4, 0, 1, 1, 8, 1, 1, 1, 8},
        /* 8-byte period 16 stride 1: elements 0..15 -> bytes 0..127. */
        {8, 0, 1, 1, 16, 4, 4, 1, 16},
        /* period 4 stride 32: elements 0,32,64,96 -> bytes 0,128,256,384:
         * 4 sectors in 4 lines; 16 distinct bytes -> ideal 1. */
        {4, 0, 32, 1, 4, 4, 1, 4, 4},
        /* 16-byte group 4 period 16 stride 2: k = (l%16)/4 = 0..3 ->
         * elements 0,2,4,6 -> bytes 0,32,64,96 (16 each): 4 sectors,
         * line 0, 64 distinct bytes -> ideal 2. */
        {16, 0, 2, 4, 16, 4, 2, 1, 4},
        /* group 2 stride 8: k = l/2 = 0..15 -> bytes 32k: 16 sectors,
         * 480/128 -> lines 0..3, 64 bytes -> ideal 2. */
        {4, 0, 8, 2, 32, 16, 2, 4, 16},
        /* group 3 stride 1, 8 bytes: k = l/3 = 0..10 -> bytes 0..87:
         * sectors 0..2, ideal ceil(88/32) = 3. */
        {8, 0, 1, 3, 32, 3, 3, 1, 11},
    };
    check_patterns(c, N(c));
}

/* ---- raw address sets: masks, straddling, order ----------------------- */

static mp_sector_prediction raw(int width, uint32_t active,
                                const long long *addr)
{
    mp_global_access a;
    a.width = width;
    a.is_store = 0;
    a.active = active;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        a.addr[l] = addr[l];
    mp_sector_prediction r;
    memset(&r, 0x5a, sizeof r);
    mp_sector_predict(&a, &r);
    return r;
}

static void contiguous(long long *addr, long long first, long long step)
{
    for (int l = 0; l < MP_WARP_SIZE; l++)
        addr[l] = first + step * l;
}

/* One warp access of the raw model and what it must give: lane l (active
 * or not) at first + step * ((mul * l) % 32); -1: not checked. */
typedef struct {
    int width;
    uint32_t active;
    long long first, step, mul;
    int requests, sectors, ideal, lines, bytes, distinct;
    double per_request;
} raw_case;

static void expect_raw(size_t i, const char *field, double got, double want)
{
    if (want >= 0 && got != want)
        fail_msg("case %zu: %s %g, want %g", i, field, got, want);
}

static void check_raw(const raw_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const raw_case *c = &cases[i];
        long long addr[MP_WARP_SIZE];
        for (int l = 0; l < MP_WARP_SIZE; l++)
            addr[l] = c->first + c->step * ((c->mul * l) % MP_WARP_SIZE);
        mp_sector_prediction r = raw(c->width, c->active, addr);
        expect_raw(i, "requests", r.requests, c->requests);
        expect_raw(i, "sectors", r.sectors, c->sectors);
        expect_raw(i, "ideal_sectors", r.ideal_sectors, c->ideal);
        expect_raw(i, "lines", r.lines, c->lines);
        expect_raw(i, "bytes", r.bytes, c->bytes);
        expect_raw(i, "distinct_addresses", r.distinct_addresses,
                   c->distinct);
        expect_raw(i, "sectors_per_request", r.sectors_per_request,
                   c->per_request);
    }
}

/* Lanes of a contiguous 4-byte load (lane l at 4 l) under masks. */
static void test_partial_masks(void **state)
{
    (void)state;
    static const raw_case cases[] = {
        /* width, active, first, step, mul; requests, sectors, ideal,
         * lines, bytes, distinct; sectors per request */
        /* Lanes 0..15: bytes 0..63 -> 2 sectors. */
        {4, 0x0000ffffu, 0, 4, 1, 1, 2, 2, -1, -1, 16, -1},
        /* The seeds' `if (tid != 3)`: lane 3 (bytes 12..15) sits in
         * sector 0, which lanes 0..2 need anyway -> still 4 sectors; 124
         * bytes -> 4. */
        {4, ~(1u << 3), 0, 4, 1, -1, 4, 4, -1, 124, 31, -1},
        /* Even lanes only: bytes 0,8..120 -> sectors 0..3 (4), 64 bytes
         * -> 2. */
        {4, 0x55555555u, 0, 4, 1, -1, 4, 2, 1, -1, -1, -1},
        /* Lane 31 alone: bytes 124..127 -> sector 3, 1 line. */
        {4, 0x80000000u, 0, 4, 1, -1, 1, 1, 1, -1, 1, -1},
        /* No lane: no request, nothing touched. */
        {4, 0, 0, 4, 1, 0, 0, 0, 0, 0, -1, 0.0},
    };
    check_raw(cases, N(cases));
}

static void test_straddling_and_order(void **state)
{
    (void)state;
    static const raw_case cases[] = {
        /* width, active, first, step, mul; requests, sectors, ideal,
         * lines, bytes, distinct; sectors per request */
        /* 8 bytes at 28 (not a multiple of 8: the probe never does this):
         * bytes 28..35 -> sectors 0 and 1; one line; 8 bytes -> ideal 1. */
        {8, 1u, 28, 0, 1, -1, 2, 1, 1, -1, -1, -1},
        /* 16 bytes at 120: bytes 120..135 -> sectors 3, 4 and lines 0,
         * 1. */
        {16, 1u, 120, 0, 1, -1, 2, -1, 2, -1, -1, -1},
        /* Overlapping 4-byte accesses at 0 and 2: bytes 0..5 -> 6 bytes,
         * one sector, two distinct addresses. */
        {4, 3u, 0, 2, 1, -1, 1, 1, -1, 6, 2, -1},
        /* 4 bytes at 0 and at 30: bytes 0..3 and 30..33 -> sectors 0, 1;
         * 8 bytes -> ideal 1. */
        {4, 3u, 0, 30, 1, -1, 2, 1, -1, 8, -1, -1},
        /* Lane order does not matter: lanes in reverse over bytes
         * 0..127 (lane l at 124 - 4 l). */
        {4, 0xffffffffu, 124, -4, 1, -1, 4, 4, 1, -1, -1, -1},
        /* A permutation across two lines, 8 bytes: lane l at 8 * ((l * 7)
         * % 32) covers bytes 0..255 once -> 8 sectors, 2 lines, ideal 8. */
        {8, 0xffffffffu, 0, 8, 7, -1, 8, 8, 2, -1, 32, -1},
        /* A far address: 4 bytes at 2^40 + 4 and 2^40 + 36 -> 2
         * sectors. */
        {4, 3u, (1LL << 40) + 4, 32, 1, -1, 2, -1, 1, -1, -1, -1},
    };
    check_raw(cases, N(cases));
}

/* The pattern helper ignores the bank probe's row padding (a global array
 * has no tile rows) and equals the raw model on the same addresses. */
static void test_pattern_equals_raw(void **state)
{
    (void)state;
    mp_pattern p = {0, 16, 1, 32, 1};
    mp_sector_prediction a, b;
    mp_sector_predict_pattern(&p, 8, 8, 0, &a);
    long long addr[MP_WARP_SIZE];
    contiguous(addr, 8, 128);   /* 8 + 8 * 16 * l */
    b = raw(8, 0xffffffffu, addr);
    assert_int_equal(a.sectors, b.sectors);
    assert_int_equal(a.sectors, 32);   /* 128 B apart: one sector each */
    assert_int_equal(a.lines, 32);
    assert_int_equal(a.ideal_sectors, 8);
}

/* ---- the seeds' layouts ------------------------------------------------ */

/* What a layout is expected to give; -1 = not checked. */
typedef struct {
    mp_layout layout;
    int ld_instructions, ld_requests, ld_sectors, ld_ideal_sectors, ld_lines,
        ld_bytes;
    int st_instructions, st_requests, st_sectors;
} layout_case;

/* One field of a layout's prediction against its expected value. */
static void expect_field(const char *layout, const char *field, int got,
                         int want)
{
    if (want < 0)
        return;
    if (got != want)
        print_message("# %s %s: %d, expected %d\n", layout, field, got, want);
    assert_int_equal(got, want);
}

static void test_layouts(void **state)
{
    (void)state;
    static const layout_case cases[] = {
        /* soa: three LDG.32 over x[], y[], z[], each 128 contiguous
         * aligned bytes -> 4 sectors, 1 line, ideal 4; plus the STG.32
         * result. */
        {MP_LAYOUT_SOA, 3, 3, 12, 12, 3, 384, 1, 1, 4},
        /* aos12: LDG.32 at 12l + 4k, k = 0, 1, 2. Each spans bytes 4k ..
         * 4k + 375 (k=2: 8..383): lanes 12 B apart hit all of sectors
         * 0..11 -> 12 each, 36 in all; lines 0..2 -> 3 each; ideal 4
         * each. */
        {MP_LAYOUT_AOS12, 3, 3, 36, 12, 9, 384, -1, -1, 4},
        /* aos16: one LDG.128 at 16l -> bytes 0..511: 16 sectors, 4 lines,
         * ideal 16 (the padding is asked for too). */
        {MP_LAYOUT_AOS16, 1, 1, 16, 16, 4, 512, -1, -1, 4},
        /* aos12-staged: the seeds' fdata[tid + k * T]: three contiguous
         * LDG.32 -> like soa, 12 sectors instead of aos12's 36. */
        {MP_LAYOUT_AOS12_STAGED, 3, -1, 12, 12, 3, -1, -1, -1, 4},
    };
    mp_layout_prediction p;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const layout_case *c = &cases[i];
        const char *name = mp_layout_names[c->layout];
        assert_int_equal(mp_layout_predict(c->layout, &p), 0);
        expect_field(name, "ld_instructions", p.ld_instructions,
                     c->ld_instructions);
        expect_field(name, "ld_requests", p.ld_requests, c->ld_requests);
        expect_field(name, "ld_sectors", p.ld_sectors, c->ld_sectors);
        expect_field(name, "ld_ideal_sectors", p.ld_ideal_sectors,
                     c->ld_ideal_sectors);
        expect_field(name, "ld_lines", p.ld_lines, c->ld_lines);
        expect_field(name, "ld_bytes", p.ld_bytes, c->ld_bytes);
        expect_field(name, "st_instructions", p.st_instructions,
                     c->st_instructions);
        expect_field(name, "st_requests", p.st_requests, c->st_requests);
        expect_field(name, "st_sectors", p.st_sectors, c->st_sectors);
    }

    /* pattern is not a layout. */
    assert_int_equal(mp_layout_predict(MP_LAYOUT_PATTERN, &p), -1);
    mp_layout_inst inst[MP_LAYOUT_MAX_INST];
    assert_int_equal(mp_layout_instructions(MP_LAYOUT_PATTERN, inst), 0);
    assert_int_equal(mp_layout_instructions(MP_LAYOUT_COUNT, inst), 0);

    /* The instruction list: aos16's load is 16 bytes wide, the last
     * instruction of every layout is the result store. */
    assert_int_equal(mp_layout_instructions(MP_LAYOUT_AOS16, inst), 2);
    assert_int_equal(inst[0].width, 16);
    assert_int_equal(inst[0].is_store, 0);
    assert_int_equal(inst[1].is_store, 1);
    assert_int_equal(inst[1].width, 4);
}

static void test_layout_names(void **state)
{
    (void)state;
    assert_string_equal(mp_layout_names[MP_LAYOUT_PATTERN], "pattern");
    assert_string_equal(mp_layout_names[MP_LAYOUT_SOA], "soa");
    assert_string_equal(mp_layout_names[MP_LAYOUT_AOS12], "aos12");
    assert_string_equal(mp_layout_names[MP_LAYOUT_AOS16], "aos16");
    assert_string_equal(mp_layout_names[MP_LAYOUT_AOS12_STAGED],
                        "aos12-staged");
    assert_null(mp_layout_names[MP_LAYOUT_COUNT]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aligned_and_misaligned),
        cmocka_unit_test(test_strides),
        cmocka_unit_test(test_broadcast_group_period),
        cmocka_unit_test(test_partial_masks),
        cmocka_unit_test(test_straddling_and_order),
        cmocka_unit_test(test_pattern_equals_raw),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_layout_names),
    };
    return cmocka_run_group_tests_name("sector_model", tests, NULL, NULL);
}
