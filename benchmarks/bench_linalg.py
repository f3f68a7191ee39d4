"""pytensor.mm beside torch.mm, NumPy's matmul and bli_sgemm called directly, for square float32
matrices: best-of-reps times, GFLOP/s and the ratios the BLAS phase is held to.

bli_sgemm is called through ctypes on the libblis that pytensor's module links (found in the
process's own memory maps after `import pytensor`), so it runs with the kernel set pytensor chose
at start-up and with the same thread count (passed in its rntm_t-free form: BLIS's global
setting, which pytensor's start-up sets to OpenMP's thread count).

    python3 benchmarks/bench_linalg.py [--sizes 1024 2048 4096] [--reps 3]

`--products` instead compares the products of a 784-512-512-10 MLP's training step (batch 128,
forward and backward, in the layouts autograd passes them) and of a small training loop with
torch's, interleaved: each call alternates pytensor and torch `--calls` times in one process, and
each of `--runs` runs prints the min and median ratios pytensor/torch (below 1 pytensor is
faster). On a shared machine only such interleaved ratios compare; absolute times drift.

    python3 benchmarks/bench_linalg.py --products [--threads 1 2] [--runs 3] [--calls 200]
"""
from __future__ import annotations

import argparse
import ctypes
import time

import numpy as np
import torch

import pytensor
from pytensor import _C


def _libblis() -> ctypes.CDLL:
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "libblis" in path:
                return ctypes.CDLL(path)
    raise SystemExit("libblis is not loaded: this pytensor was built without BLIS")


def _bli_sgemm(lib: ctypes.CDLL):
    fn = lib.bli_sgemm
    i64, fp = ctypes.c_int64, ctypes.c_void_p
    fn.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, fp, fp, i64, i64, fp, i64, i64, fp,
                   fp, i64, i64]
    fn.restype = None
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def call(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        m, k = a.shape
        n = b.shape[1]
        fn(0, 0, m, n, k, ctypes.addressof(alpha), a.ctypes.data, k, 1, b.ctypes.data, n, 1,
           ctypes.addressof(beta), c.ctypes.data, n, 1)
    return call


def _best(fn, reps: int) -> float:
    fn()  # warm-up: first-touch of the output, BLIS's packing buffers
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# (name, A's shape, B's shape, layout): "nn" a @ b, "nt" a @ b.t(), "tn" a.t() @ b.
PRODUCTS = [
    ("x@W0", (128, 784), (784, 512), "nn"),
    ("h@W1", (128, 512), (512, 512), "nn"),
    ("h@W2", (128, 512), (512, 10), "nn"),
    ("g2@W2.t()", (128, 10), (512, 10), "nt"),
    ("g1@W1.t()", (128, 512), (512, 512), "nt"),
    ("h.t()@g2", (128, 512), (128, 10), "tn"),
    ("h.t()@g1", (128, 512), (128, 512), "tn"),
    ("x.t()@g0", (128, 784), (128, 512), "tn"),
    ("x.mm(w1)", (64, 1000), (1000, 100), "nn"),
    ("x.t().mm(gh)", (64, 1000), (64, 100), "tn"),
    ("1024^3", (1024, 1024), (1024, 1024), "nn"),
]


def _pair(lib, a: np.ndarray, b: np.ndarray, layout: str):
    if lib is torch:
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        mm = torch.mm
    else:
        x, y = pytensor.from_numpy(a), pytensor.from_numpy(b)
        mm = pytensor.mm
    if layout == "nt":
        return lambda: mm(x, y.t())
    if layout == "tn":
        return lambda: mm(x.t(), y)
    return lambda: mm(x, y)


def products(threads: list, runs: int, calls: int) -> None:
    rng = np.random.default_rng(0)
    for t in threads:
        pytensor.set_num_threads(t)
        torch.set_num_threads(t)
        print(f"threads={t}: pytensor/torch per run as min, median of {calls} interleaved calls")
        for name, ashape, bshape, layout in PRODUCTS:
            a = rng.standard_normal(ashape, dtype=np.float32)
            b = rng.standard_normal(bshape, dtype=np.float32)
            ours, theirs = _pair(pytensor, a, b, layout), _pair(torch, a, b, layout)
            n = max(10, calls // 20) if ashape[0] >= 1024 else calls
            cells, mins = [], []
            for _ in range(runs):
                ours(), theirs()
                tp, tt = np.empty(n), np.empty(n)
                for i in range(n):
                    t0 = time.perf_counter()
                    ours()
                    t1 = time.perf_counter()
                    theirs()
                    tt[i] = time.perf_counter() - t1
                    tp[i] = t1 - t0
                mins.append(tt.min() * 1e6)
                cells.append(f"{tp.min() / tt.min():.2f},{np.median(tp) / np.median(tt):.2f}")
            print(f"  {name:<14} torch {min(mins):8.1f} us   " + "  ".join(cells))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--products", action="store_true")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--calls", type=int, default=200)
    args = p.parse_args()
    if args.products:
        products(args.threads, args.runs, args.calls)
        return
    print(f"pytensor {pytensor.__version__}: {_C._config().get('blis')}")
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads), numpy {np.__version__}")
    sgemm = _bli_sgemm(_libblis())
    print(f"{'n':>6} {'impl':>10} {'time ms':>10} {'GFLOP/s':>9}")
    for n in args.sizes:
        reps = 1 if n >= 4096 else args.reps
        a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
        b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
        c = np.empty((n, n), dtype=np.float32)
        pa, pb = pytensor.from_dlpack(a), pytensor.from_dlpack(b)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        times = {
            "bli_sgemm": _best(lambda: sgemm(a, b, c), reps),
            "pytensor": _best(lambda: pytensor.mm(pa, pb), reps),
            "torch": _best(lambda: torch.mm(ta, tb), reps),
            "numpy": _best(lambda: np.matmul(a, b), reps),
        }
        flops = 2.0 * n ** 3
        for name, t in times.items():
            print(f"{n:>6} {name:>10} {t * 1e3:>10.1f} {flops / t / 1e9:>9.1f}")
        print(f"{n:>6} pytensor / bli_sgemm = {times['bli_sgemm'] / times['pytensor']:.2f}, "
              f"pytensor / torch = {times['torch'] / times['pytensor']:.2f} (throughput ratios)")


if __name__ == "__main__":
    main()
