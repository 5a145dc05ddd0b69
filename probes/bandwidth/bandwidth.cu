/*
 * bandwidth.cu - DRAM bandwidth probe: the read, write and copy kernels and
 * the extern "C" launcher.
 *
 * One launch makes `stride` passes over an array of n elements of W bytes
 * (see bandwidth.h): in pass p, element i of the pass is array element
 * p + i * stride and belongs to thread i % T. Each thread walks its
 * elements with a grid-stride loop unrolled U times: it issues U
 * independent loads (or stores) before it uses any of them, so U accesses
 * of every thread are in flight at once. The unrolled loop runs while the
 * WHOLE warp's U groups of 32 elements lie in the pass (a warp-uniform
 * test), and a plain loop takes the rest, so every warp-level instruction
 * covers exactly one group of 32 consecutive elements of a pass: the
 * request count is the model's, whatever U and the grid are.
 *
 *   read   loads every element and XORs its 32-bit words into a per-thread
 *          value; each thread writes {xor, elements loaded} once, so no
 *          load can be dropped and the CPU can check every thread.
 *   write  stores mp_bw_write_word(k) into every word k.
 *   copy   dst[e] = src[e].
 *
 * Accesses are inline PTX of exactly W bytes, ld.global.v4.u32 /
 * st.global.v4.u32 for W = 16, .v2 for 8, scalar for 4, with the cache
 * operator of the `cache` parameter (SASS from CUDA 13.0 for sm_90):
 *   default  ld.global / st.global                  LDG.E.128 / STG.E.128
 *   cs       ld.global.cs / st.global.cs: streaming,
 *            evict-first                            LDG.E.EF.128 / STG.E.EF.128
 *   na       ld.global.L1::no_allocate /
 *            st.global.L1::no_allocate              LDG.E.NA.128 / STG.E.NA.128
 *   pf256    na, and loads ask L2 to fetch the whole 256-byte block
 *            (ld.global.L1::no_allocate.L2::256B; stores as na)
 * (na uses the coherent path, not ld.global.nc: ptxas may move .nc loads
 * past the copy kernel's stores, and then fewer than U loads were in
 * flight.) Loads are plain (non-volatile) asm: their results feed the XOR
 * or the stores, so the compiler cannot drop them, and it schedules all U
 * of them before the first use (checked in the SASS for every kernel,
 * width, cache and U). Stores are asm volatile (no outputs).
 *
 * Variants (never the default): bw_oneshot, the same walk for a
 * grid of one unrolled step per thread, whose read kernel leaves one
 * {XOR, count} per block; bw_bulk, copy by cp.async.bulk through shared
 * memory (sm_90). See bandwidth.h and docs/bandwidth.md.
 */
#include <cuda_runtime.h>

#include "arch.h"
#include "bandwidth.h"

/* Loads and stores of W bytes with cache operator C. */
template <int W, int C> struct gmem;

/* gmem<W, C> for every W, with C's PTX qualifiers LDQ (loads) and STQ
 * (stores). */
#define MP_BW_GMEM(C, LDQ, STQ)                                              \
    template <int W> struct gmem<W, C> {                                     \
        static __device__ __forceinline__ void load(const char *p,           \
                                                    unsigned *v)             \
        {                                                                    \
            if (W == 4)                                                      \
                asm("ld.global" LDQ ".u32 %0, [%1];" : "=r"(v[0]) : "l"(p)); \
            if (W == 8)                                                      \
                asm("ld.global" LDQ ".v2.u32 {%0, %1}, [%2];"                \
                    : "=r"(v[0]), "=r"(v[1]) : "l"(p));                      \
            if (W == 16)                                                     \
                asm("ld.global" LDQ ".v4.u32 {%0, %1, %2, %3}, [%4];"        \
                    : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])         \
                    : "l"(p));                                               \
        }                                                                    \
        static __device__ __forceinline__ void store(char *p,                \
                                                     const unsigned *v)      \
        {                                                                    \
            if (W == 4)                                                      \
                asm volatile("st.global" STQ ".u32 [%0], %1;"                \
                             ::"l"(p), "r"(v[0]));                           \
            if (W == 8)                                                      \
                asm volatile("st.global" STQ ".v2.u32 [%0], {%1, %2};"       \
                             ::"l"(p), "r"(v[0]), "r"(v[1]));                \
            if (W == 16)                                                     \
                asm volatile("st.global" STQ                                 \
                             ".v4.u32 [%0], {%1, %2, %3, %4};"               \
                             ::"l"(p), "r"(v[0]), "r"(v[1]), "r"(v[2]),      \
                             "r"(v[3]));                                     \
        }                                                                    \
    };

MP_BW_GMEM(MP_BW_CACHE_DEFAULT, "", "")
MP_BW_GMEM(MP_BW_CACHE_CS, ".cs", ".cs")
MP_BW_GMEM(MP_BW_CACHE_NA, ".L1::no_allocate", ".L1::no_allocate")
/* The L2 prefetch hint needs sm_80 (probes/arch.h): on older GPUs the host
 * refuses --cache pf256, and these kernels trap. */
#if MP_ARCH_HAS(MP_CC_L2_PREFETCH)
MP_BW_GMEM(MP_BW_CACHE_PF256, ".L1::no_allocate.L2::256B", ".L1::no_allocate")
#else
template <int W> struct gmem<W, MP_BW_CACHE_PF256> {
    static __device__ __forceinline__ void load(const char *, unsigned *v)
    {
        for (int j = 0; j < W / 4; j++)
            v[j] = 0;
        MP_ARCH_MISSING();
    }
    static __device__ __forceinline__ void store(char *, const unsigned *)
    {
        MP_ARCH_MISSING();
    }
};
#endif

/* The words the write kernel stores into element e. */
template <int W>
static __device__ __forceinline__ void write_pattern(unsigned e, unsigned *v)
{
#pragma unroll
    for (int j = 0; j < W / 4; j++)
        v[j] = mp_bw_write_word(e * (W / 4) + j);
}

/* One walk of thread t (of T; lane its lane, tb the bytes and es the
 * elements (mod 2^32) to its next element) over the arrays: every pass,
 * the unrolled steps and the rest; XORs into acc and counts into count
 * (read). Shared
 * by both grids; forced inline, so the persistent kernel compiles as it
 * did before the one-shot grid existed. */
template <int K, int W, int C, int U>
static __device__ __forceinline__ void
walk(const char *__restrict__ src_r, char *__restrict__ dst,
     unsigned long long n, int stride, unsigned long long T,
     unsigned long long t, unsigned lane, unsigned long long tb,
     unsigned es, unsigned &acc, unsigned &count)
{

    for (int p = 0; p < stride; p++) {
        /* Elements of pass p: p, p + stride, ... below n. */
        const unsigned long long cnt = (n - p + stride - 1) / stride;
        const unsigned long long first = p + t * stride;
        unsigned long long off = first * W;   /* byte offset of element */
        unsigned e = (unsigned)first;         /* element index mod 2^32 */
        unsigned long long i = t;             /* index within the pass */

        /* Whole steps: the warp's last element of its U-th group is in the
         * pass (i - lane is the warp's first index: warp-uniform). */
        for (; i - lane + (U - 1) * T + 31 < cnt;
             i += U * T, off += U * tb, e += U * es) {
            unsigned v[U][W / 4];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (K == MP_BW_WRITE)
                    write_pattern<W>(e + u * es, v[u]);
                else
                    gmem<W, C>::load(src_r + off + u * tb, v[u]);
            }
            /* Register fence for wide read steps: a read launch passes
             * dst = NULL, so this never stores, but the compiler cannot
             * know; it must hold all U loaded values at once, so it issues
             * all U loads before the first XOR. Without it ptxas (CUDA
             * 13.0) kept the 8 x 16-byte read at 32 registers by XORing
             * the first loads before issuing the last: 2 loads in flight
             * (7 of 8 at 8 bytes). Smaller steps keep all U in flight
             * without it, and the fence would only cost registers. */
            if (K == MP_BW_READ && U == 8 && W >= 8 && dst) {
#pragma unroll
                for (int u = 0; u < U; u++)
                    gmem<W, C>::store(dst + u * W, v[u]);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (K == MP_BW_READ) {
#pragma unroll
                    for (int j = 0; j < W / 4; j++)
                        acc ^= v[u][j];
                } else {
                    gmem<W, C>::store(dst + off + u * tb, v[u]);
                }
            }
            count += U;
        }
        /* The rest, one element at a time. */
        for (; i < cnt; i += T, off += tb, e += es) {
            unsigned v[W / 4];
            if (K == MP_BW_WRITE)
                write_pattern<W>(e, v);
            else
                gmem<W, C>::load(src_r + off, v);
            if (K == MP_BW_READ) {
#pragma unroll
                for (int j = 0; j < W / 4; j++)
                    acc ^= v[j];
            } else {
                gmem<W, C>::store(dst + off, v);
            }
            count++;
        }
    }
}

/* K = MP_BW_READ/WRITE/COPY, W bytes per element, cache operator C, U
 * accesses in flight per thread. `src` and `dst` point at element 0. */
template <int K, int W, int C, int U, bool R>
__global__ void __launch_bounds__(1024)
bw_kernel(const char *__restrict__ src, char *__restrict__ dst,
          unsigned long long n, int stride, uint2 *out, int repeat,
          unsigned repeat_mask)
{
    const unsigned long long T = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long t =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long tb = T * stride * W;  /* bytes to next element
                                                      of this thread */
    const unsigned es = (unsigned)(T * stride);     /* elements, mod 2^32 */
    unsigned acc = 0, count = 0;

    /* R: the whole walk `repeat` times (bandwidth against footprint).
     * The source moves by (r & repeat_mask) elements, which is 0 at run
     * time, but the compiler cannot know that, so it cannot merge one
     * walk's loads with the next's. Without R the loop runs once and
     * compiles to the plain kernel. */
    for (int r = 0; r < (R ? repeat : 1); r++) {
        const char *const src_r =
            R ? src + (size_t)((unsigned)r & repeat_mask) * W : src;
        walk<K, W, C, U>(src_r, dst, n, stride, T, t, lane, tb, es, acc,
                         count);
        if (R)
            acc = (acc << 1) | (acc >> 31);
    }
    if (K == MP_BW_READ)
        out[t] = make_uint2(acc, count);
}

/* The one-shot grid (MP_BW_GRID_ONESHOT): the same walk, launched with
 * enough blocks that it makes at most one unrolled step per pass; the read
 * kernel XORs its block's values (warp shuffles, then one word per warp in
 * shared memory) and thread 0 writes {XOR, count} for the block. */
template <int K, int W, int C, int U>
__global__ void __launch_bounds__(1024)
bw_oneshot(const char *__restrict__ src, char *__restrict__ dst,
           unsigned long long n, int stride, uint2 *out, int repeat,
           unsigned repeat_mask)
{
    (void)repeat; (void)repeat_mask;
    const unsigned long long T = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long t =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0, count = 0;
    walk<K, W, C, U>(src, dst, n, stride, T, t, threadIdx.x & 31,
                     T * stride * W, (unsigned)(T * stride), acc, count);
    if constexpr (K == MP_BW_READ) {
        __shared__ uint2 part[32];
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) {
            acc ^= __shfl_xor_sync(0xffffffffu, acc, d);
            count += __shfl_xor_sync(0xffffffffu, count, d);
        }
        if ((threadIdx.x & 31) == 0)
            part[threadIdx.x / 32] = make_uint2(acc, count);
        __syncthreads();
        if (threadIdx.x == 0) {
            uint2 b = part[0];
            for (unsigned w = 1; w < blockDim.x / 32; w++) {
                b.x ^= part[w].x;
                b.y += part[w].y;
            }
            out[blockIdx.x] = b;
        }
    }
}

typedef void (*kernel_fn)(const char *, char *, unsigned long long, int,
                          uint2 *, int, unsigned);

/* G: the one-shot grid's kernel (no repeated walks; 16-byte elements
 * only, which keeps the build's kernel count down) instead of the
 * persistent one. */
template <int K, int W, int C, bool R = false, bool G = false>
static kernel_fn pick_u(int u)
{
    if constexpr (G) {
        if constexpr (W == 16) {
            switch (u) {
            case 1: return bw_oneshot<K, W, C, 1>;
            case 2: return bw_oneshot<K, W, C, 2>;
            case 4: return bw_oneshot<K, W, C, 4>;
            case 8: return bw_oneshot<K, W, C, 8>;
            }
        }
        return 0;
    } else {
        switch (u) {
        case 1: return bw_kernel<K, W, C, 1, R>;
        case 2: return bw_kernel<K, W, C, 2, R>;
        case 4: return bw_kernel<K, W, C, 4, R>;
        case 8: return bw_kernel<K, W, C, 8, R>;
        }
        return 0;
    }
}

/* Repeated walks exist for the default cache operator and the persistent
 * grid only. */
template <int K, int W, bool G>
static kernel_fn pick_c(int c, int u, bool r)
{
    if (r)
        return c == MP_BW_CACHE_DEFAULT && !G
                   ? pick_u<K, W, MP_BW_CACHE_DEFAULT, true>(u) : 0;
    switch (c) {
    case MP_BW_CACHE_DEFAULT:
        return pick_u<K, W, MP_BW_CACHE_DEFAULT, false, G>(u);
    case MP_BW_CACHE_CS: return pick_u<K, W, MP_BW_CACHE_CS, false, G>(u);
    case MP_BW_CACHE_NA: return pick_u<K, W, MP_BW_CACHE_NA, false, G>(u);
    case MP_BW_CACHE_PF256:
        return pick_u<K, W, MP_BW_CACHE_PF256, false, G>(u);
    }
    return 0;
}

template <int K, bool G> static kernel_fn pick_w(int w, int c, int u, bool r)
{
    switch (w) {
    case 4: return pick_c<K, 4, G>(c, u, r);
    case 8: return pick_c<K, 8, G>(c, u, r);
    case 16: return pick_c<K, 16, G>(c, u, r);
    }
    return 0;
}

template <bool G> static kernel_fn pick_k(const mp_bw_launch *l)
{
    bool r = l->repeat > 1;
    switch (l->kernel) {
    case MP_BW_READ:
        return pick_w<MP_BW_READ, G>(l->width, l->cache, l->inflight, r);
    case MP_BW_WRITE:
        return pick_w<MP_BW_WRITE, G>(l->width, l->cache, l->inflight, r);
    case MP_BW_COPY:
        return pick_w<MP_BW_COPY, G>(l->width, l->cache, l->inflight, r);
    }
    return 0;
}

/* The load/store kernel of launch l (not bulk). */
static kernel_fn pick(const mp_bw_launch *l)
{
    if (l->method != MP_BW_METHOD_LDST)
        return 0;
    return l->grid == MP_BW_GRID_ONESHOT ? pick_k<true>(l) : pick_k<false>(l);
}

/* ---- bulk copy (MP_BW_METHOD_BULK, sm_90) ---------------------------- */

#if MP_ARCH_HAS(MP_CC_TMA)
static __device__ __forceinline__ unsigned bulk_smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* Load m of this warp's pipeline, tile k = gw + m * GW of the array, into
 * stage m % S, completing on that stage's mbarrier. */
static __device__ __forceinline__ void
bulk_load(const char *src, unsigned long long bytes, unsigned tile,
          unsigned long long k, unsigned buf, unsigned bar)
{
    unsigned long long at = k * tile;
    unsigned size = bytes - at < tile ? (unsigned)(bytes - at) : tile;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(size) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(buf), "l"(src + at), "r"(size), "r"(bar) : "memory");
}
#endif

/* dst = src over `bytes` bytes (a multiple of 16, both 16-byte aligned):
 * lane 0 of each warp copies tiles gw, gw + GW, ... (gw: the warp's index
 * in the grid, GW: warps in the grid) through S = `stages` stages of
 * `tile` bytes. Iteration j waits until the stores issued so far have
 * read their stages (cp.async.bulk.wait_group.read 0: the last is store
 * j - 1, whose stage load j + S - 1 reuses), issues that load, waits for
 * load j on its stage's mbarrier (phase (j / S) & 1) and issues store j.
 * So S - 1 loads stay in flight beside the store (S = 1: one tile at a
 * time). The stores are waited for in full before the warp exits. */
__global__ void __launch_bounds__(1024)
bw_bulk(const char *__restrict__ src, char *__restrict__ dst,
        unsigned long long bytes, unsigned tile, int stages)
{
#if MP_ARCH_HAS(MP_CC_TMA)
    extern __shared__ __align__(128) unsigned char bulk_raw[];
    const unsigned warps = blockDim.x / 32, warp = threadIdx.x / 32;
    if (threadIdx.x & 31)
        return;
    const unsigned S = (unsigned)stages;
    const unsigned bars = bulk_smem(bulk_raw) + 8 * warp * S;
    const unsigned bufs = bulk_smem(bulk_raw) + (8 * warps * S + 127) / 128 * 128
                          + warp * S * tile;
    const unsigned long long ntiles = (bytes + tile - 1) / tile;
    const unsigned long long gw = (unsigned long long)blockIdx.x * warps + warp;
    const unsigned long long GW = (unsigned long long)gridDim.x * warps;
    for (unsigned st = 0; st < S; st++)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
                     :: "r"(bars + 8 * st) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (unsigned m = 0; m + 1 < S && gw + m * GW < ntiles; m++)
        bulk_load(src, bytes, tile, gw + m * GW, bufs + m * tile,
                  bars + 8 * m);
    for (unsigned long long j = 0, k = gw; k < ntiles; j++, k += GW) {
        unsigned long long m = j + S - 1, km = gw + m * GW;
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        if (km < ntiles)
            bulk_load(src, bytes, tile, km, bufs + (unsigned)(m % S) * tile,
                      bars + 8 * (unsigned)(m % S));
        const unsigned st = (unsigned)(j % S);
        const unsigned phase = (unsigned)((j / S) & 1);
        unsigned done;
        do {
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
                         "%2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done) : "r"(bars + 8 * st), "r"(phase)
                         : "memory");
        } while (!done);
        unsigned long long at = k * tile;
        unsigned size = bytes - at < tile ? (unsigned)(bytes - at) : tile;
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group "
                     "[%0], [%1], %2;"
                     :: "l"(dst + at), "r"(bufs + st * tile), "r"(size)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
    (void)src; (void)dst; (void)bytes; (void)tile; (void)stages;
    MP_ARCH_MISSING();
#endif
}

/* Raises the bulk kernel's dynamic shared-memory limit to what l needs. */
static int bulk_prepare(const mp_bw_launch *l)
{
    return (int)cudaFuncSetAttribute(
        (const void *)bw_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize,
        (int)mp_bw_shared_bytes(l));
}

extern "C" int mp_bw_occupancy(const mp_bw_launch *l, int *blocks_per_sm)
{
    if (l->method == MP_BW_METHOD_BULK) {
        int rc = bulk_prepare(l);
        if (rc)
            return rc;
        return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            blocks_per_sm, (const void *)bw_bulk, l->threads,
            mp_bw_shared_bytes(l));
    }
    kernel_fn k = pick(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)k, l->threads, 0);
}

extern "C" int mp_bw_launch_kernel(const mp_bw_launch *l)
{
    if (l->method == MP_BW_METHOD_BULK) {
        if (l->kernel != MP_BW_COPY || l->stride != 1 || l->grid)
            return (int)cudaErrorInvalidValue;
        int rc = bulk_prepare(l);
        if (rc)
            return rc;
        bw_bulk<<<l->blocks, l->threads, mp_bw_shared_bytes(l)>>>(
            (const char *)l->src, (char *)l->dst,
            l->elements * (unsigned long long)l->width, (unsigned)l->tile,
            l->inflight);
        return (int)cudaGetLastError();
    }
    kernel_fn k = pick(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    k<<<l->blocks, l->threads>>>((const char *)l->src, (char *)l->dst,
                                 l->elements, l->stride, (uint2 *)l->out,
                                 l->repeat, l->repeat_mask);
    return (int)cudaGetLastError();
}
