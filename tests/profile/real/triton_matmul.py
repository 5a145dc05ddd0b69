# triton_matmul.py - a Triton matrix product in the shape of Triton's
# tutorial (tiles of 128 x 128 x 32 in fp16, program ids grouped along M
# for L2 reuse, accumulation in fp32 through tl.dot), with one fixed
# configuration (no autotuning: the same kernel every run). On sm_90
# Triton builds its loads as cp.async (LDGSTS) or TMA and the product as
# wgmma (HGMMA). Checked against PyTorch's product.
import sys
import torch
import triton
import triton.language as tl

@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    om = (pm * BM + tl.arange(0, BM)) % M
    on = (pn * BN + tl.arange(0, BN)) % N
    ok = tl.arange(0, BK)
    pa = a + om[:, None] * sam + ok[None, :] * sak
    pb = b + ok[:, None] * sbk + on[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        x = tl.load(pa, mask=ok[None, :] < left, other=0.0)
        y = tl.load(pb, mask=ok[:, None] < left, other=0.0)
        acc = tl.dot(x, y, acc)
        pa += BK * sak
        pb += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    pc = c + cm[:, None] * scm + cn[None, :] * scn
    tl.store(pc, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                        b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BM=128, BN=128, BK=32, GROUP=8, num_warps=8,
                        num_stages=3)
    return c

def main():
    torch.manual_seed(5)   # the same input in every run
    n = 1024
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = matmul(a, b)
    torch.cuda.synchronize()
    ref = (a.float() @ b.float())
    err = (c.float() - ref).abs().max().item()
    ok = err < 0.5
    print("triton_matmul:", "ok" if ok else "WRONG", "max error %.4f" % err)
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
