/*
 * reduce.h - the block-reduction probe: its CUDA launcher (reduce.cu), the
 * inputs the kernels and the CPU reference share, and the exact reference
 * sums (reduce.c). The variants, the shared-memory model and the float
 * rounding bound are in probes/reduce/reduce_model.h; docs/reduce.md explains it
 * all.
 *
 * Every variant starts the same way, like the seeds: thread t of the grid
 * (G = blocks x threads threads) adds the terms t, t + G, t + 2G, ... below
 * n into a register. Then the variant combines the partials: on the host
 * (host-partials), in shared memory (thread0-serial, the trees), with warp
 * shuffles (warp-shuffle), or with shuffles and one global atomicAdd per
 * block (atomic). The kernel leaves one 4-byte value per thread
 * (host-partials), one per block, or one per launch (atomic) in `out`.
 */
#ifndef MP_PROBES_REDUCE_H
#define MP_PROBES_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "reduce_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int variant;          /* MP_RED_* variant */
    int workload;         /* MP_RED_CUBES or MP_RED_DOT */
    int threads, blocks;
    unsigned n;           /* elements */
    const void *x;        /* device: cubes int[n]; dot a = float[n] */
    const void *y;        /* device: dot b = float[n]; NULL for cubes */
    void *out;            /* device, 4-byte values: blocks x threads
                             (host-partials), blocks, or 2 (atomic) */
    int parity;           /* atomic: the launch adds into out[parity] and
                             zeroes out[1 - parity] for the next one */
    long long *clocks;    /* device: 2 x blocks clock64 stamps */
} mp_red_launch;

/* Blocks of this kernel that fit on one SM. cudaError_t. */
int mp_red_occupancy(const mp_red_launch *l, int *blocks_per_sm);
/* One launch on the default stream. cudaError_t. */
int mp_red_launch_kernel(const mp_red_launch *l);

/* ---- inputs and the exact reference (reduce.c; no GPU) --------------- */

/* Element i of the inputs, from a fixed-seed hash of i (so any chunk can
 * be generated on its own): the cubes input in 0..9, and the dot inputs as
 * 24-bit integers m, the float being m * 2^-24 in [0, 1) (exact). */
int mp_red_cube_input(unsigned long long i);
uint32_t mp_red_dot_mantissa(unsigned long long i, int which /* 0 a, 1 b */);

/* The exact sum of the terms seen so far. Cubes: sum of x^3 (at most
 * 729 x 2^30 < 2^40). Dot: sum of ma x mb, the products of the mantissas,
 * each exact in 48 bits (at most 2^78: 128 bits); the dot product is that
 * times 2^-48, and as every term is >= 0 it is also the sum of the terms'
 * absolute values. */
typedef struct {
    uint64_t cubes;
    unsigned __int128 dot;
} mp_red_sum;

/* Writes elements first .. first + count - 1 of the workload's inputs into
 * x (cubes: int; dot: float a) and y (dot: float b; unused for cubes), and
 * adds their terms to *sum. */
void mp_red_fill(int workload, unsigned long long first, size_t count,
                 void *x, void *y, mp_red_sum *sum);

/* The dot sum as a double: exact * 2^-48, rounded once. */
double mp_red_dot_value(const mp_red_sum *sum);

#ifdef __cplusplus
}
#endif

#endif
