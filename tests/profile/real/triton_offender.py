# triton_offender.py - the program of docs/profile.md's CI example: a
# Triton kernel of the program's own that reads a matrix by columns (each
# of a warp's 4-byte loads in a sector of its own: 8 sectors for 1) and
# writes rows, beside PyTorch's kernels and a cuBLAS matrix product (code
# of libraries). Checked against PyTorch.
import sys
import torch
import triton
import triton.language as tl

@triton.jit
def transpose_rows(x, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    j = tl.arange(0, BLOCK)
    m = j < n
    v = tl.load(x + j * n + i, mask=m)   # column i of x: n floats n apart
    tl.store(out + i * n + j, v, mask=m)  # row i of out: contiguous

def main():
    n = 1024
    torch.manual_seed(2)   # the same input in every run
    x = torch.randn(n, n, device="cuda")
    w = torch.randn(n, n, device="cuda")
    xt = torch.empty_like(x)
    transpose_rows[(n,)](x, xt, n, BLOCK=1024)
    y = torch.relu(xt @ w)   # cuBLAS, then PyTorch's elementwise kernel
    torch.cuda.synchronize()
    ok = torch.equal(xt, x.t()) and bool(torch.isfinite(y).all())
    print("triton_offender:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
