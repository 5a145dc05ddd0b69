// many_launches.cu - the cost a profiler adds to each launch of a short
// kernel: N launches (default 10,000) alternating three kernels on
// arrays of 64K floats (a copy, a scale by a constant, a shared-memory
// stage with a neighbour sum), after one warm-up round. The loop is timed
// from the host (clock_gettime around the launches and one final
// cudaDeviceSynchronize), then the arrays are checked against a CPU
// reference. scripts/cost-table.sh reads what it prints:
//
//   many_launches: start launches N elements 65536
//   many_launches: progress launches K ms T    (every 1000 launches)
//   many_launches: launches N total_ms T per_launch_us U
//
// A progress line times the launches issued so far without synchronizing
// (the program's own timing stays as it is): alone it is when they were
// queued, under a profiler that waits for each launch it is their running
// time; it stands in for the last line when a time limit cut the run.
//
//   many_launches [N]
//
// Exit 0; 1 on a CUDA error or a wrong result; 2 on a bad argument.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ELEMS 65536
#define THREADS 256
#define SCALE 2.5f
#define PROGRESS_EVERY 1000

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "many_launches: %s: %s\n", what, cudaGetErrorString(e));
        printf("many_launches: CUDA error in %s\n", what);
        exit(1);
    }
}

__global__ void copy_k(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

__global__ void scale_k(const float *in, float *out, int n, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = s * in[i];
}

// Each block stages its THREADS elements in shared memory; each thread
// writes its element plus its right neighbour's (wrapping in the block).
__global__ void stage_sum_k(const float *in, float *out, int n)
{
    __shared__ float t[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = t[threadIdx.x] + t[(threadIdx.x + 1) % THREADS];
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Launch number k of the chain a -> copy -> b -> scale -> c -> stage_sum -> d.
static void launch(long k, float *const *d)
{
    const int blocks = ELEMS / THREADS;
    switch (k % 3) {
    case 0: copy_k<<<blocks, THREADS>>>(d[0], d[1], ELEMS); break;
    case 1: scale_k<<<blocks, THREADS>>>(d[1], d[2], ELEMS, SCALE); break;
    default: stage_sum_k<<<blocks, THREADS>>>(d[2], d[3], ELEMS); break;
    }
}

// b, c and d copied back against the same chain on the CPU (one copy,
// one product, one sum each: exact). Returns the number of wrong values.
static long verify(float *const *d, const float *a)
{
    static float h[3][ELEMS];
    long bad = 0;
    for (int j = 0; j < 3; j++)
        check(cudaMemcpy(h[j], d[j + 1], sizeof h[j], cudaMemcpyDeviceToHost),
              "cudaMemcpy to the host");
    for (int i = 0; i < ELEMS; i++) {
        int base = i - i % THREADS, next = base + (i % THREADS + 1) % THREADS;
        float c = SCALE * a[i], cn = SCALE * a[next];
        if (h[0][i] != a[i] || h[1][i] != c || h[2][i] != c + cn) {
            if (!bad)
                fprintf(stderr, "many_launches: element %d: b %g c %g d %g, "
                        "want %g %g %g\n", i, h[0][i], h[1][i], h[2][i],
                        a[i], c, c + cn);
            bad++;
        }
    }
    return bad;
}

static long parse_launches(int argc, char **argv)
{
    char *end;
    long n = argc > 1 ? strtol(argv[1], &end, 10) : 10000;
    if (argc > 2 || (argc > 1 && (*end || end == argv[1])) || n < 1) {
        fprintf(stderr, "usage: many_launches [LAUNCHES] (a count >= 1)\n");
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    long n = parse_launches(argc, argv);
    static float a[ELEMS];
    float *d[4];
    for (int i = 0; i < ELEMS; i++)
        a[i] = (float)(((long long)i * 7919) % 1000) / 100.0f;
    for (int j = 0; j < 4; j++) {
        check(cudaMalloc(&d[j], sizeof a), "cudaMalloc");
        check(cudaMemset(d[j], 0, sizeof a), "cudaMemset");
    }
    check(cudaMemcpy(d[0], a, sizeof a, cudaMemcpyHostToDevice),
          "cudaMemcpy to the device");
    for (long k = 0; k < 3; k++)   // the warm-up round
        launch(k, d);
    check(cudaGetLastError(), "a warm-up launch");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the warm-up");
    printf("many_launches: start launches %ld elements %d\n", n, ELEMS);
    fflush(stdout);

    double t0 = now_ms();
    for (long k = 0; k < n; k++) {
        launch(k, d);
        if ((k + 1) % PROGRESS_EVERY == 0 && k + 1 < n) {
            printf("many_launches: progress launches %ld ms %.3f\n", k + 1,
                   now_ms() - t0);
            fflush(stdout);
        }
    }
    check(cudaGetLastError(), "a launch");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the loop");
    double t = now_ms() - t0;
    printf("many_launches: launches %ld total_ms %.3f per_launch_us %.3f\n",
           n, t, t * 1000.0 / (double)n);
    fflush(stdout);

    long bad = verify(d, a);
    for (int j = 0; j < 4; j++)
        check(cudaFree(d[j]), "cudaFree");
    if (bad) {
        printf("many_launches: WRONG: %ld of %d values differ\n", bad, 3 * ELEMS);
        return 1;
    }
    return 0;
}
