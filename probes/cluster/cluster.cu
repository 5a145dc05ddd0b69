/*
 * cluster.cu - distributed shared memory probe (sm_90 thread-block
 * clusters): kernels and the extern "C" launcher.
 *
 * Every block fills its own shared buffer, the cluster synchronises
 * (barrier.cluster arrive.release / wait.acquire), and then each block
 * works on a target buffer: its own (local: ld/st.shared, LDS/STS) or the
 * next rank's of its cluster (remote: the address from mapa.shared::cluster,
 * then ld/st.shared::cluster). Then the cluster synchronises again, so no
 * block leaves while another still uses its shared memory.
 *
 *   chase  thread 0 of each block follows a chain of byte offsets through
 *          the target buffer (word at offset i x stride holds the next
 *          offset), `iterations` dependent loads between two clock64
 *          reads: cycles per hop = latency;
 *   ld     every thread loads `width` bytes per iteration, walking slots
 *          tid, tid + T, ... of the buffer, and sums what it read;
 *   st     the same slots, each stored with a value naming the storing
 *          rank, thread and iteration; each block then writes its own
 *          buffer out, so the host sees who wrote what where.
 * Loads and stores are plain (weak) ld/st in asm volatile: the address
 * changes every iteration (the probe refuses a buffer of one slot per
 * thread), and the chase's loads depend on each other, so nothing can be
 * hoisted. ld.volatile would make them .STRONG.SYS in the SASS (a
 * different, slower access); weak ones are what a kernel uses. Remote
 * accesses appear in the SASS as generic LD/ST on the address mapa
 * returns, local ones as LDS/STS. On targets below sm_90 the kernels trap
 * (cluster.c refuses them before any launch).
 */
#include <cuda_runtime.h>

#include "arch.h"
#include "cluster.h"

namespace {

#if MP_ARCH_HAS(MP_CC_CLUSTER)
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ unsigned special(int which)
{
    unsigned v;
    if (which == 0)
        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v));
    else
        asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v));
    return v;
}

template <bool REMOTE>
__device__ __forceinline__ unsigned ld1(unsigned a)
{
    unsigned v;
    if (REMOTE)
        asm volatile("ld.shared::cluster.u32 %0, [%1];"
                     : "=r"(v) : "r"(a) : "memory");
    else
        asm volatile("ld.shared.u32 %0, [%1];"
                     : "=r"(v) : "r"(a) : "memory");
    return v;
}

/* Sum of the width/4 words at a. */
template <bool REMOTE, int W>
__device__ __forceinline__ unsigned ld_sum(unsigned a)
{
    unsigned x, y, z, w;
    if (W == 4)
        return ld1<REMOTE>(a);
    if (W == 8) {
        if (REMOTE)
            asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];"
                         : "=r"(x), "=r"(y) : "r"(a) : "memory");
        else
            asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                         : "=r"(x), "=r"(y) : "r"(a) : "memory");
        return x + y;
    }
    if (REMOTE)
        asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
    else
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
    return x + y + z + w;
}

/* Stores v, v + 1, ... into the width/4 words at a. */
template <bool REMOTE, int W>
__device__ __forceinline__ void st_words(unsigned a, unsigned v)
{
    if (W == 4) {
        if (REMOTE)
            asm volatile("st.shared::cluster.u32 [%0], %1;"
                         :: "r"(a), "r"(v) : "memory");
        else
            asm volatile("st.shared.u32 [%0], %1;"
                         :: "r"(a), "r"(v) : "memory");
    } else if (W == 8) {
        if (REMOTE)
            asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};"
                         :: "r"(a), "r"(v), "r"(v + 1) : "memory");
        else
            asm volatile("st.shared.v2.u32 [%0], {%1, %2};"
                         :: "r"(a), "r"(v), "r"(v + 1) : "memory");
    } else {
        if (REMOTE)
            asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3)
                         : "memory");
        else
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3)
                         : "memory");
    }
}
#endif

template <int OP, bool REMOTE, int W>
__global__ void cluster_probe(int tile_bytes, int stride, int iterations,
                              unsigned *out, long long *clocks)
{
#if MP_ARCH_HAS(MP_CC_CLUSTER)
    extern __shared__ unsigned buf[];
    const unsigned rank = special(0), n = special(1);
    const int words = tile_bytes / 4;
    const int hops = tile_bytes / stride;

    if (OP == MP_CLUSTER_CHASE) {
        for (int w = threadIdx.x; w < words; w += blockDim.x)
            buf[w] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < hops; i += blockDim.x)
            buf[i * (stride / 4)] = (unsigned)(((i + 1) % hops) * stride);
    } else {
        for (int w = threadIdx.x; w < words; w += blockDim.x)
            buf[w] = mp_cluster_word(rank, (unsigned)w);
    }
    cluster_sync();

    unsigned base = smem_addr(buf);
    if (REMOTE)
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(base) : "r"(base), "r"((rank + 1) % n));
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64();

    if (OP == MP_CLUSTER_CHASE) {
        if (threadIdx.x == 0) {
            unsigned p = 0;
            long long t0 = clock64();
            for (int i = 0; i < iterations; i++)
                p = ld1<REMOTE>(base + p);
            long long t1 = clock64();
            out[2 * blockIdx.x] = p;
            out[2 * blockIdx.x + 1] = (unsigned)(t1 - t0);
        }
    } else {
        const int k = tile_bytes / (W * (int)blockDim.x);
        int m = 0;
        unsigned acc = 0;
        for (int i = 0; i < iterations; i++) {
            unsigned a = base + (unsigned)((threadIdx.x + m * blockDim.x) * W);
            if (OP == MP_CLUSTER_LD)
                acc += ld_sum<REMOTE, W>(a);
            else
                st_words<REMOTE, W>(a, mp_cluster_stored(rank, threadIdx.x,
                                                         (unsigned)i));
            if (++m == k)
                m = 0;
        }
        if (OP == MP_CLUSTER_LD)
            out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    }
    cluster_sync();
    if (threadIdx.x == 0)
        clocks[gridDim.x + blockIdx.x] = clock64();
    if (OP == MP_CLUSTER_ST)
        for (int w = threadIdx.x; w < words; w += blockDim.x)
            out[(size_t)blockIdx.x * words + w] = buf[w];
#else
    (void)tile_bytes; (void)stride; (void)iterations; (void)out;
    (void)clocks;
    MP_ARCH_MISSING();
#endif
}

typedef void (*kernel_fn)(int, int, int, unsigned *, long long *);

template <bool R>
kernel_fn pick_width(int op, int width)
{
    if (op == MP_CLUSTER_CHASE)
        return cluster_probe<MP_CLUSTER_CHASE, R, 4>;
    if (op == MP_CLUSTER_LD)
        return width == 4 ? cluster_probe<MP_CLUSTER_LD, R, 4>
             : width == 8 ? cluster_probe<MP_CLUSTER_LD, R, 8>
                          : cluster_probe<MP_CLUSTER_LD, R, 16>;
    return width == 4 ? cluster_probe<MP_CLUSTER_ST, R, 4>
         : width == 8 ? cluster_probe<MP_CLUSTER_ST, R, 8>
                      : cluster_probe<MP_CLUSTER_ST, R, 16>;
}

/* The kernel, its attributes set, and the launch configuration. */
int prepare(const mp_cluster_launch *l, kernel_fn *k, cudaLaunchConfig_t *cfg,
            cudaLaunchAttribute *attr)
{
    *k = l->remote ? pick_width<true>(l->op, l->width)
                   : pick_width<false>(l->op, l->width);
    cudaError_t e = cudaFuncSetAttribute(
        (const void *)*k, cudaFuncAttributeMaxDynamicSharedMemorySize,
        l->tile_bytes);
    if (e == cudaSuccess && l->cluster > 8)
        e = cudaFuncSetAttribute((const void *)*k,
                                 cudaFuncAttributeNonPortableClusterSizeAllowed,
                                 1);
    if (e != cudaSuccess)
        return (int)e;
    *cfg = cudaLaunchConfig_t();
    cfg->gridDim = dim3((unsigned)l->blocks);
    cfg->blockDim = dim3((unsigned)l->threads);
    cfg->dynamicSmemBytes = (size_t)l->tile_bytes;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)l->cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
    return 0;
}

} // namespace

extern "C" int mp_cluster_max_active(const mp_cluster_launch *l,
                                     int *clusters)
{
    kernel_fn k;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    mp_cluster_launch one = *l;
    one.blocks = l->cluster;   /* the grid must be a multiple of it */
    int rc = prepare(&one, &k, &cfg, &attr);
    if (rc)
        return rc;
    return (int)cudaOccupancyMaxActiveClusters(clusters, (const void *)k,
                                               &cfg);
}

extern "C" int mp_cluster_launch_kernel(const mp_cluster_launch *l)
{
    kernel_fn k;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    int rc = prepare(l, &k, &cfg, &attr);
    if (rc)
        return rc;
    rc = (int)cudaLaunchKernelEx(&cfg, k, l->tile_bytes, l->stride,
                                 l->iterations, l->out, l->clocks);
    if (rc)
        return rc;
    return (int)cudaGetLastError();
}
