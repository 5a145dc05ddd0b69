/*
 * latency_model.c - capacities, the level model and the chain builder of
 * the latency probe (see latency_model.h).
 */
#include "latency_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB 1024LL
#define MIB (1024LL * 1024)

void mp_lat_caps_h200(mp_lat_caps *c)
{
    mp_lat_caps_of(9, 0, 233472, 60 * MIB, c);
}

/* Compute capabilities whose L2 is two partitions, each SM reaching about
 * half of it (measured on the H200; the A100 and H100 have the same
 * split, a lead not measured here). */
static int split_l2(int cc_major, int cc_minor)
{
    return (cc_major == 8 && cc_minor == 0) || cc_major == 9;
}

void mp_lat_caps_of(int cc_major, int cc_minor, long long smem_per_sm,
                    long long l2_bytes, mp_lat_caps *c)
{
    /* Unified L1/shared per SM (CUDA programming guide, per architecture). */
    static const struct { int major, minor; long long bytes; } unified[] = {
        {7, 0, 128 * KIB}, {7, 2, 128 * KIB}, {7, 5, 96 * KIB},
        {8, 0, 192 * KIB}, {8, 6, 128 * KIB}, {8, 7, 192 * KIB},
        {8, 9, 128 * KIB}, {9, 0, 256 * KIB},
    };
    c->l1_bytes = smem_per_sm + 32 * KIB;
    for (size_t i = 0; i < sizeof unified / sizeof unified[0]; i++)
        if (unified[i].major == cc_major && unified[i].minor == cc_minor)
            c->l1_bytes = unified[i].bytes;
    c->l2_bytes = l2_bytes;
    c->l2_reach_bytes = split_l2(cc_major, cc_minor) ? l2_bytes / 2
                                                     : l2_bytes;
    /* Measured on the H200 only: `memprobe l2map --tlb`, one line per
     * 2 MiB page through L2 hits (results/h200/latency/partitions/). */
    c->tlb_reach_bytes = cc_major == 9 ? 128 * 2 * MIB : 0;
}

int mp_lat_element_bytes(mp_lat_space space)
{
    return space == MP_LAT_SPACE_GLOBAL ? 8 : 4;
}

long long mp_lat_elements(long long footprint, long long stride)
{
    if (stride <= 0 || footprint < stride)
        return 0;
    return footprint / stride;
}

long long mp_lat_cached_bytes(long long footprint, long long stride)
{
    long long n = mp_lat_elements(footprint, stride);
    if (stride >= MP_LAT_LINE_BYTES)
        return n * MP_LAT_LINE_BYTES;
    /* Elements pack into lines: the lines spanned by the array. */
    long long bytes = n * stride;
    return (bytes + MP_LAT_LINE_BYTES - 1) / MP_LAT_LINE_BYTES
           * MP_LAT_LINE_BYTES;
}

/* A capacity's edge: within 10% of it either way. */
static int near(long long bytes, long long capacity)
{
    return 10 * bytes >= 9 * capacity && 10 * bytes <= 11 * capacity;
}

static mp_lat_expect expect(mp_level level, mp_level other)
{
    mp_lat_expect e = {level, other};
    return e;
}

/* The share of loads (in 1/1000) that find their bytes already fetched:
 * a sequential walk with `stride` over pieces of `piece` bytes. */
static long long reuse_permille(long long stride, long long piece)
{
    return stride < piece ? 1000 - 1000 * stride / piece : 0;
}

mp_lat_expect mp_lat_expected(const mp_lat_caps *c, mp_lat_space space,
                              int cg, int random, long long footprint,
                              long long stride)
{
    if (space == MP_LAT_SPACE_SHARED)
        return expect(MP_LEVEL_SHARED, MP_LEVEL_SHARED);
    if (space == MP_LAT_SPACE_CONSTANT)
        return expect(MP_LEVEL_CONSTANT, MP_LEVEL_CONSTANT);
    if (!cg && !random
        && reuse_permille(stride, MP_LAT_SECTOR_BYTES) >= 400)
        return expect(MP_LEVEL_L1, MP_LEVEL_L1);
    long long bytes = mp_lat_cached_bytes(footprint, stride);
    /* Beyond the L2 reach: what device memory's 64-byte fills leave. */
    mp_level beyond = !random && reuse_permille(stride < MP_LAT_SECTOR_BYTES
                                                    ? MP_LAT_SECTOR_BYTES
                                                    : stride,
                                                2 * MP_LAT_SECTOR_BYTES) >= 400
                          ? MP_LEVEL_L2 : MP_LEVEL_DRAM;
    mp_level past_l1 = bytes <= c->l2_reach_bytes ? MP_LEVEL_L2 : beyond;
    if (!cg && near(bytes, c->l1_bytes))
        return expect(MP_LEVEL_L1, past_l1);
    if (!cg && bytes < c->l1_bytes)
        return expect(MP_LEVEL_L1, MP_LEVEL_L1);
    if (near(bytes, c->l2_reach_bytes))
        return expect(MP_LEVEL_L2, beyond);
    return expect(past_l1, past_l1);
}

int mp_lat_expect_matches(mp_lat_expect e, mp_level measured)
{
    return measured == e.level || measured == e.other;
}

void mp_lat_expect_text(mp_lat_expect e, char *buf, size_t len)
{
    snprintf(buf, len, "%s", mp_lat_expect_name(e));
}

/* Every level and every pair of them, as mp_lat_expect_name spells it. */
#define PAIRS(a, A)                                                         \
    [MP_LEVEL_##A] = {[MP_LEVEL_L1] = a "|L1", [MP_LEVEL_L2] = a "|L2",     \
                      [MP_LEVEL_DRAM] = a "|DRAM",                          \
                      [MP_LEVEL_SHARED] = a "|shared",                      \
                      [MP_LEVEL_CONSTANT] = a "|constant"}
static const char *const pair_names[MP_LEVEL_COUNT][MP_LEVEL_COUNT] = {
    PAIRS("L1", L1), PAIRS("L2", L2), PAIRS("DRAM", DRAM),
    PAIRS("shared", SHARED), PAIRS("constant", CONSTANT),
};
#undef PAIRS

const char *mp_lat_expect_name(mp_lat_expect e)
{
    if ((unsigned)e.level >= MP_LEVEL_COUNT
        || (unsigned)e.other >= MP_LEVEL_COUNT)
        return "?";
    return e.level == e.other ? mp_level_name(e.level)
                              : pair_names[e.level][e.other];
}

static const char *const level_names[MP_LEVEL_COUNT] = {
    [MP_LEVEL_L1] = "L1", [MP_LEVEL_L2] = "L2", [MP_LEVEL_DRAM] = "DRAM",
    [MP_LEVEL_SHARED] = "shared", [MP_LEVEL_CONSTANT] = "constant",
};

const char *mp_level_name(mp_level l)
{
    return (unsigned)l < MP_LEVEL_COUNT ? level_names[l] : NULL;
}

int mp_level_from_name(const char *name, mp_level *out)
{
    for (int i = 0; name && i < MP_LEVEL_COUNT; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (mp_level)i;
            return 0;
        }
    }
    return -1;
}

/* splitmix64: a small, well-mixed generator; the chain depends only on
 * the seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound >= 1 (multiply-shift: no division). */
static uint32_t below(uint64_t *state, uint32_t bound)
{
    return (uint32_t)(((unsigned __int128)next_random(state) * bound) >> 64);
}

int mp_lat_build_chain(uint32_t *next, uint32_t *order, long long n,
                       int random, uint64_t seed)
{
    if (n < 1 || n > 0xffffffffLL)
        return -1;
    uint32_t *succ = next ? next : malloc((size_t)n * sizeof *succ);
    if (!succ)
        return -1;
    for (long long i = 0; i < n; i++)
        succ[i] = (uint32_t)((i + 1) % n);
    if (random) {
        /* Sattolo: swapping each position with a strictly earlier one
         * turns the identity into a single cycle over all n elements. */
        for (long long i = 0; i < n; i++)
            succ[i] = (uint32_t)i;
        uint64_t st = seed;
        for (long long i = n - 1; i > 0; i--) {
            uint32_t j = below(&st, (uint32_t)i);
            uint32_t t = succ[i];
            succ[i] = succ[j];
            succ[j] = t;
        }
    }
    if (order) {
        uint32_t e = 0;
        for (long long k = 0; k < n; k++) {
            order[k] = e;
            e = succ[e];
        }
    }
    if (!next)
        free(succ);
    return 0;
}

void mp_lat_partitions_h200(mp_lat_partitions *p)
{
    /* `memprobe l2map --plateau --tlb` on every SM and its repeats
     * (results/h200/latency/partitions/, README there). */
    static const mp_lat_partitions h200 = {
        .near_hit = {279.40, 269.18, 292.08},
        .copy_hit = {285.16, 275.08, 297.65},
        .far_hit = {440.645, 430.31, 453.07},
        .dram_near = {612.98, 599.52, 627.47},
        .dram_far = {757.60, 747.06, 770.86},
        .repeat = 4.71,
        .tlb_cycles = 9.83,
    };
    /* one partition and the TLB reach: the capacities' own figures */
    mp_lat_caps c;
    mp_lat_caps_h200(&c);
    *p = h200;
    p->half_bytes = c.l2_reach_bytes;
    p->tlb_reach_bytes = c.tlb_reach_bytes;
}

/* The three regimes' values with every figure's least (hi = 0) or
 * greatest (hi = 1). */
static double regime(const mp_lat_partitions *p, int which, int hi)
{
#define PICK(s) (hi ? (s).hi : (s).lo)
    switch (which) {
    case 0: return (PICK(p->near_hit) + PICK(p->copy_hit)) / 2;
    case 1: return (PICK(p->dram_near) + PICK(p->far_hit)) / 2;
    default: return (PICK(p->dram_near) + PICK(p->dram_far)) / 2;
    }
#undef PICK
}

int mp_lat_cycles(const mp_lat_partitions *p, long long footprint,
                  long long stride, double *lo, double *hi)
{
    if (stride < MP_LAT_LINE_BYTES || footprint < MIB)
        return -1;
    long long f = mp_lat_cached_bytes(footprint, stride);
    long long h = p->half_bytes, l2 = 2 * p->half_bytes;
    int first, last;   /* the regimes the footprint may be in */
    if (10 * f <= 9 * h)
        first = last = 0;
    else if (10 * f < 11 * h)
        first = 0, last = 1;
    else if (10 * f <= 9 * l2)
        first = last = 1;
    else if (10 * f < 11 * l2)
        first = 1, last = 2;
    else
        first = last = 2;
    double a = regime(p, first, 0), b = regime(p, last, 0);
    double c = regime(p, first, 1), d = regime(p, last, 1);
    *lo = (a < b ? a : b) - p->repeat;
    *hi = (c > d ? c : d) + p->repeat;
    if (p->tlb_reach_bytes > 0 && footprint > p->tlb_reach_bytes) {
        if (footprint >= 4 * p->tlb_reach_bytes)
            *lo += p->tlb_cycles;
        *hi += p->tlb_cycles;
    }
    return 0;
}
