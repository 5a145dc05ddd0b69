/*
 * async.cu - async-copy probe: kernels (one per method, width and cache
 * operator) and the extern "C" launcher, with the tensor map encoder.
 *
 * Every block walks the tile copies of a launch grid-stride (copy v is
 * tile v % tiles of the source array) and, for each: copies the tile into
 * its shared buffer, waits for it, adds every word of the buffer into a
 * per-thread checksum (ld.shared.v4, the same for every method), and
 * synchronises before the next copy overwrites the buffer. After the last
 * copy each block writes its buffer, raw, to dump[block], so the host sees
 * where every element of that tile landed (the swizzled layouts included).
 *
 * The copy of one tile, by method:
 *   staged   thread t moves chunks t, t + T, ... of `width` bytes: a plain
 *            (or __ldcg) global load into registers, then a shared store;
 *            the loop is unrolled so that several loads are in flight;
 *   cpasync  the same chunks by cp.async.{ca,cg}.shared.global (LDGSTS),
 *            then cp.async.commit_group and cp.async.wait_group 0;
 *   bulk     thread 0 arms the block's mbarrier with the tile's bytes
 *            (mbarrier.arrive.expect_tx) and issues one cp.async.bulk
 *            .shared::cluster.global.mbarrier::complete_tx::bytes of the
 *            tile; every thread waits on the barrier's phase;
 *   tensor   the same, with one cp.async.bulk.tensor.2d per box of the
 *            tile through the __grid_constant__ CUtensorMap.
 * cp.async needs sm_80 and the bulk copies sm_90: on older targets those
 * kernels trap (async.c refuses them before any launch).
 *
 * The shared buffer is aligned to 1024 bytes inside the dynamic shared
 * memory (the 128-byte swizzle repeats every 1024 bytes, and the model's
 * swizzle formula is written on the offset from such a base).
 * Everything but the launcher sits in an anonymous namespace.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "async.h"
#include "async_model.h"

namespace {

template <int W> struct chunk;
template <> struct chunk<4> { typedef unsigned type; };
template <> struct chunk<8> { typedef uint2 type; };
template <> struct chunk<16> { typedef uint4 type; };

template <int W, bool CG>
__device__ __forceinline__ typename chunk<W>::type
load_global(const typename chunk<W>::type *p)
{
    if (CG)
        return __ldcg(p);
    return *p;
}

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* The 16-byte chunks of the buffer, summed into the thread's checksum. */
__device__ __forceinline__ unsigned checksum(const unsigned char *tile,
                                             int tile_bytes)
{
    unsigned acc = 0;
    for (int c = threadIdx.x; c < tile_bytes / 16; c += blockDim.x) {
        uint4 q = *(const uint4 *)(tile + 16 * c);
        acc += q.x + q.y + q.z + q.w;
    }
    return acc;
}

template <int W, bool CG>
__device__ __forceinline__ void copy_staged(unsigned char *tile,
                                            const unsigned char *src,
                                            int tile_bytes)
{
    typedef typename chunk<W>::type T;
    const T *g = (const T *)src;
    T *s = (T *)tile;
    int n = tile_bytes / W, step = blockDim.x, c = threadIdx.x;
    /* Four loads in flight per thread, then their four stores. */
    for (; c + 3 * step < n; c += 4 * step) {
        T r0 = load_global<W, CG>(g + c);
        T r1 = load_global<W, CG>(g + c + step);
        T r2 = load_global<W, CG>(g + c + 2 * step);
        T r3 = load_global<W, CG>(g + c + 3 * step);
        s[c] = r0;
        s[c + step] = r1;
        s[c + 2 * step] = r2;
        s[c + 3 * step] = r3;
    }
    for (; c < n; c += step)
        s[c] = load_global<W, CG>(g + c);
}

template <int W, bool CG>
__device__ __forceinline__ void copy_cpasync(unsigned char *tile,
                                             const unsigned char *src,
                                             int tile_bytes)
{
#if MP_ARCH_HAS(MP_CC_CP_ASYNC)
    for (int c = threadIdx.x; c < tile_bytes / W; c += blockDim.x) {
        unsigned dst = smem_addr(tile + (size_t)c * W);
        const unsigned char *g = src + (size_t)c * W;
        if (CG)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(dst), "l"(g) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                         :: "r"(dst), "l"(g), "n"(W) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#else
    (void)tile; (void)src; (void)tile_bytes;
    MP_ARCH_MISSING();
#endif
}

#if MP_ARCH_HAS(MP_CC_TMA)
__device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned phase)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(bar), "r"(phase) : "memory");
    } while (!done);
}
#endif

template <int M, int W, bool CG>
__global__ void async_probe(const unsigned char *src, int tile_bytes,
                            long long tiles, long long visits, int box_rows,
                            int row_bytes, unsigned *sums, unsigned *dump,
                            long long *clocks,
                            const __grid_constant__ CUtensorMap tmap)
{
    extern __shared__ unsigned char raw[];
    __shared__ unsigned long long bar_word;
    /* An offset from raw, so the compiler keeps the shared space. */
    unsigned char *tile = raw + ((1024 - (smem_addr(raw) & 1023)) & 1023);
    unsigned bar = smem_addr(&bar_word);
    unsigned phase = 0;
    unsigned acc = 0;
    (void)box_rows; (void)row_bytes; (void)bar; (void)phase; (void)tmap;

#if MP_ARCH_HAS(MP_CC_TMA)
    if (M == MP_ASYNC_BULK || M == MP_ASYNC_TENSOR) {
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
                         :: "r"(bar) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
    }
#endif
    __syncthreads();
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();

    for (long long v = blockIdx.x; v < visits; v += gridDim.x) {
        long long t = v % tiles;
        const unsigned char *g = src + t * tile_bytes;
        if (M == MP_ASYNC_STAGED) {
            copy_staged<W, CG>(tile, g, tile_bytes);
        } else if (M == MP_ASYNC_CPASYNC) {
            copy_cpasync<W, CG>(tile, g, tile_bytes);
        } else {
#if MP_ARCH_HAS(MP_CC_TMA)
            if (threadIdx.x == 0) {
                bar_expect(bar, (unsigned)tile_bytes);
                if (M == MP_ASYNC_BULK) {
                    asm volatile(
                        "cp.async.bulk.shared::cluster.global.mbarrier::"
                        "complete_tx::bytes [%0], [%1], %2, [%3];"
                        :: "r"(smem_addr(tile)), "l"(g), "r"(tile_bytes),
                           "r"(bar) : "memory");
                } else {
                    int box = box_rows * row_bytes;
                    int y0 = (int)(t * (tile_bytes / row_bytes));
                    for (int b = 0; b * box < tile_bytes; b++)
                        asm volatile(
                            "cp.async.bulk.tensor.2d.shared::cluster.global."
                            "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}],"
                            " [%4];"
                            :: "r"(smem_addr(tile + b * box)),
                               "l"((unsigned long long)&tmap), "r"(0),
                               "r"(y0 + b * box_rows), "r"(bar) : "memory");
                }
            }
            bar_wait(bar, phase);
            phase ^= 1;
#else
            MP_ARCH_MISSING();
#endif
        }
        __syncthreads();
        acc += checksum(tile, tile_bytes);
        __syncthreads();
    }

    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (blockIdx.x < visits) {
        uint4 *d = (uint4 *)(dump + (size_t)blockIdx.x * (tile_bytes / 4));
        for (int c = threadIdx.x; c < tile_bytes / 16; c += blockDim.x)
            d[c] = *(const uint4 *)(tile + 16 * c);
    }
}

/* The replay of one copy instruction (async_lanes.h): each warp copies its
 * lanes into its own region of the buffer, one cp.async per iteration
 * (zero fill through a source size of 0, so every lane runs the same
 * LDGSTS), waits for it, and after the last reads its destination back. */
struct copy_lanes {
    long long dst[32], src[32];
};

template <int W, bool CG>
__global__ void replay_probe(const unsigned char *src, copy_lanes lanes,
                             long long step, long long iterations,
                             int region_bytes, unsigned *sums,
                             long long *clocks)
{
#if MP_ARCH_HAS(MP_CC_CP_ASYNC)
    extern __shared__ unsigned char raw[];
    unsigned char *tile = raw + ((1024 - (smem_addr(raw) & 1023)) & 1023)
                          + (threadIdx.x / 32) * region_bytes;
    unsigned lane = threadIdx.x % 32;
    long long d = lanes.dst[lane], s = lanes.src[lane];
    unsigned dst = smem_addr(tile + (d < 0 ? 0 : d));
    unsigned size = s < 0 ? 0u : (unsigned)W;
    const unsigned char *g = src + (s < 0 ? 0 : s);
    __syncthreads();
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();
    for (long long i = 0; i < iterations; i++) {
        if (d >= 0) {
            if (CG)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                             :: "r"(dst), "l"(g), "r"(size) : "memory");
            else
                asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
                             :: "r"(dst), "l"(g), "n"(W), "r"(size)
                             : "memory");
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        g += step;
    }
    __syncwarp();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    unsigned acc = 0;
    if (d >= 0)
        for (int j = 0; j < W / 4; j++)
            acc += ((volatile const unsigned *)(tile + d))[j];
    sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
#else
    (void)src; (void)lanes; (void)step; (void)iterations;
    (void)region_bytes; (void)sums; (void)clocks;
    MP_ARCH_MISSING();
#endif
}

typedef void (*replay_fn)(const unsigned char *, copy_lanes, long long,
                          long long, int, unsigned *, long long *);

replay_fn pick_replay(int width, int cg)
{
    if (width == 4 && !cg) return replay_probe<4, false>;
    if (width == 8 && !cg) return replay_probe<8, false>;
    if (width == 16) return cg ? replay_probe<16, true> : replay_probe<16, false>;
    return 0;
}

typedef void (*kernel_fn)(const unsigned char *, int, long long, long long,
                          int, int, unsigned *, unsigned *, long long *,
                          const CUtensorMap);

kernel_fn pick(int method, int width, int cg)
{
#define K(M, W, C) async_probe<M, W, C>
    switch (method) {
    case MP_ASYNC_STAGED:
        if (width == 4) return cg ? K(MP_ASYNC_STAGED, 4, true) : K(MP_ASYNC_STAGED, 4, false);
        if (width == 8) return cg ? K(MP_ASYNC_STAGED, 8, true) : K(MP_ASYNC_STAGED, 8, false);
        if (width == 16) return cg ? K(MP_ASYNC_STAGED, 16, true) : K(MP_ASYNC_STAGED, 16, false);
        return 0;
    case MP_ASYNC_CPASYNC:
        if (width == 4 && !cg) return K(MP_ASYNC_CPASYNC, 4, false);
        if (width == 8 && !cg) return K(MP_ASYNC_CPASYNC, 8, false);
        if (width == 16) return cg ? K(MP_ASYNC_CPASYNC, 16, true) : K(MP_ASYNC_CPASYNC, 16, false);
        return 0;
    case MP_ASYNC_BULK: return K(MP_ASYNC_BULK, 16, false);
    case MP_ASYNC_TENSOR: return K(MP_ASYNC_TENSOR, 16, false);
    }
#undef K
    return 0;
}

/* The kernel of l (a replay or a tile copy) in *k or *r, the other NULL,
 * allowed its shared memory; `fn` the one picked. */
int prepare(const mp_async_launch *l, kernel_fn *k, replay_fn *r,
            const void **fn)
{
    *k = l->replay ? 0 : pick(l->method, l->width, l->cg);
    *r = l->replay ? pick_replay(l->width, l->cg) : 0;
    *fn = *k ? (const void *)*k : (const void *)*r;
    if (!*fn)
        return (int)cudaErrorInvalidValue;
    return (int)cudaFuncSetAttribute(*fn,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     mp_async_shared_bytes(l));
}

} // namespace

extern "C" int mp_async_shared_bytes(const mp_async_launch *l)
{
    if (l->replay)
        return l->region_bytes * (l->threads / 32) + 1024;
    return l->tile_bytes + 1024;
}

extern "C" int mp_async_encode_tensor_map(mp_async_launch *l, long long bytes,
                                          char *why, unsigned long whylen)
{
    void *fn = 0;
    cudaDriverEntryPointQueryResult q;
    cudaError_t e = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled not found in the "
                 "driver (%s)", cudaGetErrorName(e));
        return -1;
    }
    PFN_cuTensorMapEncodeTiled_v12000 encode =
        (PFN_cuTensorMapEncodeTiled_v12000)fn;
    int row = mp_async_row_bytes(l->swizzle);
    cuuint64_t dims[2] = {(cuuint64_t)(row / 4), (cuuint64_t)(bytes / row)};
    cuuint64_t strides[1] = {(cuuint64_t)row};
    cuuint32_t box[2] = {(cuuint32_t)(row / 4),
                         (cuuint32_t)mp_async_box_rows(l->tile_bytes,
                                                       l->swizzle)};
    cuuint32_t elem[2] = {1, 1};
    CUtensorMapSwizzle sw = l->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                          : l->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : l->swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                          : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMap map;
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2,
                        (void *)l->src, dims, strides, box, elem,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled failed: CUresult %d",
                 (int)r);
        return -1;
    }
    static_assert(sizeof map == sizeof l->tensor_map, "CUtensorMap size");
    memcpy(l->tensor_map, &map, sizeof map);
    return 0;
}

extern "C" int mp_async_occupancy(const mp_async_launch *l,
                                  int *blocks_per_sm)
{
    kernel_fn k;
    replay_fn r;
    const void *fn;
    int rc = prepare(l, &k, &r, &fn);
    if (rc)
        return rc;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, fn, l->threads,
        mp_async_shared_bytes(l));
}

extern "C" int mp_async_launch_kernel(const mp_async_launch *l)
{
    kernel_fn k;
    replay_fn r;
    const void *fn;
    int rc = prepare(l, &k, &r, &fn);
    if (rc)
        return rc;
    if (r) {
        copy_lanes lanes;
        memcpy(lanes.dst, l->lane_dst, sizeof lanes.dst);
        memcpy(lanes.src, l->lane_src, sizeof lanes.src);
        r<<<l->blocks, l->threads, mp_async_shared_bytes(l)>>>(
            (const unsigned char *)l->src, lanes, l->step, l->iterations,
            l->region_bytes, l->sums, l->clocks);
        return (int)cudaGetLastError();
    }
    CUtensorMap map;
    memcpy(&map, l->tensor_map, sizeof map);
    int row = mp_async_row_bytes(l->swizzle);
    k<<<l->blocks, l->threads, mp_async_shared_bytes(l)>>>(
        (const unsigned char *)l->src, l->tile_bytes, l->tiles, l->visits,
        mp_async_box_rows(l->tile_bytes, l->swizzle), row, l->sums, l->dump,
        l->clocks, map);
    return (int)cudaGetLastError();
}
