#!/usr/bin/env python3
"""PyTorch's side of `bankwise bench axes`: `torch.sum(x, dim, out=out)`, `torch.amin` and
`torch.argmax` (int64 positions, over the reduced dims flattened: several dims are moved last
and flattened first, a copy PyTorch's argmax needs) over the same tensors, timed with CUDA events (median of `--runs` after warm-up), beside
PyTorch's copy of the same input (`y.copy_(x)`) timed in a block of runs right after.
Bandwidth counts the input read and the output written, as bankwise's bench does.
"""
import argparse
import statistics
from math import prod

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


def argmax(x, dims, axes):
    """`x.argmax` over `axes` as `Gpu::arg_reduce_axes` defines it (positions within the reduced
    dims flattened row-major): `torch.argmax(x, dim)` for one dim, else the reduced dims moved
    last and flattened (a copy) first."""
    if len(axes) == 1:
        return torch.argmax(x, dim=axes[0])
    kept = [d for d in range(len(dims)) if d not in axes]
    return x.permute(*kept, *sorted(axes)).reshape(*[dims[d] for d in kept], -1).argmax(-1)


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
            if name in ("f32", "bf16"):
                k = median_ms(lambda: argmax(x, dims, axes), args.warmup, args.runs)
                c = median_ms(lambda: y.copy_(x), args.warmup, args.runs)
                nbytes = x.numel() * x.element_size()
                kept = x.numel() // prod(dims[a] for a in axes)
                share = 100.0 * ((nbytes + kept * 8) / k) / (2 * nbytes / c)
                label = "x".join(map(str, dims)) + f" over {list(axes)}"
                print(f"torch argmax {name} {label}: {k * 1e3:.1f} us, {(nbytes / k) / 1e6:.0f} GB/s read, {share:.1f}% of the copy")
            del x, y, out


if __name__ == "__main__":
    main()
