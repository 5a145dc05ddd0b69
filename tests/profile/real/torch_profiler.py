# torch_profiler.py - a PyTorch program that runs its own profiler
# (torch.profiler, a CUPTI client of its own) around a few kernels, and
# says how many GPU kernel events it recorded.
import sys
import torch
from torch.profiler import profile, ProfilerActivity

def main():
    torch.manual_seed(1)   # the same input in every run (memprobe's, ncu's)
    a = torch.randn(1 << 20, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        b = torch.relu(a * 3.0)
        s = b.sum()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print("torch_profiler: %d GPU events, sum %.3f" % (len(kernels), s.item()))
    return 0 if kernels else 1

if __name__ == "__main__":
    sys.exit(main())
