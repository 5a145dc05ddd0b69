/*
 * launch.h - the launch shape every probe family shares, so that a family
 * writes only what is its own: how many blocks (the user's --blocks, or
 * one full wave from the occupancy API), the per-thread output buffer and
 * its host copy, the seeds' clock64 stamps, and their release and frees.
 *
 * The device pointers stay where the family's .cu launcher reads them (its
 * launch struct: l.out, l.clocks); the shape keeps their addresses, the
 * host copies and the sizes. A family's state holds one mp_launch_shape:
 *
 *   setup     MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev,
 *                              mp_X_occupancy, &s->l);
 *             mp_launch_alloc(&s->shape, s->l.blocks,
 *                             (void **)&s->l.out, bytes, &s->l.clocks);
 *   verify    cudaDeviceSynchronize, mp_launch_fetch, compare
 *             s->shape.host_out with the CPU reference, mp_launch_poison
 *             (or all in one, mp_launch_verify_words, where each thread
 *             leaves one word that repeats from warp to warp or block to
 *             block)
 *   clock64   mp_launch_clock64
 *   release   mp_launch_release (device memory; host copies stay)
 *   teardown  mp_launch_free (both), then the state
 *
 * The row columns every family fills the same way are in probe.h
 * (mp_row_set_params, mp_row_set_launch, mp_row_set_bandwidth,
 * mp_row_set_per_request).
 */
#ifndef MP_LAUNCH_H
#define MP_LAUNCH_H

#include <stddef.h>

#include "check.h"
#include "probe.h"

typedef struct {
    int blocks;               /* of the launch (for the clock64 stamps) */
    void **out;               /* &l.out of the family's launch struct */
    size_t out_bytes;         /* of the device output and its host copy */
    void *host_out;           /* host copy of the output (out_bytes) */
    long long **clocks;       /* &l.clocks, or NULL: no clock64 stamps */
    long long *host_clocks;   /* 2 x blocks */
} mp_launch_shape;

/* Sets BLOCKS (an int lvalue) to GIVEN when it is positive, else to one
 * full wave of the kernel (mp_full_wave): OCCUPANCY(LAUNCH, &per_sm) is
 * the family's extern "C" occupancy query, checked by CHECK_CUDA, asked
 * only when it is needed. */
#define MP_LAUNCH_BLOCKS(blocks, given, dev, occupancy, launch)      \
    do {                                                             \
        if ((given) > 0) {                                           \
            (blocks) = (int)(given);                                 \
        } else {                                                     \
            int per_sm_ = 0;                                         \
            CHECK_CUDA(occupancy((launch), &per_sm_));               \
            (blocks) = mp_full_wave((dev), per_sm_);                 \
        }                                                            \
    } while (0)

/* Allocates the device output (*out, out_bytes; none when out is NULL or
 * out_bytes 0) with its host copy, and, when clocks is not NULL, the
 * clock64 stamps of `blocks` blocks with theirs. The output's contents are
 * left as the allocator gives them: poison them if verify needs it. */
void mp_launch_alloc(mp_launch_shape *sh, int blocks, void **out,
                     size_t out_bytes, long long **clocks);

/* Copies the device output into sh->host_out (the caller synchronises
 * first where the launch may still run). */
void mp_launch_fetch(mp_launch_shape *sh);

/* Fills the output with 0xff bytes, through the host copy (a copy, not
 * cudaMemset, which may run as a kernel inside a profiled batch), so that
 * the next launch must write it again. */
void mp_launch_poison(mp_launch_shape *sh);

/* The common verify of a one-word-per-thread output that repeats with
 * period nwant (32: it depends on the lane only; the block size: on the
 * thread of the block): waits for the launch, fetches the output, and
 * compares thread t's word with want[t % nwant]. On a mismatch -1 with
 * "thread T (block B) left X, the CPU reference says Y" in err (blocks of
 * `threads` threads); else 0, with the output poisoned for the next
 * launch. */
int mp_launch_verify_words(mp_launch_shape *sh, int threads,
                           const unsigned *want, size_t nwant, char *err,
                           size_t errlen);

/* The clock64 figures of the last launch (probe.h's clock64). */
void mp_launch_clock64(mp_launch_shape *sh, long long *span,
                       double *block_median);

/* Frees the device output and stamps and clears the launch struct's
 * pointers; the host copies stay (for derive). Safe to call twice. */
void mp_launch_release(mp_launch_shape *sh);

/* mp_launch_release, then frees the host copies. Safe to call twice. */
void mp_launch_free(mp_launch_shape *sh);

#endif
