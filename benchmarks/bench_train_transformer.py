"""Training steps of the sequence layers, pytensor beside PyTorch in one process.

Rows (forward + backward of ``out.pow(2).mean()``, float32, train mode, gradients set to None
between steps):
  encoder_layer  TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True) (dropout 0.1,
                 feed-forward 2048) on a (16, 128, 256) batch (goal <= 1.0 of torch's time)
  lstm           LSTM(256, 256) on a (128, 16, 256) sequence
  gru            GRU(256, 256) on the same sequence

Both libraries get the same weights (torch's, copied). Each repeat times every row of pytensor,
then of torch, interleaved; the median of the repeats is printed with the ratio pytensor/torch
(below 1 pytensor is faster), and the ratio of the fastest repeats (steadier on a loaded
machine). ``--threads`` goes to both set_num_threads (default 1).

    python3 benchmarks/bench_train_transformer.py [--reps 5] [--only lstm] [--threads 1]
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

import pytensor  # noqa: E402
import pytensor.nn as pnn  # noqa: E402


def _copy_weights(tmod, pmod):
    sd = {k: pytensor.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()}
    pmod.load_state_dict(sd)


def _rows(torch):
    B, T, E = 16, 128, 256
    rows = {}
    tm = torch.nn.TransformerEncoderLayer(E, 4, batch_first=True)
    pm = pnn.TransformerEncoderLayer(E, 4, batch_first=True)
    _copy_weights(tm, pm)
    rows["encoder_layer"] = (pm, tm, (B, T, E))
    for name in ("LSTM", "GRU"):
        tm = getattr(torch.nn, name)(E, E)
        pm = getattr(pnn, name)(E, E)
        _copy_weights(tm, pm)
        rows[name.lower()] = (pm, tm, (T, B, E))
    return rows


def _step(mod, x):
    out = mod(x)
    if isinstance(out, tuple):
        out = out[0]
    out.pow(2).mean().backward()
    for p in mod.parameters():
        p.grad = None


def _time(mod, x, calls):
    _step(mod, x)
    t0 = time.perf_counter()
    for _ in range(calls):
        _step(mod, x)
    return (time.perf_counter() - t0) / calls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    import numpy as np
    import torch
    torch.set_num_threads(args.threads)
    pytensor.set_num_threads(args.threads)
    torch.manual_seed(0)
    rows = _rows(torch)
    print(f"threads={args.threads}  (ms per training step, median of {args.reps})")
    for name, (pm, tm, shape) in rows.items():
        if args.only and name != args.only:
            continue
        xt = torch.randn(*shape)
        xp = pytensor.tensor(xt.numpy())
        pm.eval()
        tm.eval()
        # same weights, same function: the outputs agree before anything is timed
        first = (lambda out: out[0] if isinstance(out, tuple) else out)
        np.testing.assert_allclose(np.asarray(first(pm(xp)).tolist()),
                                   first(tm(xt)).detach().numpy(), rtol=1e-3, atol=1e-4)
        pm.train()
        tm.train()
        tp, tt = [], []
        for _ in range(args.reps):
            tp.append(_time(pm, xp, args.calls))
            tt.append(_time(tm, xt, args.calls))
        p, t = statistics.median(tp), statistics.median(tt)
        print(f"{name:14s} pytensor {p * 1e3:8.2f}  torch {t * 1e3:8.2f}  ratio {p / t:5.2f}"
              f"  (fastest repeats: {min(tp) / min(tt):5.2f})")


if __name__ == "__main__":
    main()
