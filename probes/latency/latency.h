/*
 * latency.h - the C side of the latency probe's CUDA launcher.
 *
 * Kernels (pointer chases in global, shared and constant memory) live in
 * latency.cu; parameters, the chain, checks and verification are plain C
 * in latency.c, the level model in model/latency_model.c.
 */
#ifndef MP_PROBES_LATENCY_H
#define MP_PROBES_LATENCY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Cycle counts kept per launch (launch k writes slot k % MP_LAT_RING). */
#define MP_LAT_RING 256
/* Bytes of the __constant__ array a constant chase reads. */
#define MP_LAT_CONST_BYTES 65536
/* Threads that copy the chain into shared memory (one of them chases). */
#define MP_LAT_COPY_THREADS 256

typedef struct {
    int space;                   /* mp_lat_space */
    int cg;                      /* global: 1 = ld.global.cg (L2 only) */
    const unsigned *image;       /* device, shared chase: the chain as
                                    byte offsets, copied into shared */
    unsigned long long footprint;  /* bytes of the chased array */
    /* device: where the chase stands between launches: a pointer into the
     * array (global) or a byte offset (shared, constant); each launch
     * continues from it and leaves its last element there. */
    unsigned long long *cursor;
    long long *cycles;           /* device: MP_LAT_RING clock64 counts */
    unsigned launch_index;       /* which ring slot this launch writes */
    int warm;                    /* untimed dependent loads first */
    int loads;                   /* timed dependent loads, a multiple of 8 */
} mp_lat_launch;

/* cudaMemcpyToSymbol into the constant array: cudaError_t. */
int mp_lat_const_fill(const void *host, unsigned long bytes);
/* Prepares the kernel for this launch (shared bytes, L1 carve-out):
 * cudaError_t. */
int mp_lat_prepare(const mp_lat_launch *l);
/* Launches the chase once on the default stream: cudaError_t. */
int mp_lat_launch_kernel(const mp_lat_launch *l);

#ifdef __cplusplus
}
#endif

#endif
