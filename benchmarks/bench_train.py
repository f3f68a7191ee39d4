"""Training-loop costs, pytensor beside PyTorch in one process.

Sections (each a list of rows; later sections add epochs of the example models, DataLoader
throughput and save/load):
  optim    Adam steps over 10M float32 parameters in 100 tensors, gradients set once:
             adam_default   both libraries' default implementation (torch on CPU: the
                            per-parameter loop; pytensor: one fused C pass per group)
             adam_foreach   foreach=True in both
             adam_fused     fused=True in both
           goal for the default row: <= 0.5 of torch's time

Each repeat times every row of pytensor, then of torch; the median of the repeats is printed
with the ratio pytensor/torch (below 1 pytensor is faster). `--threads` goes to both
set_num_threads (default 1).

    python3 benchmarks/bench_train.py [--reps 5] [--only adam_fused] [--threads 1]
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

N_TENSORS, N_PARAMS = 100, 10_000_000


def _timeit(fn, calls: int) -> float:
    fn()  # warm-up: state allocation happens on the first step
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def _adam_setup(lib, optim_mod, **kw):
    import numpy as np
    rng = np.random.default_rng(0)
    per = N_PARAMS // N_TENSORS
    params = []
    for _ in range(N_TENSORS):
        p = lib.tensor(rng.standard_normal(per, dtype=np.float32)).requires_grad_()
        p.grad = lib.tensor(rng.standard_normal(per, dtype=np.float32))
        params.append(p)
    opt = optim_mod.Adam(params, lr=1e-3, **kw)
    return opt.step


ROWS = {
    "adam_default": dict(),
    "adam_foreach": dict(foreach=True),
    "adam_fused": dict(fused=True),
}
SECTIONS = {"optim": ["adam_default", "adam_foreach", "adam_fused"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--only", default=None)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import pytensor
    import pytensor.optim
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    pytensor.set_num_threads(args.threads)
    print(f"threads={args.threads}  Adam over {N_PARAMS:,} float32 parameters in "
          f"{N_TENSORS} tensors")
    print(f"{'row':16s} {'pytensor ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    for section, rows in SECTIONS.items():
        print(f"[{section}]")
        for row in rows:
            if args.only and row != args.only:
                continue
            step_pt = _adam_setup(pytensor, pytensor.optim, **ROWS[row])
            step_t = _adam_setup(torch, torch.optim, **ROWS[row]) if torch else None
            pt_times, t_times = [], []
            for _ in range(args.reps):
                pt_times.append(_timeit(step_pt, args.calls))
                if step_t:
                    t_times.append(_timeit(step_t, args.calls))
            a = statistics.median(pt_times) * 1e3
            if t_times:
                b = statistics.median(t_times) * 1e3
                print(f"{row:16s} {a:12.2f} {b:10.2f} {a / b:7.2f}")
            else:
                print(f"{row:16s} {a:12.2f} {'-':>10s} {'-':>7s}")
            del step_pt, step_t


if __name__ == "__main__":
    main()
