/*
 * l2map.cu - exploration only (not part of memprobe): where an H200 line
 * lives in the L2, seen from each SM. One thread on one chosen SM (the
 * block whose %smid is that SM claims the work; the others return) loads
 * lines with ld.global.cg through a self-pointing element, so every load
 * waits for the one before it.
 *
 *   nvcc -O3 -arch=sm_90 -o l2map scripts/explore/l2map.cu
 *   ./l2map map LINES REPS      > map.csv      every SM x LINES lines
 *   ./l2map plateau             > plateau.csv  chases of near / far lines
 *   ./l2map halves LINES        > halves.csv   device-memory homes per SM
 *   ./l2map plateau SET MIB     one chase of the plateau (for ncu)
 *   ./l2map tlb                 > tlb.csv      one line per page
 *
 * map: "map,sm,line,first,steady": first = cycles of the SM's first load
 * of the line (the line last read by the SM before it), steady = cycles
 * per load of REPS more.
 * plateau: classifies every line of a 192 MiB buffer as near or far for
 * SM 0 (steady latency against the median split), then chases random
 * cycles through near lines only, far lines only and all lines at
 * footprints of 16-128 MiB from SM 0: "plateau,set,footprint,cycles".
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

__device__ __forceinline__ u64 ldcg(u64 p)
{
    u64 v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ unsigned smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/* clock64 read only once `v` has arrived: the read is predicated on it. */
__device__ __forceinline__ long long clock_after(u64 v)
{
    long long t;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u64 p, %1, 1;\n\t"
                 "@p mov.u64 %0, %%clock64;\n\t@!p mov.u64 %0, 0;\n\t}"
                 : "=l"(t) : "l"(v) : "memory");
    return t;
}

/* The one thread on SM `sm` that claims `claim`; everyone else false. */
__device__ bool claim_sm(unsigned sm, int *claim)
{
    if (threadIdx.x != 0 || smid() != sm) return false;
    return atomicCAS(claim, 0, 1) == 0;
}

/* Lines base + i*128 for i in [first, first+n): each line's first word
 * holds its own address. out[2i] = first load, out[2i+1] = REPS loads. */
__global__ void time_lines(u64 base, int first, int n, int reps, unsigned sm,
                           int *claim, u64 *out)
{
    if (!claim_sm(sm, claim)) return;
    u64 sink = 0;
    for (int i = 0; i < n; i++) {
        u64 p = base + (u64)(first + i) * 128;
        long long t0 = clock_after(p);
        u64 q = ldcg(p);
        long long t1 = clock_after(q);
        for (int r = 0; r < reps; r++) q = ldcg(q);
        long long t2 = clock_after(q);
        if (q == 1) sink++;
        out[2 * i] = (u64)(t1 - t0);
        out[2 * i + 1] = (u64)(t2 - t1);
    }
    if (sink) out[0] = 0;
}

/* Chase from `start`: `warm` loads untimed, `loads` timed. */
__global__ void chase(u64 start, long long warm, long long loads, unsigned sm,
                      int *claim, u64 *out)
{
    if (!claim_sm(sm, claim)) return;
    u64 q = start;
    for (long long i = 0; i < warm; i++) q = ldcg(q);
    long long t0 = clock_after(q);
    for (long long i = 0; i < loads; i++) q = ldcg(q);
    out[0] = (u64)(clock_after(q) - t0);
}

static int nsm, claim_blocks;
static int *d_claim;

static void run_lines(u64 base, int first, int n, int reps, unsigned sm,
                      u64 *d_out, u64 *h_out)
{
    CK(cudaMemset(d_claim, 0, sizeof(int)));
    CK(cudaMemset(d_out, 0, 2 * n * sizeof(u64)));
    time_lines<<<claim_blocks, 32>>>(base, first, n, reps, sm, d_claim, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int c;
    CK(cudaMemcpy(&c, d_claim, sizeof c, cudaMemcpyDeviceToHost));
    if (!c) { fprintf(stderr, "no block ran on SM %u\n", sm); exit(1); }
    CK(cudaMemcpy(h_out, d_out, 2 * n * sizeof(u64), cudaMemcpyDeviceToHost));
}

/* Every line's first word = its own device address. */
static void self_point(u64 *d, size_t lines)
{
    size_t words = lines * 16;
    u64 *h = (u64 *)calloc(words, sizeof(u64));
    for (size_t i = 0; i < lines; i++) h[i * 16] = (u64)(d + i * 16);
    CK(cudaMemcpy(d, h, words * sizeof(u64), cudaMemcpyHostToDevice));
    free(h);
}

static int cmp_u64(const void *a, const void *b)
{
    u64 x = *(const u64 *)a, y = *(const u64 *)b;
    return x < y ? -1 : x > y;
}

/* Reads `bytes` of scratch with every SM: the L2 then holds none of ours. */
__global__ void flush(const u64 *p, size_t n, u64 *sink)
{
    u64 s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        s += p[i];
    if (s == 1) *sink = s;
}

static u64 *d_scratch, *d_sink;
static const size_t scratch_words = ((size_t)512 << 20) / 8;

static void flush_l2(void)
{
    flush<<<nsm * 4, 256>>>(d_scratch, scratch_words, d_sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

/* base[idx[i]] = &base[idx[i + 1]], the last back to the first. */
__global__ void write_chain(u64 *base, const size_t *idx, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) base[idx[i]] = (u64)(base + idx[(i + 1) % n]);
}

static void shuffle(size_t *v, size_t n)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = ((size_t)rand() * RAND_MAX + rand()) % (i + 1);
        size_t t = v[i]; v[i] = v[j]; v[j] = t;
    }
}

/* A random cycle through words idx[0..n) of base, chased from SM `sm`:
 * cycles per load of `loads` after two passes. */
static double chase_cycle(u64 *base, size_t *idx, size_t n, unsigned sm,
                          long long loads, u64 *d_out)
{
    size_t *d_idx;
    shuffle(idx, n);
    CK(cudaMalloc(&d_idx, n * sizeof(size_t)));
    CK(cudaMemcpy(d_idx, idx, n * sizeof(size_t), cudaMemcpyHostToDevice));
    write_chain<<<(unsigned)((n + 255) / 256), 256>>>(base, d_idx, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d_idx));
    CK(cudaMemset(d_claim, 0, sizeof(int)));
    chase<<<claim_blocks, 32>>>((u64)(base + idx[0]), 2 * (long long)n, loads, sm, d_claim, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int c;
    CK(cudaMemcpy(&c, d_claim, sizeof c, cudaMemcpyDeviceToHost));
    if (!c) { fprintf(stderr, "no block ran on SM %u\n", sm); exit(1); }
    u64 cyc;
    CK(cudaMemcpy(&cyc, d_out, sizeof cyc, cudaMemcpyDeviceToHost));
    return (double)cyc / loads;
}

static void do_map(int lines, int reps)
{
    u64 *d, *d_out, *h_out = (u64 *)malloc(2 * lines * sizeof(u64));
    float *lat = (float *)malloc((size_t)nsm * lines * sizeof(float));
    char *cls = (char *)malloc(lines), *grp = (char *)malloc(nsm);
    CK(cudaMalloc(&d, (size_t)lines * 128));
    CK(cudaMalloc(&d_out, 2 * lines * sizeof(u64)));
    self_point(d, lines);
    printf("map,sm,line,first,steady\n");
    for (int s = 0; s < nsm; s++) {
        run_lines((u64)d, 0, lines, reps, s, d_out, h_out);
        for (int i = 0; i < lines; i++) {
            lat[(size_t)s * lines + i] = (float)h_out[2 * i + 1] / reps;
            printf("map,%d,%d,%llu,%.2f\n", s, i, h_out[2 * i],
                   (double)h_out[2 * i + 1] / reps);
        }
    }
    /* Lines: A when SM 0 reads them faster than the SMs' mean; SMs: the
     * class they read faster; lines again by the SM groups, three times. */
    for (int i = 0; i < lines; i++) {
        double m = 0;
        for (int s = 0; s < nsm; s++) m += lat[(size_t)s * lines + i];
        cls[i] = lat[i] < m / nsm ? 'A' : 'B';
    }
    for (int it = 0; it < 3; it++) {
        for (int s = 0; s < nsm; s++) {
            double a = 0, b = 0; int na = 0, nb = 0;
            for (int i = 0; i < lines; i++)
                if (cls[i] == 'A') a += lat[(size_t)s * lines + i], na++;
                else b += lat[(size_t)s * lines + i], nb++;
            grp[s] = (na && nb && a / na < b / nb) ? 'A' : 'B';
        }
        for (int i = 0; i < lines; i++) {
            double a = 0, b = 0; int na = 0, nb = 0;
            for (int s = 0; s < nsm; s++)
                if (grp[s] == 'A') a += lat[(size_t)s * lines + i], na++;
                else b += lat[(size_t)s * lines + i], nb++;
            cls[i] = (na && nb && a / na < b / nb) ? 'A' : 'B';
        }
    }
    printf("groups,%.*s\nclasses,%.*s\n", nsm, grp, lines, cls);
    for (int s = 0; s < nsm; s++) {
        double a = 0, b = 0; int na = 0, nb = 0;
        for (int i = 0; i < lines; i++)
            if (cls[i] == 'A') a += lat[(size_t)s * lines + i], na++;
            else b += lat[(size_t)s * lines + i], nb++;
        printf("smap,%d,%c,%.2f,%.2f\n", s, grp[s], a / na, b / nb);
    }
    /* The same by chase: a random cycle through the lines of one class. */
    size_t *idx = (size_t *)malloc(lines * sizeof(size_t));
    printf("cmap,sm,group,class,lines,cycles_per_load\n");
    for (int c = 0; c < 2; c++) {
        size_t n = 0;
        for (int i = 0; i < lines; i++) if (cls[i] == "AB"[c]) idx[n++] = (size_t)i * 16;
        for (int s = 0; s < nsm; s++)
            printf("cmap,%d,%c,%c,%zu,%.2f\n", s, grp[s], "AB"[c], n,
                   chase_cycle(d, idx, n, s, 8192, d_out));
    }
    /* Device memory: each line's first load after a flush, from the first
     * SM of each group. */
    printf("dmap,sm,group,line,class,first\n");
    for (int g = 0; g < 2; g++) {
        int s = 0;
        while (s < nsm && grp[s] != "AB"[g]) s++;
        if (s == nsm) continue;
        self_point(d, lines);
        flush_l2();
        run_lines((u64)d, 0, lines, 0, s, d_out, h_out);
        double sum[2] = {0, 0}; int n[2] = {0, 0};
        for (int i = 1; i < lines; i++) {
            int c = cls[i] == 'B';
            sum[c] += h_out[2 * i]; n[c]++;
            printf("dmap,%d,%c,%d,%c,%llu\n", s, grp[s], i, cls[i], h_out[2 * i]);
        }
        printf("dsum,%d,%c,A %.1f,B %.1f\n", s, grp[s], sum[0] / n[0], sum[1] / n[1]);
    }
    free(idx); free(lat); free(cls); free(grp);
    CK(cudaFree(d)); CK(cudaFree(d_out)); free(h_out);
}

/* Device-memory homes: for every SM, each line's first load after a
 * flush ("hmap,sm,line,dram"); then, after a flush and a first load by a
 * helper SM of the other half, the SM's first and second loads
 * ("hmap2,sm,helper,line,after_helper,second"). */
static void do_halves(int lines)
{
    u64 *d, *d_out, *h_out = (u64 *)malloc(2 * lines * sizeof(u64));
    float *dr = (float *)malloc((size_t)nsm * lines * sizeof(float));
    char *cls = (char *)malloc(lines), *grp = (char *)malloc(nsm);
    CK(cudaMalloc(&d, (size_t)lines * 128));
    CK(cudaMalloc(&d_out, 2 * lines * sizeof(u64)));
    self_point(d, lines);
    for (int s = 0; s < nsm; s++) {
        flush_l2();
        run_lines((u64)d, 0, lines, 0, s, d_out, h_out);
        for (int i = 0; i < lines; i++) dr[(size_t)s * lines + i] = (float)h_out[2 * i];
    }
    /* Lines: X when SM 0 finds them below the median; SMs: the class
     * they read faster; lines again by the groups (three times). */
    for (int i = 0; i < lines; i++) {
        double m = 0;
        for (int s = 0; s < nsm; s++) m += dr[(size_t)s * lines + i];
        cls[i] = dr[i] < m / nsm ? 'X' : 'Y';
    }
    for (int it = 0; it < 3; it++) {
        for (int s = 0; s < nsm; s++) {
            double a = 0, b = 0; int na = 0, nb = 0;
            for (int i = 1; i < lines; i++)
                if (cls[i] == 'X') a += dr[(size_t)s * lines + i], na++;
                else b += dr[(size_t)s * lines + i], nb++;
            grp[s] = (na && nb && a / na < b / nb) ? 'X' : 'Y';
        }
        for (int i = 0; i < lines; i++) {
            double a = 0, b = 0; int na = 0, nb = 0;
            for (int s = 0; s < nsm; s++)
                if (grp[s] == 'X') a += dr[(size_t)s * lines + i], na++;
                else b += dr[(size_t)s * lines + i], nb++;
            cls[i] = (na && nb && a / na < b / nb) ? 'X' : 'Y';
        }
    }
    printf("hgroups,%.*s\nhclasses,%.*s\n", nsm, grp, lines, cls);
    printf("hsum,sm,group,helper,dram_near,dram_far,after_helper_near,after_helper_far,second_near,second_far\n");
    for (int s = 0; s < nsm; s++) {
        int h = 0;
        while (h < nsm && grp[h] == grp[s]) h++;
        if (h == nsm) break;
        double v[6] = {0}; int n[2] = {0};
        for (int i = 1; i < lines; i++) {
            int far = cls[i] != grp[s];
            v[far] += dr[(size_t)s * lines + i]; n[far]++;
        }
        flush_l2();
        run_lines((u64)d, 0, lines, 0, h, d_out, h_out);
        run_lines((u64)d, 0, lines, 0, s, d_out, h_out);
        for (int i = 1; i < lines; i++) v[2 + (cls[i] != grp[s])] += h_out[2 * i];
        run_lines((u64)d, 0, lines, 0, s, d_out, h_out);
        for (int i = 1; i < lines; i++) v[4 + (cls[i] != grp[s])] += h_out[2 * i];
        printf("hsum,%d,%c,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", s, grp[s], h,
               v[0] / n[0], v[1] / n[1], v[2] / n[0], v[3] / n[1], v[4] / n[0], v[5] / n[1]);
        fflush(stdout);
    }
    free(dr); free(cls); free(grp); free(h_out);
    CK(cudaFree(d)); CK(cudaFree(d_out));
}

/* One block of one thread, as memprobe latency launches its chase: the
 * SM it landed on and the cycles of `loads` loads after `warm`. */
__global__ void chase1(u64 start, long long warm, long long loads, u64 *out)
{
    u64 q = start;
    for (long long i = 0; i < warm; i++) q = ldcg(q);
    long long t0 = clock_after(q);
#pragma unroll 8
    for (long long i = 0; i < loads; i++) q = ldcg(q);
    out[0] = (u64)(clock_after(q) - t0);
    out[1] = smid();
    out[2] = q;
}

/* A random chain through a contiguous buffer of MIB MiB, chased by a
 * <<<1, 1>>> block five times (its SM printed) and by claimed blocks on
 * SMs 0 and the block's SM. */
static void do_single(int mib)
{
    size_t lines = ((size_t)mib << 20) / 128;
    u64 *d, *d_out, h[3];
    CK(cudaMalloc(&d, lines * 128));
    CK(cudaMalloc(&d_out, 32));
    size_t *idx = (size_t *)malloc(lines * sizeof(size_t));
    for (size_t i = 0; i < lines; i++) idx[i] = i * 16;
    double claimed0 = chase_cycle(d, idx, lines, 0, 4096, d_out);
    int sm = -1;
    for (int r = 0; r < 5; r++) {
        chase1<<<1, 1>>>((u64)(d + idx[r]), r ? 4096 : 2 * (long long)lines, 4096, d_out);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        sm = (int)h[1];
        printf("single,%d,run %d,sm %d,%.2f\n", mib, r, sm, h[0] / 4096.0);
    }
    double claimed = chase_cycle(d, idx, lines, (unsigned)sm, 4096, d_out);
    printf("single,%d,claimed sm 0 %.2f,claimed sm %d %.2f\n", mib, claimed0, sm, claimed);
    free(idx);
    CK(cudaFree(d)); CK(cudaFree(d_out));
}

/* One line per page: random cycles through 8..16384 pages of 2 MiB and
 * 64 KiB from SM 0 (the lines at varied offsets in their pages). */
static void do_tlb(void)
{
    size_t big = (size_t)32 << 30;
    u64 *d, *d_out;
    while (cudaMalloc(&d, big) != cudaSuccess) { cudaGetLastError(); big /= 2; }
    CK(cudaMalloc(&d_out, 16));
    size_t *idx = (size_t *)malloc(16384 * sizeof(size_t));
    size_t strides[] = {(size_t)2 << 20, (size_t)64 << 10, (size_t)4 << 20};
    printf("tlb,stride,pages,footprint,cycles_per_load\n");
    for (int k = 0; k < 3; k++)
        for (size_t p = 8; p <= 16384 && p * strides[k] <= big; p *= 2) {
            size_t lines_in = strides[k] / 128;
            for (size_t i = 0; i < p; i++)
                idx[i] = (i * strides[k] + ((i * 37) % lines_in) * 128) / 8;
            printf("tlb,%zu,%zu,%zu,%.2f\n", strides[k], p, p * strides[k],
                   chase_cycle(d, idx, p, 0, 8192, d_out));
            fflush(stdout);
        }
    free(idx);
    CK(cudaFree(d)); CK(cudaFree(d_out));
}

static void do_plateau(const char *only_set, int only_mib)
{
    const size_t total = (size_t)192 << 20, lines = total / 128;
    const int chunk = 1 << 16, reps = 0;
    u64 *d, *d_out, *h_out = (u64 *)malloc(2 * chunk * sizeof(u64));
    CK(cudaMalloc(&d, total));
    CK(cudaMalloc(&d_out, 2 * chunk * sizeof(u64)));
    self_point(d, lines);
    float *lat = (float *)malloc(lines * sizeof(float));
    flush_l2();
    for (size_t f = 0; f < lines; f += chunk) {
        run_lines((u64)d, (int)f, chunk, reps, 0, d_out, h_out);
        for (int i = 0; i < chunk; i++) lat[f + i] = (float)h_out[2 * i];
    }
    u64 *sorted = (u64 *)malloc(lines * sizeof(u64));
    for (size_t i = 0; i < lines; i++) sorted[i] = (u64)(lat[i] * 100);
    qsort(sorted, lines, sizeof(u64), cmp_u64);
    double p[] = {0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99};
    for (int k = 0; k < 9; k++)
        printf("quantile,%.2f,%.2f\n", p[k], sorted[(size_t)(p[k] * lines)] / 100.0);
    /* Histogram of the SM 0 steady latency, 4-cycle bins. */
    int hist[256] = {0};
    for (size_t i = 0; i < lines; i++) {
        int b = (int)(lat[i] / 4); if (b > 255) b = 255; hist[b]++;
    }
    for (int b = 0; b < 256; b++) if (hist[b]) printf("hist,%d,%d\n", b * 4, hist[b]);
    /* Split: the widest gap between 200 and 400 cycles in the histogram. */
    double cut = sorted[lines / 2] / 100.0;
    printf("cut,%.2f\n", cut);
    /* Granularity: how often consecutive lines share a class, and the
     * class of lines 0..255 as a bit string. */
    size_t same = 0;
    for (size_t i = 1; i < lines; i++) same += (lat[i] < cut) == (lat[i - 1] < cut);
    printf("adjacent_same,%.4f\n", (double)same / (lines - 1));
    printf("classes,");
    for (int i = 0; i < 512; i++) putchar(lat[i] < cut ? 'n' : 'f');
    putchar('\n');
    /* Chains. */
    u64 *h = (u64 *)calloc(lines * 16, sizeof(u64));
    size_t *sel = (size_t *)malloc(lines * sizeof(size_t));
    const char *sets[] = {"near", "far", "all"};
    int mib[] = {16, 24, 28, 32, 36, 40, 48, 56, 60, 64, 80, 96};
    printf("plateau,set,footprint_mib,lines,cycles_per_load\n");
    srand(12345);
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < (int)(sizeof mib / sizeof mib[0]); m++) {
            if (only_set && (strcmp(only_set, sets[s]) || only_mib != mib[m])) continue;
            size_t want = ((size_t)mib[m] << 20) / 128, n = 0;
            for (size_t i = 0; i < lines && n < want; i++)
                if (s == 2 || (s == 0) == (lat[i] < cut)) sel[n++] = i;
            if (n < want) { printf("plateau,%s,%d,short %zu\n", sets[s], mib[m], n); continue; }
            for (size_t i = n - 1; i > 0; i--) {  /* shuffle */
                size_t j = ((size_t)rand() * RAND_MAX + rand()) % (i + 1);
                size_t t = sel[i]; sel[i] = sel[j]; sel[j] = t;
            }
            memset(h, 0, lines * 16 * sizeof(u64));
            for (size_t i = 0; i < n; i++)
                h[sel[i] * 16] = (u64)(d + sel[(i + 1) % n] * 16);
            CK(cudaMemcpy(d, h, lines * 128, cudaMemcpyHostToDevice));
            CK(cudaMemset(d_claim, 0, sizeof(int)));
            u64 loads = 1 << 15;
            chase<<<claim_blocks, 32>>>((u64)(d + sel[0] * 16), 2 * (long long)n, loads, 0, d_claim, d_out);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            u64 cyc;
            CK(cudaMemcpy(&cyc, d_out, sizeof cyc, cudaMemcpyDeviceToHost));
            printf("plateau,%s,%d,%zu,%.2f\n", sets[s], mib[m], n, (double)cyc / loads);
            fflush(stdout);
        }
    free(h); free(sel); free(lat); free(sorted); free(h_out);
    CK(cudaFree(d)); CK(cudaFree(d_out));
}

int main(int argc, char **argv)
{
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    claim_blocks = nsm * 8;
    CK(cudaMalloc(&d_claim, sizeof(int)));
    CK(cudaMalloc(&d_scratch, scratch_words * 8));
    CK(cudaMemset(d_scratch, 0, scratch_words * 8));
    CK(cudaMalloc(&d_sink, 8));
    if (argc >= 3 && !strcmp(argv[1], "single"))
        do_single(atoi(argv[2]));
    else if (argc >= 3 && !strcmp(argv[1], "halves"))
        do_halves(atoi(argv[2]));
    else if (argc >= 2 && !strcmp(argv[1], "tlb"))
        do_tlb();
    else if (argc >= 4 && !strcmp(argv[1], "map"))
        do_map(atoi(argv[2]), atoi(argv[3]));
    else if (argc >= 2 && !strcmp(argv[1], "plateau"))
        do_plateau(argc >= 4 ? argv[2] : NULL, argc >= 4 ? atoi(argv[3]) : 0);
    else {
        fprintf(stderr, "usage: l2map map LINES REPS | l2map plateau | l2map tlb\n");
        return 2;
    }
    CK(cudaFree(d_claim));
    return 0;
}
