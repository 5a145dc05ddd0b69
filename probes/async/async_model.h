/*
 * async_model.h - model of the async-copy probe (probes/async/async.c): what a
 * launch moves from global to shared memory, how many warp-level copy
 * instructions it issues, the shared-store wavefronts they should cost,
 * and where the tensor copy (TMA) puts each element of a swizzled tile.
 * Pure C, no CUDA.
 *
 * The probe copies a `bytes`-byte global array, tile by tile, into one
 * shared tile per block, `passes` times per launch, by one of four methods:
 *
 *   staged   the seeds' way: each thread loads `width` bytes into a
 *            register (LDG) and stores them to shared memory (STS);
 *   cpasync  cp.async of `width` bytes per thread (LDGSTS, sm_80+), .ca or
 *            .cg (.cg only for 16 bytes, as the PTX ISA says);
 *   bulk     one cp.async.bulk of the whole tile by one thread, completed
 *            on an mbarrier (UBLKCP, sm_90);
 *   tensor   cp.async.bulk.tensor.2d of boxes of the tile through a
 *            CUtensorMap (UTMALDG, sm_90), with a swizzle mode.
 *
 * Wavefronts. A warp's STS or LDGSTS of consecutive `width`-byte chunks
 * writes 32 x width contiguous bytes: the ideal is one wavefront per 128
 * bytes (1, 2, 4 for 4, 8, 16 bytes), and the lanes' addresses are
 * conflict-free, so the model predicts the ideal. The bulk and tensor
 * copies write shared memory from the TMA unit, not through the LSU pipe:
 * the model predicts no LSU shared-store wavefronts for them (the GPU run
 * decides; docs/async.md).
 *
 * Swizzle. A tensor map with CU_TENSOR_MAP_SWIZZLE_{32,64,128}B writes the
 * 16-byte chunk c of a box's row into chunk c XOR (row bits): as a function
 * of the byte offset a of the element in the unswizzled tile, with
 * B = 1, 2, 3 for 32, 64, 128 bytes (CUTLASS's Swizzle<B,4,3>):
 *
 *     swizzled(a) = a ^ (((a >> 7) & ((1 << B) - 1)) << 4)
 *
 * i.e. bits 4.. of the address are XORed with bits 7.. (the 128-byte row
 * index inside each 256-, 512- or 1024-byte period). The probe's boxes
 * have rows of `swizzle` bytes (128 for none) and start at 1024-byte
 * aligned shared addresses, so the formula holds on the tile offset.
 */
#ifndef MP_ASYNC_MODEL_H
#define MP_ASYNC_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MP_ASYNC_STAGED, MP_ASYNC_CPASYNC, MP_ASYNC_BULK,
               MP_ASYNC_TENSOR, MP_ASYNC_METHODS } mp_async_method;

/* The value of word k of the probe's source array. */
static inline unsigned mp_async_word(unsigned long long k)
{
    return (unsigned)k * 2654435761u + 0x9e3779b9u;
}

/* Byte offset in shared memory of the byte at offset `a` of a tile copied
 * with swizzle mode `swizzle` (0 = none, 32, 64 or 128 bytes); a itself
 * for 0 and any other value. */
long long mp_async_swizzle(long long a, int swizzle);

/* Bytes in one row of a tensor-map box: the swizzle span (32, 64, 128),
 * or 128 without swizzle. */
int mp_async_row_bytes(int swizzle);
/* Rows per box: tile / row bytes, at most 256 (the TMA's box limit). */
int mp_async_box_rows(long long tile_bytes, int swizzle);

typedef struct {
    double bytes_moved;    /* bytes * passes per launch */
    double tile_copies;    /* tiles copied per launch (bytes / tile x passes) */
    double requests;       /* warp-level copy instructions per launch:
                              STS or LDGSTS, UBLKCP, or UTMALDG */
    double wavefronts_per_request;        /* LSU shared-store wavefronts */
    double ideal_wavefronts_per_request;
    double boxes_per_tile; /* tensor: TMA boxes per tile; else 0 */
} mp_async_prediction;

/* The model for one configuration (arguments as the probe's parameters;
 * width 4, 8 or 16; tile_bytes a power of two dividing bytes). */
void mp_async_predict(int method, int width, int swizzle,
                      long long tile_bytes, long long bytes, long long passes,
                      mp_async_prediction *out);

#ifdef __cplusplus
}
#endif

#endif
