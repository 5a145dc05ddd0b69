/*
 * copy-variants.cu - exploration only (not part of
 * memprobe): device-to-device copy kernels of other shapes than the
 * bandwidth probe's, timed against cudaMemcpyAsync D2D in the same
 * process, in interleaved rounds so that drift hits every variant alike.
 * Each variant is first checked: dst must equal src byte for byte.
 *
 *   nvcc -O3 -arch=sm_90 -o copy-variants scripts/explore/copy-variants.cu
 *   ./copy-variants [GiB per array, default 8] [rounds, default 9] [set]
 *
 * set 1 (default): hints, block tiles, persistent tiles (the first set
 * measured); set 2: block sizes of the one-element-per-thread shape,
 * 8- and 4-byte elements, 32 bytes per thread, warp tiles, reversed block
 * order.
 *
 * Prints, per variant: median GB/s (read + write bytes / time), its
 * median ratio to the memcpy of the same round, min and max of that
 * ratio, mismatched words.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                              \
    do {                                                                   \
        cudaError_t e_ = (x);                                              \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,      \
                    cudaGetErrorString(e_));                               \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

typedef unsigned long long u64;

/* Cache flavours of one 16-byte load and store. */
enum { F_CS, F_NA, F_PF, F_EF };

template <int F>
static __device__ __forceinline__ uint4 ld16(const uint4 *p, u64 pol)
{
    uint4 v;
    if (F == F_CS)
        asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if (F == F_NA)
        asm volatile("ld.global.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if (F == F_PF)
        asm volatile("ld.global.L1::no_allocate.L2::256B.v4.u32 "
                     "{%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else
        asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.u32 "
                     "{%0,%1,%2,%3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p), "l"(pol));
    return v;
}

template <int F>
static __device__ __forceinline__ void st16(uint4 *p, uint4 v, u64 pol)
{
    if (F == F_CS)
        asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};"
                     ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
    else if (F == F_EF)
        asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.u32 "
                     "[%0], {%1,%2,%3,%4}, %5;"
                     ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w),
                     "l"(pol));
    else
        asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1,%2,%3,%4};"
                     ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}

static __device__ __forceinline__ u64 evict_first_policy(void)
{
    u64 pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
                 : "=l"(pol));
    return pol;
}

/* One-shot, one element per thread per U step, grid-interleaved: thread t
 * copies elements t, t + T, ... (T = all threads): the probe's shape. */
template <int F, int U>
__global__ void interleaved(const uint4 *__restrict__ s, uint4 *__restrict__ d,
                            u64 n)
{
    const u64 T = (u64)gridDim.x * blockDim.x;
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 pol = F == F_EF ? evict_first_policy() : 0;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (t + u * T < n)
            v[u] = ld16<F>(s + t + u * T, pol);
#pragma unroll
    for (int u = 0; u < U; u++)
        if (t + u * T < n)
            st16<F>(d + t + u * T, v[u], pol);
}

/* Block tiles: block b copies the contiguous U * blockDim elements from
 * b * U * blockDim on (one-shot, or P: persistent over tiles b, b + grid,
 * ...). Thread i takes elements i, i + blockDim, ... of the tile, all U
 * loads before the first store. */
template <int F, int U, bool P>
__global__ void tiled(const uint4 *__restrict__ s, uint4 *__restrict__ d,
                      u64 n)
{
    const u64 tile = (u64)U * blockDim.x;
    const u64 tiles = (n + tile - 1) / tile;
    const u64 pol = F == F_EF ? evict_first_policy() : 0;
    for (u64 b = blockIdx.x; b < tiles; b += P ? gridDim.x : tiles) {
        const u64 base = b * tile + threadIdx.x;
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (base + u * blockDim.x < n)
                v[u] = ld16<F>(s + base + u * blockDim.x, pol);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (base + u * blockDim.x < n)
                st16<F>(d + base + u * blockDim.x, v[u], pol);
    }
}

/* The interleaved shape with elements of E bytes (4 or 8, plain loads
 * through L1::no_allocate as PTX of exactly E bytes). */
template <int E>
__global__ void narrow(const uint4 *__restrict__ s4, uint4 *__restrict__ d4,
                       u64 n16)
{
    const u64 n = n16 * (16 / E);
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    const char *s = (const char *)s4 + t * E;
    char *d = (char *)d4 + t * E;
    if (E == 8) {
        unsigned a, b;
        asm volatile("ld.global.L1::no_allocate.v2.u32 {%0,%1}, [%2];"
                     : "=r"(a), "=r"(b) : "l"(s));
        asm volatile("st.global.L1::no_allocate.v2.u32 [%0], {%1,%2};"
                     ::"l"(d), "r"(a), "r"(b));
    } else {
        unsigned a;
        asm volatile("ld.global.L1::no_allocate.u32 %0, [%1];"
                     : "=r"(a) : "l"(s));
        asm volatile("st.global.L1::no_allocate.u32 [%0], %1;"
                     ::"l"(d), "r"(a));
    }
}

/* Thread t copies the 32 contiguous bytes of elements 2t and 2t + 1. */
__global__ void pairs(const uint4 *__restrict__ s, uint4 *__restrict__ d,
                      u64 n)
{
    const u64 i = 2 * ((u64)blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 1 >= n + 1)
        return;
    uint4 a = ld16<F_NA>(s + i, 0), b;
    if (i + 1 < n)
        b = ld16<F_NA>(s + i + 1, 0);
    st16<F_NA>(d + i, a, 0);
    if (i + 1 < n)
        st16<F_NA>(d + i + 1, b, 0);
}

/* Warp tiles: warp w copies the U * 32 contiguous elements from
 * w * U * 32 on, lane l taking l, l + 32, ... */
template <int U>
__global__ void warptile(const uint4 *__restrict__ s, uint4 *__restrict__ d,
                         u64 n)
{
    const u64 w = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const u64 base = w * U * 32 + (threadIdx.x & 31);
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (base + u * 32 < n)
            v[u] = ld16<F_NA>(s + base + u * 32, 0);
#pragma unroll
    for (int u = 0; u < U; u++)
        if (base + u * 32 < n)
            st16<F_NA>(d + base + u * 32, v[u], 0);
}

/* One element per thread, blocks in reverse order of the array. */
__global__ void reversed(const uint4 *__restrict__ s, uint4 *__restrict__ d,
                         u64 n)
{
    const u64 b = gridDim.x - 1 - blockIdx.x;
    const u64 t = b * blockDim.x + threadIdx.x;
    if (t < n)
        st16<F_NA>(d + t, ld16<F_NA>(s + t, 0), 0);
}

__global__ void fill(uint4 *p, u64 n)
{
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        unsigned k = (unsigned)(i * 4);
        p[i] = make_uint4(k * 2654435761u, (k + 1) * 2654435761u,
                          (k + 2) * 2654435761u, (k + 3) * 2654435761u);
    }
}

__global__ void differ(const uint4 *a, const uint4 *b, u64 n, u64 *bad)
{
    u64 c = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x)
        c += (a[i].x != b[i].x) + (a[i].y != b[i].y) + (a[i].z != b[i].z) +
             (a[i].w != b[i].w);
    if (c)
        atomicAdd(bad, c);
}

typedef void (*kern)(const uint4 *, uint4 *, u64);
struct variant {
    int sets;
    const char *name;
    kern k;       /* NULL: cudaMemcpyAsync */
    int threads;
    int per_thread; /* elements per thread per block tile / step */
    int persistent_blocks_per_sm; /* 0: one-shot */
    int elems_per_16; /* elements of the kernel per 16 bytes (narrow) */
};

/* Every variant, with the sets (bit 1: set 1, bit 2: set 2) it is in. */
static const variant ALL[] = {
    {3, "memcpy", NULL, 0, 0, 0},
    {1, "interleaved cs u1 t256", interleaved<F_CS, 1>, 256, 1, 0},
    {3, "interleaved na u1 t256", interleaved<F_NA, 1>, 256, 1, 0},
    {1, "interleaved pf u1 t256", interleaved<F_PF, 1>, 256, 1, 0},
    {1, "interleaved ef u1 t256", interleaved<F_EF, 1>, 256, 1, 0},
    {1, "interleaved na u1 t1024", interleaved<F_NA, 1>, 1024, 1, 0},
    {1, "interleaved na u2 t256", interleaved<F_NA, 2>, 256, 2, 0},
    {1, "tiled na u2 t256", tiled<F_NA, 2, false>, 256, 2, 0},
    {1, "tiled na u4 t256", tiled<F_NA, 4, false>, 256, 4, 0},
    {1, "tiled na u8 t256", tiled<F_NA, 8, false>, 256, 8, 0},
    {1, "tiled na u4 t1024", tiled<F_NA, 4, false>, 1024, 4, 0},
    {1, "tiled cs u4 t256", tiled<F_CS, 4, false>, 256, 4, 0},
    {1, "tiled ef u4 t256", tiled<F_EF, 4, false>, 256, 4, 0},
    {1, "tiled pf u4 t256", tiled<F_PF, 4, false>, 256, 4, 0},
    {1, "persistent na u4 t256 x8", tiled<F_NA, 4, true>, 256, 4, 8},
    {1, "persistent na u8 t512 x4", tiled<F_NA, 8, true>, 512, 8, 4},
    {1, "persistent cs u4 t1024 x2", tiled<F_CS, 4, true>, 1024, 4, 2},
    {2, "interleaved na u1 t32", interleaved<F_NA, 1>, 32, 1, 0},
    {2, "interleaved na u1 t64", interleaved<F_NA, 1>, 64, 1, 0},
    {2, "interleaved na u1 t128", interleaved<F_NA, 1>, 128, 1, 0},
    {2, "interleaved na u1 t512", interleaved<F_NA, 1>, 512, 1, 0},
    {2, "narrow 8-byte t256", narrow<8>, 256, 1, 0, 2},
    {2, "narrow 4-byte t256", narrow<4>, 256, 1, 0, 4},
    {2, "pairs 32 bytes t256", pairs, 256, 2, 0},
    {2, "pairs 32 bytes t128", pairs, 128, 2, 0},
    {2, "warptile u2 t256", warptile<2>, 256, 2, 0},
    {2, "warptile u4 t128", warptile<4>, 128, 4, 0},
    {2, "reversed t256", reversed, 256, 1, 0},
    {2, "interleaved cs u1 t128", interleaved<F_CS, 1>, 128, 1, 0},
};
#define NALL (int)(sizeof ALL / sizeof ALL[0])
static const variant *V[NALL];
static int NV;

static int sms;

static void launch(const variant *v, const uint4 *s, uint4 *d, u64 n)
{
    if (!v->k) {
        CK(cudaMemcpyAsync(d, s, n * 16, cudaMemcpyDeviceToDevice));
        return;
    }
    u64 per_block = (u64)v->threads * v->per_thread;
    if (v->elems_per_16)
        per_block = (u64)v->threads / v->elems_per_16;
    u64 blocks = v->persistent_blocks_per_sm
                     ? (u64)sms * v->persistent_blocks_per_sm
                     : (n + per_block - 1) / per_block;
    v->k<<<(unsigned)blocks, v->threads>>>(s, d, n);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, n, sizeof *x, cmpd);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    const double gib = argc > 1 ? atof(argv[1]) : 8;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (rounds < 1 || rounds > 64)
        rounds = 9;
    const int reps = 3;
    const int set = argc > 3 && atoi(argv[3]) == 2 ? 2 : 1;
    for (int i = 0; i < NALL; i++)
        if (ALL[i].sets & set)
            V[NV++] = &ALL[i];
    const u64 n = (u64)(gib * (1ull << 30)) / 16;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint4 *s, *d;
    u64 *bad;
    CK(cudaMalloc(&s, n * 16));
    CK(cudaMalloc(&d, n * 16));
    CK(cudaMalloc(&bad, sizeof *bad));
    fill<<<sms * 8, 256>>>(s, n);
    CK(cudaGetLastError());

    u64 mism[NALL];
    for (int i = 0; i < NV; i++) {
        CK(cudaMemset(d, 0, n * 16));
        CK(cudaMemset(bad, 0, sizeof *bad));
        launch(V[i], s, d, n);
        CK(cudaGetLastError());
        differ<<<sms * 8, 256>>>(s, d, n, bad);
        CK(cudaMemcpy(&mism[i], bad, sizeof *bad, cudaMemcpyDeviceToHost));
    }

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double *ms = (double *)calloc((size_t)NV * rounds, sizeof *ms);
    for (int r = -1; r < rounds; r++) {  /* round -1: warm-up */
        for (int i = 0; i < NV; i++) {
            launch(V[i], s, d, n);
            CK(cudaEventRecord(e0));
            for (int k = 0; k < reps; k++)
                launch(V[i], s, d, n);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= 0)
                ms[i * rounds + r] = t / reps;
        }
    }
    printf("# %.2f GiB per array, %d rounds of %d launches, %d SMs\n", gib,
           rounds, reps, sms);
    printf("%-28s %9s %8s %8s %8s %s\n", "variant", "GB/s", "xmemcpy",
           "min", "max", "mismatched");
    for (int i = 0; i < NV; i++) {
        double gbs[64], ratio[64];
        for (int r = 0; r < rounds; r++) {
            gbs[r] = 2.0 * n * 16 / (ms[i * rounds + r] * 1e6);
            ratio[r] = ms[0 * rounds + r] / ms[i * rounds + r];
        }
        double g = median(gbs, rounds), q = median(ratio, rounds);
        printf("%-28s %9.1f %8.4f %8.4f %8.4f %llu\n", V[i]->name, g, q,
               ratio[0], ratio[rounds - 1], mism[i]);
    }
    free(ms);
    CK(cudaFree(s));
    CK(cudaFree(d));
    CK(cudaFree(bad));
    return 0;
}
