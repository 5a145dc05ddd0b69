/*
 * async.h - the C side of the async-copy probe's CUDA launcher.
 *
 * Kernels live in async.cu; parameters, checks, prediction and
 * verification are plain C in async.c, the model in probes/async/async_model.c.
 */
#ifndef MP_PROBES_ASYNC_H
#define MP_PROBES_ASYNC_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int method;                /* mp_async_method */
    int width;                 /* bytes per thread copy: 4, 8, 16 */
    int cg;                    /* cp.async.cg / ld.global.cg */
    int swizzle;               /* tensor: 0, 32, 64, 128 */
    int tile_bytes;
    long long tiles;           /* tiles in the source array */
    long long visits;          /* tile copies per launch: tiles x passes */
    int threads, blocks;
    const unsigned *src;       /* device: the source array */
    unsigned *sums;            /* device: one checksum word per thread */
    unsigned *dump;            /* device: each block's last tile, raw */
    long long *clocks;         /* device: 2 x blocks clock64 stamps */
    /* tensor: the CUtensorMap (128 bytes, opaque to C), made by
     * mp_async_encode_tensor_map; the launcher copies it into an aligned
     * CUtensorMap. */
    unsigned long long tensor_map[16];
    /* replay (--offsets): one cp.async a warp per iteration, lane i from
     * src + lane_src[i] + iteration x step into its warp's region of
     * region_bytes at lane_dst[i]; a negative lane_dst: no copy; a
     * negative lane_src: zero fill (reads nothing). sums: each thread's
     * destination words, read back after the last copy. */
    int replay;
    long long lane_dst[32], lane_src[32];
    long long step, iterations;
    int region_bytes;
} mp_async_launch;

/* Dynamic shared memory one block of this configuration asks for: the
 * tile and 1024 bytes to align it (the 128-byte swizzle's period). */
int mp_async_shared_bytes(const mp_async_launch *l);
/* Fills l->tensor_map for l->src (bytes / row bytes rows of row bytes,
 * boxes of mp_async_box_rows rows, l->swizzle) through the driver's
 * cuTensorMapEncodeTiled (found with cudaGetDriverEntryPointByVersion, so
 * memprobe needs no -lcuda). Returns 0, or -1 with a reason in why. */
int mp_async_encode_tensor_map(mp_async_launch *l, long long bytes,
                               char *why, unsigned long whylen);
/* Active blocks per SM for this configuration. cudaError_t. */
int mp_async_occupancy(const mp_async_launch *l, int *blocks_per_sm);
/* Launches the kernel once on the default stream. cudaError_t. */
int mp_async_launch_kernel(const mp_async_launch *l);

#ifdef __cplusplus
}
#endif

#endif
