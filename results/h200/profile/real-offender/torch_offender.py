# torch_offender.py - PyTorch copies that read global memory with a
# stride: every other column of a matrix, and a transpose, each made
# contiguous; checked against the CPU. The profile's example in the README
# and docs/profile.md (the run's output beside this file).
import sys
import torch

def main():
    torch.manual_seed(1)
    x = torch.randn(4096, 4096, device="cuda")
    half = x[:, ::2].contiguous()   # every other float of each row
    xt = x.t().contiguous()         # the transpose
    torch.cuda.synchronize()
    c = x.cpu()
    ok = torch.equal(half.cpu(), c[:, ::2]) and torch.equal(xt.cpu(), c.t())
    print("torch_offender:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
