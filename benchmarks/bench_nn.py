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

After conv come the norm, loss, pool, sample, attention, linear and activation families (fixed
shapes, named in each row; --batch is the conv rows'). Their rows print GB/s (the minimal
traffic: each tensor the step reads or writes counted once per pass) or GFLOP/s. Times are the
median of --reps repeats after a warm-up (--stat best for the best one). --only PATTERN keeps the
rows whose name matches the regular expression (as --filter); --png PATH draws the ratios as a bar
chart with matplotlib when it is installed. Without torch the script times pytensor alone.
"""
from __future__ import annotations

import argparse
import math
import re
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import pytensor
import pytensor.nn.functional as PF
from pytensor.backends import onednn

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pytensor's timings alone
    torch = TF = None


@dataclass
class Row:
    name: str
    # make(lib, F) -> (step, amount): step runs the work once; amount counts `unit` per step
    # (FLOPs or bytes; 0: not counted)
    make: Callable
    unit: str = "GFLOP/s"


def _best(fn, reps: int) -> float:
    fn()  # warm-up: primitives made, buffers touched
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _median(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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

# ---------------------------------------------------------------- norms, losses, pools, sampling,
# attention, linear, activations: forward + backward of one call at fixed shapes; rows that are
# memory-bound count bytes (4 per float32 element of each tensor read or written once per pass).

F32 = 4


def _grad_step(lib, call, inputs, gy):
    """A step that clears the inputs' gradients and runs call(*inputs).backward(gy)."""
    def step():
        for t in inputs:
            t.grad = None
        call(*inputs).backward(gy)
    return step


def _out_grad(lib, call, inputs):
    with lib.no_grad():
        y = call(*inputs)
    return lib.randn(*y.shape)


def unary_row(name: str, shape: tuple, f: Callable, passes: int = 5) -> Row:
    """f(F) -> the function of x; `passes` tensors of x's size move per step (x, y forward; x or y,
    gy, gx backward)."""
    def make(lib, F):
        x = lib.randn(*shape, requires_grad=True)
        call = f(F)
        return _grad_step(lib, call, [x], _out_grad(lib, call, [x])), passes * x.numel() * F32
    return Row(name, make, "GB/s")


def norm_rows(batch: int) -> list:
    def bn(F):
        return lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)

    def gn(F):
        return lambda x, w, b: F.group_norm(x, 8, w, b)

    def ln(F):
        return lambda x, w, b: F.layer_norm(x, (768,), w, b)

    def row(name, shape, channels, f):
        def make(lib, F):
            x = lib.randn(*shape, requires_grad=True)
            w = lib.randn(channels, requires_grad=True)
            b = lib.randn(channels, requires_grad=True)
            call = f(F)
            gy = _out_grad(lib, call, [x, w, b])
            # forward reads x twice (statistics, normalization) and writes y; backward reads x, gy
            # twice (reductions, then gx) and writes gx
            return _grad_step(lib, call, [x, w, b], gy), 7 * x.numel() * F32
        return Row(name, make, "GB/s")
    return [row("batch_norm 32x64x56x56 train", (32, 64, 56, 56), 64, bn),
            row("layer_norm 64x512x768", (64, 512, 768), 768, ln),
            row("group_norm 32x64x56x56 g8", (32, 64, 56, 56), 64, gn)]


def loss_rows(batch: int) -> list:
    def row(name, shape, target_shape):
        def make(lib, F):
            x = lib.randn(*shape, requires_grad=True)
            t = lib.randint(0, shape[1], target_shape)
            step = _grad_step(lib, lambda x: F.cross_entropy(x, t), [x], lib.tensor(1.0))
            # log_softmax reads x, writes lsm; nll reads it; backward reads lsm, writes gx
            return step, 4 * x.numel() * F32
        return Row(name, make, "GB/s")
    return [row("cross_entropy 256x1000", (256, 1000), (256,)),
            row("cross_entropy 32x21x64x64 segm.", (32, 21, 64, 64), (32, 64, 64))]


def pool_rows(batch: int) -> list:
    def maxpool(lib, F):
        x = lib.randn(32, 64, 112, 112, requires_grad=True)
        call = lambda x: F.max_pool2d(x, 3, 2, 1)  # noqa: E731
        gy = _out_grad(lib, call, [x])
        # x read, y and indices written; gy and indices read, gx written
        return _grad_step(lib, call, [x], gy), (2 * x.numel() + 4 * gy.numel()) * F32
    def adaptive(lib, F):
        x = lib.randn(32, 512, 7, 7, requires_grad=True)
        call = lambda x: F.adaptive_avg_pool2d(x, 1)  # noqa: E731
        gy = _out_grad(lib, call, [x])
        return _grad_step(lib, call, [x], gy), 2 * x.numel() * F32
    return [Row("max_pool2d 32x64x112x112 k3 s2 p1", maxpool, "GB/s"),
            Row("adaptive_avg_pool2d 32x512x7x7->1", adaptive, "GB/s")]


def sample_rows(batch: int) -> list:
    def interp(align_corners):
        def make(lib, F):
            x = lib.randn(32, 64, 56, 56, requires_grad=True)
            call = lambda x: F.interpolate(x, scale_factor=2, mode="bilinear",  # noqa: E731
                                           align_corners=align_corners)
            gy = _out_grad(lib, call, [x])
            return _grad_step(lib, call, [x], gy), 2 * (x.numel() + gy.numel()) * F32
        return make

    def grid(mode):
        def make(lib, F):
            x = lib.randn(32, 64, 56, 56, requires_grad=True)
            g = (lib.rand(32, 56, 56, 2) * 2.2 - 1.1).requires_grad_()
            call = lambda x, g: F.grid_sample(x, g, mode=mode, align_corners=False)  # noqa: E731
            gy = _out_grad(lib, call, [x, g])
            return (_grad_step(lib, call, [x, g], gy),
                    (2 * x.numel() + 2 * gy.numel() + 4 * g.numel()) * F32)
        return make
    return [Row("interpolate bilinear 32x64x56x56 x2", interp(False), "GB/s"),
            Row("interpolate bilinear x2 align_corners", interp(True), "GB/s"),
            Row("grid_sample bilinear 32x64x56x56", grid("bilinear"), "GB/s")]


def attention_rows(batch: int) -> list:
    def row(causal):
        def make(lib, F):
            q, k, v = (lib.randn(8, 8, 512, 64, requires_grad=True) for _ in range(3))
            call = lambda q, k, v: F.scaled_dot_product_attention(  # noqa: E731
                q, k, v, is_causal=causal)
            gy = _out_grad(lib, call, [q, k, v])
            # two (L x L x D) products forward, four backward (and the recomputed scores: counted
            # as torch's FLOP counter does, 3x the forward); causal: half of them
            flops = 3 * 4 * 8 * 8 * 512 * 512 * 64 // (2 if causal else 1)
            return _grad_step(lib, call, [q, k, v], gy), flops
        return Row(f"sdpa 8x8x512x64{' causal' if causal else ''}", make)
    return [row(False), row(True)]


def linear_rows(batch: int) -> list:
    def row(n, features):
        def make(lib, F):
            x = lib.randn(n, features, requires_grad=True)
            w = lib.randn(features, features, requires_grad=True)
            b = lib.randn(features, requires_grad=True)
            gy = _out_grad(lib, F.linear, [x, w, b])
            return _grad_step(lib, F.linear, [x, w, b], gy), 3 * 2 * n * features * features
        return Row(f"linear batch {n} {features}->{features}", make)
    return [row(n, f) for f in (128, 512, 1024) for n in (1, 16, 64, 256)]


def activation_rows(batch: int) -> list:
    rows = []
    for shape in ((64, 4096), (32, 512, 768)):
        tag = "x".join(map(str, shape))
        rows += [unary_row(f"gelu {tag}", shape, lambda F: F.gelu),
                 unary_row(f"gelu tanh {tag}", shape,
                           lambda F: (lambda x: F.gelu(x, approximate="tanh"))),
                 unary_row(f"softmax {tag}", shape, lambda F: (lambda x: F.softmax(x, -1)))]
    return rows


FAMILIES.update({"norm": norm_rows, "loss": loss_rows, "pool": pool_rows,
                 "sample": sample_rows, "attention": attention_rows, "linear": linear_rows,
                 "activation": activation_rows})


def _png(path: str, names: list, ratios: list, threads: int) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"--png: matplotlib is not installed; no chart written to {path} "
              "(pip install matplotlib)")
        return
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(names) + 1.2))
    colors = ["tab:green" if r <= 1.0 else "tab:red" for r in ratios]
    ax.barh(range(len(names)), ratios, color=colors)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("time pytensor / torch (below 1: pytensor faster)")
    ax.set_title(f"pytensor beside torch, forward + backward, {threads} thread(s)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart written to {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--stat", choices=["median", "best"], default="median")
    ap.add_argument("--family", choices=sorted(FAMILIES), action="append")
    ap.add_argument("--path", choices=["auto", "gemm"], default="auto")
    ap.add_argument("--filter", "--only", dest="filter", default="", metavar="PATTERN",
                    help="only rows whose name matches this regular expression")
    ap.add_argument("--png", metavar="PATH", help="draw the ratios as a bar chart (matplotlib)")
    args = ap.parse_args()
    if torch is not None:
        torch.set_num_threads(args.threads)
    pytensor.set_num_threads(args.threads)
    onednn.enabled = args.path == "auto"
    timer = _median if args.stat == "median" else _best
    print(f"threads {args.threads}, batch {args.batch}, {args.stat} of {args.reps}; pytensor path: "
          f"{'oneDNN where chosen' if onednn.enabled else 'im2col + GEMM'} "
          f"(oneDNN built: {onednn.is_available()})"
          + ("" if torch is not None else "; torch is not installed: pytensor alone"))
    print(f"{'row':40s} {'pytensor ms':>11s} {'torch ms':>9s} {'ratio':>6s} "
          f"{'pt rate':>10s} {'torch rate':>10s}")
    ratios, names = [], []
    for fam in args.family or list(FAMILIES):
        for row in FAMILIES[fam](args.batch):
            if not re.search(args.filter, row.name):
                continue
            step, amount = row.make(pytensor, PF)
            t_pt = timer(step, args.reps)
            del step
            t_th = None
            if torch is not None:
                step, _ = row.make(torch, TF)
                t_th = timer(step, args.reps)
                del step
            scale = 1e9 if row.unit in ("GFLOP/s", "GB/s") else 1.0

            def rate(t):
                return f"{amount / t / scale:10.1f}" if amount and t else f"{'':>10s}"
            if t_th is None:
                print(f"{row.name:40s} {t_pt * 1e3:11.2f} {'-':>9s} {'-':>6s} {rate(t_pt)} "
                      f"{'':>10s} {row.unit if amount else ''}")
                continue
            ratios.append(t_pt / t_th)
            names.append(row.name)
            print(f"{row.name:40s} {t_pt * 1e3:11.2f} {t_th * 1e3:9.2f} {t_pt / t_th:6.2f} "
                  f"{rate(t_pt)} {rate(t_th)} {row.unit if amount else ''}", flush=True)
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean ratio pytensor/torch: {geo:.2f} over {len(ratios)} rows")
    if args.png:
        if ratios:
            _png(args.png, names, ratios, args.threads)
        else:
            print("--png: no ratios to draw (torch is not installed or no row matched)")


if __name__ == "__main__":
    main()
