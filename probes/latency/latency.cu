/*
 * latency.cu - the latency probe's kernels: one thread follows a chain of
 * dependent loads (each load's address is the value the previous load
 * returned), so the time per load is the latency of the level serving it.
 * Plus the extern "C" launcher.
 *
 * Global: each element holds the device address of the next (64-bit), and
 * the loads are inline PTX ld.global.ca (through L1) or ld.global.cg (L2
 * only), asm volatile, so that the compiler can neither drop, merge nor
 * reorder them: the loop body is one LDG and nothing else on the critical
 * path. Shared: the chain's byte offsets are copied into dynamic shared
 * memory by the block (the shared window's base added), then thread 0
 * chases with ld.shared.u32 on the absolute shared address. Constant: the
 * chain's byte offsets sit in a 64 KB __constant__ array and the loads
 * are LDC c[0x3][R].
 *
 * Every launch first makes `warm` untimed loads (a cold L1: the L1 is not
 * kept across kernel launches), then stamps clock64, makes `loads` timed
 * loads, stamps again and writes the difference into a ring slot. The
 * chase continues across launches from a cursor in device memory
 * (cursor[0]: where it stands; cursor[1]: the loads made so far, which the
 * host's verify compares with its own count before it checks the position
 * against the CPU's walk). The
 * second stamp does not wait for the last load's data: the count misses
 * at most one latency out of `loads`.
 *
 * Everything but the launcher sits in an anonymous namespace, so that no
 * name can collide with another probe's kernels at link time.
 */
#include <cuda_runtime.h>

#include "chain.cuh"
#include "latency.h"
#include "latency_model.h"

namespace {

__constant__ unsigned cbank[MP_LAT_CONST_BYTES / 4];

/* One load of each chain: the next position from this one (global:
 * chain.cuh, shared with the L2 map's walks). */
struct shared_chain {
    static __device__ __forceinline__ unsigned load(unsigned a)
    {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
        return v;
    }
};

struct const_chain {
    static __device__ __forceinline__ unsigned load(unsigned offset)
    {
        return *(const unsigned *)((const char *)cbank + offset);
    }
};

/* Every kernel's chase, from position p: `warm` untimed loads, then `loads`
 * between two clock64 stamps; the end position less base goes back to
 * cursor[0], the loads made to cursor[1], the cycles to the ring slot. */
template <class CHAIN, typename P>
__device__ __forceinline__ void chase(P p, P base,
                                      unsigned long long *cursor,
                                      long long *cycles, unsigned slot,
                                      int warm, int loads)
{
    for (int i = 0; i < warm; i++)
        p = CHAIN::load(p);
    long long t0 = clock64();
#pragma unroll 8
    for (int i = 0; i < loads; i++)
        p = CHAIN::load(p);
    long long t1 = clock64();
    cursor[0] = p - base;
    cursor[1] += (unsigned long long)warm + loads;
    cycles[slot] = t1 - t0;
}

template <bool CG>
__global__ void chase_global(unsigned long long *cursor, long long *cycles,
                             unsigned slot, int warm, int loads)
{
    chase<global_chain<CG> >(*cursor, 0ull, cursor, cycles, slot, warm,
                             loads);
}

__global__ void chase_shared(const unsigned *image, unsigned words,
                             unsigned long long *cursor, long long *cycles,
                             unsigned slot, int warm, int loads)
{
    extern __shared__ unsigned smem[];
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    for (unsigned w = threadIdx.x; w < words; w += blockDim.x)
        smem[w] = image[w] + base;
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    chase<shared_chain>(base + (unsigned)*cursor, base, cursor, cycles, slot,
                        warm, loads);
}

__global__ void chase_constant(unsigned long long *cursor, long long *cycles,
                               unsigned slot, int warm, int loads)
{
    chase<const_chain>((unsigned)*cursor, 0u, cursor, cycles, slot, warm,
                       loads);
}

} // namespace

extern "C" int mp_lat_const_fill(const void *host, unsigned long bytes)
{
    return (int)cudaMemcpyToSymbol(cbank, host, bytes, 0,
                                   cudaMemcpyHostToDevice);
}

extern "C" int mp_lat_prepare(const mp_lat_launch *l)
{
    cudaError_t e = cudaSuccess;
    if (l->space == MP_LAT_SPACE_SHARED) {
        e = cudaFuncSetAttribute((const void *)chase_shared,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)l->footprint);
    } else if (l->space == MP_LAT_SPACE_GLOBAL) {
        /* All of the unified L1/shared as L1: the model's capacity. */
        const void *k = l->cg ? (const void *)chase_global<true>
                              : (const void *)chase_global<false>;
        e = cudaFuncSetAttribute(k,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 (int)cudaSharedmemCarveoutMaxL1);
    }
    return (int)e;
}

extern "C" int mp_lat_launch_kernel(const mp_lat_launch *l)
{
    unsigned slot = l->launch_index % MP_LAT_RING;
    switch (l->space) {
    case MP_LAT_SPACE_GLOBAL:
        if (l->cg)
            chase_global<true><<<1, 1>>>(l->cursor, l->cycles, slot, l->warm,
                                         l->loads);
        else
            chase_global<false><<<1, 1>>>(l->cursor, l->cycles, slot,
                                          l->warm, l->loads);
        break;
    case MP_LAT_SPACE_SHARED:
        chase_shared<<<1, MP_LAT_COPY_THREADS, (size_t)l->footprint>>>(
            l->image, (unsigned)(l->footprint / 4), l->cursor, l->cycles,
            slot, l->warm, l->loads);
        break;
    case MP_LAT_SPACE_CONSTANT:
        chase_constant<<<1, 1>>>(l->cursor, l->cycles, slot, l->warm,
                                 l->loads);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
