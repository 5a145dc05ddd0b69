# torch_small.py - a small PyTorch program: elementwise work, a reduction
# and a softmax on the GPU (PyTorch's own kernels, no vendor library),
# checked against the CPU.
import sys
import torch

def main():
    torch.manual_seed(1)
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    c = torch.relu(a * 2.0 + b)
    s = c.sum()
    m = torch.softmax(a.view(1024, 1024), dim=1)
    torch.cuda.synchronize()
    ref = torch.relu(a.cpu() * 2.0 + b.cpu()).sum()
    ok = abs(s.item() - ref.item()) <= 1e-3 * abs(ref.item())
    ok = ok and torch.allclose(m.cpu(), torch.softmax(a.cpu().view(1024, 1024), dim=1),
                               rtol=1e-4, atol=1e-6)
    print("torch_small:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
