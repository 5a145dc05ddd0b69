/*
 * bitmap.cu - the seeds' bitmap kernel (see bitmap.h) in its three layouts,
 * and the extern "C" launcher.
 *
 * The body is the seed's, with the shared array's indexing as the layout
 * says. Thread (0, 0) of each block stamps clock64 at entry and after its
 * pixel store (the seeds' in-kernel timing, per block). Each thread issues
 * one STS and one LDS; the counters of the two are read separately.
 */
#include <cuda_runtime.h>
#include <math.h>

#include "bitmap.h"

template <int LAYOUT>
__global__ void bitmap_kernel(unsigned char *ptr, long long *clocks)
{
    const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0)
        clocks[block] = clock64();
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;
    int idx = x + y * gridDim.x * blockDim.x;

    __shared__ float shared[16][LAYOUT == MP_BITMAP_PAD ? 17 : 16];
    float v = mp_bitmap_value(x, y);
    if (LAYOUT == MP_BITMAP_YX)
        shared[threadIdx.y][threadIdx.x] = v;
    else
        shared[threadIdx.x][threadIdx.y] = v;

    __syncthreads();

    if (LAYOUT == MP_BITMAP_YX)
        ptr[idx] = shared[15 - threadIdx.y][15 - threadIdx.x];
    else
        ptr[idx] = shared[15 - threadIdx.x][15 - threadIdx.y];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        clocks[gridDim.x * gridDim.y + block] = clock64();
}

extern "C" int mp_bitmap_launch_kernel(const mp_bitmap_launch *l)
{
    dim3 blocks(l->dim / MP_BITMAP_TILE, l->dim / MP_BITMAP_TILE);
    dim3 threads(MP_BITMAP_TILE, MP_BITMAP_TILE);
    switch (l->layout) {
    case MP_BITMAP_SEED:
        bitmap_kernel<MP_BITMAP_SEED><<<blocks, threads>>>(l->image, l->clocks);
        break;
    case MP_BITMAP_YX:
        bitmap_kernel<MP_BITMAP_YX><<<blocks, threads>>>(l->image, l->clocks);
        break;
    case MP_BITMAP_PAD:
        bitmap_kernel<MP_BITMAP_PAD><<<blocks, threads>>>(l->image, l->clocks);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
