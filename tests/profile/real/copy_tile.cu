// copy_tile.cu - cp.async (LDGSTS) as a tiled transpose uses it: each
// block copies a 32 x 32-word tile of a matrix whose rows are 128 bytes
// (one line each) from global memory straight into shared memory,
// transposed, then writes the transposed tile out. A warp's copy reads
// 4 rows x 8 words: each row's 8 lanes one line, landing 32 words apart
// in the tile's 32-word rows, so on one bank (copy_rows: the copy rule
// gives 11 wavefronts a copy, line k's eight writes at steps k to k + 7;
// the destinations alone 8). The fixed variants: rows padded to 36 words
// (copy_pad36, cuBLAS's layout and explain's padding of copy_rows: every
// lane on a bank of its own, 4), to 33 words (copy_pad33: line k's words
// on banks k to k + 7, a bank's writes from several places in the lines,
// 7), and each row's words XOR-swizzled by the row, as CuTe and Triton
// lay tiles out (copy_xor: all four lines on one 8-bank group, each bank
// from four places, 7). Each result checked on the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "copy_tile: %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum { N = 32, TILE = N * N, BLOCK = 256, GRID = 264 };

// One 4-byte asynchronous copy, global to shared (cp.async.ca, sm_80 and
// later; before them a load and a store, for the program to run there).
__device__ __forceinline__ void copy4(unsigned *dst, const unsigned *src)
{
#if __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(src) : "memory");
#else
    *dst = *src;
#endif
}

// Waits for the thread's copies.
__device__ __forceinline__ void copies_done()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
#endif
}

// Tile word (c, r) of the transposed tile at c * PITCH + r, or with
// XOR (PITCH 32) at c * 32 + (r ^ c).
template <int PITCH, bool XOR>
__device__ __forceinline__ int at(int c, int r)
{
    return c * PITCH + (XOR ? r ^ c : r);
}

template <int PITCH, bool XOR>
__device__ void copy_tile(const unsigned *in, unsigned *out)
{
    __shared__ __align__(128) unsigned tile[N * PITCH];
    const unsigned *src = in + (size_t)blockIdx.x * TILE;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int i = 0; i < 4; i++) {
        int b = warp + 8 * i;                      // the warp's 4 x 8 block
        int r = 4 * (b % 8) + lane / 8, c = 8 * (b / 8) + lane % 8;
        copy4(&tile[at<PITCH, XOR>(c, r)], &src[r * N + c]);
    }
    copies_done();
    __syncthreads();
    unsigned *dst = out + (size_t)blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        dst[i] = tile[at<PITCH, XOR>(i / N, i % N)];   // row c of the transpose
}

__global__ void copy_rows(const unsigned *in, unsigned *out) { copy_tile<N, false>(in, out); }
__global__ void copy_pad33(const unsigned *in, unsigned *out) { copy_tile<N + 1, false>(in, out); }
__global__ void copy_pad36(const unsigned *in, unsigned *out) { copy_tile<N + 4, false>(in, out); }
__global__ void copy_xor(const unsigned *in, unsigned *out) { copy_tile<N, true>(in, out); }

static int run(const char *what, void (*k)(const unsigned *, unsigned *))
{
    size_t n = (size_t)GRID * TILE;
    std::vector<unsigned> h(n), got(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned)(i * 2654435761u);
    unsigned *in, *out;
    CK(cudaMalloc(&in, n * sizeof(unsigned)));
    CK(cudaMalloc(&out, n * sizeof(unsigned)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    k<<<GRID, BLOCK>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CK(cudaFree(in));
    CK(cudaFree(out));
    int bad = 0;
    for (int b = 0; b < GRID; b++)
        for (int c = 0; c < N; c++)
            for (int r = 0; r < N; r++)
                bad += got[(size_t)b * TILE + c * N + r] != h[(size_t)b * TILE + r * N + c];
    if (bad)
        std::fprintf(stderr, "copy_tile: %s: %d words wrong\n", what, bad);
    return bad != 0;
}

int main()
{
    int bad = 0;
    bad += run("copy_rows", copy_rows);
    bad += run("copy_pad33", copy_pad33);
    bad += run("copy_pad36", copy_pad36);
    bad += run("copy_xor", copy_xor);
    std::printf("copy_tile: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}
