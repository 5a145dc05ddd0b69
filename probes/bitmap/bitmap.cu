/*
 * bitmap.cu - the seeds' bitmap kernel (see bitmap.h) in its three layouts,
 * and the extern "C" launcher.
 *
 * The body is the seed's (seed 004, main2.cu), with the shared array's
 * indexing as the layout says, and nothing added: the seed's kernel has no
 * timing code, so neither has this one (it is timed from outside, with CUDA
 * events). An earlier version stamped clock64 in thread (0, 0): with the
 * stamps ncu counted 8.11 load wavefronts per LDS for the seed layout, on
 * the kernel as written 8.44 (H200, scripts/seed-compare.sh). Each thread
 * issues one STS and one LDS; the counters of the two are read separately.
 */
#include <cuda_runtime.h>
#include <math.h>

#include "bitmap.h"

template <int LAYOUT>
__global__ void bitmap_kernel(unsigned char *ptr)
{
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
}

extern "C" int mp_bitmap_launch_kernel(const mp_bitmap_launch *l)
{
    dim3 blocks(l->dim / MP_BITMAP_TILE, l->dim / MP_BITMAP_TILE);
    dim3 threads(MP_BITMAP_TILE, MP_BITMAP_TILE);
    switch (l->layout) {
    case MP_BITMAP_SEED:
        bitmap_kernel<MP_BITMAP_SEED><<<blocks, threads>>>(l->image);
        break;
    case MP_BITMAP_YX:
        bitmap_kernel<MP_BITMAP_YX><<<blocks, threads>>>(l->image);
        break;
    case MP_BITMAP_PAD:
        bitmap_kernel<MP_BITMAP_PAD><<<blocks, threads>>>(l->image);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
