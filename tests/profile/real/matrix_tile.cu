// matrix_tile.cu - ldmatrix and stmatrix as tensor-core kernels use them,
// on a tile of 32 rows of 128 bytes (64 halves) in shared memory: each warp
// moves one 16-byte column of all 32 rows with one .x4 instruction, lane l
// giving row l's address. Rows 128 bytes apart put a matrix's 8 rows in
// one bank group: 8-way (ldsm_rows, stsm_rows). The fixed variants store
// the tile with each row's 16-byte chunks XOR-swizzled by row % 8, as
// CuTe and Triton lay tiles out (ldsm_swizzled, stsm_swizzled): the 8 rows
// of a matrix in 8 bank groups. stmatrix needs sm_90. Each result checked
// on the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "matrix_tile: %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum { ROWS = 32, WORDS = 32, TILE = ROWS * WORDS, BLOCK = 256, GRID = 264 };

// The word of (row, 16-byte chunk c, word w) in the tile's storage.
__device__ __forceinline__ int at(int row, int c, int w, bool swizzled)
{
    return row * WORDS + ((swizzled ? c ^ (row % 8) : c) * 4) + w;
}

template <bool SWIZZLED>
__device__ void ldsm_tile(const unsigned *in, unsigned *out)
{
    __shared__ __align__(128) unsigned tile[TILE];
    const unsigned *src = in + (size_t)blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        int row = i / WORDS, c = i % WORDS / 4, w = i % 4;
        tile[at(row, c, w, SWIZZLED)] = src[i];
    }
    __syncthreads();
    int lane = threadIdx.x % 32, chunk = threadIdx.x / 32 % 8;
    unsigned a = (unsigned)__cvta_generic_to_shared(&tile[at(lane, chunk, 0, SWIZZLED)]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
    // one 16-byte store a thread: coalesced, no offender of its own
    reinterpret_cast<uint4 *>(out)[(size_t)blockIdx.x * blockDim.x + threadIdx.x] =
        make_uint4(r0, r1, r2, r3);
}

__global__ void ldsm_rows(const unsigned *in, unsigned *out) { ldsm_tile<false>(in, out); }
__global__ void ldsm_swizzled(const unsigned *in, unsigned *out) { ldsm_tile<true>(in, out); }

// Each thread's 4 words go into the tile by stmatrix, then the tile (as
// stored, unswizzled on the way out) to out.
template <bool SWIZZLED>
__device__ void stsm_tile(const unsigned *in, unsigned *out)
{
    __shared__ __align__(128) unsigned tile[TILE];
    uint4 v = reinterpret_cast<const uint4 *>(in)[(size_t)blockIdx.x * blockDim.x + threadIdx.x];
    int lane = threadIdx.x % 32, chunk = threadIdx.x / 32 % 8;
#if __CUDA_ARCH__ >= 900
    unsigned a = (unsigned)__cvta_generic_to_shared(&tile[at(lane, chunk, 0, SWIZZLED)]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
    (void)v, (void)lane, (void)chunk;
#endif
    __syncthreads();
    unsigned *dst = out + (size_t)blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        int row = i / WORDS, c = i % WORDS / 4, w = i % 4;
        dst[i] = tile[at(row, c, w, SWIZZLED)];
    }
}

__global__ void stsm_rows(const unsigned *in, unsigned *out) { stsm_tile<false>(in, out); }
__global__ void stsm_swizzled(const unsigned *in, unsigned *out) { stsm_tile<true>(in, out); }

// ldmatrix: thread t gets, of matrix m (rows 8m..8m+7 of the tile, its
// warp's chunk), row t / 4's word t % 4.
static int check_ldsm(const char *what, const std::vector<unsigned> &in,
                      const std::vector<unsigned> &got)
{
    int bad = 0;
    for (int b = 0; b < GRID; b++)
        for (int t = 0; t < BLOCK; t++) {
            int lane = t % 32, chunk = t / 32 % 8;
            for (int m = 0; m < 4; m++) {
                int row = 8 * m + lane / 4;
                unsigned want = in[(size_t)b * TILE + row * WORDS + chunk * 4 + lane % 4];
                bad += got[((size_t)b * BLOCK + t) * 4 + m] != want;
            }
        }
    if (bad)
        std::fprintf(stderr, "matrix_tile: %s: %d words wrong\n", what, bad);
    return bad != 0;
}

// stmatrix: row 8m + t / 4's word t % 4 of the warp's chunk is thread t's
// word m; the warps cover chunks 0-7, each written by one warp of the
// block (8 warps), so the whole tile is written.
static int check_stsm(const char *what, const std::vector<unsigned> &in,
                      const std::vector<unsigned> &got)
{
    int bad = 0;
    for (int b = 0; b < GRID; b++)
        for (int t = 0; t < BLOCK; t++) {
            int lane = t % 32, chunk = t / 32 % 8;
            for (int m = 0; m < 4; m++) {
                int row = 8 * m + lane / 4;
                unsigned want = in[((size_t)b * BLOCK + t) * 4 + m];
                bad += got[(size_t)b * TILE + row * WORDS + chunk * 4 + lane % 4] != want;
            }
        }
    if (bad)
        std::fprintf(stderr, "matrix_tile: %s: %d words wrong\n", what, bad);
    return bad != 0;
}

static int run(const char *what, void (*k)(const unsigned *, unsigned *), bool store)
{
    size_t n = (size_t)GRID * BLOCK * 4;   // = GRID * TILE
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
    return store ? check_stsm(what, h, got) : check_ldsm(what, h, got);
}

int main()
{
    static_assert(GRID * TILE == GRID * BLOCK * 4, "a word in and out per word of the tile");
    int bad = 0;
    bad += run("ldsm_rows", ldsm_rows, false);
    bad += run("ldsm_swizzled", ldsm_swizzled, false);
    int dev = 0, major = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major >= 9) {
        bad += run("stsm_rows", stsm_rows, true);
        bad += run("stsm_swizzled", stsm_swizzled, true);
    }
    std::printf("matrix_tile: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}
