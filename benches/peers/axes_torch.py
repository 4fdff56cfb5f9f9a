#!/usr/bin/env python3
"""PyTorch's side of `bankwise bench axes`: `torch.sum(x, dim, out=out)` and `torch.amin`
over the same tensors, timed with CUDA events (median of `--runs` after warm-up), beside
PyTorch's copy of the same input (`y.copy_(x)`) timed in a block of runs right after.
Bandwidth counts the input read and the output written, as bankwise's bench does.
"""
import argparse
import statistics

import torch

CASES = [((8192, 8192), (1,)), ((8192, 8192), (0,)), ((64, 4096, 1024), (1,))]


def median_ms(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, median of {args.runs} runs")
    for name, dtype in (("f32", torch.float32), ("f64", torch.float64), ("bf16", torch.bfloat16)):
        for dims, axes in CASES:
            x = torch.randn(dims, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            out = torch.sum(x, dim=axes)
            for op, fn in (("sum", lambda: torch.sum(x, dim=axes, out=out)), ("min", lambda: torch.amin(x, dim=axes, out=out))):
                if op == "min" and name != "f32":
                    continue
                k = median_ms(fn, args.warmup, args.runs)
                c = median_ms(lambda: y.copy_(x), args.warmup, args.runs)
                nbytes = x.numel() * x.element_size()
                share = 100.0 * ((nbytes + out.numel() * out.element_size()) / k) / (2 * nbytes / c)
                label = "x".join(map(str, dims)) + f" over {list(axes)}"
                print(f"torch {op} {name} {label}: {k * 1e3:.1f} us, {(nbytes / k) / 1e6:.0f} GB/s read, {share:.1f}% of the copy")
            del x, y, out


if __name__ == "__main__":
    main()
