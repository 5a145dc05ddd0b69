/*
 * transfer.h - the C side of the transfer probe's CUDA launcher: a copy
 * kernel that reads and writes across a link (mapped or managed host
 * memory, a peer GPU's memory) for method=kernel. The copies themselves
 * (cudaMemcpyAsync, cudaMemcpyPeerAsync) are called from transfer.c.
 */
#ifndef MP_PROBES_TRANSFER_H
#define MP_PROBES_TRANSFER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the copy kernel. */
#define MP_TRANSFER_THREADS 512

/* Copies `bytes` (a multiple of 16) from src to dst with 16-byte loads and
 * stores, grid-stride, `blocks` blocks, on `stream` (a cudaStream_t, NULL
 * = the legacy default stream) of the current device. cudaError_t. */
int mp_transfer_copy_kernel(void *dst, const void *src, size_t bytes,
                            int blocks, void *stream);
/* Resident blocks per SM of the copy kernel. cudaError_t. */
int mp_transfer_occupancy(int *blocks_per_sm);

#ifdef __cplusplus
}
#endif

#endif
