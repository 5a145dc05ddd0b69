# numba_offender.py - a Numba program whose kernel (compiled with line
# information) transposes through a 32 x 32 shared tile read by columns:
# the tile's 32-way bank conflict on a Python line. Checked against NumPy.
import sys
import numpy as np
# numba-cuda on the H200's image names np.row_stack, which that image's
# NumPy no longer has, when it compiles this kernel: the alias NumPy had
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
from numba import cuda, float32

@cuda.jit(lineinfo=True)
def tile_transpose(a, out):
    tile = cuda.shared.array((32, 32), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 32 + ty, cuda.blockIdx.x * 32 + tx]
    cuda.syncthreads()
    out[cuda.blockIdx.x * 32 + ty, cuda.blockIdx.y * 32 + tx] = tile[tx, ty]

def main():
    n = 1024
    a = np.random.default_rng(4).standard_normal((n, n)).astype(np.float32)
    out = cuda.device_array_like(a)
    tile_transpose[(n // 32, n // 32), (32, 32)](cuda.to_device(a), out)
    ok = np.array_equal(out.copy_to_host(), a.T)
    print("numba_offender:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
