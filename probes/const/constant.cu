/*
 * constant.cu - constant-memory probe: the 64 KB __constant__ array, the
 * kernels (one per source) and the extern "C" launcher.
 *
 * Lane l of every warp reads word lane_words[l] (+ a slot offset) on every
 * iteration, from the constant bank (LDC), from a global copy of the same
 * words (plain ld.global) or through __ldg (ld.global.nc). The lanes'
 * words come from a small global array, not from a kernel parameter: an
 * array parameter indexed by the lane would itself be read with a
 * divergent LDC and add replays the probe did not ask for.
 *
 * Iterations go in groups of MP_CONST_SLOTS: load j of a group reads the
 * lane's word + j * MP_CONST_SLOT_BYTES, one register base plus an
 * immediate offset (LDC c[0x3][R+imm]), so each load is one instruction
 * with nothing else to compute. The base of a group is word + rot, and rot
 * is advanced and masked with rot_mask, which the host passes as 0: at run
 * time every group reads the same 8 slots, but the compiler cannot know
 * that, so it can neither hoist the loads out of the loop nor merge two
 * groups' loads (constant memory is read-only, so loads of a provably
 * unchanged address could be merged). SASS of nvcc 13.0 for sm_90
 * (cuobjdump -sass): the loop is unrolled to 4 groups, 32 LDC
 * R, c[0x3][R+imm] per trip, rot kept in uniform registers, no other LDC
 * in the loop. The global and __ldg kernels show LDG.E and LDG.E.CONSTANT
 * [R.64+imm] the same way, plus one uniform LDC.64 of the pointer
 * parameter per trip (see MAX_EXTRA_LDC_PER_WARP in constant.c).
 *
 * Thread 0 of each block stamps clock64 before and after the loop.
 * Everything but the launcher sits in an anonymous namespace, so that no
 * name can collide with another probe's kernels at link time.
 */
#include <cuda_runtime.h>

#include "const_model.h"
#include "constant.h"

namespace {

__constant__ unsigned bank[MP_CONST_WORDS];

template <int S> struct source;

template <> struct source<MP_CONST_SOURCE_CONSTANT> {
    static __device__ __forceinline__ const unsigned *base(const unsigned *)
    {
        return bank;
    }
    static __device__ __forceinline__ unsigned load(const unsigned *p)
    {
        return *p;
    }
};

template <> struct source<MP_CONST_SOURCE_GLOBAL> {
    static __device__ __forceinline__ const unsigned *base(const unsigned *g)
    {
        return g;
    }
    static __device__ __forceinline__ unsigned load(const unsigned *p)
    {
        return *p;
    }
};

template <> struct source<MP_CONST_SOURCE_LDG> {
    static __device__ __forceinline__ const unsigned *base(const unsigned *g)
    {
        return g;
    }
    static __device__ __forceinline__ unsigned load(const unsigned *p)
    {
        return __ldg(p);
    }
};

template <int S>
__global__ void const_probe(const unsigned *lane_words,
                            const unsigned *global, unsigned rot_mask,
                            int iterations, unsigned *out, long long *clocks)
{
    const unsigned word = lane_words[threadIdx.x & 31];
    const unsigned *data = source<S>::base(global);
    unsigned acc = 0, rot = 0;

    __syncthreads();
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();

    for (int i = 0; i < iterations; i += MP_CONST_SLOTS) {
        const unsigned *p = data + (word + rot);
#pragma unroll
        for (int j = 0; j < MP_CONST_SLOTS; j++)
            acc += source<S>::load(p + j * (MP_CONST_SLOT_BYTES / 4));
        rot = (rot + MP_CONST_SLOTS * MP_CONST_SLOT_BYTES / 4) & rot_mask;
    }

    __syncthreads();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*kernel_fn)(const unsigned *, const unsigned *, unsigned, int,
                          unsigned *, long long *);

kernel_fn pick(int source)
{
    switch (source) {
    case MP_CONST_SOURCE_CONSTANT: return const_probe<MP_CONST_SOURCE_CONSTANT>;
    case MP_CONST_SOURCE_GLOBAL: return const_probe<MP_CONST_SOURCE_GLOBAL>;
    case MP_CONST_SOURCE_LDG: return const_probe<MP_CONST_SOURCE_LDG>;
    }
    return 0;
}

} // namespace

extern "C" unsigned long mp_const_symbol_bytes(void)
{
    return (unsigned long)sizeof bank;
}

extern "C" int mp_const_fill(const void *host, unsigned long bytes)
{
    return (int)cudaMemcpyToSymbol(bank, host, bytes, 0,
                                   cudaMemcpyHostToDevice);
}

extern "C" int mp_const_occupancy(const mp_const_launch *l,
                                  int *blocks_per_sm)
{
    kernel_fn k = pick(l->source);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)k, l->threads, 0);
}

extern "C" int mp_const_launch_kernel(const mp_const_launch *l)
{
    kernel_fn k = pick(l->source);
    if (!k)
        return (int)cudaErrorInvalidValue;
    k<<<l->blocks, l->threads>>>(l->lane_words, l->global, l->rot_mask,
                                 l->iterations, l->out, l->clocks);
    return (int)cudaGetLastError();
}
