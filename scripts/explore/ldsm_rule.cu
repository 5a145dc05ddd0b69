// ldsm_rule.cu - the exploration that found the ldmatrix/stmatrix wavefront
// rule (docs/bank.md), kept so that results/h200/bank/explore/ldsm-explore.csv
// can be made again. Not part of memprobe: one warp issues one LDSM/STSM
// (.x1/.x2/.x4, .trans) for each of 42 lane-address patterns (row pitches,
// the MMA fragment rows, swizzles, duplicates, random rows); ncu reads the
// instruction and wavefront counters. Run on the GPU machine:
//   nvcc -arch=sm_90 -O3 -o ldsm ldsm_rule.cu
//   ncu --csv --page raw --print-units base --clock-control none \
//       --kernel-name regex:k_ --metrics \
//       sm__sass_inst_executed_op_ldsm.sum,sm__sass_inst_executed_op_shared_stsm.sum,\
//       sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,\
//       sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,\
//       sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum,\
//       sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum \
//       --log-file ncu.csv ./ldsm > launches.txt
// (ptxas keeps one LDSM per kernel: the loop-invariant load is hoisted;
// counters are per instruction, so that does not matter here.)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define ITERS 64
#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

template <int M, int T>
__global__ void k_ldsm(const unsigned *offs, unsigned *out) {
    extern __shared__ __align__(1024) unsigned char tile[];
    unsigned addr = (unsigned)__cvta_generic_to_shared(tile) + offs[threadIdx.x];
    unsigned acc = 0;
    for (int i = 0; i < ITERS; i++) {
        unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
        if (M == 1 && T == 0) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
        if (M == 2 && T == 0) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
        if (M == 4 && T == 0) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
        if (M == 1 && T == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
        if (M == 2 && T == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
        if (M == 4 && T == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
        acc += r0 ^ r1 ^ r2 ^ r3;
    }
    out[threadIdx.x] = acc;
}
template <int M, int T>
__global__ void k_stsm(const unsigned *offs, unsigned *out) {
    extern __shared__ __align__(1024) unsigned char tile[];
    unsigned addr = (unsigned)__cvta_generic_to_shared(tile) + offs[threadIdx.x];
    unsigned v = threadIdx.x;
    for (int i = 0; i < ITERS; i++) {
        v = v * 1664525u + 1013904223u;
        if (M == 1 && T == 0) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(addr), "r"(v) : "memory");
        if (M == 2 && T == 0) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(v), "r"(v+1) : "memory");
        if (M == 4 && T == 0) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(v), "r"(v+1), "r"(v+2), "r"(v+3) : "memory");
        if (M == 4 && T == 1) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(v), "r"(v+1), "r"(v+2), "r"(v+3) : "memory");
    }
    out[threadIdx.x] = v;
}
typedef void (*kfn)(const unsigned *, unsigned *);
struct mode { const char *name; kfn f; int m; };
static mode modes[] = {
    {"ldsm.x1", k_ldsm<1,0>, 1}, {"ldsm.x2", k_ldsm<2,0>, 2}, {"ldsm.x4", k_ldsm<4,0>, 4},
    {"ldsm.x1.t", k_ldsm<1,1>, 1}, {"ldsm.x2.t", k_ldsm<2,1>, 2}, {"ldsm.x4.t", k_ldsm<4,1>, 4},
    {"stsm.x1", k_stsm<1,0>, 1}, {"stsm.x2", k_stsm<2,0>, 2}, {"stsm.x4", k_stsm<4,0>, 4}, {"stsm.x4.t", k_stsm<4,1>, 4},
};
static unsigned *d_offs, *d_out; static int launches;
static void run(mode &md, const char *pat, const unsigned *off) {
    CK(cudaMemcpy(d_offs, off, 32 * 4, cudaMemcpyHostToDevice));
    CK(cudaFuncSetAttribute(md.f, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    md.f<<<1, 32, 65536>>>(d_offs, d_out);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    printf("L %d %s %s", launches++, md.name, pat);
    for (int i = 0; i < 32; i++) printf("%c%u", i ? ';' : ' ', off[i]);
    printf("\n");
}
int main() {
    CK(cudaMalloc(&d_offs, 128)); CK(cudaMalloc(&d_out, 128));
    unsigned off[32]; char name[64];
    srand(12345);
    for (auto &md : modes) {
        int pitches[] = {16, 32, 48, 64, 80, 96, 128, 144, 256, 272, 512};
        for (int p : pitches) { for (int i = 0; i < 32; i++) off[i] = i * p; snprintf(name, 64, "rows-p%d", p); run(md, name, off); }
        int mp[] = {32, 64, 128, 256, 272};
        for (int p : mp) { for (int i = 0; i < 32; i++) off[i] = (i % 16) * p + (i / 16) * 16; snprintf(name, 64, "mma-p%d", p); run(md, name, off); }
        for (int sw = 1; sw <= 3; sw++) {  // swizzle 32/64/128: chunk ^= (row >> ?) within period
            int period = 128 << sw; (void)period;
            for (int i = 0; i < 32; i++) { unsigned r = i, c = 0; unsigned ch = c ^ (r & ((1u << sw) - 1)); off[i] = r * 128 + ch * 16; }
            snprintf(name, 64, "swz%d-p128", 16 << sw); run(md, name, off);
        }
        for (int i = 0; i < 32; i++) off[i] = 0; run(md, "same-all", off);
        for (int i = 0; i < 32; i++) off[i] = (i % 8) * 16; run(md, "dup-rows16", off);
        for (int i = 0; i < 32; i++) off[i] = (i % 8) * 128; run(md, "dup-rows128", off);
        for (int i = 0; i < 32; i++) off[i] = (i % 8) * 16 + (i / 8) * 128; run(md, "m-p128-r16", off);
        for (int i = 0; i < 32; i++) off[i] = (i < 8 ? i * 128 : (i % 8) * 16 + 4096); run(md, "m0conf-rest-free", off);
        for (int rep = 0; rep < 12; rep++) {
            for (int i = 0; i < 32; i++) off[i] = (rand() % 128) * 16;
            snprintf(name, 64, "rand2k-%d", rep); run(md, name, off);
        }
        for (int rep = 0; rep < 6; rep++) {
            for (int i = 0; i < 32; i++) off[i] = (rand() % 16) * 128 + (rand() % 2) * 16;
            snprintf(name, 64, "rand-2banks-%d", rep); run(md, name, off);
        }
    }
    return 0;
}
