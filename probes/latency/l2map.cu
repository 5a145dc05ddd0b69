/*
 * l2map.cu - the L2 map's kernels (l2map.c runs them): one thread on one
 * chosen SM walks a chain of dependent ld.global.cg loads (chain.cuh) and
 * times the walk with clock64; a read of scratch memory by every SM
 * empties the L2 of the chains; a grid writes a chain through given
 * lines; a whole block streams lines for the bandwidth. The SM is chosen
 * by launching many blocks: the first block whose %smid is the target
 * claims the work, every other returns.
 * Plus the extern "C" launchers.
 */
#include <cuda_runtime.h>

#include "chain.cuh"
#include "l2map.h"

namespace {

__device__ __forceinline__ unsigned smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/* clock64, read only once v has arrived: the read is predicated on v,
 * so it waits for the load that produced it. */
__device__ __forceinline__ long long clock_after(unsigned long long v)
{
    long long t;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u64 p, %1, 1;\n\t"
                 "@p mov.u64 %0, %%clock64;\n\t@!p mov.u64 %0, 0;\n\t}"
                 : "=l"(t) : "l"(v) : "memory");
    return t;
}

/* Thread 0 of the first block on SM `sm`; every other thread false. */
__device__ bool claim(unsigned sm, int *claimed)
{
    if (threadIdx.x != 0 || smid() != sm)
        return false;
    return atomicCAS(claimed, 0, 1) == 0;
}

/* From `start`, n dependent loads (n a multiple of 8) between two clocks
 * that wait for their values: out[0] the cycles, out[1] the end. */
__global__ void walk(unsigned long long start, unsigned n, unsigned sm,
                     int *claimed, unsigned long long *out)
{
    if (!claim(sm, claimed))
        return;
    unsigned long long p = start;
    long long t0 = clock_after(p);
#pragma unroll 8
    for (unsigned i = 0; i < n; i++)
        p = global_chain<true>::load(p);
    long long t1 = clock_after(p);
    out[0] = (unsigned long long)(t1 - t0);
    out[1] = p;
}

/* Each line's first word points to itself: its first load alone, timed
 * (cyc[i]); bad counts the lines whose load returned anything else. */
__global__ void first_loads(unsigned long long base, unsigned nlines,
                            unsigned sm, int *claimed, unsigned *cyc,
                            unsigned *bad)
{
    if (!claim(sm, claimed))
        return;
    unsigned wrong = 0;
    for (unsigned i = 0; i < nlines; i++) {
        unsigned long long p = base + (unsigned long long)i * MP_L2MAP_LINE;
        long long t0 = clock_after(p);
        unsigned long long v = global_chain<true>::load(p);
        long long t1 = clock_after(v);
        cyc[i] = (unsigned)(t1 - t0);
        wrong += v != p;
    }
    *bad = wrong;
}

/* Every thread of the first block on SM `sm` (the others return): the
 * line numbers idx[0..n) go to shared memory, then its warps read lines
 * base + 128 * idx[i] whole (a 4-byte ld.global.cg per lane, eight lines
 * in flight per warp) between two clocks of thread 0, the second after
 * every thread has its data: out[0] the cycles. */
__global__ void stream(unsigned long long base, const unsigned *idx,
                       unsigned n, unsigned sm, int *claimed,
                       unsigned long long *out)
{
    extern __shared__ unsigned lines[];
    __shared__ int go;
    if (threadIdx.x == 0)
        go = claim(sm, claimed);
    __syncthreads();
    if (!go)
        return;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        lines[i] = idx[i];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned nw = blockDim.x >> 5;
    unsigned sum = 0;
    long long t0 = clock64();
    for (unsigned i = warp; i < n; i += 8 * nw) {
        unsigned v[8];
#pragma unroll
        for (int k = 0; k < 8; k++) {
            v[k] = 0;
            if (i + k * nw < n) {
                unsigned long long a = base
                    + (unsigned long long)lines[i + k * nw] * MP_L2MAP_LINE
                    + lane * 4;
                asm volatile("ld.global.cg.u32 %0, [%1];"
                             : "=r"(v[k]) : "l"(a));
            }
        }
#pragma unroll
        for (int k = 0; k < 8; k++)
            sum += v[k];
    }
    /* the barrier's predicate waits for every thread's loads */
    int any = __syncthreads_or(sum == 0x9e3779b9u);
    if (threadIdx.x == 0) {
        out[0] = (unsigned long long)(clock64() - t0);
        out[1] = (unsigned long long)any;
    }
}

/* Reads `words` of scratch with every thread of the grid. */
__global__ void flush(const unsigned long long *scratch, size_t words,
                      unsigned long long *sink)
{
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        s += scratch[i];
    if (s == 1)
        *sink = s;
}

/* Line idx[i]'s first word = the address of line idx[i + 1] (the last
 * back to idx[0]). */
__global__ void link(unsigned long long *base, const unsigned *idx,
                     unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        base[(size_t)idx[i] * (MP_L2MAP_LINE / 8)] =
            (unsigned long long)(base + (size_t)idx[(i + 1) % n] *
                                            (MP_L2MAP_LINE / 8));
}

} // namespace

extern "C" int mp_l2map_walk(unsigned long long start, unsigned n,
                             unsigned sm, unsigned blocks, int *claimed,
                             unsigned long long *out)
{
    walk<<<blocks, 32>>>(start, n, sm, claimed, out);
    return (int)cudaGetLastError();
}

extern "C" int mp_l2map_first_loads(unsigned long long base,
                                    unsigned nlines, unsigned sm,
                                    unsigned blocks, int *claimed,
                                    unsigned *cyc, unsigned *bad)
{
    first_loads<<<blocks, 32>>>(base, nlines, sm, claimed, cyc, bad);
    return (int)cudaGetLastError();
}

extern "C" int mp_l2map_stream(unsigned long long base, const unsigned *idx,
                               unsigned n, unsigned sm, unsigned blocks,
                               unsigned threads, int *claimed,
                               unsigned long long *out)
{
    stream<<<blocks, threads, n * sizeof(unsigned)>>>(base, idx, n, sm,
                                                      claimed, out);
    return (int)cudaGetLastError();
}

extern "C" int mp_l2map_flush(const unsigned long long *scratch,
                              size_t words, unsigned blocks,
                              unsigned long long *sink)
{
    flush<<<blocks, 256>>>(scratch, words, sink);
    return (int)cudaGetLastError();
}

extern "C" int mp_l2map_link(unsigned long long *base, const unsigned *idx,
                             unsigned n)
{
    link<<<(n + 255) / 256, 256>>>(base, idx, n);
    return (int)cudaGetLastError();
}
