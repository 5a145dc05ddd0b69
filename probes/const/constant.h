/*
 * constant.h - the C side of the constant-memory probe's CUDA launcher.
 *
 * Kernels and the __constant__ array live in constant.cu; parameters,
 * checks, prediction and verification are plain C in constant.c.
 */
#ifndef MP_PROBES_CONSTANT_H
#define MP_PROBES_CONSTANT_H

#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the probe's loads read from. */
enum { MP_CONST_SOURCE_CONSTANT, MP_CONST_SOURCE_GLOBAL,
       MP_CONST_SOURCE_LDG };

typedef struct {
    int source;                /* MP_CONST_SOURCE_* */
    const unsigned *lane_words; /* device: word index of each lane (32) */
    const unsigned *global;    /* device: copy of the constant bank */
    unsigned rot_mask;         /* 0: see constant.cu */
    int threads, blocks, iterations;
    unsigned *out;             /* device: one word per thread */
    long long *clocks;         /* device: 2 x blocks clock64 stamps */
} mp_const_launch;

/* The value of constant-bank word w (and of the global copy's). */
static inline MP_HD unsigned mp_const_word_value(unsigned w)
{
    return w * 2246822519u + 374761393u;
}

/* sizeof the __constant__ array, in bytes. */
unsigned long mp_const_symbol_bytes(void);
/* cudaMemcpyToSymbol(bank, host, bytes): cudaError_t. Bytes beyond the
 * array (more than mp_const_symbol_bytes) are refused by CUDA. */
int mp_const_fill(const void *host, unsigned long bytes);
/* Active blocks per SM for this configuration. cudaError_t. */
int mp_const_occupancy(const mp_const_launch *l, int *blocks_per_sm);
/* Launches the kernel once on the default stream. cudaError_t. */
int mp_const_launch_kernel(const mp_const_launch *l);

#ifdef __cplusplus
}
#endif

#endif
