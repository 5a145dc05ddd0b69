// thrust_sort.cu - C++ as users write it with the toolkit's libraries
// compiled in: Thrust's sort (CUB's onesweep radix sort, built from the
// toolkit's headers into this program), a kernel template instantiated
// twice (tile_t<float, 32> and tile_t<int, 16>: a shared tile read by
// columns), and NVTX ranges named by registered strings. Each result
// checked on the CPU.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <nvtx3/nvToolsExt.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "thrust_sort: %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// An N x N tile transposed through shared memory, read by columns: an
// N-way bank conflict for 4-byte T when N divides 32.
template <typename T, int N>
__global__ void tile_t(const T *in, T *out, int w)
{
    __shared__ T t[N][N];
    int x = blockIdx.x * N + threadIdx.x, y = blockIdx.y * N + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * N + threadIdx.x;
    y = blockIdx.x * N + threadIdx.y;
    out[y * w + x] = t[threadIdx.x][threadIdx.y];
}

template <typename T, int N>
static int transpose_checked(const std::vector<T> &h, int w)
{
    size_t n = h.size();
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    tile_t<T, N><<<dim3(w / N, w / N), dim3(N, N)>>>(in, out, w);
    std::vector<T> r(n);
    CK(cudaMemcpy(r.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++)
            bad += r[(size_t)x * w + y] != h[(size_t)y * w + x];
    CK(cudaFree(in));
    CK(cudaFree(out));
    return bad;
}

int main()
{
    nvtxDomainHandle_t dom = nvtxDomainCreateA("thrust_sort");
    nvtxStringHandle_t s_sort = nvtxDomainRegisterStringA(dom, "sort keys");
    nvtxStringHandle_t s_tile = nvtxDomainRegisterStringA(dom, "transpose tiles");
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;

    const int n = 1 << 20, w = 1024;
    std::vector<unsigned> keys(n);
    unsigned s = 12345u;   // a fixed sequence: the same input every run
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        keys[i] = s;
    }
    int bad = 0;
    a.message.registered = s_sort;
    nvtxDomainRangePushEx(dom, &a);
    thrust::device_vector<unsigned> d(keys.begin(), keys.end());
    thrust::sort(d.begin(), d.end());
    std::vector<unsigned> got(n);
    thrust::copy(d.begin(), d.end(), got.begin());
    nvtxDomainRangePop(dom);
    std::sort(keys.begin(), keys.end());
    bad += got != keys;

    a.message.registered = s_tile;
    nvtxDomainRangePushEx(dom, &a);
    std::vector<float> hf((size_t)w * w);
    std::vector<int> hi((size_t)w * w);
    for (size_t i = 0; i < hf.size(); i++) {
        hf[i] = (float)((i * 7919) % 1000) / 10.0f;
        hi[i] = (int)((i * 104729) % 100003);
    }
    bad += transpose_checked<float, 32>(hf, w);
    bad += transpose_checked<int, 16>(hi, w);
    nvtxDomainRangePop(dom);
    CK(cudaDeviceSynchronize());
    nvtxDomainDestroy(dom);
    std::printf("thrust_sort: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}
