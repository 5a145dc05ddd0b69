/*
 * app.cu - the test program of `memprobe profile` (tests/gpu/test_gpu_profile.c):
 * small kernels with known memory patterns, each measured access on a
 * source line of its own, marked by the comment "MP_EXPECT NAME (what)".
 * NAME is a line of tests/profile/expect.c, which computes the line's exact shared
 * wavefronts or global sectors (and their ideal) from the project's models
 * on the addresses every warp of the line touches; the shapes and the
 * launch sequence are tests/profile/app_shape.h, read by both.
 *
 *   transpose_naive    32 x 32 float tile read by columns: 32-way conflict
 *   transpose_padded   the tile padded to 33 columns: conflict-free
 *   load_aligned       4-byte loads of a warp, 128 aligned bytes: 4 sectors
 *   load_shifted       the same one float later: 5 sectors for 4 (5/4)
 *   load_stride2       8-byte loads 16 bytes apart: 16 sectors for 8 (2x)
 *   reduce_interleaved the seeds' tree `if (tid % (2s) == 0)`, one line a step
 *   reduce_strided     Harris's strided index, one line a step: 2..8-way
 *   reduce_sequential  sequential addressing, the strided one's fix (the
 *                      seeds' and Harris's): conflict-free at every step
 *
 * Also: a CUDA graph (stream capture, cudaGraphLaunch) running a
 * transpose, nested NVTX ranges (nvtx3, header-only) around launches, two
 * streams. Every result is checked against the CPU (exit 1 on a mismatch).
 *
 * usage: app [--padded-only] [--launches N] [--crash-after N] [--short N]
 *            [--fork] [--tail N]
 *   --padded-only    only the conflict-free kernels (padded transpose,
 *                    aligned loads)
 *   --launches N     runs the launch sequence N times (default 1)
 *   --crash-after N  raises SIGSEGV once N launches have completed
 *   --short N        instead of the sequence, N launches of `tick` (one
 *                    warp, one store each): the profiler's per-launch cost
 *   --tail N         after the sequence, N launches of `tick` (a kernel
 *                    first launched after all the others: --per-kernel
 *                    turns the profiler on again for it)
 *   --fork           fork before any CUDA call: parent and child both run
 *                    the sequence (a profiler must follow the child); the
 *                    parent waits and fails when the child failed
 * Exit: 0 results right, 1 a result wrong, 2 bad option, 3 no GPU, 5 a CUDA
 * call failed.
 *
 * CUDA calls go through APP_CHECK, the program's one check (it does not
 * link memprobe's runtime/check.c: that pulls in the toolkit's libcupti,
 * whose soname would then shadow the newer CUPTI the injection library
 * loads into this process).
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app_shape.h"

#define APP_EXIT_FAIL 1
#define APP_EXIT_USAGE 2
#define APP_EXIT_NOGPU 3
#define APP_EXIT_CUDA 5

static void app_check(cudaError_t e, const char *call, int line)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "app: CUDA error %s (%s) in %s at line %d\n",
            cudaGetErrorName(e), cudaGetErrorString(e), call, line);
    exit(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver
             ? APP_EXIT_NOGPU : APP_EXIT_CUDA);
}

#define APP_CHECK(call) app_check((call), #call, __LINE__)

#define FULL_MASK 0xffffffffu

/* ---- transposes ------------------------------------------------------ */

extern "C" __global__ void transpose_naive(const float *in, float *out)
{
    __shared__ float tile[APP_TILE][APP_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bx = blockIdx.x, by = blockIdx.y;
    float v = in[(by * APP_TILE + ty) * APP_TR_N + bx * APP_TILE + tx]; // MP_EXPECT tr_naive_in (global ld, 4 B, rows)
    tile[ty][tx] = v; // MP_EXPECT tr_naive_sts (shared st, 4 B, tile[ty][tx] of 32 x 32)
    __syncthreads();
    float t = tile[tx][ty]; // MP_EXPECT tr_naive_lds (shared ld, 4 B, tile[tx][ty] of 32 x 32: 32-way)
    out[(bx * APP_TILE + ty) * APP_TR_N + by * APP_TILE + tx] = t; // MP_EXPECT tr_naive_out (global st, 4 B, rows)
}

extern "C" __global__ void transpose_padded(const float *in, float *out)
{
    __shared__ float tile[APP_TILE][APP_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bx = blockIdx.x, by = blockIdx.y;
    float v = in[(by * APP_TILE + ty) * APP_TR_N + bx * APP_TILE + tx]; // MP_EXPECT tr_padded_in (global ld, 4 B, rows)
    tile[ty][tx] = v; // MP_EXPECT tr_padded_sts (shared st, 4 B, tile[ty][tx] of 32 x 33)
    __syncthreads();
    float t = tile[tx][ty]; // MP_EXPECT tr_padded_lds (shared ld, 4 B, tile[tx][ty] of 32 x 33: 1-way)
    out[(bx * APP_TILE + ty) * APP_TR_N + by * APP_TILE + tx] = t; // MP_EXPECT tr_padded_out (global st, 4 B, rows)
}

/* ---- global loads ---------------------------------------------------- */

extern "C" __global__ void load_aligned(const float *in, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i]; // MP_EXPECT ld_aligned_in (global ld, 4 B, in[i])
    out[i] = v; // MP_EXPECT ld_aligned_out (global st, 4 B, out[i])
}

extern "C" __global__ void load_shifted(const float *in, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i + 1]; // MP_EXPECT ld_shifted_in (global ld, 4 B, in[i + 1]: 5/4)
    out[i] = v; // MP_EXPECT ld_shifted_out (global st, 4 B, out[i])
}

extern "C" __global__ void load_stride2(const float2 *in, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float2 v = in[2 * i]; // MP_EXPECT ld_stride2_in (global ld, 8 B, in[2 i]: 2x)
    out[i] = v.x + v.y; // MP_EXPECT ld_stride2_out (global st, 4 B, out[i])
}

/* ---- reductions ------------------------------------------------------ */

/* One step `if (take) BODY` that a warp whose lanes all skip it branches
 * around: the lanes taking part are balloted first and sync with each
 * other after the body (a no-op for the result), which keeps ptxas from
 * predicating the body into LDS/STS that every warp issues (see
 * docs/reduce.md). The shared array is volatile: `c[a] += c[b]` is two LDS
 * and one STS. A macro, so that each step's instructions carry the line
 * it is invoked on. */
#define STEP(take, body)                                                   \
    do {                                                                   \
        const bool take_ = (take);                                         \
        const unsigned lanes_ = __ballot_sync(FULL_MASK, take_);           \
        if (take_) {                                                       \
            body;                                                          \
            __syncwarp(lanes_);                                            \
        }                                                                  \
    } while (0)

#define IL(s) STEP(tid % (2 * (s)) == 0, c[tid] += c[tid + (s)]); __syncthreads()
#define SI(s) STEP(2 * (s) * tid < APP_RED_T, c[2 * (s) * tid] += c[2 * (s) * tid + (s)]); __syncthreads()
#define SQ(s) STEP(tid < (s), c[tid] += c[tid + (s)]); __syncthreads()

/* The short launch of --short: one warp counts it, one store. */
extern "C" __global__ void tick(unsigned *count)
{
    if (threadIdx.x == 0)
        count[0] += 1;
}

extern "C" __global__ void reduce_interleaved(const unsigned *in, unsigned *out)
{
    __shared__ unsigned cache[APP_RED_T];
    volatile unsigned *c = cache;
    const unsigned tid = threadIdx.x;
    unsigned v = in[blockIdx.x * APP_RED_T + tid]; // MP_EXPECT red_il_in (global ld, 4 B)
    c[tid] = v; // MP_EXPECT red_il_sts (shared st, 4 B, c[tid])
    __syncthreads();
    IL(1); // MP_EXPECT red_il_s1 (2 LDS + 1 STS, tid % 2 == 0)
    IL(2); // MP_EXPECT red_il_s2
    IL(4); // MP_EXPECT red_il_s4
    IL(8); // MP_EXPECT red_il_s8
    IL(16); // MP_EXPECT red_il_s16
    IL(32); // MP_EXPECT red_il_s32
    IL(64); // MP_EXPECT red_il_s64
    IL(128); // MP_EXPECT red_il_s128
    if (tid == 0) {
        unsigned r = c[0]; // MP_EXPECT red_il_lds (shared ld, thread 0, c[0])
        out[blockIdx.x] = r; // MP_EXPECT red_il_out (global st, thread 0)
        __syncwarp(1u);   /* a branch, not predicated LDS/STG: see STEP */
    }
}

extern "C" __global__ void reduce_strided(const unsigned *in, unsigned *out)
{
    __shared__ unsigned cache[APP_RED_T];
    volatile unsigned *c = cache;
    const unsigned tid = threadIdx.x;
    unsigned v = in[blockIdx.x * APP_RED_T + tid]; // MP_EXPECT red_si_in (global ld, 4 B)
    c[tid] = v; // MP_EXPECT red_si_sts (shared st, 4 B, c[tid])
    __syncthreads();
    SI(1); // MP_EXPECT red_si_s1 (2 LDS + 1 STS, 2 s tid < T)
    SI(2); // MP_EXPECT red_si_s2
    SI(4); // MP_EXPECT red_si_s4
    SI(8); // MP_EXPECT red_si_s8
    SI(16); // MP_EXPECT red_si_s16
    SI(32); // MP_EXPECT red_si_s32
    SI(64); // MP_EXPECT red_si_s64
    SI(128); // MP_EXPECT red_si_s128
    if (tid == 0) {
        unsigned r = c[0]; // MP_EXPECT red_si_lds (shared ld, thread 0, c[0])
        out[blockIdx.x] = r; // MP_EXPECT red_si_out (global st, thread 0)
        __syncwarp(1u);   /* a branch, not predicated LDS/STG: see STEP */
    }
}

/* Sequential addressing: step s of the strided kernel had the threads
 * tid < T / (2s) add words 2 s tid and 2 s tid + s; here the same threads
 * (s' = T / (2s)) add words tid and tid + s', consecutive in a warp. */
extern "C" __global__ void reduce_sequential(const unsigned *in, unsigned *out)
{
    __shared__ unsigned cache[APP_RED_T];
    volatile unsigned *c = cache;
    const unsigned tid = threadIdx.x;
    unsigned v = in[blockIdx.x * APP_RED_T + tid]; // MP_EXPECT red_sq_in (global ld, 4 B)
    c[tid] = v; // MP_EXPECT red_sq_sts (shared st, 4 B, c[tid])
    __syncthreads();
    SQ(128); // MP_EXPECT red_sq_s128 (2 LDS + 1 STS, tid < 128)
    SQ(64); // MP_EXPECT red_sq_s64
    SQ(32); // MP_EXPECT red_sq_s32
    SQ(16); // MP_EXPECT red_sq_s16
    SQ(8); // MP_EXPECT red_sq_s8
    SQ(4); // MP_EXPECT red_sq_s4
    SQ(2); // MP_EXPECT red_sq_s2
    SQ(1); // MP_EXPECT red_sq_s1
    if (tid == 0) {
        unsigned r = c[0]; // MP_EXPECT red_sq_lds (shared ld, thread 0, c[0])
        out[blockIdx.x] = r; // MP_EXPECT red_sq_out (global st, thread 0)
        __syncwarp(1u);   /* a branch, not predicated LDS/STG: see STEP */
    }
}

/* ---- host ------------------------------------------------------------ */

/* Device buffers: inputs, and one output per launch site, so that the
 * streams never write the same memory. */
typedef struct {
    float *tr_in, *tr_out[APP_KERNELS], *tr_graph_out;
    float *ld_in, *ld_out[APP_KERNELS];
    float2 *ld_in2;
    unsigned *red_in, *red_out[APP_KERNELS];
} buffers;

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "app: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(APP_EXIT_USAGE);
}

static long long positive(const char *opt, const char *text)
{
    char *end;
    if (!text)
        usage_error(opt, "needs a value");
    long long v = strtoll(text, &end, 10);
    if (*end || end == text || v < 1 || v > 1000000)
        usage_error(opt, "needs a whole number 1..1000000");
    return v;
}

static void launch(const buffers *b, int k, cudaStream_t s, float *tr_out)
{
    const int *sh = app_kernel_shape[k];
    const dim3 grid(sh[0], sh[1]), block(sh[2], sh[3]);
    switch (k) {
    case APP_K_TR_NAIVE:
        transpose_naive<<<grid, block, 0, s>>>(b->tr_in, tr_out);
        break;
    case APP_K_TR_PADDED:
        transpose_padded<<<grid, block, 0, s>>>(b->tr_in, tr_out);
        break;
    case APP_K_LD_ALIGNED:
        load_aligned<<<grid, block, 0, s>>>(b->ld_in, b->ld_out[k]);
        break;
    case APP_K_LD_SHIFTED:
        load_shifted<<<grid, block, 0, s>>>(b->ld_in, b->ld_out[k]);
        break;
    case APP_K_LD_STRIDE2:
        load_stride2<<<grid, block, 0, s>>>(b->ld_in2, b->ld_out[k]);
        break;
    case APP_K_RED_INTERLEAVED:
        reduce_interleaved<<<grid, block, 0, s>>>(b->red_in, b->red_out[k]);
        break;
    case APP_K_RED_STRIDED:
        reduce_strided<<<grid, block, 0, s>>>(b->red_in, b->red_out[k]);
        break;
    case APP_K_RED_SEQUENTIAL:
        reduce_sequential<<<grid, block, 0, s>>>(b->red_in, b->red_out[k]);
        break;
    }
    APP_CHECK(cudaGetLastError());
}

/* Inputs: small integers, exact in float and in every sum here. */
static float tr_value(long long i) { return (float)(i % 1009); }
static float ld_value(long long i) { return (float)(i % 997); }
static unsigned red_value(long long i) { return (unsigned)(i * 7 % 101); }

static int compare(const char *what, const float *got, const float *want,
                   long long n)
{
    for (long long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "app: %s: element %lld is %g, expected %g\n",
                    what, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

/* Copies back every output the mode wrote and checks it; returns the
 * number of wrong outputs. */
static int verify(const buffers *b, int mode)
{
    const long long trn = (long long)APP_TR_N * APP_TR_N;
    float *want = (float *)malloc(sizeof(float) * trn);
    float *got = (float *)malloc(sizeof(float) * (trn > APP_LD_N ? trn : APP_LD_N));
    unsigned rgot[APP_RED_BLOCKS];
    int bad = 0;
    if (!want || !got) {
        fprintf(stderr, "app: out of memory\n");
        exit(APP_EXIT_FAIL);
    }
    for (long long r = 0; r < APP_TR_N; r++)
        for (long long c = 0; c < APP_TR_N; c++)
            want[c * APP_TR_N + r] = tr_value(r * APP_TR_N + c);
    for (int s = 0; s < APP_STEPS; s++) {
        const app_step *st = &app_sequence[s];
        if (!(st->modes & mode))
            continue;
        const int k = st->kernel;
        if (k == APP_K_TR_NAIVE || k == APP_K_TR_PADDED) {
            APP_CHECK(cudaMemcpy(got, st->graph ? b->tr_graph_out : b->tr_out[k],
                                 sizeof(float) * trn, cudaMemcpyDeviceToHost));
            bad += compare(app_kernel_names[k], got, want, trn);
        }
    }
    for (int s = 0; s < APP_STEPS; s++) {
        const app_step *st = &app_sequence[s];
        const int k = st->kernel;
        if (!(st->modes & mode) || st->graph)
            continue;
        if (k == APP_K_LD_ALIGNED || k == APP_K_LD_SHIFTED || k == APP_K_LD_STRIDE2) {
            for (long long i = 0; i < APP_LD_N; i++)
                want[i] = k == APP_K_LD_ALIGNED ? ld_value(i)
                          : k == APP_K_LD_SHIFTED ? ld_value(i + 1)
                          : ld_value(4 * i) + ld_value(4 * i + 1);
            APP_CHECK(cudaMemcpy(got, b->ld_out[k], sizeof(float) * APP_LD_N,
                                 cudaMemcpyDeviceToHost));
            bad += compare(app_kernel_names[k], got, want, APP_LD_N);
        }
        if (k == APP_K_RED_INTERLEAVED || k == APP_K_RED_STRIDED
            || k == APP_K_RED_SEQUENTIAL) {
            APP_CHECK(cudaMemcpy(rgot, b->red_out[k], sizeof rgot,
                                 cudaMemcpyDeviceToHost));
            for (int blk = 0; blk < APP_RED_BLOCKS; blk++) {
                unsigned sum = 0;
                for (int t = 0; t < APP_RED_T; t++)
                    sum += red_value((long long)blk * APP_RED_T + t);
                if (rgot[blk] != sum) {
                    fprintf(stderr, "app: %s: block %d sums to %u, expected "
                            "%u\n", app_kernel_names[k], blk, rgot[blk], sum);
                    bad++;
                    break;
                }
            }
        }
    }
    free(want);
    free(got);
    return bad;
}

static void *device_copy(const void *host, size_t bytes)
{
    void *d = NULL;
    APP_CHECK(cudaMalloc(&d, bytes));
    if (host)
        APP_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    else
        APP_CHECK(cudaMemset(d, 0, bytes));
    return d;
}

/* --short N: N launches of tick on the default stream, then the count
 * checked (one launch each). */
static int run_short(long long n)
{
    unsigned *count = (unsigned *)device_copy(NULL, sizeof(unsigned));
    for (long long i = 0; i < n; i++)
        tick<<<1, 32>>>(count);
    APP_CHECK(cudaGetLastError());
    unsigned got = 0;
    APP_CHECK(cudaMemcpy(&got, count, sizeof got, cudaMemcpyDeviceToHost));
    APP_CHECK(cudaFree(count));
    if (got != (unsigned)n) {
        fprintf(stderr, "app: tick counted %u launches of %lld\n", got, n);
        return APP_EXIT_FAIL;
    }
    printf("app: %lld short launches, counted\n", n);
    return 0;
}

/* --fork: the child's pid in the parent (0 elsewhere). */
static pid_t child;

/* The parent's end under --fork: the child's status joins its own. */
static int join_child(int rc)
{
    if (child <= 0)
        return rc;
    int st = 0;
    if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "app: the forked child failed (status %d)\n", st);
        return rc ? rc : APP_EXIT_FAIL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    int mode = APP_MODE_FULL, fork_it = 0;
    long long launches = 1, crash_after = 0, shorts = 0, tail = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--padded-only"))
            mode = APP_MODE_PADDED;
        else if (!strcmp(argv[i], "--launches"))
            launches = positive("--launches", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--crash-after"))
            crash_after = positive("--crash-after", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--short"))
            shorts = positive("--short", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--tail"))
            tail = positive("--tail", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--fork"))
            fork_it = 1;
        else
            usage_error("unknown option", argv[i]);
    }
    if (fork_it) {
        fflush(stdout);
        child = fork();
        if (child < 0) {
            perror("app: fork");
            return APP_EXIT_FAIL;
        }
    }
    if (shorts)
        return run_short(shorts);

    /* Inputs on the host, then the device. */
    const long long trn = (long long)APP_TR_N * APP_TR_N;
    const long long ldn = 4LL * APP_LD_N;   /* in2 reads floats 0 .. 4n-1 */
    const long long redn = (long long)APP_RED_T * APP_RED_BLOCKS;
    float *h = (float *)malloc(sizeof(float) * (trn > ldn ? trn : ldn));
    unsigned *hr = (unsigned *)malloc(sizeof(unsigned) * redn);
    if (!h || !hr) {
        fprintf(stderr, "app: out of memory\n");
        return APP_EXIT_FAIL;
    }
    buffers b;
    memset(&b, 0, sizeof b);
    for (long long i = 0; i < trn; i++)
        h[i] = tr_value(i);
    b.tr_in = (float *)device_copy(h, sizeof(float) * trn);
    for (long long i = 0; i < ldn; i++)
        h[i] = ld_value(i);
    b.ld_in = (float *)device_copy(h, sizeof(float) * (APP_LD_N + 1));
    b.ld_in2 = (float2 *)device_copy(h, sizeof(float) * ldn);
    for (long long i = 0; i < redn; i++)
        hr[i] = red_value(i);
    b.red_in = (unsigned *)device_copy(hr, sizeof(unsigned) * redn);
    free(h);
    free(hr);
    b.tr_out[APP_K_TR_NAIVE] = (float *)device_copy(NULL, sizeof(float) * trn);
    b.tr_out[APP_K_TR_PADDED] = (float *)device_copy(NULL, sizeof(float) * trn);
    b.tr_graph_out = (float *)device_copy(NULL, sizeof(float) * trn);
    for (int k = APP_K_LD_ALIGNED; k <= APP_K_LD_STRIDE2; k++)
        b.ld_out[k] = (float *)device_copy(NULL, sizeof(float) * APP_LD_N);
    for (int k = APP_K_RED_INTERLEAVED; k <= APP_K_RED_SEQUENTIAL; k++)
        b.red_out[k] = (unsigned *)device_copy(NULL, sizeof(unsigned) * APP_RED_BLOCKS);

    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++)
        APP_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    /* The graph: the mode's graph step, captured once on its stream. */
    cudaGraphExec_t graph_exec = NULL;
    cudaGraph_t graph = NULL;
    for (int s = 0; s < APP_STEPS; s++) {
        const app_step *st = &app_sequence[s];
        if (!st->graph || !(st->modes & mode))
            continue;
        cudaStream_t cs = streams[st->stream];
        APP_CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
        launch(&b, st->kernel, cs, b.tr_graph_out);
        APP_CHECK(cudaStreamEndCapture(cs, &graph));
        APP_CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
    }

    long long done = 0;
    for (long long pass = 0; pass < launches; pass++) {
        nvtxRangePushA(APP_RANGE);
        for (int s = 0; s < APP_STEPS; s++) {
            const app_step *st = &app_sequence[s];
            if (!(st->modes & mode))
                continue;
            cudaStream_t cs = streams[st->stream];
            if (st->range)
                nvtxRangePushA(st->range);
            if (st->graph)
                APP_CHECK(cudaGraphLaunch(graph_exec, cs));
            else
                launch(&b, st->kernel, cs, b.tr_out[st->kernel]);
            if (st->range)
                nvtxRangePop();
            if (++done == crash_after) {
                APP_CHECK(cudaDeviceSynchronize());
                fprintf(stderr, "app: crashing after %lld launches, as asked\n",
                        done);
                fflush(stderr);
                raise(SIGSEGV);   /* a profiler's handler, if any, runs */
            }
        }
        nvtxRangePop();
    }
    APP_CHECK(cudaDeviceSynchronize());

    int bad = verify(&b, mode);
    if (graph_exec)
        APP_CHECK(cudaGraphExecDestroy(graph_exec));
    if (graph)
        APP_CHECK(cudaGraphDestroy(graph));
    for (int s = 0; s < 2; s++)
        APP_CHECK(cudaStreamDestroy(streams[s]));
    void *all[] = {b.tr_in, b.tr_out[APP_K_TR_NAIVE], b.tr_out[APP_K_TR_PADDED],
                   b.tr_graph_out, b.ld_in, b.ld_in2, b.red_in,
                   b.ld_out[APP_K_LD_ALIGNED], b.ld_out[APP_K_LD_SHIFTED],
                   b.ld_out[APP_K_LD_STRIDE2], b.red_out[APP_K_RED_INTERLEAVED],
                   b.red_out[APP_K_RED_STRIDED],
                   b.red_out[APP_K_RED_SEQUENTIAL]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        APP_CHECK(cudaFree(all[i]));
    if (bad) {
        fprintf(stderr, "app: %d results wrong\n", bad);
        return join_child(APP_EXIT_FAIL);
    }
    printf("app: %lld launches, every result verified\n", done);
    return join_child(tail ? run_short(tail) : 0);
}
