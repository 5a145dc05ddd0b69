/*
 * coalesce.h - the C side of the global-memory coalescing probe's CUDA
 * launcher, and the values the kernels and the CPU reference share.
 *
 * Kernels live in coalesce.cu; everything else about the probe
 * (parameters, checks, prediction, verification) is plain C in coalesce.c.
 */
#ifndef MP_PROBES_COALESCE_H
#define MP_PROBES_COALESCE_H

#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one probed window's alignment: offsets count from a multiple. */
#define MP_COALESCE_WINDOW_ALIGN 256u

typedef struct {
    int layout;                /* mp_layout (model/sector_model.h) */
    int threads, blocks, iterations;
    unsigned shared_bytes;     /* dynamic shared memory per block */

    /* layout == pattern: lane l of global warp w, iteration i, accesses
     * `width` bytes at array + window(i, w) * window_bytes + lane_offset[l]
     * with window(i, w) = (w + i * warps) mod nwindows. */
    int width;                 /* 4, 8 or 16 bytes */
    int is_store;
    int cg;                    /* loads: ld.global.cg (L2 only) */
    unsigned lane_offset[32];  /* offset + pattern offset, bytes */
    unsigned window_bytes;     /* multiple of MP_COALESCE_WINDOW_ALIGN */
    unsigned nwindows;
    unsigned window_step;      /* warps mod nwindows */
    unsigned *array;           /* device: nwindows * window_bytes */
    unsigned *out;             /* device: loads leave one word per thread */

    /* Layouts: iteration i of global thread t handles element
     * (i mod slots) * threads * blocks + t. */
    unsigned slots;
    float *x, *y, *z;          /* soa: three arrays */
    void *data;                /* aos12, aos16, staged: the structs */
    float *result;             /* one float per element */
} mp_coalesce_launch;

/* The value of array word w before a launch (a hash: no two neighbouring
 * words alike, and not linear, so a load from a wrong window or lane does
 * not cancel out in a thread's sum). */
static inline MP_HD unsigned mp_coalesce_word_value(unsigned w)
{
    w ^= w >> 16;
    w *= 0x85ebca6bu;
    w ^= w >> 13;
    w *= 0xc2b2ae35u;
    w ^= w >> 16;
    return w + 0x9e3779b9u;
}

/* What a store writes to word w: never the value it held before. */
static inline MP_HD unsigned mp_coalesce_store_value(unsigned w)
{
    return ~mp_coalesce_word_value(w);
}

/* Float k of the layouts' input, laid out as x0 y0 z0 x1 y1 z1 ...: a
 * multiple of 1/1024 below 4096, exact in a float. */
static inline MP_HD float mp_coalesce_input(unsigned k)
{
    return (float)(mp_coalesce_word_value(k) >> 20) * (1.0f / 1024.0f);
}

/* Active blocks per SM for this configuration. cudaError_t. */
int mp_coalesce_occupancy(const mp_coalesce_launch *l, int *blocks_per_sm);
/* Launches the kernel once on the default stream. cudaError_t. */
int mp_coalesce_launch_kernel(const mp_coalesce_launch *l);

#ifdef __cplusplus
}
#endif

#endif
