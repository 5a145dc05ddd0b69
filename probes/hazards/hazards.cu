/*
 * hazards.cu - the hazard catalogue's kernels and their extern "C"
 * launchers: the seeds' dot product with a shared cache[] tree reduction
 * (seed 003, "CUDA by example" p. 55, and seed 004's main1.cu), once
 * written correctly and once with each synchronisation bug, one small
 * kernel per bug so that a tool's report points at it.
 *
 * Every kernel has the seeds' shape:
 *   1. each thread sums a[i] * b[i] over a grid-stride loop into temp;
 *   2. cache[threadIdx.x] = temp; __syncthreads();
 *   3. halving loop: i = blockDim.x / 2; while (i != 0) { if (cacheIndex <
 *      i) cache[cacheIndex] += cache[cacheIndex + i]; __syncthreads(); i /=
 *      2; }
 *   4. thread 0 writes cache[0], the block's partial.
 * The bugs change exactly one of these lines: seed_dot writes the shape
 * once, and its template parameter picks the variant's line, while each
 * variant keeps a kernel of its own. Loops are bounded: the
 * grid-stride loop by n, the halving loop by MP_HZ_MAX_STEPS steps whatever
 * its halving does. A barrier that never opens cannot be bounded inside the
 * kernel; memprobe runs each kernel in a child process with a time limit
 * (probes/hazards/hazards.c).
 */
#include <cuda_runtime.h>

#include "hazards.h"

/* Step 1: this thread's share of the dot product (the seeds' while loop). */
static __device__ __forceinline__ float thread_partial(const float *a,
                                                       const float *b, int n)
{
    float temp = 0.0f;
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n;
         i += blockDim.x * gridDim.x)
        temp += a[i] * b[i];
    return temp;
}

/* The seeds' reduction, steps 2 to 4, written once for every kernel. BUG
 * (an MP_HZ_* value) names the seed variant: it changes exactly the one
 * line marked with that variant's name, and MP_HZ_CORRECT changes none.
 * Each variant stays a kernel of its own (below), so that a tool's report
 * names it. */
template <int BUG>
static __device__ __forceinline__ void seed_dot(const float *a,
                                                const float *b, int n,
                                                float *partials)
{
    __shared__ float cache[MP_HZ_MAX_THREADS];
    const int cacheIndex = threadIdx.x;
    cache[cacheIndex] = thread_partial(a, b, n);
    if (BUG != MP_HZ_MISSING_BARRIER)   /* missing-barrier: left out */
        __syncthreads();
    int i = blockDim.x / 2, steps = 0;
    while (i != 0 && steps++ < MP_HZ_MAX_STEPS) {
        if (cacheIndex < i) {
            cache[cacheIndex] += cache[cacheIndex + i];
            if (BUG == MP_HZ_SYNC_IN_DIVERGENT_IF)
                __syncthreads();   /* sync-in-divergent-if: threads < i */
        }
        if (BUG != MP_HZ_SYNC_IN_DIVERGENT_IF)
            __syncthreads();
        if (BUG == MP_HZ_HALVING_SHIFT_2)
            i = i >> 2;   /* halving-shift-2: i / 4, not i / 2 */
        else
            i /= 2;
    }
    /* result-by-thread-2: thread 2, which need not exist */
    if (cacheIndex == (BUG == MP_HZ_RESULT_BY_THREAD_2 ? 2 : 0))
        partials[blockIdx.x] = cache[0];
}

/* One kernel per seed variant, each with the seeds' signature. */
#define MP_HZ_KERNEL(NAME, BUG)                                              \
    __global__ void NAME(const float *a, const float *b, int n,              \
                         float *partials)                                    \
    {                                                                        \
        seed_dot<BUG>(a, b, n, partials);                                    \
    }

/* (0) correct: the seeds' reduction as it should be. */
MP_HZ_KERNEL(hazard_correct, MP_HZ_CORRECT)

/* (1) sync-in-divergent-if: seed 003's "deadlock" listing. The barrier sits
 * inside if (cacheIndex < i), so the threads that skip the branch never
 * reach it. Before Volta the block hung; on sm_70+ (independent thread
 * scheduling) barrier arrival is counted per thread and exited threads no
 * longer hold a barrier up, so it may finish, hang, or finish wrong: the
 * behaviour is undefined. synccheck reports the divergent barrier. */
MP_HZ_KERNEL(hazard_sync_in_divergent_if, MP_HZ_SYNC_IN_DIVERGENT_IF)

/* (2) halving-shift-2: seed 003's listing halves with i = i >> 2, which
 * divides by 4: with 256 threads i runs 128, 32, 8, 2 and the levels 64,
 * 16, 4 and 1 are never added. Every access stays in bounds and every step
 * has its barrier, so no tool has anything to report: only the result
 * check sees it. */
MP_HZ_KERNEL(hazard_halving_shift_2, MP_HZ_HALVING_SHIFT_2)

/* (3) result-by-thread-2: seed 004 (which calls the index cacheIdx) writes
 * the block's result with if (cacheIdx == 2). The loop's last barrier
 * publishes cache[0] to every thread, so with 3 or more threads per block
 * thread 2 writes the right value and no tool objects; with 1 or 2 threads
 * no thread writes the partial at all, and the sum reads memory nobody
 * wrote (initcheck). */
MP_HZ_KERNEL(hazard_result_by_thread_2, MP_HZ_RESULT_BY_THREAD_2)

/* (4) missing-barrier: no __syncthreads() between the shared write
 * cache[cacheIndex] = temp and the first reduction step, which reads
 * cache[cacheIndex + i], another warp's element: a read-after-write race
 * (racecheck). The result is wrong whenever a warp reads before the other
 * has written. */
MP_HZ_KERNEL(hazard_missing_barrier, MP_HZ_MISSING_BARRIER)

/* The block partials summed in double by one thread (the seeds did this on
 * the host; on the device, initcheck sees a partial that was never
 * written). */
__global__ void hazard_finalize(const float *partials, int blocks,
                                double *total)
{
    double s = 0.0;
    for (int k = 0; k < blocks; k++)
        s += partials[k];
    *total = s;
}

typedef void (*kernel_fn)(const float *, const float *, int, float *);

static kernel_fn pick(int kernel)
{
    switch (kernel) {
    case MP_HZ_CORRECT: return hazard_correct;
    case MP_HZ_SYNC_IN_DIVERGENT_IF: return hazard_sync_in_divergent_if;
    case MP_HZ_HALVING_SHIFT_2: return hazard_halving_shift_2;
    case MP_HZ_RESULT_BY_THREAD_2: return hazard_result_by_thread_2;
    case MP_HZ_MISSING_BARRIER: return hazard_missing_barrier;
    }
    return 0;
}

extern "C" int mp_hazard_launch(int kernel, const float *a, const float *b,
                                int n, int threads, int blocks,
                                float *partials)
{
    kernel_fn k = pick(kernel);
    if (!k || threads < 1 || threads > MP_HZ_MAX_THREADS || blocks < 1)
        return (int)cudaErrorInvalidValue;
    k<<<blocks, threads>>>(a, b, n, partials);
    return (int)cudaGetLastError();
}

extern "C" int mp_hazard_finalize(const float *partials, int blocks,
                                  double *total)
{
    hazard_finalize<<<1, 1>>>(partials, blocks, total);
    return (int)cudaGetLastError();
}
