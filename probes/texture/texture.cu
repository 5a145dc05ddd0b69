/*
 * texture.cu - texture probe: kernels and the extern "C" launcher.
 *
 * One kernel per access pattern, templated on the source of the reads:
 *   tex1d   tex1Dfetch on a texture object over the linear grid (TEX pipe)
 *   tex2d   tex2D on a texture object over a cudaArray (tiled layout,
 *           point sampling, clamp addressing)
 *   global  plain loads of the linear grid (ld.global, LSU pipe)
 *   ldg     __ldg loads of the linear grid (ld.global.nc, LSU pipe)
 * The seeds' texture references (texture<>, cudaBindTexture) were removed
 * in CUDA 12; texture objects replace them.
 *
 * Borders are clamped: tex2d by the texture unit (cudaAddressModeClamp,
 * the kernel passes the unclamped neighbour), the linear sources by
 * min/max in the kernel (tex1Dfetch on linear memory has no address
 * modes). Both read the same texel. Every output is a sum of loads in a
 * fixed order; texture.c checks each one against the CPU.
 *
 * Everything but the launcher sits in an anonymous namespace, so that no
 * name can collide with another probe's kernels at link time.
 */
#include <cuda_runtime.h>

#include "const_model.h"
#include "texture.h"

namespace {

/* Reads texel (x, y) of the n x n grid. */
template <int S> struct reader;

template <> struct reader<MP_TEX_SOURCE_TEX1D> {
    static __device__ __forceinline__ float at(const float *,
                                               cudaTextureObject_t t, int n,
                                               int x, int y)
    {
        return tex1Dfetch<float>(t, y * n + x);
    }
};

template <> struct reader<MP_TEX_SOURCE_TEX2D> {
    static __device__ __forceinline__ float at(const float *,
                                               cudaTextureObject_t t, int,
                                               int x, int y)
    {
        /* Unnormalised coordinates: texel centres are at i + 0.5. */
        return tex2D<float>(t, (float)x + 0.5f, (float)y + 0.5f);
    }
};

template <> struct reader<MP_TEX_SOURCE_GLOBAL> {
    static __device__ __forceinline__ float at(const float *in,
                                               cudaTextureObject_t, int n,
                                               int x, int y)
    {
        return in[y * n + x];
    }
};

template <> struct reader<MP_TEX_SOURCE_LDG> {
    static __device__ __forceinline__ float at(const float *in,
                                               cudaTextureObject_t, int n,
                                               int x, int y)
    {
        return __ldg(in + y * n + x);
    }
};

/* out[y][x] = c + left + right + up + down, blocks of 32 x 8 threads. */
template <int S>
__global__ void stencil(const float *in, cudaTextureObject_t t, int n,
                        float *out)
{
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 8 + threadIdx.y;
    int xl = x - 1, xr = x + 1, yu = y - 1, yd = y + 1;
    if (S != MP_TEX_SOURCE_TEX2D) {
        xl = max(xl, 0);
        xr = min(xr, n - 1);
        yu = max(yu, 0);
        yd = min(yd, n - 1);
    }
    float s = reader<S>::at(in, t, n, x, y);
    s += reader<S>::at(in, t, n, xl, y);
    s += reader<S>::at(in, t, n, xr, y);
    s += reader<S>::at(in, t, n, x, yu);
    s += reader<S>::at(in, t, n, x, yd);
    out[y * n + x] = s;
}

/* The two walks' one body. Thread t = blockIdx.x * blockDim.x +
 * threadIdx.x of segment seg = blockIdx.y sums MP_TEX_WALK texels of line
 * t, from seg * MP_TEX_WALK on, and writes one output. ALONG_ROW: the
 * thread walks along row t (column_walk), else down column t (row_walk). */
template <int S, bool ALONG_ROW>
__device__ __forceinline__ void walk(const float *in, cudaTextureObject_t t,
                                     int n, float *out)
{
    const int line = blockIdx.x * blockDim.x + threadIdx.x;
    const int seg = blockIdx.y;
    if (line >= n)
        return;
    float s = 0.0f;
#pragma unroll 8
    for (int k = 0; k < MP_TEX_WALK; k++) {
        const int along = seg * MP_TEX_WALK + k;
        s += ALONG_ROW ? reader<S>::at(in, t, n, along, line)
                       : reader<S>::at(in, t, n, line, along);
    }
    out[ALONG_ROW ? line * (n / MP_TEX_WALK) + seg : seg * n + line] = s;
}

/* Lanes on consecutive rows: one warp-level load reads 32 rows of one
 * column; thread (y, seg) sums its row's columns seg*WALK .. +WALK-1 into
 * out[y][seg] (n x n/WALK outputs). */
template <int S>
__global__ void column_walk(const float *in, cudaTextureObject_t t, int n,
                            float *out)
{
    walk<S, true>(in, t, n, out);
}

/* Lanes on consecutive columns: one warp-level load reads 32 columns of
 * one row; thread (x, seg) sums its column's rows seg*WALK .. +WALK-1 into
 * out[seg][x] (n/WALK x n outputs). */
template <int S>
__global__ void row_walk(const float *in, cudaTextureObject_t t, int n,
                         float *out)
{
    walk<S, false>(in, t, n, out);
}

typedef void (*kernel_fn)(const float *, cudaTextureObject_t, int, float *);

template <int S> kernel_fn pick_access(int access)
{
    switch (access) {
    case MP_TEX_STENCIL: return stencil<S>;
    case MP_TEX_COLUMN: return column_walk<S>;
    case MP_TEX_ROW: return row_walk<S>;
    }
    return 0;
}

kernel_fn pick(int source, int access)
{
    switch (source) {
    case MP_TEX_SOURCE_TEX1D: return pick_access<MP_TEX_SOURCE_TEX1D>(access);
    case MP_TEX_SOURCE_TEX2D: return pick_access<MP_TEX_SOURCE_TEX2D>(access);
    case MP_TEX_SOURCE_GLOBAL:
        return pick_access<MP_TEX_SOURCE_GLOBAL>(access);
    case MP_TEX_SOURCE_LDG: return pick_access<MP_TEX_SOURCE_LDG>(access);
    }
    return 0;
}

} // namespace

extern "C" int mp_tex_launch_kernel(const mp_tex_launch *l)
{
    kernel_fn k = pick(l->source, l->access);
    if (!k)
        return (int)cudaErrorInvalidValue;
    int bx, by;
    mp_tex_grid(l, &bx, &by);
    dim3 block = l->access == MP_TEX_STENCIL ? dim3(32, MP_TEX_THREADS / 32)
                                             : dim3(MP_TEX_THREADS);
    k<<<dim3(bx, by), block>>>(l->in, (cudaTextureObject_t)l->tex, l->n,
                               l->out);
    return (int)cudaGetLastError();
}
