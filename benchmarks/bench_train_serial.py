"""Saving and loading a 100 MB state_dict, pytensor beside PyTorch in one process.

Rows (goal for each: <= 1.0 of torch's time):
  save_file      save(state_dict, path): 100 float32 tensors of 256x1024 (100 MB) plus 100 small
                 ones, over the file the previous repeat wrote (re-saving a checkpoint)
  save_new_file  the same to a path that does not exist yet (the old file is removed outside
                 the timed part)
  load_file      load(path) of that file (each library reads its own file)
  load_mmap      load(path, mmap=True) and touch nothing (the storages are windows of a mapping)
  save_bytesio   save to an io.BytesIO
  load_bytesio   load from an io.BytesIO
  small_many     save + load of a state_dict of 1,000 tensors of 16 floats (the pickle's cost)

Each repeat times every row of pytensor, then of torch, interleaved; the median of the repeats is
printed with the ratio pytensor/torch (below 1 pytensor is faster), and the ratio of the best
times (on a shared, loaded machine the best time is the steadier estimate of the cost). Both libraries save with
their defaults (CRC-32 of every record computed). `--threads` goes to both set_num_threads
(default 1). The files go to $TMPDIR (a page-cache-backed disk: the numbers include the write
of 100 MB, not a sync to the device).

    python3 benchmarks/bench_train_serial.py [--reps 5] [--only save_file] [--threads 1]
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import os
import statistics
import sys
import tempfile
import time
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)


def _state_dict(lib, n_big: int = 100, n_small: int = 0):
    sd = OrderedDict()
    for i in range(n_big):
        sd[f"layer{i}.weight"] = lib.full((256, 1024), float(i))
        sd[f"layer{i}.bias"] = lib.zeros(256)
    for i in range(n_small):
        sd[f"small{i}"] = lib.full((16,), float(i))
    return sd


def _rows(lib, tmp: str):
    big = _state_dict(lib)
    small = _state_dict(lib, 0, 1000)
    path = os.path.join(tmp, f"{lib.__name__}.pt")
    fresh = os.path.join(tmp, f"{lib.__name__}-new.pt")
    lib.save(big, path)
    blob = io.BytesIO()
    lib.save(big, blob)
    data = blob.getvalue()

    def save_file():
        lib.save(big, path)

    def save_new_file():
        lib.save(big, fresh)

    def load_file():
        lib.load(path)

    def load_mmap():
        lib.load(path, mmap=True)

    def save_bytesio():
        lib.save(big, io.BytesIO())

    def load_bytesio():
        lib.load(io.BytesIO(data))

    def small_many():
        b = io.BytesIO()
        lib.save(small, b)
        b.seek(0)
        lib.load(b)

    return {"save_file": save_file, "save_new_file": save_new_file, "load_file": load_file, "load_mmap": load_mmap,
            "save_bytesio": save_bytesio, "load_bytesio": load_bytesio,
            "small_many": small_many}


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default=None)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import pytensor
    libs = [pytensor]
    try:
        import torch
        libs.append(torch)
    except ImportError:
        print("torch is not installed: pytensor's times only")
    for lib in libs:
        lib.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        rows = {lib.__name__: _rows(lib, tmp) for lib in libs}
        names = [n for n in rows["pytensor"] if args.only in (None, n)]
        times = {(lib, n): [] for lib in rows for n in names}
        for _ in range(args.reps):
            for n in names:
                for lib in rows:
                    fresh = os.path.join(tmp, f"{lib}-new.pt")
                    if os.path.exists(fresh):
                        os.remove(fresh)
                    times[(lib, n)].append(_time(rows[lib][n]))
    print(f"{'row':<14}{'pytensor ms':>13}{'torch ms':>11}{'ratio':>8}{'best ratio':>12}")
    for n in names:
        p = statistics.median(times[("pytensor", n)]) * 1e3
        if "torch" in rows:
            t = statistics.median(times[("torch", n)]) * 1e3
            best = min(times[("pytensor", n)]) / min(times[("torch", n)])
            print(f"{n:<14}{p:>13.2f}{t:>11.2f}{p / t:>8.2f}{best:>12.2f}")
        else:
            print(f"{n:<14}{p:>13.2f}")


if __name__ == "__main__":
    main()
