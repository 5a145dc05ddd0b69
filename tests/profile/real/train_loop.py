# train_loop.py - a PyTorch training loop as users write one, timed from
# inside: a transformer encoder layer (d_model 512, 8 heads, feed-forward
# 2048) on a batch of 32 sequences of 128, forward, backward and AdamW.
# Each step is timed with time.perf_counter() around it, ending with
# torch.cuda.synchronize() (part of the program alone and under a
# profiler alike), so import, start-up and compilation stay outside the
# step times. scripts/cost-table.sh reads the lines it prints:
#
#   train_loop: start steps N warmup W device NAME
#   step I ms X                       (one a step, flushed at once)
#   train_loop: steps N warmup W median_after_warmup_ms M min_ms A max_ms B
#
#   python3 train_loop.py [STEPS [WARMUP]]      (default 20 5)
#
# Exit 0; 1 when a loss is not finite; 2 on bad arguments.
import math
import sys
import time

import torch


def parse_args(argv):
    steps, warmup = 20, 5
    try:
        if len(argv) > 1:
            steps = int(argv[1])
        if len(argv) > 2:
            warmup = int(argv[2])
    except ValueError:
        steps = -1
    if len(argv) > 3 or steps < 1 or warmup < 0 or warmup >= steps:
        print("usage: train_loop.py [STEPS [WARMUP]] (STEPS > WARMUP >= 0)",
              file=sys.stderr)
        sys.exit(2)
    return steps, warmup


def main():
    steps, warmup = parse_args(sys.argv)
    torch.manual_seed(1)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=512, nhead=8, dim_feedforward=2048, batch_first=True).cuda()
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-4)
    x = torch.randn(32, 128, 512, device="cuda")
    torch.cuda.synchronize()
    print("train_loop: start steps", steps, "warmup", warmup, "device",
          torch.cuda.get_device_name(), flush=True)
    times, losses = [], []
    for i in range(steps):
        t0 = time.perf_counter()
        loss = layer(x).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1000.0
        times.append(ms)
        losses.append(loss.detach())
        print("step %d ms %.3f" % (i, ms), flush=True)
    bad = [i for i, l in enumerate(losses) if not math.isfinite(l.item())]
    if bad:
        print("train_loop: WRONG: loss not finite at step", bad[0], flush=True)
        return 1
    after = sorted(times[warmup:])
    n = len(after)
    med = after[n // 2] if n % 2 else (after[n // 2 - 1] + after[n // 2]) / 2
    print("train_loop: steps %d warmup %d median_after_warmup_ms %.3f "
          "min_ms %.3f max_ms %.3f" % (steps, warmup, med, after[0], after[-1]),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
