# numba_k.py - a Numba CUDA kernel, checked against NumPy.
import sys
import numpy as np
from numba import cuda

@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]

def main():
    n = 1 << 20
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    out = cuda.device_array_like(x)
    saxpy[(n + 255) // 256, 256](np.float32(2.0), cuda.to_device(x), cuda.to_device(y), out)
    ok = np.allclose(out.copy_to_host(), 2.0 * x + y, rtol=1e-6)
    print("numba_k:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
