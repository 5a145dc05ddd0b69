/*
 * latency_model.h - the latency probe's model: which level of the memory
 * hierarchy serves a pointer chase of a given footprint and stride, from
 * the device's capacities, and the chain the chase follows (built on the
 * host, so the CPU can walk the same chain the GPU walks).
 *
 * The level model knows capacities, not latencies. Beside it, the
 * partition model (mp_lat_cycles) gives the cycles per load of a chase
 * beyond the L1 on a two-partition L2 from what `memprobe l2map`
 * measured: hits in the SM's own half, in its copies of the other half's
 * lines and in the far partition, device memory near and far, the TLB.
 */
#ifndef MP_LATENCY_MODEL_H
#define MP_LATENCY_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of one L1/L2 cache line and one sector. */
#define MP_LAT_LINE_BYTES 128
#define MP_LAT_SECTOR_BYTES 32

/* Where the chased array lives. */
typedef enum { MP_LAT_SPACE_GLOBAL, MP_LAT_SPACE_SHARED,
               MP_LAT_SPACE_CONSTANT } mp_lat_space;

/* The level a chase is served from. */
typedef enum { MP_LEVEL_L1, MP_LEVEL_L2, MP_LEVEL_DRAM, MP_LEVEL_SHARED,
               MP_LEVEL_CONSTANT, MP_LEVEL_COUNT } mp_level;

/* Capacities the model compares a chase against. */
typedef struct {
    long long l1_bytes;   /* L1 data cache of one SM (unified L1/shared
                             minus the shared carve-out, which the probe
                             sets to 0 for global chases) */
    long long l2_bytes;   /* the whole L2, as cudaDevAttrL2CacheSize says */
    long long l2_reach_bytes;  /* the part of the L2 one SM's chase keeps:
                                  half on chips whose L2 is two partitions
                                  (measured on the H200: the L2 hit rate
                                  falls through 40% between 28 and 32 MiB
                                  of a 60 MiB L2; results/h200/latency/
                                  latency.csv) */
    long long tlb_reach_bytes; /* bytes of 2 MiB pages a chase may touch
                                  before its loads slow (H200: 128 pages
                                  cost nothing, 256 add 4.6 cycles, 512
                                  and more 8-10, measured up to 16384
                                  pages through L2 hits); 0 = unknown.
                                  Beyond it the latency rises, the level
                                  that serves it does not change. */
} mp_lat_caps;

/* The H200's (GH100, sm_90): 256 KiB unified L1/shared per SM, 60 MiB of
 * L2 (62914560 bytes, results/h200/device/device.txt), 30 MiB of it
 * reached from one SM, 256 MiB of TLB reach. */
void mp_lat_caps_h200(mp_lat_caps *c);

/* From a device: the unified L1/shared size of its compute capability
 * (the one figure CUDA does not report; sm_90: 256 KiB) and its L2. An
 * unknown capability gets shared-per-SM + 32 KiB. */
void mp_lat_caps_of(int cc_major, int cc_minor, long long smem_per_sm,
                    long long l2_bytes, mp_lat_caps *c);

/* Bytes one element of the chain takes in `space`: a 64-bit pointer in
 * global memory, a 32-bit address in shared and constant memory. */
int mp_lat_element_bytes(mp_lat_space space);

/* Elements of a chain: footprint / stride (0 when the footprint holds
 * less than one element). */
long long mp_lat_elements(long long footprint, long long stride);

/* Bytes a cache must hold for the chase to hit: the lines the elements
 * touch (several elements per line when stride < line, one line each
 * otherwise). */
long long mp_lat_cached_bytes(long long footprint, long long stride);

/* What the model expects of a chase, in the terms the probe's counters
 * are read in (counter_level: L1 when at least 40% of the global-load
 * sectors hit L1, else L2 when at least 40% of the L2 read sectors hit,
 * else DRAM):
 *   - shared and constant chases are their own level;
 *   - a sequential chase through L1 with a stride under a 32-byte sector
 *     finds 1 - stride/32 of its loads in the sector the previous load
 *     brought: L1 while that is at least 40% (strides up to 19 bytes),
 *     whatever the footprint;
 *   - else L1 if the lines the chase touches fit the L1 (never with cg,
 *     which bypasses it), else L2 if they fit the part of the L2 one SM
 *     reaches (l2_reach_bytes);
 *   - beyond that a sequential chase with a stride up to 38 bytes still
 *     hits L2 for at least 40% of its sectors, because device memory
 *     fills the L2 in 64-byte pieces (two sectors): L2; else DRAM.
 * Within 10% of a capacity (the L1's, the L2 reach) the footprint sits on
 * an edge, where the measured hit rates pass through the 40% threshold:
 * there the model claims no single level. `level` is the one inside the
 * capacity and `other` the one beyond it; away from an edge the two are
 * equal. */
typedef struct {
    mp_level level, other;
} mp_lat_expect;

mp_lat_expect mp_lat_expected(const mp_lat_caps *c, mp_lat_space space,
                              int cg, int random, long long footprint,
                              long long stride);

/* Whether a measured level is what the model expects (either side of an
 * edge). */
int mp_lat_expect_matches(mp_lat_expect e, mp_level measured);

/* The model's level as the model_level column writes it: "L2", or
 * "L1|L2" on an edge. */
void mp_lat_expect_text(mp_lat_expect e, char *buf, size_t len);
/* The same as a constant string ("L2", "L1|L2"), never freed. */
const char *mp_lat_expect_name(mp_lat_expect e);

/* "L1", "L2", "DRAM", "shared", "constant"; NULL out of range. */
const char *mp_level_name(mp_level l);
/* The level called `name`: 0 and *out, or -1. */
int mp_level_from_name(const char *name, mp_level *out);

/* The chain over n elements: next[i] is the element after i, order[k] the
 * element visited k steps after element 0 (order[0] = 0). Sequential
 * (random = 0): i -> i + 1, the last back to 0. Random: one cyclic
 * permutation drawn with Sattolo's algorithm from `seed`, so every element
 * is visited exactly once per cycle and the same seed gives the same
 * chain. Either output may be NULL. Returns 0, or -1 if n < 1 or
 * n > 2^32 - 1 (elements are 32-bit). */
int mp_lat_build_chain(uint32_t *next, uint32_t *order, long long n,
                       int random, uint64_t seed);

/* The seed every chase uses: fixed, so a run can be repeated. */
#define MP_LAT_SEED 0x9e3779b97f4a7c15ull

/* One figure of the L2 map over the SMs: median, least and greatest. */
typedef struct {
    double med, lo, hi;
} mp_lat_span;

/* The L2 map's figures (probes/latency/l2map.h), cycles per load of one
 * thread's ld.global.cg chase, and what follows from them. */
typedef struct {
    mp_lat_span near_hit;   /* a line homed in the SM's half, in the L2 */
    mp_lat_span copy_hit;   /* homed in the other half, copied into ours */
    mp_lat_span far_hit;    /* homed in the other half, only there */
    mp_lat_span dram_near, dram_far;  /* not in the L2 */
    double repeat;          /* the widest spread of one SM's figure over
                               repeated maps */
    long long half_bytes;   /* one partition: half the L2 */
    long long tlb_reach_bytes;  /* the pages a chase may touch before its
                                   loads slow (2 MiB pages, one line each) */
    double tlb_cycles;      /* what four times the reach and more add */
} mp_lat_partitions;

/* The H200's, from results/h200/latency/partitions/l2map.csv. */
void mp_lat_partitions_h200(mp_lat_partitions *p);

/* Cycles per load [*lo, *hi] of a chase with one element per line
 * (stride >= 128 bytes), random or sequential, footprint beyond the L1,
 * on an SM the caller does not choose: half its lines are homed in each
 * half of the L2, so
 *   - footprint <= 0.9 x half_bytes: the lines stay in the SM's partition
 *     (its own and copies): (near_hit + copy_hit) / 2;
 *   - 1.1 x half_bytes .. 0.9 x the L2: the SM's partition cannot keep
 *     them, the far partition keeps its own half: (dram_near + far_hit)
 *     / 2;
 *   - from 1.1 x the L2: (dram_near + dram_far) / 2;
 *   - within 10% of either capacity, both neighbours' bands;
 *   - beyond the TLB reach up to 4 times it, up to tlb_cycles more; from
 *     4 times it, tlb_cycles more.
 * lo takes every figure's least, hi its greatest; both widen by
 * `repeat`. Returns 0, or -1 (nothing written) for a stride under a line
 * or a footprint under 1 MiB. */
int mp_lat_cycles(const mp_lat_partitions *p, long long footprint,
                  long long stride, double *lo, double *hi);

#endif
