"""pytensor.nn.functional beside torch.nn.functional: best-of-reps times of one forward + backward
step per row, GFLOP/s where the row counts its arithmetic, the ratio pytensor/torch (below 1
pytensor is faster) and their geometric mean.

Rows are grouped by family (ROWS below: a family is a list of Row; add norms, pools, ... as new
lists). The conv family is conv2d forward + backward (input and weight gradients) at batch 32 on
ResNet-18's stage shapes (3x3, stride 1 inside a stage, stride 2 entering it) and depthwise 3x3
shapes (MobileNet's), each contiguous (NCHW) and channels-last (nhwc rows: input, weight and
output gradient in channels_last); its FLOPs are the three passes' 2 * multiply-adds.

    python3 benchmarks/bench_nn.py [--threads 1] [--batch 32] [--reps 3] [--family conv]
                                   [--path auto|gemm] [--filter 56]

Both libraries run in this process with the same thread count (torch.set_num_threads and
pytensor.set_num_threads); each row times pytensor then torch. Above one thread their OpenMP
pools may spin against each other between rows (benchmarks/bench_loop.py times each library in a
process of its own for that reason): compare ratios at --threads 1 first. --path gemm turns
oneDNN off (pytensor.backends.onednn.enabled = False) to time pytensor's own im2col + GEMM path.
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from typing import Callable

import torch

import pytensor
import pytensor.nn.functional as PF
import torch.nn.functional as TF
from pytensor.backends import onednn


@dataclass
class Row:
    name: str
    # make(lib, F) -> (step, flops): step runs the work once; flops may be 0 (not counted)
    make: Callable


def _best(fn, reps: int) -> float:
    fn()  # warm-up: primitives made, buffers touched
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# ---------------------------------------------------------------- conv

def conv_row(name: str, batch: int, cin: int, cout: int, size: int, k: int, stride: int,
             groups: int = 1, nhwc: bool = False) -> Row:
    pad = k // 2

    def make(lib, F):
        x = lib.randn(batch, cin, size, size)
        w = lib.randn(cout, cin // groups, k, k)
        if nhwc:
            x = x.contiguous(memory_format=lib.channels_last)
            w = w.contiguous(memory_format=lib.channels_last)
        x.requires_grad_(True)
        w.requires_grad_(True)
        with lib.no_grad():
            y0 = F.conv2d(x, w, stride=stride, padding=pad, groups=groups)
        gy = lib.randn(*y0.shape)
        if nhwc:
            gy = gy.contiguous(memory_format=lib.channels_last)
        macs = y0.numel() * (cin // groups) * k * k

        def step():
            x.grad = w.grad = None
            F.conv2d(x, w, stride=stride, padding=pad, groups=groups).backward(gy)
        return step, 3 * 2 * macs
    return Row(name, make)


def conv_rows(batch: int) -> list:
    rows = []
    for nhwc in (False, True):
        tag = " nhwc" if nhwc else ""
        for c, s in ((64, 56), (128, 28), (256, 14), (512, 7)):
            rows.append(conv_row(f"conv2d{tag} {c}ch {s}x{s} 3x3 s1", batch, c, c, s, 3, 1,
                                 nhwc=nhwc))
        for c, s in ((64, 56), (128, 28), (256, 14)):
            rows.append(conv_row(f"conv2d{tag} {c}->{2 * c}ch {s}x{s} 3x3 s2", batch, c, 2 * c, s,
                                 3, 2, nhwc=nhwc))
        for c, s, st in ((128, 28, 1), (256, 14, 1), (256, 14, 2), (32, 112, 1)):
            rows.append(conv_row(f"conv2d{tag} depthwise {c}ch {s}x{s} 3x3 s{st}", batch, c, c, s,
                                 3, st, groups=c, nhwc=nhwc))
    return rows


FAMILIES = {"conv": conv_rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--family", choices=sorted(FAMILIES), action="append")
    ap.add_argument("--path", choices=["auto", "gemm"], default="auto")
    ap.add_argument("--filter", default="", help="only rows whose name contains this")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    pytensor.set_num_threads(args.threads)
    onednn.enabled = args.path == "auto"
    print(f"threads {args.threads}, batch {args.batch}, best of {args.reps}; pytensor path: "
          f"{'oneDNN where chosen' if onednn.enabled else 'im2col + GEMM'} "
          f"(oneDNN built: {onednn.is_available()})")
    print(f"{'row':40s} {'pytensor ms':>11s} {'torch ms':>9s} {'ratio':>6s} "
          f"{'pt GFLOP/s':>10s} {'torch GFLOP/s':>13s}")
    ratios = []
    for fam in args.family or sorted(FAMILIES):
        for row in FAMILIES[fam](args.batch):
            if args.filter not in row.name:
                continue
            step, flops = row.make(pytensor, PF)
            t_pt = _best(step, args.reps)
            del step
            step, _ = row.make(torch, TF)
            t_th = _best(step, args.reps)
            del step
            ratios.append(t_pt / t_th)
            gf = (lambda t: f"{flops / t / 1e9:10.1f}") if flops else (lambda t: f"{'':>10s}")
            print(f"{row.name:40s} {t_pt * 1e3:11.2f} {t_th * 1e3:9.2f} {t_pt / t_th:6.2f} "
                  f"{gf(t_pt)} {gf(t_th):>13s}")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean ratio pytensor/torch: {geo:.2f} over {len(ratios)} rows")


if __name__ == "__main__":
    main()
