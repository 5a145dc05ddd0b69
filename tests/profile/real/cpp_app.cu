// cpp_app.cu - CUDA C++ as users write it: kernels with C++ linkage, const
// pointer parameters, a template with two instantiations, a kernel in an
// anonymous namespace, a kernel reached through a lambda, shared memory
// loaded and stored, and a cuBLAS call. Each result checked on the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "cpp_app: %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

template <typename T>
__global__ void scale(const T *in, T *out, int n, T a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

namespace {
__global__ void shifted(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n)
        out[i] = in[i + 1];
}
}

template <typename F>
__global__ void apply(F f, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = f(i);
}

// 32x32 tile transpose through shared memory: global loads and stores,
// shared stores and (conflicting) shared loads.
__global__ void transpose_tile(const float *in, float *out, int w)
{
    __shared__ float t[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    out[y * w + x] = t[threadIdx.x][threadIdx.y];
}

int main()
{
    const int n = 1 << 20, w = 1024;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++)
        h[i] = (float)(((long long)i * 7919) % 1000) / 100.0f;
    float *in, *out;
    double *din, *dout;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&din, n * sizeof(double)));
    CK(cudaMalloc(&dout, n * sizeof(double)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> r(n);
    int bad = 0;

    scale<float><<<n / 256, 256>>>(in, out, n, 2.0f);
    CK(cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) bad += r[i] != 2.0f * h[i];
    scale<double><<<n / 256, 256>>>(din, dout, n, 2.0);
    CK(cudaGetLastError());

    shifted<<<n / 256, 256>>>(in, out, n);
    CK(cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i + 1 < n; i++) bad += r[i] != h[i + 1];

    float k = 0.5f;
    apply<<<n / 256, 256>>>([=] __device__ (int i) { return k * (float)i; }, out, n);
    CK(cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) bad += r[i] != 0.5f * (float)i;

    transpose_tile<<<dim3(w / 32, w / 32), dim3(32, 32)>>>(in, out, w);
    CK(cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++) bad += r[x * w + y] != h[y * w + x];

    cublasHandle_t hb;
    if (cublasCreate(&hb) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cpp_app: cublasCreate\n"); return 1; }
    const int m = 256;
    float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, in, m, in, m, &zero, out, m)
        != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cpp_app: cublasSgemm\n"); return 1; }
    CK(cudaMemcpy(r.data(), out, m * m * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j = 0; j < m; j += 37)
        for (int i = 0; i < m; i += 41) {
            double s = 0;
            for (int q = 0; q < m; q++) s += (double)h[q * m + i] * h[j * m + q];
            bad += std::abs(r[j * m + i] - s) > 1e-3 * (std::abs(s) + 1);
        }
    cublasDestroy(hb);
    CK(cudaDeviceSynchronize());
    std::printf("cpp_app: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}
