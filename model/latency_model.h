/*
 * latency_model.h - the latency probe's model: which level of the memory
 * hierarchy serves a pointer chase of a given footprint and stride, from
 * the device's capacities, and the chain the chase follows (built on the
 * host, so the CPU can walk the same chain the GPU walks).
 *
 * The model is the level only. It knows capacities, not latencies: the
 * cycles each level takes are what the probe measures.
 */
#ifndef MP_LATENCY_MODEL_H
#define MP_LATENCY_MODEL_H

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
} mp_lat_caps;

/* The H200's (GH100, sm_90): 256 KiB unified L1/shared per SM, 60 MiB of
 * L2 (62914560 bytes, results/h200/device.txt). */
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

/* The level the model expects for a chase: shared and constant chases are
 * their own level; a global chase is L1 if its cached bytes fit the L1
 * (never with cg, which bypasses L1), else L2 if they fit the L2, else
 * device memory. */
mp_level mp_lat_level(const mp_lat_caps *c, mp_lat_space space, int cg,
                      long long footprint, long long stride);

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

#endif
