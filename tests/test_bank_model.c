/*
 * test_bank_model.c - CPU tests of the shared-memory wavefront model
 * (model/bank_model.c) and of the lane -> element mapping it is fed with
 * (model/pattern.c).
 *
 * Every expected value is derived by hand in the comment beside it, from
 * these rules only:
 *   - 4-byte word w lives in bank w % 32;
 *   - lane i with byte offset o and width W touches words o/4 .. o/4+W/4-1;
 *   - a phase is 32 lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte;
 *     wide LOADS whose lane pairs (2i, 2i+1) share an address get twice as
 *     many lanes per phase (the measured H200 rule, top of bank_model.c);
 *   - a phase costs as many wavefronts as its busiest bank has DISTINCT
 *     words (lanes reading the same word share it); phases add up;
 *   - ideal = sum over non-empty phases of ceil(distinct words / 32);
 *   - conflict_ways = wavefronts / ideal.
 * Patterns: element(lane) = base + stride * ((lane % period) / group), and
 * with pad > 0 logical element L is stored at
 * (L / stride) * (stride + pad) + L % stride.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bank_model.h"
#include "pattern.h"

/* What one pattern is expected to give; -1 = not checked. */
typedef struct {
    int width, is_store;
    long long base, stride, group, period, pad;
    int wavefronts, ideal, distinct_words, max_words_per_bank;
} model_case;

static mp_bank_prediction predict(const model_case *c)
{
    mp_pattern p = {c->base, c->stride, c->group, c->period, c->pad};
    mp_bank_prediction r;
    memset(&r, 0x5a, sizeof r);   /* garbage: the model must set all */
    mp_bank_predict_pattern(&p, c->width, c->is_store, &r);
    return r;
}

static void check_cases(const model_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const model_case *c = &cases[i];
        mp_bank_prediction r = predict(c);
        print_message("# %s w%d base %lld stride %lld group %lld period %lld "
                      "pad %lld: wavefronts %d ideal %d ways %g words %d "
                      "max/bank %d\n", c->is_store ? "st" : "ld", c->width,
                      c->base, c->stride, c->group, c->period, c->pad,
                      r.wavefronts, r.ideal, r.conflict_ways,
                      r.distinct_words, r.max_words_per_bank);
        assert_int_equal(r.wavefronts, c->wavefronts);
        assert_int_equal(r.ideal, c->ideal);
        assert_true(r.conflict_ways
                    == (double)c->wavefronts / (double)c->ideal);
        if (c->distinct_words >= 0)
            assert_int_equal(r.distinct_words, c->distinct_words);
        if (c->max_words_per_bank >= 0)
            assert_int_equal(r.max_words_per_bank, c->max_words_per_bank);
    }
}

#define LD 0
#define ST 1
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- 4-byte loads: strides ------------------------------------------- */

static void test_ld4_strides(void **state)
{
    (void)state;
    /* Lane i reads word stride*i. 32 distinct words (stride > 0) in one
     * 32-lane phase, so ideal = ceil(32/32) = 1. The banks hit are the
     * multiples of g = gcd(stride, 32) mod 32, each by g words. */
    static const model_case c[] = {
        /* w  op  base stride grp per pad   wf ideal words max */
        {4, LD, 0, 1, 1, 32, 0, 1, 1, 32, 1},   /* words 0..31: one per bank */
        {4, LD, 0, 2, 1, 32, 0, 2, 1, 32, 2},   /* 0,2..62: 16 even banks x2 */
        {4, LD, 0, 4, 1, 32, 0, 4, 1, 32, 4},   /* 8 banks (0,4..28) x4 */
        {4, LD, 0, 8, 1, 32, 0, 8, 1, 32, 8},   /* 4 banks (0,8,16,24) x8 */
        {4, LD, 0, 16, 1, 32, 0, 16, 1, 32, 16},/* banks 0,16 x16 */
        {4, LD, 0, 17, 1, 32, 0, 1, 1, 32, 1},  /* gcd(17,32)=1: all banks */
        {4, LD, 0, 32, 1, 32, 0, 32, 1, 32, 32},/* 32i: every word bank 0 */
        {4, LD, 0, 33, 1, 32, 0, 1, 1, 32, 1},  /* 33i % 32 = i */
        {4, LD, 0, 3, 1, 32, 0, 1, 1, 32, 1},   /* gcd(3,32)=1 */
        {4, LD, 0, 6, 1, 32, 0, 2, 1, 32, 2},   /* gcd(6,32)=2 */
        {4, LD, 0, 24, 1, 32, 0, 8, 1, 32, 8},  /* gcd(24,32)=8 */
        {4, LD, 0, 64, 1, 32, 0, 32, 1, 32, 32},/* 64i: all bank 0 */
    };
    check_cases(c, N(c));
}

/* ---- broadcast: stride 0, group, period ----------------------------- */

static void test_ld4_broadcast_group_period(void **state)
{
    (void)state;
    static const model_case c[] = {
        /* stride 0: every lane reads word 0 -> 1 word, 1 wavefront. */
        {4, LD, 0, 0, 1, 32, 0, 1, 1, 1, 1},
        /* group 32: k = (lane%32)/32 = 0 for every lane, so all read
         * element base = 5 whatever the stride -> 1 word, 1 wavefront. */
        {4, LD, 5, 7, 32, 32, 0, 1, 1, 1, 1},
        {4, LD, 0, 32, 32, 32, 0, 1, 1, 1, 1},
        /* period 1: k = 0 for every lane -> broadcast of word 9. */
        {4, LD, 9, 32, 1, 1, 0, 1, 1, 1, 1},
        /* group 2 stride 1: elements 0..15, each read by 2 lanes; 16
         * distinct words in 16 banks -> 1. */
        {4, LD, 0, 1, 2, 32, 0, 1, 1, 16, 1},
        /* group 2 stride 32: words 0,32..480 (k=0..15), all bank 0 ->
         * 16 distinct words in one bank -> 16; ideal ceil(16/32) = 1. */
        {4, LD, 0, 32, 2, 32, 0, 16, 1, 16, 16},
        /* group 2 stride 4: words 4k, k=0..15 -> banks 0,4..28 each
         * holding k and k+8 -> 2. */
        {4, LD, 0, 4, 2, 32, 0, 2, 1, 16, 2},
        /* period 16 stride 2: words 0,2..30 each read by lanes i and
         * i+16 -> 16 distinct words, one per even bank -> 1. */
        {4, LD, 0, 2, 1, 16, 0, 1, 1, 16, 1},
        /* period 8 stride 4: words 0,4..28, 8 distinct banks -> 1. */
        {4, LD, 0, 4, 1, 8, 0, 1, 1, 8, 1},
        /* period 4 stride 32: words 0,32,64,96 all bank 0 -> 4. */
        {4, LD, 0, 32, 1, 4, 0, 4, 1, 4, 4},
        /* group 4 period 16 stride 32: k = (lane%16)/4 = 0..3 -> words
         * 0,32,64,96 -> bank 0 holds 4 -> 4. */
        {4, LD, 0, 32, 4, 16, 0, 4, 1, 4, 4},
    };
    check_cases(c, N(c));
}

/* ---- base offsets ----------------------------------------------------- */

static void test_base_offsets(void **state)
{
    (void)state;
    static const model_case c[] = {
        /* base 1 stride 1: words 1..32 -> banks 1..31 and 0 -> 1. */
        {4, LD, 1, 1, 1, 32, 0, 1, 1, 32, 1},
        /* base 7 stride 2: words 7,9..69, all odd -> 16 odd banks x2 -> 2,
         * the same as base 0. */
        {4, LD, 7, 2, 1, 32, 0, 2, 1, 32, 2},
        /* base 31 stride 32: words 31+32i all bank 31 -> 32. */
        {4, LD, 31, 32, 1, 32, 0, 32, 1, 32, 32},
        /* base 16 stride 16: words 16(i+1) -> banks 16,0,16,0.. -> 16. */
        {4, LD, 16, 16, 1, 32, 0, 16, 1, 32, 16},
        /* base 3 stride 0: all lanes word 3 -> 1. */
        {4, LD, 3, 0, 1, 32, 0, 1, 1, 1, 1},
        /* 8-byte load base 1 stride 1: lane i at byte 8(1+i), words
         * 2+2i, 3+2i. Phase 0 (lanes 0..15): words 2..33 -> banks 2..31,0,1
         * once each -> 1; phase 1: words 34..65 -> 1. Total 2, ideal 2;
         * 64 words over the warp, 2 per bank. */
        {8, LD, 1, 1, 1, 32, 0, 2, 2, 64, 2},
        /* 8-byte load base 1 stride 2: lane i at byte 8+16i, words 2+4i,
         * 3+4i. Phase 0: banks (2+4i)%32 repeat every 8 lanes -> 2 per
         * bank; phase 1 the same -> 4; ideal 2 (32 words per phase). Over
         * the warp 64 words in banks 2,3,6,7..: 4 per bank. */
        {8, LD, 1, 2, 1, 32, 0, 4, 2, 64, 4},
    };
    check_cases(c, N(c));
}

/* ---- padding ----------------------------------------------------------- */

static void test_padding(void **state)
{
    (void)state;
    static const model_case c[] = {
        /* stride 16 pad 0: words 16i -> banks 0,16 -> 16 (the conflict
         * the padding removes). */
        {4, LD, 0, 16, 1, 32, 0, 16, 1, 32, 16},
        /* stride 16 pad 1: L = 16k is stored at (16k/16)*17 + 0 = 17k;
         * gcd(17,32) = 1 -> all 32 banks -> 1. */
        {4, LD, 0, 16, 1, 32, 1, 1, 1, 32, 1},
        /* stride 32 pad 1: L = 32k -> 33k; 33k % 32 = k -> 1. */
        {4, LD, 0, 32, 1, 32, 1, 1, 1, 32, 1},
        /* stride 8 pad 1: L = 8k -> 9k; gcd(9,32) = 1 -> 1. */
        {4, LD, 0, 8, 1, 32, 1, 1, 1, 32, 1},
        /* stride 8 pad 2: L = 8k -> 10k; gcd(10,32) = 2: the 16 even banks,
         * k and k+16 share one (10*16 = 160 = 5*32) -> 2; ideal 1. */
        {4, LD, 0, 8, 1, 32, 2, 2, 1, 32, 2},
        /* stride 8 pad 8: L = 8k -> 16k -> banks 0,16 -> 16 (a bad pad). */
        {4, LD, 0, 8, 1, 32, 8, 16, 1, 32, 16},
        /* stride 1 pad 1: L = k -> 2k -> 16 even banks x2 -> 2. */
        {4, LD, 0, 1, 1, 32, 1, 2, 1, 32, 2},
        /* base 3 stride 16 pad 1: L = 3+16k -> (L/16)*17 + L%16 = 17k+3;
         * gcd(17,32) = 1 -> 1. */
        {4, LD, 3, 16, 1, 32, 1, 1, 1, 32, 1},
        /* 8-byte load stride 16 pad 1: element 17k at byte 136k, words
         * 34k, 34k+1. Phase 0 (k=0..15): 34k % 32 = 2k -> banks 0,2..30
         * and 1,3..31 once each -> 1; phase 1 the same -> 2; ideal 2. */
        {8, LD, 0, 16, 1, 32, 1, 2, 2, 64, 2},
    };
    check_cases(c, N(c));
}

/* ---- each width ------------------------------------------------------ */

static void test_widths(void **state)
{
    (void)state;
    static const model_case c[] = {
        /* 4-byte store stride 1: words 0..31 -> 1. */
        {4, ST, 0, 1, 1, 32, 0, 1, 1, 32, 1},
        /* 4-byte store stride 2: same banks as the load -> 2. */
        {4, ST, 0, 2, 1, 32, 0, 2, 1, 32, 2},
        /* 8-byte load stride 1: lane i words 2i,2i+1. Lanes do not pair
         * (offsets 0 and 8 differ), so 16-lane phases: phase 0 words 0..31
         * -> 1, phase 1 words 32..63 -> 1. Total 2, ideal 2, ways 1. */
        {8, LD, 0, 1, 1, 32, 0, 2, 2, 64, 2},
        /* 16-byte load stride 1: 8-lane phases of words 8p..8p+31 -> 1
         * each, 4 phases -> 4, ideal 4; 128 words, 4 per bank. */
        {16, LD, 0, 1, 1, 32, 0, 4, 4, 128, 4},
        /* Stores: the same phases -> 2 and 4. */
        {8, ST, 0, 1, 1, 32, 0, 2, 2, 64, 2},
        {16, ST, 0, 1, 1, 32, 0, 4, 4, 128, 4},
        /* 8-byte load stride 2: lane i words 4i,4i+1. Phase 0 (i=0..15):
         * bank 4i%32 repeats at i+8 -> 2; phase 1 the same -> 4; ideal 2
         * (32 words per phase), ways 2. */
        {8, LD, 0, 2, 1, 32, 0, 4, 2, 64, 4},
        /* 16-byte load stride 2: lane i words 8i..8i+3. Phase of 8 lanes:
         * 8i%32 repeats at i+4 -> 2; 4 phases -> 8; ideal 4, ways 2. */
        {16, LD, 0, 2, 1, 32, 0, 8, 4, 128, 8},
        /* 8-byte load stride 16: lane i words 32i, 32i+1 -> banks 0,1.
         * Each 16-lane phase: 16 words in bank 0 -> 16; 2 phases -> 32;
         * ideal 2 (32 words per phase), ways 16. */
        {8, LD, 0, 16, 1, 32, 0, 32, 2, 64, 32},
        /* 8-byte store stride 3: lane i words 6i,6i+1. Phase 0: 6i%32 for
         * i=0..15 is 16 distinct even banks (gcd 2, period 16) -> 1, +1
         * the odd ones -> 1; phase 1 the same -> 2; ideal 2. Over the warp
         * 64 words, each bank twice. */
        {8, ST, 0, 3, 1, 32, 0, 2, 2, 64, 2},
    };
    check_cases(c, N(c));
}

/* ---- the measured H200 rules (top of model/bank_model.c) ------------- */

static void test_h200_pairing_rules(void **state)
{
    (void)state;
    static const model_case c[] = {
        /* 8-byte load stride 1 group 2: pairs (2i,2i+1) share element i,
         * so ONE 32-lane phase: elements 0..15 = words 0..31 -> 1; ideal
         * ceil(32/32) = 1. */
        {8, LD, 0, 1, 2, 32, 0, 1, 1, 32, 1},
        /* The same as a store: never merged, 16-lane phases: lanes 0..15
         * elements 0..7 = words 0..15 -> 1; lanes 16..31 words 16..31 ->
         * 1. Total 2; ideal 1+1 = 2. */
        {8, ST, 0, 1, 2, 32, 0, 2, 2, 32, 1},
        /* 8-byte load stride 0: all lanes at byte 0 (paired) -> one
         * 32-lane phase of words 0,1 -> 1; ideal ceil(2/32) = 1. */
        {8, LD, 0, 0, 1, 32, 0, 1, 1, 2, 1},
        /* 8-byte store stride 0: two 16-lane phases of words 0,1 -> 2;
         * ideal 2, ways 1. */
        {8, ST, 0, 0, 1, 32, 0, 2, 2, 2, 1},
        /* 16-byte load stride 0: paired -> 16-lane phases, 2 phases of
         * words 0..3 -> 2; ideal 2. */
        {16, LD, 0, 0, 1, 32, 0, 2, 2, 4, 1},
        /* 16-byte store stride 0: 8-lane phases, 4 of them -> 4; ideal 4. */
        {16, ST, 0, 0, 1, 32, 0, 4, 4, 4, 1},
        /* 8-byte load stride 1 period 16 group 1: lane 16 repeats lane 0
         * but lanes 0 and 1 differ, so not paired: 16-lane phases, each
         * words 0..31 -> 1 + 1 = 2; ideal 2. */
        {8, LD, 0, 1, 1, 16, 0, 2, 2, 32, 1},
        /* 8-byte load stride 1 period 16 group 2: paired -> one 32-lane
         * phase; elements (lane%16)/2 = 0..7 = words 0..15 -> 1; ideal 1. */
        {8, LD, 0, 1, 2, 16, 0, 1, 1, 16, 1},
        /* 16-byte load stride 1 group 2: paired -> 16-lane phases; phase 0
         * elements 0..7 = words 0..31 -> 1, phase 1 words 32..63 -> 1;
         * total 2, ideal 2. */
        {16, LD, 0, 1, 2, 32, 0, 2, 2, 64, 2},
        /* 8-byte load stride 2 group 2: paired, one 32-lane phase of
         * elements 0,2..30 (bytes 16j, words 4j,4j+1, j=0..15): bank 4j%32
         * repeats at j+8 -> 2; 32 words -> ideal 1; ways 2. */
        {8, LD, 0, 2, 2, 32, 0, 2, 1, 32, 2},
        /* 8-byte load group 32 (broadcast of element 5 = words 10,11):
         * paired -> 1. */
        {8, LD, 5, 7, 32, 32, 0, 1, 1, 2, 1},
    };
    check_cases(c, N(c));
}

/* ---- ideal_wavefronts and conflict_ways ------------------------------- */

static void test_ideal_and_conflict_ways(void **state)
{
    (void)state;
    /* ideal and conflict_ways (= wavefronts / ideal) of each row. */
    static const model_case c[] = {
        /* 4-byte stride 2: 2 wavefronts, ideal 1, 2-way. */
        {4, LD, 0, 2, 1, 32, 0, 2, 1, -1, -1},
        /* 4-byte stride 32 group 2: 16 words all bank 0 -> 16 wavefronts;
         * ideal ceil(16/32) = 1 -> 16-way. */
        {4, LD, 0, 32, 2, 32, 0, 16, 1, -1, -1},
        /* 16-byte store stride 0: 4 phases of 1 wavefront; ideal 4 (one
         * per non-empty phase) -> no conflict, 1-way. */
        {16, ST, 0, 0, 1, 32, 0, 4, 4, -1, -1},
        /* 8-byte load stride 16: 32 wavefronts over ideal 2 -> 16-way. */
        {8, LD, 0, 16, 1, 32, 0, 32, 2, -1, -1},
        /* 4-byte stride 12: gcd(12,32) = 4 -> 4 wavefronts, ideal 1,
         * 4-way. */
        {4, LD, 0, 12, 1, 32, 0, 4, 1, -1, -1},
        /* 16-byte load stride 3: lane i words 12i..12i+3; 8-lane phase:
         * 12i%32 for i=0..7 = 0,12,24,4,16,28,8,20 -> every bank once (4
         * words each cover 32 banks) -> 1; 4 phases -> 4, ideal 4,
         * 1-way. */
        {16, LD, 0, 3, 1, 32, 0, 4, 4, -1, -1},
    };
    check_cases(c, N(c));
}

/* ---- mp_warp_access: partial warps and arbitrary offsets ------------- */

static mp_warp_access access_of(int width, int is_store, uint32_t active,
                                long long base, long long stride)
{
    mp_warp_access a;
    a.width = width;
    a.is_store = is_store;
    a.active = active;
    for (int i = 0; i < MP_WARP_SIZE; i++)
        a.offset[i] = (base + stride * i) * width;
    return a;
}

static void test_partial_warp(void **state)
{
    (void)state;
    mp_bank_prediction r;
    mp_warp_access a;

    /* 4-byte stride 32, lanes 0..3 only: words 0,32,64,96 all bank 0 ->
     * 4 wavefronts; 4 words -> ideal 1; 4-way. */
    a = access_of(4, 0, 0xfu, 0, 32);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 4);
    assert_int_equal(r.ideal, 1);
    assert_int_equal(r.distinct_words, 4);
    assert_int_equal(r.max_words_per_bank, 4);
    assert_true(r.conflict_ways == 4.0);

    /* No lane active: nothing to serve -> 0, 0, ways 0. */
    a = access_of(4, 0, 0u, 0, 32);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 0);
    assert_int_equal(r.ideal, 0);
    assert_int_equal(r.distinct_words, 0);
    assert_int_equal(r.max_words_per_bank, 0);
    assert_true(r.conflict_ways == 0.0);

    /* 4-byte stride 2, odd lanes only: words 2i for odd i = 2,6,..,62 ->
     * banks 2,6,..,30 (8 banks), each hit by i and i+16 -> 2; 16 words. */
    a = access_of(4, 0, 0xaaaaaaaau, 0, 2);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 2);
    assert_int_equal(r.ideal, 1);
    assert_int_equal(r.distinct_words, 16);

    /* 4-byte stride 2, lanes 0..15: words 0,2..30 -> 16 banks once -> 1
     * (the full warp would be 2). */
    a = access_of(4, 0, 0x0000ffffu, 0, 2);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(r.ideal, 1);

    /* 8-byte load stride 1, lanes 0..15: pair (0,1) both active at bytes
     * 0 and 8 -> not paired, 16-lane phases. Phase 0 words 0..31 -> 1;
     * phase 1 has no active lane -> 0 and adds nothing to ideal. */
    a = access_of(8, 0, 0x0000ffffu, 0, 1);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(r.ideal, 1);
    assert_int_equal(r.distinct_words, 32);

    /* 8-byte load, lanes 0 and 16 only, lane 0 at byte 0 (words 0,1) and
     * lane 16 at byte 8 (words 2,3). No pair has both lanes active, so
     * the pairing rule holds and the two lanes share one 32-lane phase:
     * 4 words in 4 banks -> 1 wavefront, ideal 1. */
    a = access_of(8, 0, 0x00010001u, 0, 0);
    a.offset[16] = 8;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(r.ideal, 1);
    /* The same as a store: no merging, lane 0 in phase 0, lane 16 in
     * phase 1 -> 1 + 1 = 2, ideal 2. */
    a.is_store = 1;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 2);
    assert_int_equal(r.ideal, 2);
    /* Inactive lanes' offsets do not count: make lane 1 (inactive) differ
     * from lane 0 - the load is still merged -> 1. */
    a.is_store = 0;
    a.offset[1] = 4096;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 1);
    /* ...but activating lane 1 breaks the pair (bytes 0 vs 4096): 16-lane
     * phases. Phase 0: words 0,1 and 1024,1025 -> banks 0,1 twice -> 2;
     * phase 1: lane 16 words 2,3 -> 1. Total 3; ideal 1 + 1 = 2. */
    a.active |= 0x2u;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 3);
    assert_int_equal(r.ideal, 2);
}

static void test_arbitrary_offsets(void **state)
{
    (void)state;
    mp_bank_prediction r;

    /* 4-byte: lane i reads word i, except lane 1 -> word 32 and lane 2
     * -> word 64. Bank 0 then holds words 0,32,64 -> 3 wavefronts; banks
     * 1 and 2 are empty; 32 distinct words -> ideal 1; 3-way. */
    mp_warp_access a = access_of(4, 0, 0xffffffffu, 0, 1);
    a.offset[1] = 32 * 4;
    a.offset[2] = 64 * 4;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 3);
    assert_int_equal(r.ideal, 1);
    assert_int_equal(r.distinct_words, 32);
    assert_int_equal(r.max_words_per_bank, 3);
    assert_true(r.conflict_ways == 3.0);

    /* Every lane reads word 0 except lane 5 (word 32): 2 distinct words
     * in bank 0 -> 2 wavefronts; broadcast costs nothing more. */
    a = access_of(4, 0, 0xffffffffu, 0, 0);
    a.offset[5] = 128;
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 2);
    assert_int_equal(r.distinct_words, 2);
    assert_int_equal(r.max_words_per_bank, 2);

    /* Stores share words too: every lane writes word 7 -> 1. */
    a = access_of(4, 1, 0xffffffffu, 7, 0);
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(r.distinct_words, 1);

    /* 16-byte load stride 1 with lanes 8..15 moved onto lanes 0..7's
     * addresses: phase 1 (lanes 8..15) then reads words 0..31 again ->
     * still 1 per 8-lane phase -> 4. Distinct words drop from 128 to
     * 32 + 64 = 96; over the warp each bank holds one of words 0..31
     * and two of 64..127 -> 3. */
    a = access_of(16, 0, 0xffffffffu, 0, 1);
    for (int i = 8; i < 16; i++)
        a.offset[i] = a.offset[i - 8];
    mp_bank_predict(&a, &r);
    assert_int_equal(r.wavefronts, 4);
    assert_int_equal(r.distinct_words, 96);
    assert_int_equal(r.max_words_per_bank, 3);
}

/* ---- mp_pattern_element / mp_pattern_offsets ------------------------- */

static void test_pattern_element(void **state)
{
    (void)state;
    /* base 3 stride 5 group 4 period 16: k = (lane%16)/4. */
    mp_pattern p = {3, 5, 4, 16, 0};
    assert_int_equal(mp_pattern_element(&p, 0), 3);    /* k 0 */
    assert_int_equal(mp_pattern_element(&p, 3), 3);    /* k 0 */
    assert_int_equal(mp_pattern_element(&p, 4), 8);    /* k 1: 3+5 */
    assert_int_equal(mp_pattern_element(&p, 15), 18);  /* k 3: 3+15 */
    assert_int_equal(mp_pattern_element(&p, 16), 3);   /* period: k 0 */
    assert_int_equal(mp_pattern_element(&p, 21), 8);   /* 21%16=5, k 1 */
    assert_int_equal(mp_pattern_element(&p, 31), 18);  /* 15 -> k 3 */

    /* group 3 period 32 stride 1: lane 31 -> k 10; lane 5 -> k 1. */
    p = (mp_pattern){0, 1, 3, 32, 0};
    assert_int_equal(mp_pattern_element(&p, 31), 10);
    assert_int_equal(mp_pattern_element(&p, 5), 1);
    assert_int_equal(mp_pattern_element(&p, 6), 2);

    /* group 32: every lane base. period 1: every lane base. */
    p = (mp_pattern){11, 9, 32, 32, 0};
    assert_int_equal(mp_pattern_element(&p, 31), 11);
    p = (mp_pattern){11, 9, 1, 1, 0};
    assert_int_equal(mp_pattern_element(&p, 17), 11);

    /* pad: stride 16 pad 1: L = 16k -> 17k. */
    p = (mp_pattern){0, 16, 1, 32, 1};
    assert_int_equal(mp_pattern_element(&p, 1), 17);
    assert_int_equal(mp_pattern_element(&p, 2), 34);
    assert_int_equal(mp_pattern_element(&p, 31), 527);
    /* stride 4 pad 1: L = 4k -> 5k. */
    p = (mp_pattern){0, 4, 1, 32, 1};
    assert_int_equal(mp_pattern_element(&p, 31), 155);
    /* base 5 stride 4 pad 1: L = 5+4k -> (1+k)*5 + 1. */
    p = (mp_pattern){5, 4, 1, 32, 1};
    assert_int_equal(mp_pattern_element(&p, 0), 6);
    assert_int_equal(mp_pattern_element(&p, 1), 11);
    assert_int_equal(mp_pattern_element(&p, 31), 161);
    /* base 1 stride 3 pad 2: L = 1+3k -> k*5 + 1. */
    p = (mp_pattern){1, 3, 1, 32, 2};
    assert_int_equal(mp_pattern_element(&p, 7), 36);
    /* pad with group 2: lane 7 -> k 3, L = 48 -> 3*17 = 51. */
    p = (mp_pattern){0, 16, 2, 32, 1};
    assert_int_equal(mp_pattern_element(&p, 7), 51);
    /* stride 0 ignores pad: every lane base. */
    p = (mp_pattern){4, 0, 1, 32, 3};
    assert_int_equal(mp_pattern_element(&p, 9), 4);
    /* stride 1 pad 1: L = k -> 2k. */
    p = (mp_pattern){0, 1, 1, 32, 1};
    assert_int_equal(mp_pattern_element(&p, 13), 26);
}

static void test_pattern_offsets(void **state)
{
    (void)state;
    long long off[MP_WARP_SIZE];

    /* stride 4 width 8: lane i at 32i bytes; end 31*32 + 8 = 1000. */
    mp_pattern p = {0, 4, 1, 32, 0};
    assert_int_equal(mp_pattern_offsets(&p, 8, off), 1000);
    for (int i = 0; i < MP_WARP_SIZE; i++)
        assert_int_equal(off[i], 32 * i);

    /* stride 0 width 16: all 0; end 16. */
    p = (mp_pattern){0, 0, 1, 32, 0};
    assert_int_equal(mp_pattern_offsets(&p, 16, off), 16);
    for (int i = 0; i < MP_WARP_SIZE; i++)
        assert_int_equal(off[i], 0);

    /* base 2 stride 1 period 8 width 4: elements 2..9 repeating, the
     * largest (9) at lane 7, not lane 31: end 9*4 + 4 = 40. */
    p = (mp_pattern){2, 1, 1, 8, 0};
    assert_int_equal(mp_pattern_offsets(&p, 4, off), 40);
    assert_int_equal(off[0], 8);
    assert_int_equal(off[7], 36);
    assert_int_equal(off[8], 8);
    assert_int_equal(off[31], 36);

    /* stride 16 pad 1 width 4: lane k at 17k*4; end 527*4 + 4 = 2112. */
    p = (mp_pattern){0, 16, 1, 32, 1};
    assert_int_equal(mp_pattern_offsets(&p, 4, off), 2112);
    assert_int_equal(off[1], 68);

    /* base 10 stride 3 group 2 width 16: lane 31 -> k 15 -> element 55
     * at 880 bytes; end 896. */
    p = (mp_pattern){10, 3, 2, 32, 0};
    assert_int_equal(mp_pattern_offsets(&p, 16, off), 896);
    assert_int_equal(off[0], 160);
    assert_int_equal(off[1], 160);
    assert_int_equal(off[2], 208);
}

/* A warp's copy with destinations dst[] (4 bytes a lane) and sources
 * src[]; its prediction. */
static mp_copy_prediction copy_of(const long long *dst, const long long *src,
                                  int width)
{
    mp_warp_access a;
    mp_copy_prediction p;
    memset(&a, 0, sizeof a);
    a.width = width;
    a.is_store = 1;
    a.active = 0xffffffffu;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        a.offset[l] = dst[l];
    mp_bank_predict_copy(&a, src, &p);
    return p;
}

static void test_copy_lines(void **state)
{
    (void)state;
    long long dst[MP_WARP_SIZE], src[MP_WARP_SIZE];
    /* the tile copy: lane l's 4 bytes from l*4 to l*4: one line, one
     * wavefront, 4 sectors */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = src[l] = 4 * l;
    mp_copy_prediction p = copy_of(dst, src, 4);
    assert_int_equal(p.wavefronts, 1);
    assert_int_equal(p.dst_wavefronts, 1);
    assert_int_equal(p.src_sectors, 4);
    assert_int_equal(p.src_lines, 1);
    /* cuBLAS's conflict-free destinations (lanes 0-7 36 words apart, each
     * next 8 a word on) from four lines: 4 groups of 1 */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 4 * (36 * (l % 8) + l / 8);
        src[l] = 512 * (l / 8) + 4 * (l % 8);
    }
    p = copy_of(dst, src, 4);
    assert_int_equal(p.dst_wavefronts, 1);
    assert_int_equal(p.ideal, 1);
    assert_int_equal(p.src_lines, 4);
    assert_int_equal(p.wavefronts, 4);
    /* the same from one line: 1 */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        src[l] = 4 * l;
    assert_int_equal(copy_of(dst, src, 4).wavefronts, 1);
    /* each line's 8 lanes on one bank (word 32 (l % 8) + l / 8) from
     * eight places: line k's writes at steps k .. k + 7, 11 (CUTLASS's
     * copies in PyTorch's attention, measured 11), where the warp alone
     * is 8-way */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 4 * (32 * (l % 8) + l / 8);
        src[l] = 512 * (l / 8) + 4 * (l % 8);
    }
    p = copy_of(dst, src, 4);
    assert_int_equal(p.dst_wavefronts, 8);
    assert_int_equal(p.place_waits, 7);
    assert_int_equal(p.wavefronts, 11);
    /* copy_tile's padded tile (33-word rows): line k's 8 lanes on banks
     * k to k + 7, so bank 7's four writes come from four places: the
     * last at step 3 + 3, 7 (measured 7) */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 4 * (33 * (l % 8) + l / 8);
        src[l] = 128 * (l / 8) + 4 * (l % 8);
    }
    p = copy_of(dst, src, 4);
    assert_int_equal(p.dst_wavefronts, 4);
    assert_int_equal(p.place_waits, 3);
    assert_int_equal(p.wavefronts, 7);
    /* its XOR swizzle (word 32 c + (r ^ c)): 7 (measured 7) */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = 4 * (32 * (l % 8) + ((l / 8) ^ (l % 8)));
    p = copy_of(dst, src, 4);
    assert_int_equal(p.dst_wavefronts, 4);
    assert_int_equal(p.wavefronts, 7);
    /* the same banks as runs of 8 words, a row a line (the replay
     * dst4way-4lines): each bank's four writes from one place, 4
     * (measured 4) */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = 4 * (32 * (l / 8) + l % 8);
    p = copy_of(dst, src, 4);
    assert_int_equal(p.dst_wavefronts, 4);
    assert_int_equal(p.place_waits, 0);
    assert_int_equal(p.wavefronts, 4);
    /* a word a row, bank i from place i in every line (same8-rows): 4
     * (measured 4); lanes two a bank from places i and i + 4 (same4x2-
     * rows): 8 (measured 8) */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = 4 * (32 * l + l % 8);
    assert_int_equal(copy_of(dst, src, 4).wavefronts, 4);
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = 4 * (32 * l + l % 4);
    assert_int_equal(copy_of(dst, src, 4).wavefronts, 8);
    /* line k on banks 4k .. 4k + 7 (shift4-run): 5 (measured 5) */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        dst[l] = 4 * (32 * (l / 8) + 4 * (l / 8) + l % 8);
    assert_int_equal(copy_of(dst, src, 4).wavefronts, 5);
    /* two lines only, the first 8 lanes on one bank and the next 24
     * conflict-free from the second: the second line finishes after the
     * first, 9 (measured 9) */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = l < 8 ? 4 * 32 * l : 4 * l;
        src[l] = l < 8 ? 4 * l : 1024 + 4 * l;
    }
    p = copy_of(dst, src, 4);
    assert_int_equal(p.src_lines, 2);
    assert_int_equal(p.place_waits, 7);
    assert_int_equal(p.wavefronts, 9);
    /* 4-byte copies of conflict-free destinations from 32 lines: 32 */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 4 * l;
        src[l] = 4096 * l;
    }
    assert_int_equal(copy_of(dst, src, 4).wavefronts, 32);
    /* 16-byte copies, 4 lanes a line: 8 groups of 64 bytes */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 16 * l;
        src[l] = 1024 * (l / 4) + 16 * (l % 4);
    }
    p = copy_of(dst, src, 16);
    assert_int_equal(p.dst_wavefronts, 4);
    assert_int_equal(p.src_sectors, 16);
    assert_int_equal(p.src_lines, 8);
    assert_int_equal(p.wavefronts, 8);
    /* zero fill: odd lanes read nothing, counted in D only: 1 */
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        dst[l] = 4 * l;
        src[l] = l % 2 ? MP_COPY_NO_SOURCE : 4 * l;
    }
    p = copy_of(dst, src, 4);
    assert_int_equal(p.src_sectors, 4);
    assert_int_equal(p.src_lines, 1);
    assert_int_equal(p.wavefronts, 1);
    /* every lane a zero fill: D alone */
    for (int l = 0; l < MP_WARP_SIZE; l++)
        src[l] = MP_COPY_NO_SOURCE;
    p = copy_of(dst, src, 4);
    assert_int_equal(p.src_lines, 0);
    assert_int_equal(p.wavefronts, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ld4_strides),
        cmocka_unit_test(test_ld4_broadcast_group_period),
        cmocka_unit_test(test_base_offsets),
        cmocka_unit_test(test_padding),
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_h200_pairing_rules),
        cmocka_unit_test(test_ideal_and_conflict_ways),
        cmocka_unit_test(test_partial_warp),
        cmocka_unit_test(test_arbitrary_offsets),
        cmocka_unit_test(test_pattern_element),
        cmocka_unit_test(test_pattern_offsets),
        cmocka_unit_test(test_copy_lines),
    };
    return cmocka_run_group_tests_name("bank_model", tests, NULL, NULL);
}
