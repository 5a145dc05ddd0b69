# cupy_offender.py - a CuPy program with two offending RawKernels (NVRTC,
# no line information, as CuPy compiles by default): a tiled transpose
# that reads its 32 x 32 shared tile by columns (32 lanes in one bank)
# and a gather that reads every eighth float (a sector a lane). Checked
# against NumPy.
import sys
import numpy as np
import cupy as cp

src = r'''
extern "C" __global__ void tile_transpose(const float *in, float *out, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[(blockIdx.x * 32 + threadIdx.y) * n + blockIdx.y * 32 + threadIdx.x] =
        tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void gather8(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[8 * i] + 1.0f;
}
'''

def main():
    n = 1024
    a = np.random.default_rng(3).standard_normal((n, n)).astype(np.float32)
    d = cp.asarray(a)
    t = cp.empty_like(d)
    mod = cp.RawModule(code=src)
    mod.get_function("tile_transpose")((n // 32, n // 32), (32, 32), (d, t, cp.int32(n)))
    g = cp.empty(n * n // 8, dtype=cp.float32)
    mod.get_function("gather8")((g.size // 256,), (256,), (d, g, cp.int32(g.size)))
    ok = np.array_equal(t.get(), a.T) and np.allclose(g.get(), a.reshape(-1)[::8] + 1.0)
    print("cupy_offender:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
