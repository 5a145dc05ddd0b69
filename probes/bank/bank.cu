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
 * The matrix ops (ldmatrix / stmatrix .m8n8 .x1/.x2/.x4, optionally
 * .trans) run in matrix_probe below: lane i gives the address of row i % 8
 * of matrix i / 8, one instruction per iteration. ldmatrix has no
 * .volatile form, so its address gets `i * zero` added (zero is a kernel
 * argument that is 0 at run time): the compiler cannot prove the address
 * loop-invariant and hoist the load. Loads add their registers into the
 * thread's sum; stores write per-lane values, and after the loop each
 * thread sums the tile words w = t (mod block size) for the CPU to check.
 * Thread 0 of each block stamps clock64 before and after the loop (the
 * seeds' in-kernel timing).
 */
#include <cuda_runtime.h>

#include "arch.h"
#include "bank.h"

struct lane_offsets {
    unsigned off[32];
};

/* One shared load of W bytes at a: the sum of the words it read. */
template <int W>
__device__ __forceinline__ unsigned shared_load(unsigned a)
{
    unsigned r[4];
    if (W == 4)
        asm volatile("ld.volatile.shared.b32 %0, [%1];" : "=r"(r[0]) : "r"(a));
    if (W == 8)
        asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];"
                     : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    if (W == 16)
        asm volatile("ld.volatile.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(a));
    return W == 4 ? r[0] : W == 8 ? r[0] + r[1] : r[0] + r[1] + r[2] + r[3];
}

/* One shared store of the W / 4 words v at a. */
template <int W>
__device__ __forceinline__ void shared_store(unsigned a, const unsigned *v)
{
    if (W == 4)
        asm volatile("st.volatile.shared.b32 [%0], %1;" ::"r"(a), "r"(v[0]));
    if (W == 8)
        asm volatile("st.volatile.shared.v2.b32 [%0], {%1, %2};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]));
    if (W == 16)
        asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]));
}

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
            shared_store<W>(addr, v);
    } else {
#pragma unroll 16
        for (int i = 0; i < iterations; i++)
            acc += shared_load<W>(addr);
    }

    __syncthreads();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    if (STORE)
        for (int j = 0; j < W / 4; j++)
            acc += tile[first_word + j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* One ldmatrix .m8n8 of N matrices (.x1, .x2, .x4), .trans or not: the
 * sum of the N registers it loads. */
template <int N, bool TRANS>
__device__ __forceinline__ unsigned matrix_load(unsigned a)
{
    unsigned r[4];
    if (N == 1 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                     : "=r"(r[0]) : "r"(a));
    if (N == 1 && TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, "
                     "[%1];" : "=r"(r[0]) : "r"(a));
    if (N == 2 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, "
                     "[%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    if (N == 2 && TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 "
                     "{%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    if (N == 4 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                     "{%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(a));
    if (N == 4 && TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                     "{%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(a));
    return N == 1 ? r[0] : N == 2 ? r[0] + r[1] : r[0] + r[1] + r[2] + r[3];
}

/* stmatrix exists from sm_90 on (ldmatrix from sm_75): older targets
 * compile a trap (probes/arch.h), and the host refuses the op there. */
template <int N, bool TRANS>
__device__ __forceinline__ void matrix_store(unsigned a, const unsigned *v)
{
#if MP_ARCH_HAS(MP_CC_STMATRIX)
    if (N == 1 && !TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
                     ::"r"(a), "r"(v[0]));
    if (N == 1 && TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], "
                     "{%1};" ::"r"(a), "r"(v[0]));
    if (N == 2 && !TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], "
                     "{%1, %2};" ::"r"(a), "r"(v[0]), "r"(v[1]));
    if (N == 2 && TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], "
                     "{%1, %2};" ::"r"(a), "r"(v[0]), "r"(v[1]));
    if (N == 4 && !TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], "
                     "{%1, %2, %3, %4};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]));
    if (N == 4 && TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], "
                     "{%1, %2, %3, %4};"
                     ::"r"(a), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]));
#else
    (void)a;
    (void)v;
    MP_ARCH_MISSING();
#endif
}

template <int N, bool TRANS, bool STORE>
__global__ void matrix_probe(lane_offsets lanes, const unsigned *thread_off,
                             unsigned tile_words, int iterations,
                             unsigned *out, long long *clocks)
{
    extern __shared__ unsigned tile[];
    const unsigned lane = threadIdx.x & 31;
    const unsigned addr = (unsigned)__cvta_generic_to_shared(tile)
                          + lanes.off[lane];
    /* 0 at run time (thread_off is NULL for matrix ops); the compiler
     * cannot know it. */
    const unsigned zero = thread_off ? 1u : 0u;
    unsigned acc = 0;

    for (unsigned w = threadIdx.x; w < tile_words; w += blockDim.x)
        tile[w] = STORE ? 0u : mp_bank_word_value(w);
    __syncthreads();
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();

    if (STORE) {
        unsigned v[N];
        for (int j = 0; j < N; j++)
            v[j] = mp_bank_stsm_value((int)lane, j);
#pragma unroll 16
        for (int i = 0; i < iterations; i++)
            matrix_store<N, TRANS>(addr, v);
    } else {
#if MP_ARCH_HAS(MP_CC_LDMATRIX)
#pragma unroll 16
        for (int i = 0; i < iterations; i++)
            acc += matrix_load<N, TRANS>(addr + (unsigned)i * zero);
#else
        MP_ARCH_MISSING();
#endif
    }

    __syncthreads();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    if (STORE)
        for (unsigned w = threadIdx.x; w < tile_words; w += blockDim.x)
            acc += tile[w];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*kernel_fn)(lane_offsets, const unsigned *, unsigned, int,
                          unsigned *, long long *);

static kernel_fn pick_matrix(int n, int trans, int is_store)
{
    switch (n * 4 + (trans != 0) * 2 + (is_store != 0)) {
    case 4: return matrix_probe<1, false, false>;
    case 5: return matrix_probe<1, false, true>;
    case 6: return matrix_probe<1, true, false>;
    case 7: return matrix_probe<1, true, true>;
    case 8: return matrix_probe<2, false, false>;
    case 9: return matrix_probe<2, false, true>;
    case 10: return matrix_probe<2, true, false>;
    case 11: return matrix_probe<2, true, true>;
    case 16: return matrix_probe<4, false, false>;
    case 17: return matrix_probe<4, false, true>;
    case 18: return matrix_probe<4, true, false>;
    case 19: return matrix_probe<4, true, true>;
    }
    return 0;
}

static kernel_fn pick(int width, int is_store);

static kernel_fn pick_kernel(const mp_bank_launch *l)
{
    if (l->matrices)
        return pick_matrix(l->matrices, l->trans, l->is_store);
    return pick(l->width, l->is_store);
}

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
    kernel_fn k = pick_kernel(l);
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
    kernel_fn k = pick_kernel(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)k, l->threads, l->tile_bytes);
}

extern "C" int mp_bank_launch_kernel(const mp_bank_launch *l)
{
    kernel_fn k = pick_kernel(l);
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
