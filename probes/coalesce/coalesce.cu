/*
 * coalesce.cu - global-memory coalescing probe: kernels and the extern "C"
 * launcher.
 *
 * Pattern kernels: every iteration, each warp accesses its own window of a
 * large array (window (w + i * warps) mod nwindows, so no two iterations of
 * a warp touch the same bytes unless the array wrapped): nothing can be
 * hoisted out of the loop, and every access is a new request. Lane l
 * accesses window + lane_offset[l] (the configuration's offset plus the
 * group/period/stride pattern, computed on the host by model/pattern.c)
 * with exactly one ld.global / st.global of 32, 64 or 128 bits in inline
 * PTX (.cg for --cache cg). Loads add every word they read into a
 * per-thread sum written at the end; stores write each word's
 * mp_coalesce_store_value, so the CPU can check the whole array.
 *
 * Layout kernels: the seeds' x*x + y*y + z*z over three float arrays, the
 * 12-byte struct vec3d, the __align__(16) one, and the 12-byte one copied
 * through shared memory first. Plain CUDA C as in the seeds (the compiler's
 * choice of instructions is the point), with __fmul_rn/__fadd_rn so that no
 * FMA contraction makes the result differ from the CPU's.
 *
 * No kernel writes anything else to global memory (no clock64 stamps), so
 * the global load/store counters see only the probed accesses and, for
 * pattern loads, the one result word per thread.
 */
#include <cuda_runtime.h>

#include "coalesce.h"
#include "sector_model.h"

struct lane_offsets {
    unsigned off[32];
};

/* Lane's offset without indexing the parameter struct dynamically (which
 * may make the compiler copy it to local memory): 32 selects. */
static __device__ __forceinline__ unsigned my_offset(const lane_offsets &l)
{
    const unsigned lane = threadIdx.x & 31;
    unsigned off = 0;
#pragma unroll
    for (unsigned k = 0; k < 32; k++)
        if (lane == k)
            off = l.off[k];
    return off;
}

/* One load of W bytes (.cg with CG): the sum of the words it read. One
 * access per call; asm volatile keeps every one of them, in order. */
template <int W, bool CG>
__device__ __forceinline__ unsigned global_load(const void *p)
{
    unsigned r[4];
    if (W == 4 && !CG)
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(r[0]) : "l"(p));
    if (W == 4 && CG)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r[0]) : "l"(p));
    if (W == 8 && !CG)
        asm volatile("ld.global.v2.u32 {%0, %1}, [%2];"
                     : "=r"(r[0]), "=r"(r[1]) : "l"(p));
    if (W == 8 && CG)
        asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];"
                     : "=r"(r[0]), "=r"(r[1]) : "l"(p));
    if (W == 16 && !CG)
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "l"(p));
    if (W == 16 && CG)
        asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "l"(p));
    return W == 4 ? r[0] : W == 8 ? r[0] + r[1] : r[0] + r[1] + r[2] + r[3];
}

/* One store of W bytes at p, word w first: each word's
 * mp_coalesce_store_value. */
template <int W>
__device__ __forceinline__ void global_store(void *p, unsigned w)
{
    if (W == 4)
        asm volatile("st.global.u32 [%0], %1;"
                     ::"l"(p), "r"(mp_coalesce_store_value(w)) : "memory");
    if (W == 8)
        asm volatile("st.global.v2.u32 [%0], {%1, %2};"
                     ::"l"(p), "r"(mp_coalesce_store_value(w)),
                     "r"(mp_coalesce_store_value(w + 1)) : "memory");
    if (W == 16)
        asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};"
                     ::"l"(p), "r"(mp_coalesce_store_value(w)),
                     "r"(mp_coalesce_store_value(w + 1)),
                     "r"(mp_coalesce_store_value(w + 2)),
                     "r"(mp_coalesce_store_value(w + 3)) : "memory");
}

template <int W, bool CG>
__global__ void coalesce_load(const unsigned *array, lane_offsets lanes,
                              unsigned window_bytes, unsigned nwindows,
                              unsigned step, int iterations, unsigned *out)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const char *base = (const char *)array + my_offset(lanes);
    unsigned window = (tid / 32) % nwindows;
    unsigned acc = 0;
#pragma unroll 4
    for (int i = 0; i < iterations; i++) {
        acc += global_load<W, CG>(base + (size_t)window * window_bytes);
        window += step;
        if (window >= nwindows)
            window -= nwindows;
    }
    out[tid] = acc;
}

template <int W>
__global__ void coalesce_store(unsigned *array, lane_offsets lanes,
                               unsigned window_bytes, unsigned nwindows,
                               unsigned step, int iterations)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned off = my_offset(lanes);
    unsigned window = (tid / 32) % nwindows;
#pragma unroll 4
    for (int i = 0; i < iterations; i++) {
        size_t byte = (size_t)window * window_bytes + off;
        global_store<W>((char *)array + byte, (unsigned)(byte / 4));
        window += step;
        if (window >= nwindows)
            window -= nwindows;
    }
}

/* ---- layouts ------------------------------------------------------------ */

struct vec3d12 {
    float x, y, z;
};

struct __align__(16) vec3d16 {
    float x, y, z;
};

/* The seeds' x*x + y*y + z*z, rounded step by step like the CPU. */
static __device__ __forceinline__ float norm2(float x, float y, float z)
{
    return __fadd_rn(__fadd_rn(__fmul_rn(x, x), __fmul_rn(y, y)),
                     __fmul_rn(z, z));
}

__global__ void layout_soa(const float *x, const float *y, const float *z,
                           float *result, unsigned slots, int iterations)
{
    const size_t n = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = 0;
    for (int i = 0; i < iterations; i++) {
        size_t e = slot * n + tid;
        result[e] = norm2(x[e], y[e], z[e]);
        if (++slot == slots)
            slot = 0;
    }
}

/* aos12 and aos16: the seeds' struct, 12 bytes or __align__(16). */
template <typename V>
__global__ void layout_aos(const V *data, float *result, unsigned slots,
                           int iterations)
{
    const size_t n = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = 0;
    for (int i = 0; i < iterations; i++) {
        size_t e = slot * n + tid;
        V v = data[e];
        result[e] = norm2(v.x, v.y, v.z);
        if (++slot == slots)
            slot = 0;
    }
}

/* The seeds' staging: the block's 3 * blockDim floats are copied to shared
 * memory with consecutive threads reading consecutive floats, then each
 * thread takes its own x, y, z from temp[tid * 3 + k]. */
__global__ void layout_staged(const vec3d12 *data, float *result,
                              unsigned slots, int iterations)
{
    extern __shared__ float temp[];
    const unsigned T = blockDim.x, tid = threadIdx.x;
    const size_t n = (size_t)gridDim.x * T;
    const float *fdata = (const float *)data;
    unsigned slot = 0;
    for (int i = 0; i < iterations; i++) {
        const size_t first = slot * n + (size_t)blockIdx.x * T;
        const float *f = fdata + 3 * first;
        temp[tid] = f[tid];
        temp[tid + T] = f[tid + T];
        temp[tid + 2 * T] = f[tid + 2 * T];
        __syncthreads();
        result[first + tid] =
            norm2(temp[tid * 3], temp[tid * 3 + 1], temp[tid * 3 + 2]);
        __syncthreads();
        if (++slot == slots)
            slot = 0;
    }
}

/* ---- launcher ----------------------------------------------------------- */

typedef void (*load_fn)(const unsigned *, lane_offsets, unsigned, unsigned,
                        unsigned, int, unsigned *);
typedef void (*store_fn)(unsigned *, lane_offsets, unsigned, unsigned,
                         unsigned, int);

/* The pattern kernels for width and cache, or NULL. */
static load_fn load_kernel(const mp_coalesce_launch *l)
{
    switch (l->width * 2 + (l->cg != 0)) {
    case 8: return coalesce_load<4, false>;
    case 9: return coalesce_load<4, true>;
    case 16: return coalesce_load<8, false>;
    case 17: return coalesce_load<8, true>;
    case 32: return coalesce_load<16, false>;
    case 33: return coalesce_load<16, true>;
    }
    return 0;
}

static store_fn store_kernel(const mp_coalesce_launch *l)
{
    switch (l->width) {
    case 4: return coalesce_store<4>;
    case 8: return coalesce_store<8>;
    case 16: return coalesce_store<16>;
    }
    return 0;
}

static const void *pattern_kernel(const mp_coalesce_launch *l)
{
    return l->is_store ? (const void *)store_kernel(l)
                       : (const void *)load_kernel(l);
}

static const void *kernel_of(const mp_coalesce_launch *l)
{
    switch (l->layout) {
    case MP_LAYOUT_PATTERN: return pattern_kernel(l);
    case MP_LAYOUT_SOA: return (const void *)layout_soa;
    case MP_LAYOUT_AOS12: return (const void *)layout_aos<vec3d12>;
    case MP_LAYOUT_AOS16: return (const void *)layout_aos<vec3d16>;
    case MP_LAYOUT_AOS12_STAGED: return (const void *)layout_staged;
    }
    return 0;
}

extern "C" int mp_coalesce_occupancy(const mp_coalesce_launch *l,
                                     int *blocks_per_sm)
{
    const void *k = kernel_of(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, k, l->threads, l->shared_bytes);
}

extern "C" int mp_coalesce_launch_kernel(const mp_coalesce_launch *l)
{
    dim3 grid(l->blocks), block(l->threads);
    if (l->layout == MP_LAYOUT_PATTERN) {
        lane_offsets lanes;
        for (int i = 0; i < 32; i++)
            lanes.off[i] = l->lane_offset[i];
        if (l->is_store) {
            store_fn k = store_kernel(l);
            if (!k)
                return (int)cudaErrorInvalidValue;
            k<<<grid, block>>>(l->array, lanes, l->window_bytes, l->nwindows,
                               l->window_step, l->iterations);
        } else {
            load_fn k = load_kernel(l);
            if (!k)
                return (int)cudaErrorInvalidValue;
            k<<<grid, block>>>(l->array, lanes, l->window_bytes, l->nwindows,
                               l->window_step, l->iterations, l->out);
        }
        return (int)cudaGetLastError();
    }
    switch (l->layout) {
    case MP_LAYOUT_SOA:
        layout_soa<<<grid, block>>>(l->x, l->y, l->z, l->result, l->slots,
                                    l->iterations);
        break;
    case MP_LAYOUT_AOS12:
        layout_aos<vec3d12><<<grid, block>>>((const vec3d12 *)l->data, l->result,
                                      l->slots, l->iterations);
        break;
    case MP_LAYOUT_AOS16:
        layout_aos<vec3d16><<<grid, block>>>((const vec3d16 *)l->data, l->result,
                                      l->slots, l->iterations);
        break;
    case MP_LAYOUT_AOS12_STAGED:
        layout_staged<<<grid, block, l->shared_bytes>>>(
            (const vec3d12 *)l->data, l->result, l->slots, l->iterations);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
