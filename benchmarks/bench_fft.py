"""pytensor.fft beside numpy.fft (pocketfft) and torch.fft (pocketfft or MKL) for a few sizes:
best-of-reps times and the ratios pytensor/numpy and pytensor/torch (below 1 pytensor is
faster). The cases interleave the three libraries call by call, so that the drift of a shared
machine falls on each alike.

    python3 benchmarks/bench_fft.py [--reps 20] [--threads 1]

Cases: complex64 fft of 1024, 4096, 1000 (radices 4, 2, 5), 10007 (a prime: Bluestein) and
2^20 points; rfft of a float32 batch of 64 x 1024; a complex128 fft of 4096. numpy computes
complex64 inputs in complex64 since NumPy 2.0 (in complex128 before), torch in the input's type.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import pytensor

try:
    import torch
except ImportError:  # the numpy column still prints
    torch = None

CASES = [
    ("fft c64 1024", "fft", (1024,), np.complex64),
    ("fft c64 4096", "fft", (4096,), np.complex64),
    ("fft c64 1000", "fft", (1000,), np.complex64),
    ("fft c64 10007", "fft", (10007,), np.complex64),
    ("fft c64 2^20", "fft", (1 << 20,), np.complex64),
    ("fft c128 4096", "fft", (4096,), np.complex128),
    ("rfft f32 64x1024", "rfft", (64, 1024), np.float32),
    ("rfft f32 1x4096", "rfft", (4096,), np.float32),
]


def _data(shape, dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(reps: int) -> list:
    rows = []
    for label, name, shape, dtype in CASES:
        a = _data(shape, dtype)
        p = pytensor.from_numpy(a)
        calls = {"pytensor": lambda: getattr(pytensor.fft, name)(p),
                 "numpy": lambda: getattr(np.fft, name)(a)}
        if torch is not None:
            t = torch.from_numpy(a)
            calls["torch"] = lambda: getattr(torch.fft, name)(t)
        best = {k: float("inf") for k in calls}
        for fn in calls.values():
            fn()  # warm-up: plans built and cached, output memory touched
        for _ in range(reps):
            for k, fn in calls.items():
                best[k] = min(best[k], _time(fn))
        rows.append((label, best))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    pytensor.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"{'case':<20}{'pytensor us':>13}{'numpy us':>11}{'torch us':>11}"
          f"{'pt/np':>8}{'pt/torch':>10}")
    for label, best in run(args.reps):
        pt, npy = best["pytensor"] * 1e6, best["numpy"] * 1e6
        tr = best.get("torch", float("nan")) * 1e6
        print(f"{label:<20}{pt:>13.1f}{npy:>11.1f}{tr:>11.1f}{pt / npy:>8.2f}{pt / tr:>10.2f}")


if __name__ == "__main__":
    main()
