#!/usr/bin/env python3
"""PyTorch's side of `bankwise bench permute`: each case of the suite, as
`out.copy_(x.permute(perm))` (what `x.permute(perm).contiguous()` runs, into a buffer made
once), timed with CUDA events beside PyTorch's own copy of the same bytes (`y.copy_(x)`, the
driver's device-to-device copy) in interleaved runs: warm-up, then the median of `--runs`.

    bankwise bench permute --permute-cases cases.txt   # writes the suite, one case a line
    python3 permute_torch.py cases.txt > torch.txt

Prints one line per case and type (`torch f32 512x512x256 by 2,1,0: 812.3 us, 2.91 ms copy
..., 18.6% of the copy`), then the median and minimum per type.
"""
import argparse
import statistics

import torch


def timed(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    cases = []
    for line in open(args.cases):
        if line.strip():
            dims, perm = line.split()
            cases.append(([int(d) for d in dims.split(",")], [int(p) for p in perm.split(",")]))
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, median of {args.runs} runs")
    shares = {}
    for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        for dims, perm in cases:
            x = torch.randn(dims, device="cuda", dtype=dtype)
            out = torch.empty([dims[p] for p in perm], device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            permute, copy = (lambda: out.copy_(x.permute(perm))), (lambda: y.copy_(x))
            for _ in range(args.warmup):
                permute()
                copy()
            kernel, driver = [], []
            for _ in range(args.runs):
                kernel.append(timed(permute))
                driver.append(timed(copy))
            k, c = statistics.median(kernel), statistics.median(driver)
            label = "x".join(map(str, dims)) + " by " + ",".join(map(str, perm))
            share = 100.0 * c / k
            shares.setdefault(name, []).append(share)
            print(f"torch {name} {label}: {k * 1e3:.1f} us, copy {c * 1e3:.1f} us, {share:.1f}% of the copy", flush=True)
            del x, out, y
    for name, s in shares.items():
        print(f"torch {name}: {len(s)} cases, median {statistics.median(s):.1f}% of the copy, minimum {min(s):.1f}%")


if __name__ == "__main__":
    main()
