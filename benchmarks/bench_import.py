"""Cold `import pytensor` beside `import numpy` and (when installed) `import torch`.

Each sample is a fresh interpreter that imports one module and reports how long the import took,
measured inside the child with perf_counter (interpreter start-up itself is excluded, since it is
the same for all three). Several rounds interleave the modules so that a noisy neighbour hurts all
of them alike; the median of each is reported with the ratios the foundation targets:
pytensor <= 1.5x numpy and <= 0.1x torch.

    python benchmarks/bench_import.py [--runs 15]
"""
import argparse
import importlib.util
import os
import statistics
import subprocess
import sys

CHILD = ("import time, sys; t = time.perf_counter(); import {m}; "
         "sys.stdout.write(repr(time.perf_counter() - t))")


def sample(module: str) -> float:
    # -P keeps the current folder off sys.path: a source checkout must not shadow the install.
    env = dict(os.environ, PYTHONSAFEPATH="1")
    out = subprocess.run([sys.executable, "-c", CHILD.format(m=module)], capture_output=True,
                         text=True, env=env, check=True).stdout
    return float(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    modules = ["pytensor", "numpy"]
    if importlib.util.find_spec("torch") is not None:
        modules.append("torch")
    for m in modules:  # warm the page cache once; cold means a fresh interpreter, not a cold disk
        sample(m)
    times = {m: [] for m in modules}
    for _ in range(args.runs):
        for m in modules:
            times[m].append(sample(m))
    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"{'module':<10} {'median ms':>10} {'min ms':>8} {'max ms':>8}   (runs={args.runs})")
    for m in modules:
        print(f"{m:<10} {med[m] * 1e3:>10.2f} {min(times[m]) * 1e3:>8.2f} {max(times[m]) * 1e3:>8.2f}")
    print(f"pytensor / numpy = {med['pytensor'] / med['numpy']:.3f}   (target <= 1.5)")
    if "torch" in med:
        print(f"pytensor / torch = {med['pytensor'] / med['torch']:.3f}   (target <= 0.1)")
    else:
        print("torch not installed: no torch ratio")


if __name__ == "__main__":
    main()
