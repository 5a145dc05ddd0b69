/*
 * app_shape.h - the shapes and the launch sequence of the profiler's test
 * program (tests/profile/app.cu), shared with the expectations computed
 * from the models (tests/profile/expect.c): both read the same numbers, so
 * a change here changes the program and what the test expects of it.
 * Plain C, also compiled as CUDA C++.
 */
#ifndef MP_APP_SHAPE_H
#define MP_APP_SHAPE_H

/* Transposes: an APP_TR_N x APP_TR_N float matrix, one 32 x 32 tile per
 * block of 32 x 32 threads. */
#define APP_TILE 32
#define APP_TR_N 256
#define APP_TR_GRID (APP_TR_N / APP_TILE)

/* Loads: APP_LD_N elements, one per thread, blocks of APP_LD_BLOCK. */
#define APP_LD_N 65536
#define APP_LD_BLOCK 256

/* Reductions: APP_RED_BLOCKS blocks of APP_RED_T threads, one unsigned
 * element per thread, one sum per block. */
#define APP_RED_T 256
#define APP_RED_BLOCKS 64

/* The kernels (extern "C": their names are not mangled). */
enum {
    APP_K_TR_NAIVE,         /* tile[32][32] read by columns */
    APP_K_TR_PADDED,        /* tile[32][33] read by columns */
    APP_K_LD_ALIGNED,       /* out[i] = in[i] */
    APP_K_LD_SHIFTED,       /* out[i] = in[i + 1] */
    APP_K_LD_STRIDE2,       /* out[i] = in2[2 i].x + .y, 8-byte float2 */
    APP_K_RED_INTERLEAVED,  /* if (tid % (2s) == 0) c[tid] += c[tid + s] */
    APP_K_RED_STRIDED,      /* i = 2 s tid; if (i < T) c[i] += c[i + s] */
    APP_K_RED_SEQUENTIAL,   /* if (tid < s) c[tid] += c[tid + s]: the
                               strided one's fix, conflict-free */
    APP_KERNELS
};

static const char *const app_kernel_names[APP_KERNELS] = {
    "transpose_naive", "transpose_padded", "load_aligned", "load_shifted",
    "load_stride2", "reduce_interleaved", "reduce_strided",
    "reduce_sequential",
};

/* Launch shape of each kernel: grid x, y and block x, y (z = 1). */
static const int app_kernel_shape[APP_KERNELS][4] = {
    {APP_TR_GRID, APP_TR_GRID, APP_TILE, APP_TILE},
    {APP_TR_GRID, APP_TR_GRID, APP_TILE, APP_TILE},
    {APP_LD_N / APP_LD_BLOCK, 1, APP_LD_BLOCK, 1},
    {APP_LD_N / APP_LD_BLOCK, 1, APP_LD_BLOCK, 1},
    {APP_LD_N / APP_LD_BLOCK, 1, APP_LD_BLOCK, 1},
    {APP_RED_BLOCKS, 1, APP_RED_T, 1},
    {APP_RED_BLOCKS, 1, APP_RED_T, 1},
    {APP_RED_BLOCKS, 1, APP_RED_T, 1},
};

/* Modes of the program: the default runs everything, --padded-only the
 * conflict-free kernels. */
enum { APP_MODE_FULL = 1, APP_MODE_PADDED = 2 };

/* One launch of the main sequence, which the program runs --launches
 * times, in this order, inside the NVTX range "app". */
typedef struct {
    int kernel;         /* APP_K_* */
    int stream;         /* 0 or 1: the program's two streams */
    int graph;          /* 1: launched by cudaGraphLaunch of a graph
                           captured once before the sequence */
    int modes;          /* APP_MODE_* mask: which modes run it */
    const char *range;  /* inner NVTX range pushed around it, or NULL */
} app_step;

static const app_step app_sequence[] = {
    {APP_K_TR_NAIVE, 0, 0, APP_MODE_FULL, "transpose"},
    {APP_K_TR_PADDED, 0, 0, APP_MODE_FULL | APP_MODE_PADDED, "transpose"},
    {APP_K_LD_ALIGNED, 1, 0, APP_MODE_FULL | APP_MODE_PADDED, "loads"},
    {APP_K_LD_SHIFTED, 1, 0, APP_MODE_FULL, "loads"},
    {APP_K_LD_STRIDE2, 1, 0, APP_MODE_FULL, "loads"},
    {APP_K_RED_INTERLEAVED, 0, 0, APP_MODE_FULL, NULL},
    {APP_K_RED_STRIDED, 0, 0, APP_MODE_FULL, NULL},
    {APP_K_RED_SEQUENTIAL, 0, 0, APP_MODE_FULL, NULL},
    {APP_K_TR_NAIVE, 1, 1, APP_MODE_FULL, "graph"},
    {APP_K_TR_PADDED, 1, 1, APP_MODE_PADDED, "graph"},
};

#define APP_STEPS ((int)(sizeof app_sequence / sizeof app_sequence[0]))

/* The outer NVTX range around each pass of the sequence. */
#define APP_RANGE "app"

#endif
