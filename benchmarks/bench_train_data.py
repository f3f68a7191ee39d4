"""DataLoader throughput, pytensor beside torch: a TensorDataset of (3, 32, 32) float32 images and
int64 labels, batches of 64, 2 worker processes (fork), default collate, in order.

    python3 benchmarks/bench_train_data.py [--samples 8192] [--batch 64] [--workers 2]
                                           [--epochs 3] [--threads 1]

Each library runs in a fresh process of its own (so neither pays for the other's import in its
forked workers), with the same thread count; --rounds alternates the two that many times and
keeps each one's best (the machine's other load moves single runs by tens of percent). Rows: the
first epoch (worker start-up included), then the best of the later epochs with persistent
workers (steady state), in batches/s and MB/s
of image data delivered to the main process, which touches each batch (one sum) so that lazily
mapped memory is really read. The last line is the ratio pytensor/torch of steady-state
throughput (above 1 pytensor delivers more).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_one(lib_name: str, args) -> dict:
    if lib_name == "torch":
        import torch as lib
        from torch.utils.data import DataLoader, TensorDataset
    else:
        sys.path.insert(0, os.path.dirname(HERE))
        import pytensor as lib
        from pytensor.utils.data import DataLoader, TensorDataset
    lib.set_num_threads(args.threads)
    lib.manual_seed(0)
    x = lib.randn(args.samples, 3, 32, 32)
    y = lib.randint(0, 10, (args.samples,))
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch, num_workers=args.workers,
                        persistent_workers=True)
    epochs = []
    for _ in range(args.epochs):
        t0 = time.perf_counter()
        n = 0
        for xb, yb in loader:
            xb.sum()
            n += 1
        epochs.append((time.perf_counter() - t0, n))
    mb = args.batch * 3 * 32 * 32 * 4 / 1e6
    first = epochs[0][1] / epochs[0][0]
    steady = max(n / t for t, n in epochs[1:]) if len(epochs) > 1 else first
    return {"lib": lib_name, "first_epoch_batches_s": first, "steady_batches_s": steady,
            "steady_MB_s": steady * mb}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=8192)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--lib", choices=["pytensor", "torch"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.lib:
        print(json.dumps(run_one(args.lib, args)))
        return
    results = {}
    libs = ["torch", "pytensor"]
    for _ in range(args.rounds):
        for lib_name in list(libs):
            cmd = [sys.executable, os.path.abspath(__file__), "--lib", lib_name] + sys.argv[1:]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode:
                if lib_name == "torch" and "No module named 'torch'" in proc.stderr:
                    print("torch is not installed: timing pytensor alone")
                    libs.remove("torch")
                    continue
                sys.exit(proc.stderr)
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            best = results.get(lib_name)
            if best is None or r["steady_batches_s"] > best["steady_batches_s"]:
                results[lib_name] = r
    for lib_name, r in results.items():
        print(f"{lib_name:9s} first epoch {r['first_epoch_batches_s']:8.1f} batches/s   "
              f"steady {r['steady_batches_s']:8.1f} batches/s  ({r['steady_MB_s']:7.1f} MB/s)")
    if len(results) == 2:
        ratio = results["pytensor"]["steady_batches_s"] / results["torch"]["steady_batches_s"]
        print(f"pytensor/torch steady-state throughput: {ratio:.2f}x "
              f"(workers={args.workers}, batch={args.batch}, threads={args.threads})")


if __name__ == "__main__":
    main()
