// histogram.cu - histograms as users write them, with atomics: 256 bins
// privatised in shared memory (atomicAdd on shared words: ATOMS), the same
// straight into global memory (ATOMG / RED), and a skewed input where most
// lanes of a warp add to one bin; and the fix memprobe explain offers for
// the shared one, a private copy of the bins per lane (hist_private). Each
// histogram checked on the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "histogram: %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum { BINS = 256 };

// Per block: a shared histogram, then one global add per bin.
__global__ void hist_shared(const unsigned char *in, int n, unsigned *bins)
{
    __shared__ unsigned h[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&bins[b], h[b]);
}

// hist_shared with a copy of the bins per lane: bin b of lane l at word
// b * 32 + l, in the lane's own bank; the copies summed after, each thread
// starting at another copy (bank) so that a warp's reads do not conflict.
__global__ void hist_private(const unsigned char *in, int n, unsigned *bins)
{
    __shared__ unsigned h[BINS * 32];
    unsigned lane = threadIdx.x % 32;
    for (int b = threadIdx.x; b < BINS * 32; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[in[i] * 32 + lane], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int j = 0; j < 32; j++)
            sum += h[b * 32 + (j + b) % 32];
        atomicAdd(&bins[b], sum);
    }
}

// Every element straight into the global histogram.
__global__ void hist_global(const unsigned char *in, int n, unsigned *bins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i]], 1u);
}

static int run(const char *what, void (*k)(const unsigned char *, int, unsigned *),
               const std::vector<unsigned char> &h)
{
    int n = (int)h.size();
    unsigned char *in;
    unsigned *bins;
    CK(cudaMalloc(&in, n));
    CK(cudaMalloc(&bins, BINS * sizeof(unsigned)));
    CK(cudaMemcpy(in, h.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemset(bins, 0, BINS * sizeof(unsigned)));
    k<<<264, 256>>>(in, n, bins);
    std::vector<unsigned> got(BINS), want(BINS, 0);
    CK(cudaMemcpy(got.data(), bins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        want[h[i]]++;
    CK(cudaFree(in));
    CK(cudaFree(bins));
    if (got != want)
        std::fprintf(stderr, "histogram: %s: wrong counts\n", what);
    return got != want;
}

int main()
{
    const int n = 1 << 22;
    std::vector<unsigned char> uniform(n), skewed(n);
    unsigned s = 777u;   // a fixed sequence: the same input every run
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        uniform[i] = (unsigned char)(s >> 24);
        skewed[i] = (s >> 28) < 12 ? 7 : (unsigned char)(s >> 20);   // 3 in 4 to bin 7
    }
    int bad = 0;
    bad += run("shared, uniform", hist_shared, uniform);
    bad += run("shared, skewed", hist_shared, skewed);
    bad += run("global, uniform", hist_global, uniform);
    bad += run("private, uniform", hist_private, uniform);
    CK(cudaDeviceSynchronize());
    std::printf("histogram: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}
