/*
 * transfer.cu - the transfer probe's copy kernel (method=kernel): each
 * thread moves 16-byte words, grid-stride, from src to dst, where either
 * side may be host memory the GPU can address (mapped, managed) or a
 * peer GPU's memory. Loads and stores are plain ld/st.global.v4: the data
 * crosses the link once per launch, nothing is reused, so no cache
 * operator changes what is measured.
 */
#include <cuda_runtime.h>

#include "transfer.h"

__global__ void transfer_copy(uint4 *__restrict__ dst,
                              const uint4 *__restrict__ src, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        dst[i] = src[i];
}

extern "C" int mp_transfer_copy_kernel(void *dst, const void *src,
                                       size_t bytes, int blocks,
                                       void *stream)
{
    transfer_copy<<<blocks, MP_TRANSFER_THREADS, 0, (cudaStream_t)stream>>>(
        (uint4 *)dst, (const uint4 *)src, bytes / sizeof(uint4));
    return (int)cudaGetLastError();
}

extern "C" int mp_transfer_occupancy(int *blocks_per_sm)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, transfer_copy, MP_TRANSFER_THREADS, 0);
}
