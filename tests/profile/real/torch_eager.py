# torch_eager.py - a small PyTorch program as users write one: elementwise,
# a reduction and a matrix product on the GPU, checked against the CPU.
import sys
import torch

def main():
    torch.manual_seed(1)
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    c = torch.relu(a * 2.0 + b)
    s = c.sum()
    m = torch.randn(256, 256, device="cuda")
    p = m @ m
    torch.cuda.synchronize()
    ref = torch.relu(a.cpu() * 2.0 + b.cpu()).sum()
    ok = abs(s.item() - ref.item()) <= 1e-3 * abs(ref.item())
    ok = ok and torch.allclose(p.cpu(), m.cpu() @ m.cpu(), rtol=1e-2, atol=1e-2)
    print("torch_eager:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
