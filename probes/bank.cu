/*
 * bank.cu - shared-memory bank probe: kernels and the extern "C" launcher.
 *
 * Each lane of every warp touches the same tile offset on every iteration
 * (offsets come from the host, computed by model/pattern.c). The access is
 * one ld.volatile.shared / st.volatile.shared of 32, 64 or 128 bits in
 * inline PTX. asm volatile keeps the front end from touching it, and the
 * .volatile qualifier keeps ptxas from hoisting the loop-invariant load out
 * of the loop (a plain ld.shared was hoisted: one LDS per warp per launch,
 * seen in the SASS and the instruction counter on the H200). The SASS shows
 * one LDS/STS of that width per iteration. Loads add what they read into a per-thread sum; stores write
 * the word's own value, and after the loop each lane reads its words back.
 * Either way every thread leaves one word in `out` for the CPU to check.
 * With a 2D block shape (--index) the warps of a block touch different
 * addresses: each thread then reads its own offset from thread_off, once,
 * before the timed loop.
 * Thread 0 of each block stamps clock64 before and after the loop (the
 * seeds' in-kernel timing).
 */
#include <cuda_runtime.h>

#include "bank.h"

struct lane_offsets {
    unsigned off[32];
};

template <int W> struct access;

template <> struct access<4> {
    static __device__ __forceinline__ unsigned load(unsigned a)
    {
        unsigned x;
        asm volatile("ld.volatile.shared.b32 %0, [%1];" : "=r"(x) : "r"(a));
        return x;
    }
    static __device__ __forceinline__ void store(unsigned a, const unsigned *v)
    {
        asm volatile("st.volatile.shared.b32 [%0], %1;" ::"r"(a), "r"(v[0]));
    }
};

template <> struct access<8> {
    static __device__ __forceinline__ unsigned load(unsigned a)
    {
        unsigned x, y;
        asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];"
                     : "=r"(x), "=r"(y) : "r"(a));
        return x + y;
    }
    static __device__ __forceinline__ void store(unsigned a, const unsigned *v)
    {
        asm volatile("st.volatile.shared.v2.b32 [%0], {%1, %2};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]));
    }
};

template <> struct access<16> {
    static __device__ __forceinline__ unsigned load(unsigned a)
    {
        unsigned x, y, z, w;
        asm volatile("ld.volatile.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
        return x + y + z + w;
    }
    static __device__ __forceinline__ void store(unsigned a, const unsigned *v)
    {
        asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]));
    }
};

template <int W, bool STORE>
__global__ void bank_probe(lane_offsets lanes, const unsigned *thread_off,
                           unsigned tile_words, int iterations, unsigned *out,
                           long long *clocks)
{
    extern __shared__ unsigned tile[];
    const unsigned off = thread_off ? thread_off[threadIdx.x]
                                    : lanes.off[threadIdx.x & 31];
    const unsigned first_word = off / 4;
    const unsigned addr = (unsigned)__cvta_generic_to_shared(tile) + off;
    unsigned acc = 0;

    if (!STORE)
        for (unsigned w = threadIdx.x; w < tile_words; w += blockDim.x)
            tile[w] = mp_bank_word_value(w);
    __syncthreads();
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();

    if (STORE) {
        unsigned v[W / 4];
        for (int j = 0; j < W / 4; j++)
            v[j] = mp_bank_word_value(first_word + j);
#pragma unroll 16
        for (int i = 0; i < iterations; i++)
            access<W>::store(addr, v);
    } else {
#pragma unroll 16
        for (int i = 0; i < iterations; i++)
            acc += access<W>::load(addr);
    }

    __syncthreads();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    if (STORE)
        for (int j = 0; j < W / 4; j++)
            acc += tile[first_word + j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*kernel_fn)(lane_offsets, const unsigned *, unsigned, int,
                          unsigned *, long long *);

static kernel_fn pick(int width, int is_store)
{
    switch (width * 2 + (is_store != 0)) {
    case 8: return bank_probe<4, false>;
    case 9: return bank_probe<4, true>;
    case 16: return bank_probe<8, false>;
    case 17: return bank_probe<8, true>;
    case 32: return bank_probe<16, false>;
    case 33: return bank_probe<16, true>;
    }
    return 0;
}

extern "C" int mp_bank_configure(const mp_bank_launch *l, int smem_optin)
{
    kernel_fn k = pick(l->width, l->is_store);
    if (!k)
        return (int)cudaErrorInvalidValue;
    /* Allow the device's whole opt-in size, not just this tile: the
     * attribute is per kernel, and a batch launches several configurations
     * of the same kernel again after all were set up. */
    return (int)cudaFuncSetAttribute((const void *)k,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     smem_optin);
}

extern "C" int mp_bank_occupancy(const mp_bank_launch *l, int *blocks_per_sm)
{
    kernel_fn k = pick(l->width, l->is_store);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)k, l->threads, l->tile_bytes);
}

extern "C" int mp_bank_launch_kernel(const mp_bank_launch *l)
{
    kernel_fn k = pick(l->width, l->is_store);
    if (!k)
        return (int)cudaErrorInvalidValue;
    lane_offsets lanes;
    for (int i = 0; i < 32; i++)
        lanes.off[i] = l->offset[i];
    k<<<l->blocks, l->threads, l->tile_bytes>>>(lanes, l->thread_offset,
                                                l->tile_bytes / 4,
                                                l->iterations, l->out,
                                                l->clocks);
    return (int)cudaGetLastError();
}
