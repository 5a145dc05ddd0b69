# cupy_two.py - a CuPy RawKernel (NVRTC) and an elementwise kernel; the
# program ends right after its last launch, without synchronising.
import sys
import cupy as cp

src = r'''
extern "C" __global__ void scale(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 3.0f * x[i];
}
'''

def main():
    n = 1 << 20
    x = cp.arange(n, dtype=cp.float32)
    y = cp.empty_like(x)
    cp.RawKernel(src, "scale")(((n + 255) // 256,), (256,), (x, y, cp.int32(n)))
    ok = bool(cp.allclose(y[:8], 3 * x[:8]).get())
    z = cp.ElementwiseKernel("float32 a", "float32 b", "b = a * a + 1.0f", "sq1")(y)
    print("cupy_two:", "ok" if ok else "WRONG")
    del z
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
