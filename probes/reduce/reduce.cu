/*
 * reduce.cu - the block-reduction probe: one kernel per variant and
 * workload, and the extern "C" launcher.
 *
 * Plain CUDA C written as in the seeds (the compiler's code for it is what
 * is measured), with three deliberate differences, each for the model:
 *
 * 1. The shared array is accessed through a volatile pointer, so every
 *    `cache[a] += cache[b]` is exactly two LDS and one STS, in every step,
 *    as the source says (nothing kept in registers, nothing merged).
 * 2. Every step body that some threads skip ends with __syncwarp(lanes),
 *    lanes = the warp's ballot of the step's condition: it syncs exactly
 *    the lanes that are in the body (a no-op for the result; STEP below).
 *    Without it ptxas (CUDA 13.0, sm_90) if-converts the short body into
 *    predicated LDS/STS that EVERY warp issues in every step, also warps
 *    whose lanes all skip it; with it, the SASS branches around the body,
 *    so a warp whose lanes all skip a step issues none of its LDS/STS:
 *    the request count of probes/reduce/reduce_model.c. (Checked with nvdisasm
 *    for all 14 kernels; the warp-shuffle kernels need no fence: warps
 *    other than warp 0 exit before its load.)
 * 3. The cubes sum is unsigned: the same bits as the seeds' int while it
 *    fits, and exact modulo 2^32 beyond.
 *
 * Thread 0 of each block stamps clock64() on entry and after the block's
 * last step (the seeds' in-kernel timing); host-partials has a barrier
 * before its end stamp, so that it marks the end of the whole block.
 */
#include <cuda_runtime.h>

#include "reduce.h"

#define FULL_MASK 0xffffffffu

/* One reduction step `if (take) BODY`, see point 2 above: the lanes that
 * take part are balloted by the whole warp first, and sync with each
 * other (exactly the lanes in the body) at the end of it, which makes
 * ptxas branch around the body instead of predicating it. */
#define STEP(take, BODY)                                                   \
    do {                                                                   \
        const bool take_ = (take);                                         \
        const unsigned lanes_ = __ballot_sync(FULL_MASK, take_);           \
        if (take_) {                                                       \
            BODY;                                                          \
            __syncwarp(lanes_);                                            \
        }                                                                  \
    } while (0)

/* The workloads: the type summed and one term. */
template <int W> struct work;

template <> struct work<MP_RED_CUBES> {
    typedef unsigned T;
    static __device__ __forceinline__ T term(const void *x, const void *,
                                             unsigned i)
    {
        unsigned v = (unsigned)((const int *)x)[i];
        return v * v * v;
    }
};

template <> struct work<MP_RED_DOT> {
    typedef float T;
    static __device__ __forceinline__ T term(const void *x, const void *y,
                                             unsigned i)
    {
        return ((const float *)x)[i] * ((const float *)y)[i];
    }
};

/* Sum over the warp, in lane 0 (the others hold partial sums). */
template <typename T>
static __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(FULL_MASK, v, off);
    return v;
}

template <int V, int W>
__global__ void __launch_bounds__(1024)
reduce_kernel(const void *x, const void *y, unsigned n, void *out_,
              void *next_, long long *clocks)
{
    typedef typename work<W>::T T;
    extern __shared__ unsigned smem[];
    volatile T *cache = (volatile T *)smem;
    T *out = (T *)out_;
    const unsigned tid = threadIdx.x, bid = blockIdx.x, T_ = blockDim.x;

    if (tid == 0)
        clocks[bid] = clock64();

    /* The seeds' loop: thread t adds terms t, t + G, t + 2G, ... */
    T sum = 0;
    for (unsigned i = bid * T_ + tid; i < n; i += gridDim.x * T_)
        sum += work<W>::term(x, y, i);

    if (V == MP_RED_HOST_PARTIALS) {
        out[bid * T_ + tid] = sum;
        __syncthreads();
        if (tid == 0)
            clocks[gridDim.x + bid] = clock64();
        return;
    }

    if (V == MP_RED_WARP_SHUFFLE || V == MP_RED_ATOMIC) {
        const unsigned lane = tid % 32, warp = tid / 32, nwarps = T_ / 32;
        sum = warp_sum(sum);
        if (lane == 0)
            cache[warp] = sum;
        __syncthreads();
        /* The other warps are done: they exit here (SASS: EXIT), so
         * they issue no LDS; warp 0's lanes >= nwarps skip the load. */
        if (warp == 0) {
            sum = lane < nwarps ? cache[lane] : (T)0;
            sum = warp_sum(sum);
            if (lane == 0) {
                if (V == MP_RED_ATOMIC) {
                    atomicAdd(out, sum);
                    if (bid == 0)
                        *(T *)next_ = 0;   /* the next launch's slot */
                } else {
                    out[bid] = sum;
                }
                clocks[gridDim.x + bid] = clock64();
            }
        }
        return;
    }

    cache[tid] = sum;
    __syncthreads();

    if (V == MP_RED_THREAD0_SERIAL) {
        /* Seed 000: thread 0 adds the block's array into cache[0]. */
        if (tid == 0)
            for (unsigned i = 1; i < T_; i++)
                cache[0] += cache[i];
    } else if (V == MP_RED_TREE_INTERLEAVED) {
        for (unsigned s = 1; s < T_; s *= 2) {
            STEP(tid % (2 * s) == 0, cache[tid] += cache[tid + s]);
            __syncthreads();
        }
    } else if (V == MP_RED_TREE_STRIDED) {
        for (unsigned s = 1; s < T_; s *= 2) {
            const unsigned index = 2 * s * tid;
            STEP(index < T_, cache[index] += cache[index + s]);
            __syncthreads();
        }
    } else {
        /* Seeds 003/004, written correctly: i /= 2, thread 0 writes. */
        unsigned i = T_ / 2;
        while (i != 0) {
            STEP(tid < i, cache[tid] += cache[tid + i]);
            __syncthreads();
            i /= 2;
        }
    }
    if (tid == 0) {
        out[bid] = cache[0];
        clocks[gridDim.x + bid] = clock64();
    }
}

typedef void (*kernel_fn)(const void *, const void *, unsigned, void *,
                          void *, long long *);

#define BOTH(V) {reduce_kernel<V, MP_RED_CUBES>, reduce_kernel<V, MP_RED_DOT>}

static const kernel_fn kernels[MP_RED_VARIANTS][MP_RED_WORKLOADS] = {
    BOTH(MP_RED_HOST_PARTIALS),   BOTH(MP_RED_THREAD0_SERIAL),
    BOTH(MP_RED_TREE_INTERLEAVED), BOTH(MP_RED_TREE_STRIDED),
    BOTH(MP_RED_TREE_SEQUENTIAL), BOTH(MP_RED_WARP_SHUFFLE),
    BOTH(MP_RED_ATOMIC),
};

static kernel_fn pick(const mp_red_launch *l)
{
    if (l->variant < 0 || l->variant >= MP_RED_VARIANTS || l->workload < 0
        || l->workload >= MP_RED_WORKLOADS)
        return 0;
    return kernels[l->variant][l->workload];
}

extern "C" int mp_red_occupancy(const mp_red_launch *l, int *blocks_per_sm)
{
    kernel_fn k = pick(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)k, l->threads,
        mp_red_shared_bytes(l->variant, l->threads));
}

extern "C" int mp_red_launch_kernel(const mp_red_launch *l)
{
    kernel_fn k = pick(l);
    if (!k)
        return (int)cudaErrorInvalidValue;
    void *out = l->out, *next = NULL;
    if (l->variant == MP_RED_ATOMIC) {
        out = (char *)l->out + 4 * l->parity;
        next = (char *)l->out + 4 * (1 - l->parity);
    }
    k<<<l->blocks, l->threads, mp_red_shared_bytes(l->variant, l->threads)>>>(
        l->x, l->y, l->n, out, next, l->clocks);
    return (int)cudaGetLastError();
}
