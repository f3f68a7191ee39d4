"""A real training loop side by side: the manual-backprop two-layer network of PyTorch's
"Learning PyTorch with examples" run with pytensor and with torch, in one process, at one thread
and at the core count (the same count for both libraries).

Sections:

1. ``loop``: the whole script (N=64, D_in=1000, H=100, D_out=10, ``--steps`` steps), pytensor
   and torch interleaved, median of the repeats.
2. ``lines``: each line of the step timed alone (median µs per call) on the script's shapes.
3. ``sequence``: a BLAS call followed by an elementwise call (``1e-6 * x.t().mm(g)``) against the
   sum of its two parts timed alone: the pair should cost no more than its parts.
4. ``smallmm``: small matrix products, n = 8..256, as ``mm``, ``matmul``, ``addmm``, ``bmm`` and
   ``baddbmm`` (batch 8), ``mv`` and ``addmv``, with plain and transposed operands, per dtype
   (``--dtypes``).
5. ``midmm``: the medium products that pytensor splits across threads itself: the script's
   ``x.mm(w1)`` (deep) and ``x.t().mm(gh)`` (tall), and deep, tall and wide products above the
   small kernel's limit, per dtype.
6. ``alloc``: fresh results from 1 KiB to 8 MiB in a steady loop (``a * 2.0``, a new tensor each
   time): µs per call and minor page faults per call (``resource.getrusage().ru_minflt`` deltas).

Ratios are time ratios pytensor/torch: below 1 pytensor is faster. Without torch only pytensor's
times print.

Isolation (``--isolate``, the default above one thread): each library runs in a process of its
own, the processes alternating, ``--rounds`` of them per library, and each row takes the median
over rounds. In one process the libraries' thread pools disturb each other: torch's OpenMP
threads (its own libgomp) and NumPy's OpenBLAS threads spin for a while after each of their
calls, and on a machine with as many cores as threads those spinning threads take the cores the
next library's parallel region needs. Timings interleaved in one process then charge one
library's idle spinning to the other. ``--no-isolate`` keeps the interleaved single process (the
only mode at one thread, where no pool spins). The children also pin NumPy's BLAS to the thread
count under test.

    python benchmarks/bench_loop.py [--threads 1,2] [--steps 500] [--reps 5]
                                    [--only loop,lines,sequence,smallmm,midmm,alloc]
                                    [--dtypes float32,float64] [--isolate | --no-isolate]
                                    [--rounds 3]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)

import pytensor  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

# Set in a child of --isolate: the one library it times, and where its rows go instead of stdout.
ONLY_LIB = None
RECORDS = None

SEQUENCE_ROW = ": mm, scale, pair"
SECTIONS = ("loop", "lines", "sequence", "smallmm", "midmm", "alloc")
N, D_IN, H, D_OUT = 64, 1000, 100, 10
LR = 1e-6


def two_layer(lib, x, y, w1, w2, steps):
    """The tutorial's loop, line for line."""
    for _ in range(steps):
        h = x.mm(w1)
        h_relu = h.clamp(min=0)
        y_pred = h_relu.mm(w2)
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.t().mm(grad_y_pred)
        grad_h_relu = grad_y_pred.mm(w2.t())
        grad_h = grad_h_relu.clone()
        grad_h[h < 0] = 0
        grad_w1 = x.t().mm(grad_h)
        w1 -= LR * grad_w1
        w2 -= LR * grad_w2
    return loss


def make_data(lib, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s).astype("float32")
            for s in ((N, D_IN), (N, D_OUT), (D_IN, H), (H, D_OUT))]
    return [lib.from_numpy(a.copy()) for a in arrs]


def libs():
    out = [("pytensor", pytensor)]
    if torch is not None:
        out.append(("torch", torch))
    if ONLY_LIB is not None:
        out = [(k, v) for k, v in out if k == ONLY_LIB]
    return out


def with_numpy(fns, fn):
    """Adds NumPy's variant of a row where this process times NumPy."""
    if ONLY_LIB in (None, "numpy"):
        fns["numpy"] = fn
    return fns


def set_threads(n):
    pytensor.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)


def timed(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def side_by_side(fns, number, reps):
    """Interleaved medians (seconds per call) of each of fns: {name: fn}."""
    for fn in fns.values():
        fn()
    samples = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            samples[k].append(timed(fn, number))
    return {k: statistics.median(v) for k, v in samples.items()}


def ratio(res, a="pytensor", b="torch"):
    if b not in res or not res[b]:
        return ""
    return f"{res[a] / res[b]:6.2f}x"


def row(label, res, unit=1e6, fmt="{:9.1f}", extra=None):
    rec = {"label": label, "res": res, "unit": unit, "fmt": fmt, "extra": extra}
    if RECORDS is not None:
        RECORDS.append(rec)
    else:
        emit(rec)


def emit(rec):
    label, res, extra = rec["label"], rec["res"], rec["extra"]
    if label.endswith(SEQUENCE_ROW):
        print_sequence(rec)
    elif extra is not None:
        cells = "  ".join(f"{k} {res[k] * 1e6:9.1f} µs {extra[k]:7.1f} flt" for k in res)
        print(f"  {label:<36s} {cells}  {ratio(res)}", flush=True)
    else:
        cells = "  ".join(f"{k} " + rec["fmt"].format(v * rec["unit"]) for k, v in res.items())
        print(f"  {label:<36s} {cells}  {ratio(res)}", flush=True)


# ---------------------------------------------------------------- sections

def bench_loop(args):
    print(f"loop: two-layer network, {args.steps} steps (ms)")
    fns = {}
    for name, lib in libs():
        def run(lib=lib):
            x, y, w1, w2 = make_data(lib)
            two_layer(lib, x, y, w1, w2, args.steps)
        fns[name] = run
    row("two-layer script", side_by_side(fns, 1, args.reps), unit=1e3)


def line_cases(lib):
    x, y, w1, w2 = make_data(lib)
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    g = 2.0 * (y_pred - y)
    gh = g.mm(w2.t())
    grad_w1 = x.t().mm(gh)
    mask = h < 0
    w1c = w1.clone()
    return {
        "x.mm(w1)  64x1000 @ 1000x100": lambda: x.mm(w1),
        "h.clamp(min=0)  64x100": lambda: h.clamp(min=0),
        "h_relu.mm(w2)  64x100 @ 100x10": lambda: h_relu.mm(w2),
        "loss (y_pred-y).pow(2).sum().item()": lambda: (y_pred - y).pow(2).sum().item(),
        "2.0 * (y_pred - y)": lambda: 2.0 * (y_pred - y),
        "h_relu.t().mm(g)  100x64 @ 64x10": lambda: h_relu.t().mm(g),
        "g.mm(w2.t())  64x10 @ 10x100": lambda: g.mm(w2.t()),
        "gh.clone()  64x100": lambda: gh.clone(),
        "h < 0": lambda: h < 0,
        "gh[h < 0] = 0": lambda: gh.__setitem__(mask, 0),
        "x.t().mm(gh)  1000x64 @ 64x100": lambda: x.t().mm(gh),
        "w1 -= lr * grad_w1  1000x100": lambda: w1c.sub_(LR * grad_w1),
    }


def bench_lines(args):
    print("lines: each line of the step alone (µs per call)")
    cases = {name: line_cases(lib) for name, lib in libs()}
    for label in next(iter(cases.values())):
        fns = {name: c[label] for name, c in cases.items()}
        row(label, side_by_side(fns, args.number, args.reps))


def bench_sequence(args):
    print("sequence: BLAS then elementwise vs the sum of its parts (µs per call)")
    for name, lib in libs():
        x, _, _, _ = make_data(lib)
        gh = lib.from_numpy(__import__("numpy").ones((N, H), dtype="float32"))
        prod = x.t().mm(gh)
        parts = side_by_side({"mm": lambda: x.t().mm(gh), "scale": lambda: 1e-6 * prod,
                              "pair": lambda: 1e-6 * x.t().mm(gh)}, args.number, args.reps)
        row(f"{name}{SEQUENCE_ROW}", {f"{name} {k}": v for k, v in parts.items()})


def print_sequence(rec):
    """The sequence row of one library: its parts, the pair and pair/(mm+scale)."""
    res = rec["res"]
    name = rec["label"][:-len(SEQUENCE_ROW)]
    mm, scale, pair = (res[f"{name} {k}"] for k in ("mm", "scale", "pair"))
    print(f"  {name:<9s} mm {mm * 1e6:8.1f}  scale {scale * 1e6:8.1f}  "
          f"pair {pair * 1e6:8.1f}  pair/(mm+scale) {pair / (mm + scale):5.2f}", flush=True)


def smallmm_cases(lib, n, dtype):
    import numpy as np
    rng = np.random.default_rng(n)
    t = lambda *s: lib.from_numpy(rng.standard_normal(s).astype(dtype))  # noqa: E731
    a, b, c, v = t(n, n), t(n, n), t(n, n), t(n)
    ba, bb, bc = t(8, n, n), t(8, n, n), t(8, n, n)
    return {
        "mm": lambda: a.mm(b),
        "mm a.t()": lambda: a.t().mm(b),
        "mm b.t()": lambda: a.mm(b.t()),
        "matmul": lambda: lib.matmul(a, b),
        "addmm": lambda: lib.addmm(c, a, b),
        "addmm a.t() b.t()": lambda: lib.addmm(c, a.t(), b.t()),
        "bmm (8)": lambda: lib.bmm(ba, bb),
        "bmm (8) b^T": lambda: lib.bmm(ba, bb.transpose(1, 2)),
        "baddbmm (8)": lambda: lib.baddbmm(bc, ba, bb, beta=0.5, alpha=2.0),
        "mv": lambda: a.mv(v),
        "addmv": lambda: lib.addmv(v, a, v),
    }


def bench_smallmm(args):
    print("smallmm: small matrix products (µs per call)")
    for dtype in args.dtypes.split(","):
        for n in (8, 16, 32, 64, 128, 256):
            cases = {name: smallmm_cases(lib, n, dtype) for name, lib in libs()}
            number = max(10, args.number // max(1, (n // 32) ** 2))
            for label in next(iter(cases.values())):
                fns = {name: c[label] for name, c in cases.items()}
                row(f"{dtype[5:]} n={n:<4d}{label}", side_by_side(fns, number, args.reps))


MID_SHAPES = {  # label: (m, n, k, a transposed)
    "x.mm(w1) 64x1000 @ 1000x100": (64, 100, 1000, False),
    "x.t().mm(gh) 1000x64 @ 64x100": (1000, 100, 64, True),
    "deep 64x3000 @ 3000x100": (64, 100, 3000, False),
    "tall 1000x200 @ 200x100": (1000, 100, 200, False),
    "wide 100x200 @ 200x1000": (100, 1000, 200, False),
    "square 320^3": (320, 320, 320, False),
}


def bench_midmm(args):
    print("midmm: medium products (µs per call)")
    import numpy as np
    for dtype in args.dtypes.split(","):
        for label, (m, n, k, at) in MID_SHAPES.items():
            rng = np.random.default_rng(m + n + k)
            a = rng.standard_normal((k, m) if at else (m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
            fns = {}
            for name, lib in libs():
                la, lb = lib.from_numpy(a), lib.from_numpy(b)
                fns[name] = (lambda la=la, lb=lb: la.t().mm(lb)) if at else \
                            (lambda la=la, lb=lb: la.mm(lb))
            with_numpy(fns, (lambda: a.T @ b) if at else (lambda: a @ b))
            number = max(5, args.number // 4)
            row(f"{dtype[5:]} {label}", side_by_side(fns, number, args.reps))


def faults(fn, number):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(number):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / number


def bench_alloc(args):
    print("alloc: fresh results in a steady loop (µs per call, minor faults per call)")
    import numpy as np
    for kib in (1, 4, 16, 64, 128, 256, 400, 512, 1024, 2048, 4096, 8192):
        elems = kib * 1024 // 4
        fns, flt = {}, {}
        for name, lib in libs():
            a = lib.from_numpy(np.ones(elems, dtype="float32"))
            fns[name] = lambda a=a: a * 2.0
        number = max(5, min(args.number, 200000 // kib))
        res = side_by_side(fns, number, args.reps)
        for name, fn in fns.items():
            for _ in range(3):
                fn()
            flt[name] = faults(fn, number)
        row(f"{kib:>5d} KiB", res, extra=flt)


def run_child(args, section, n, lib, path):
    """One process timing one library in one section; its rows come back through path."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child-lib", lib, "--records", path,
           "--threads", str(n), "--only", section, "--steps", str(args.steps),
           "--reps", str(args.reps), "--number", str(args.number), "--dtypes", args.dtypes,
           "--no-isolate"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(n), MKL_NUM_THREADS=str(n))
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{lib} child failed in section {section}:\n{out.stderr}")
    with open(path) as f:
        return out.stdout.splitlines()[-1] if out.stdout else "", json.load(f)


def isolated_section(args, section, n):
    """Alternates one process per library, args.rounds times; prints the median of each row."""
    import tempfile
    names = [name for name, _ in libs()] + (["numpy"] if section == "midmm" else [])
    rounds = {name: [] for name in names}
    header = None
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name in names:
                head, recs = run_child(args, section, n, name, os.path.join(tmp, f"{name}{r}"))
                header = header or head
                rounds[name].append(recs)
    print(header, f"[one process per library, median of {args.rounds} rounds]", flush=True)
    # Rows of one label from every library merge into one line; a label of one library alone
    # (the sequence rows) prints on its own line.
    order, merged = [], {}
    for name in names:
        for i, rec in enumerate(rounds[name][0]):
            recs = [rnd[i] for rnd in rounds[name]]
            if rec["label"] not in merged:
                order.append(rec["label"])
                merged[rec["label"]] = dict(rec, res={}, extra=None if rec["extra"] is None else {})
            out = merged[rec["label"]]
            for key in rec["res"]:
                out["res"][key] = statistics.median(r["res"][key] for r in recs)
                if out["extra"] is not None:
                    out["extra"][key] = statistics.median(r["extra"][key] for r in recs)
    for label in order:
        emit(merged[label])


def main(argv=None):
    global ONLY_LIB, RECORDS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default=f"1,{os.cpu_count() or 1}")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--number", type=int, default=200, help="calls per timed sample")
    ap.add_argument("--only", default=",".join(SECTIONS))
    ap.add_argument("--dtypes", default="float32,float64", help="smallmm and midmm dtypes")
    ap.add_argument("--isolate", action=argparse.BooleanOptionalAction, default=None,
                    help="one process per library (default: above one thread)")
    ap.add_argument("--rounds", type=int, default=3, help="processes per library (--isolate)")
    ap.add_argument("--child-lib", help=argparse.SUPPRESS)
    ap.add_argument("--records", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    only = [s for s in args.only.split(",") if s]
    for s in only:
        if s not in SECTIONS:
            ap.error(f"unknown section {s!r}; choose from {', '.join(SECTIONS)}")
    counts = sorted({int(t) for t in args.threads.split(",") if t})
    if args.child_lib:
        ONLY_LIB, RECORDS = args.child_lib, []
        set_threads(counts[0])
        globals()[f"bench_{only[0]}"](args)
        with open(args.records, "w") as f:
            json.dump(RECORDS, f)
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"pytensor {getattr(pytensor, '__version__', '?')}, torch "
          f"{torch.__version__ if torch else 'absent'}, {os.cpu_count()} cores, load {load:.2f}")
    for n in counts:
        set_threads(n)
        print(f"=== {n} thread{'s' if n > 1 else ''} ===")
        isolate = args.isolate if args.isolate is not None else n > 1
        for s in only:
            if isolate:
                isolated_section(args, s, n)
            else:
                globals()[f"bench_{s}"](args)


if __name__ == "__main__":
    main()
