# torch_sdpa.py - PyTorch's scaled_dot_product_attention forward and
# backward in fp16 (batch 4, 8 heads, 512 tokens, head size 64), with the
# backend PyTorch picks (FlashAttention or CUTLASS's memory-efficient
# kernels on sm_90), checked against the same attention written out in
# fp32.
import sys
import torch
import torch.nn.functional as F

def main():
    torch.manual_seed(6)   # the same input in every run
    shape = (4, 8, 512, 64)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16,
                           requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.float().sum().backward()
    torch.cuda.synchronize()
    qf, kf, vf = (t.detach().float().requires_grad_() for t in (q, k, v))
    s = (qf @ kf.transpose(-1, -2)) / 8.0
    mask = torch.ones(512, 512, device="cuda", dtype=torch.bool).tril()
    ref = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ vf
    ref.sum().backward()
    err = max((out.float() - ref).abs().max().item(),
              (q.grad.float() - qf.grad).abs().max().item())
    ok = err < 0.05
    print("torch_sdpa:", "ok" if ok else "WRONG", "max error %.4f" % err)
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
