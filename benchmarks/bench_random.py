"""Normal random numbers by size: ``randn(n)`` in float32 and float64 from 1 to 4 million
elements, pytensor beside PyTorch (``torch.randn``) and NumPy (``Generator(Philox).
standard_normal``, the same counter-based generator family), at each thread count asked for.

The libraries run in one process, interleaved: each repeat times every size of pytensor, then
torch, then NumPy, for enough calls to last about `--ms` milliseconds; the median of the repeats
is printed with the time ratios pytensor/torch and pytensor/NumPy (below 1 pytensor is faster).
NumPy's generators are single-threaded whatever the setting. The first line prints the load
average: on a machine shared with other work, multi-threaded calls wait for descheduled threads.

    python3 benchmarks/bench_random.py [--threads 1,2] [--sizes 1,100,6400,1000000]
                                       [--dtypes float32,float64] [--reps 7] [--ms 20]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import pytensor  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SIZES = (1, 16, 100, 1000, 6400, 100_000, 1_000_000, 4_000_000)


def _callers(size: int, dtype: str) -> dict:
    """name -> a function drawing `size` normals of `dtype` (a new array each call)."""
    out = {"pytensor": lambda: pytensor.randn(size, dtype=getattr(pytensor, dtype))}
    if torch is not None:
        tdt = getattr(torch, dtype)
        out["torch"] = lambda: torch.randn(size, dtype=tdt)
    gen = np.random.Generator(np.random.Philox(0))
    ndt = getattr(np, dtype)
    out["numpy"] = lambda: gen.standard_normal(size, dtype=ndt)
    return out


def _calls_for(fn, ms: float) -> int:
    """How many calls of fn last about ms milliseconds (at least 1)."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(ms * 1e-3 / once))


def _time(fn, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--ms", type=float, default=20.0)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    dtypes = args.dtypes.split(",")
    print(f"load average {os.getloadavg()[0]:.2f}; cpu capability "
          f"{pytensor._C._init_report()['config']['cpu_capability']}")
    print(f"{'threads':>7} {'dtype':>8} {'n':>9} {'pytensor us':>12} {'torch us':>10} "
          f"{'numpy us':>10} {'pt/torch':>9} {'pt/numpy':>9}")
    for threads in (int(t) for t in args.threads.split(",")):
        pytensor.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
        for dtype in dtypes:
            rows = [(n, _callers(n, dtype)) for n in sizes]
            calls = {(n, name): _calls_for(fn, args.ms)
                     for n, fns in rows for name, fn in fns.items()}
            samples = {key: [] for key in calls}
            for _ in range(args.reps):
                for n, fns in rows:
                    for name, fn in fns.items():  # interleaved: the same noise hits all
                        samples[n, name].append(_time(fn, calls[n, name]))
            for n, fns in rows:
                med = {name: statistics.median(samples[n, name]) for name in fns}
                pt, th, npy = med["pytensor"], med.get("torch"), med["numpy"]
                fmt = lambda v: f"{v:.2f}" if v is not None else "n/a"  # noqa: E731
                r_t = fmt(pt / th) if th else "n/a"
                print(f"{threads:>7} {dtype:>8} {n:>9} {pt:>12.2f} {fmt(th):>10} {npy:>10.2f} "
                      f"{r_t:>9} {pt / npy:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
