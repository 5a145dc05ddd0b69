/*
 * bank.h - the C side of the shared-memory bank probe's CUDA launcher.
 *
 * Kernels live in bank.cu; everything else about the probe (parameters,
 * checks, prediction, verification) is plain C in bank.c.
 */
#ifndef MP_PROBES_BANK_H
#define MP_PROBES_BANK_H

#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int width;                 /* 4, 8 or 16 bytes */
    int matrices;              /* 0: LDS/STS; 1, 2, 4: LDSM/STSM .xN */
    int trans;                 /* LDSM/STSM: .trans */
    int is_store;
    unsigned offset[32];       /* byte offset of each lane in the tile */
    unsigned *thread_offset;   /* device, or NULL: one byte offset per
                                  thread of a block (2D blocks), replacing
                                  offset[] */
    unsigned tile_bytes;       /* dynamic shared memory per block */
    int threads, blocks, iterations;
    unsigned *out;             /* device: one word per thread */
    long long *clocks;         /* device: 2 x blocks clock64 stamps */
} mp_bank_launch;

/* The value stored in shared word w (loads) or written to it (stores). */
static inline MP_HD unsigned mp_bank_word_value(unsigned w)
{
    return w * 2654435761u + 12345u;
}

/* The value lane `lane` stores from register j with stmatrix. */
static inline MP_HD unsigned mp_bank_stsm_value(int lane, int j)
{
    return mp_bank_word_value(0x10000u + 4u * (unsigned)lane + (unsigned)j);
}

/* Allows the kernel for l's width and op up to smem_optin bytes of dynamic
 * shared memory. cudaError_t. */
int mp_bank_configure(const mp_bank_launch *l, int smem_optin);
/* Active blocks per SM for this configuration. cudaError_t. */
int mp_bank_occupancy(const mp_bank_launch *l, int *blocks_per_sm);
/* Launches the kernel once on the default stream. cudaError_t. */
int mp_bank_launch_kernel(const mp_bank_launch *l);

#ifdef __cplusplus
}
#endif

#endif
