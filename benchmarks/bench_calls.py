"""Per-call time of the common call forms, pytensor beside PyTorch, on small tensors.

Each row is one way users call an operator: keyword arguments (``add(a, b, alpha=2)``,
``clamp(min=0)``, ``sum(dim=1)``), int-list sugar (``view(2, 3)``, ``permute(1, 0)``), methods
(``a.t()``, ``a.mm(b)``, ``x.item()``), indexing (``a[0]``, ``a[-1]``, ``a[0, 1]``, ``a[1:3]``,
``a[:, 1]``, ``a[0] = 1.0``), the number-slot operators (``a - 1``, ``a ** 2``, ``a < 0``) and the
factories with sizes (``zeros(2, 3)``, ``randn(64, 100)``, ``tensor([1.0, 2.0])``).
Operands hold 1 or 100 float32 elements (shaped as the call needs). The argument parsing, the
dispatch and the allocation are the cost here, not the arithmetic.

The libraries run in one process, interleaved: each repeat times every row of pytensor, then of
torch, then of NumPy (where the row's call exists there) for a fixed number of calls; the median
of the repeats is printed, with the time ratios pytensor/torch and pytensor/NumPy (below 1
pytensor is faster; the goal for these rows is 0.5 of torch or less). `--threads` goes to both
set_num_threads (default 1).

    python3 benchmarks/bench_calls.py [--reps 7] [--calls 2000] [--only add_alpha,view]
                                      [--threads 1] [--json F.json]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)


def _setup(m, n: int) -> dict:
    """The operands of every row for library m on n-element tensors (n is 1 or 100)."""
    r, c = (1, 1) if n == 1 else (10, 10)
    x = m.arange(n, dtype=m.float32) / max(n, 1) - 0.5
    a = x.reshape(r, c)
    b = (m.arange(n, dtype=m.float32) + 1).reshape(r, c)
    return {"m": m, "x": x, "a": a, "b": b, "mask": x > 0, "n": n, "r": r, "c": c,
            "f64": m.float64, "i": m.arange(n).reshape(r, c)}


# name -> source of one call (names from _setup's dict). Sizes follow the operands' element
# count where the form needs them.
ROWS = {
    # keyword arguments
    "add_alpha": "m.add(a, b, alpha=2)",
    "clamp_min": "a.clamp(min=0)",
    "clamp_min_max": "a.clamp(min=0, max=1)",
    "sum_dim_kw": "a.sum(dim=1)",
    "sum_dim_keepdim": "a.sum(1, keepdim=True)",
    "mean_dim_kw": "a.mean(dim=-1)",
    "softmax_dim_kw": "m.softmax(a, dim=-1)",
    "to_dtype": "a.to(f64)",
    "to_dtype_kw": "a.to(dtype=f64)",
    # int-list sugar and shape methods
    "view_1": "x.view(n)",
    "view_2": "x.view(r, c)",
    "view_m1": "a.view(-1)",
    "reshape_2": "x.reshape(r, c)",
    "permute": "a.permute(1, 0)",
    "sum_tuple": "a.sum((0, 1))",
    "t": "a.t()",
    # other methods
    "mm": "a.mm(b)",
    "pow_2": "a.pow(2)",
    "lt_method": "a.lt(0)",
    "item": "s.item()",
    # indexing
    "getitem_0": "a[0]",
    "getitem_m1": "a[-1]",
    "getitem_2": "a[0, 0]",
    "getitem_slice": "a[0:1]",
    "getitem_col": "a[:, 0]",
    "setitem_0": "a[0] = 1.0",
    "setitem_2": "a[0, 0] = 2.0",
    "sum": "a.sum()",
    "add_method": "a.add(b)",
    # number slots
    "op_add": "a + b",
    "op_div": "a / b",
    "op_sub_1": "a - 1",
    "op_neg": "-a",
    "op_pow_2": "a ** 2",
    "op_matmul": "a @ b",
    "op_lt_0": "a < 0",
    "op_gt": "a > b",
    # factories
    "zeros_2": "m.zeros(r, c)",
    "zeros_tuple": "m.zeros((r, c))",
    "ones_2": "m.ones(r, c)",
    "empty_2": "m.empty(r, c)",
    "zeros_f64": "m.zeros(r, c, dtype=f64)",
    "randn_1": "m.randn(1)",
    "randn_64x100": "m.randn(64, 100)",
    "randn_64x100_f64": "m.randn(64, 100, dtype=f64)",
    "randn_like": "m.randn_like(a)",
    "arange_10": "m.arange(10)",
    "full": "m.full((r, c), 1.0)",
    "tensor_list": "m.tensor([1.0, 2.0])",
    "zeros_like": "m.zeros_like(a)",
}


def _compile(src: str, env: dict, calls: int):
    """A function timing `calls` runs of src with env's names as locals (no global lookups)."""
    names = sorted(env)
    body = (f"def _run({', '.join(names)}):\n"
            f"    _t0 = _clock()\n"
            f"    for _ in _range:\n"
            f"        {src}\n"
            f"    return _clock() - _t0\n")
    g = {"_clock": time.perf_counter, "_range": range(calls)}
    exec(compile(body, f"<row {src}>", "exec"), g)
    fn = g["_run"]
    return lambda: fn(**env)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--only", default="")
    ap.add_argument("--sizes", default="1,100")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)

    import numpy
    import pytensor
    import torch
    torch.set_num_threads(args.threads)
    pytensor.set_num_threads(args.threads)
    libs = {"pytensor": pytensor, "torch": torch, "numpy": numpy}
    only = set(filter(None, args.only.split(",")))
    rows = {k: v for k, v in ROWS.items() if not only or k in only}
    results = {}
    print(f"threads {args.threads}, load average {os.getloadavg()[0]:.2f}")
    print(f"{'call':<18} {'n':>4} {'pytensor us':>12} {'torch us':>10} {'numpy us':>10} "
          f"{'pt/torch':>9} {'pt/numpy':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        envs = {}
        for name, m in libs.items():
            env = _setup(m, n)
            env["s"] = env["x"][0:1].sum() if n > 1 else env["x"].sum()
            envs[name] = env
        timers = {}
        for row, src in rows.items():
            for name in libs:
                env = dict(envs[name])
                try:
                    exec(src, {}, env)  # the call works here: else the row prints n/a
                except Exception as e:  # noqa: BLE001 - reported, the run goes on
                    timers[row, name] = repr(e)[:60]
                    continue
                timers[row, name] = _compile(src, env, args.calls)
        samples = {k: [] for k, t in timers.items() if callable(t)}
        for _ in range(args.reps):
            for row in rows:
                for name in libs:  # interleaved: the same noise hits both
                    t = timers[row, name]
                    if callable(t):
                        samples[row, name].append(t() / args.calls * 1e6)
        for row in rows:
            cells = []
            for name in libs:
                s = samples.get((row, name))
                cells.append(statistics.median(s) if s else None)
            pt, th, npy = cells
            ratio = pt / th if pt is not None and th else None
            ratio_np = pt / npy if pt is not None and npy else None
            results[f"{row}/{n}"] = {"pytensor_us": pt, "torch_us": th, "numpy_us": npy,
                                     "ratio": ratio, "ratio_numpy": ratio_np}
            fmt = lambda v: f"{v:.3f}" if v is not None else "n/a"  # noqa: E731
            fmt_r = lambda v: f"{v:.2f}" if v is not None else "n/a"  # noqa: E731
            note = ""
            for name in ("pytensor", "torch"):  # NumPy lacks many of the calls: no note
                if not callable(timers[row, name]):
                    note += f"  {name}: {timers[row, name]}"
            print(f"{row:<18} {n:>4} {fmt(pt):>12} {fmt(th):>10} {fmt(npy):>10} "
                  f"{fmt_r(ratio):>9} {fmt_r(ratio_np):>9}{note}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
