"""Autograd's cost, pytensor beside PyTorch in one process.

Rows:
  plain_add        `a + b` on 1-element tensors that require no grad (the plain path must keep
                   its speed: goal <= 0.2 of torch's time)
  fwd_grad         `(a * b + c).sum()` with 1-element leaves that require grad: recording a
                   small graph (goal <= 0.3)
  bwd_chain100     `loss.backward()` over a chain of 100 small ops (the graph is built outside
                   the timed part; goal <= 0.3)
  mlp              forward + backward of a 784-512-512-10 MLP written with matmul/relu/
                   log_softmax, batch 128, float32 (goal <= 1.0)
`--memory` also measures the MLP step's peak resident memory in a fresh process per library
(goal: pytensor's <= torch's).

Each repeat times every row of pytensor, then of torch, interleaved; the median of the repeats
is printed with the ratio pytensor/torch (below 1 pytensor is faster). `--threads` goes to both
set_num_threads (default 1).

    python3 benchmarks/bench_autograd.py [--reps 7] [--only mlp] [--threads 1] [--memory]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)


def _timeit(fn, calls: int) -> float:
    """Seconds per call of fn over `calls` calls."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def plain_add(m):
    a, b = m.ones(1), m.ones(1)
    return (lambda: a + b), 20000


def fwd_grad(m):
    a = m.ones(1, requires_grad=True)
    b = m.ones(1, requires_grad=True)
    c = m.ones(1, requires_grad=True)
    return (lambda: (a * b + c).sum()), 5000


def bwd_chain100(m):
    x = m.ones(1, requires_grad=True)

    def build():
        y = x
        for i in range(50):
            y = y * 1.001
            y = y + 0.5
        return y.sum()

    # the graph is built outside the timed call: time backward alone
    graphs = []

    def run():
        graphs.pop().backward()

    def refill(n):
        graphs.extend(build() for _ in range(n))
    return run, refill


def mlp(m, batch=128):
    g = m.Generator().manual_seed(0) if hasattr(m, "Generator") else None
    dims = (784, 512, 512, 10)
    ws = [(m.randn(dims[i], dims[i + 1], generator=g) * (1.0 / dims[i] ** 0.5)).requires_grad_()
          for i in range(3)]
    bs = [m.zeros(dims[i + 1], requires_grad=True) for i in range(3)]
    x = m.randn(batch, dims[0], generator=g)
    target = m.randint(0, 10, (batch, 1), generator=g)

    def step():
        h = x
        for i in range(3):
            h = h.matmul(ws[i]) + bs[i]
            if i < 2:
                h = h.relu()
        logp = m.log_softmax(h, 1)
        loss = -logp.gather(1, target).mean()
        loss.backward()
        for p in ws + bs:
            p.grad = None
    return step, 20


ROWS = {"plain_add": plain_add, "fwd_grad": fwd_grad, "bwd_chain100": bwd_chain100, "mlp": mlp}


def _measure(row, m, calls_override=None):
    made = ROWS[row](m)
    if row == "bwd_chain100":
        run, refill = made
        n = calls_override or 200
        refill(n)
        return _timeit(run, n)
    fn, calls = made
    fn()  # warm up
    return _timeit(fn, calls_override or calls)


def _peak_rss(lib: str, threads: int) -> float:
    """MB by which the peak resident memory of a fresh process rises over 5 MLP steps of `lib`
    (the peak is reset after set-up: Linux's clear_refs)."""
    code = (f"import sys; sys.path.insert(0, {ROOT!r}); import {lib} as m; "
            f"m.set_num_threads({threads}); "
            f"sys.path.insert(0, {HERE!r}); import bench_autograd as b; "
            "step, _ = b.mlp(m)\n"
            "def kb(key):\n"
            "    for line in open('/proc/self/status'):\n"
            "        if line.startswith(key): return int(line.split()[1])\n"
            "base = kb('VmRSS')\n"
            "open('/proc/self/clear_refs', 'w').write('5')\n"
            "for _ in range(5): step()\n"
            "print(kb('VmHWM') - base)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1]) / 1024.0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--only", default="")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--memory", action="store_true")
    args = p.parse_args(argv)
    import pytensor
    libs = {"pytensor": pytensor}
    try:
        import torch
        libs["torch"] = torch
    except ImportError:
        print("torch is not installed: pytensor's times only")
    for m in libs.values():
        m.set_num_threads(args.threads)
    rows = [r for r in ROWS if not args.only or r in args.only.split(",")]
    times = {(r, n): [] for r in rows for n in libs}
    for _ in range(args.reps):
        for r in rows:
            for n, m in libs.items():
                times[(r, n)].append(_measure(r, m))
    print(f"{'row':<14} {'pytensor us':>12} {'torch us':>10} {'ratio':>7}   threads={args.threads}")
    for r in rows:
        ours = statistics.median(times[(r, "pytensor")]) * 1e6
        if "torch" in libs:
            theirs = statistics.median(times[(r, "torch")]) * 1e6
            print(f"{r:<14} {ours:12.2f} {theirs:10.2f} {ours / theirs:7.2f}")
        else:
            print(f"{r:<14} {ours:12.2f}")
    if args.memory:
        ours = _peak_rss("pytensor", args.threads)
        line = f"mlp peak RSS growth: pytensor {ours:.1f} MB"
        if "torch" in libs:
            theirs = _peak_rss("torch", args.threads)
            line += f", torch {theirs:.1f} MB, ratio {ours / theirs:.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
