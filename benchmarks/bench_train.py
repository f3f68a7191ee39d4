"""Training-loop costs, pytensor beside PyTorch in one process.

Sections (each a list of rows; later sections add epochs of the example models, DataLoader
throughput and save/load):
  optim    Adam steps over 10M float32 parameters in 100 tensors, gradients set once:
             adam_default   both libraries' default implementation (torch on CPU: the
                            per-parameter loop; pytensor: one fused C pass per group)
             adam_foreach   foreach=True in both
             adam_fused     fused=True in both
           goal for the default row: <= 0.5 of torch's time
  epochs   one training epoch of the example models, the examples' own code run once with
           pytensor and once with torch (its `import pytensor` lines turned into `import torch`):
             digits_epoch   examples/train_digits.py's train_epoch: its CNN over the 1,437
                            training images of scikit-learn's digits, batch 32, Adam (skipped
                            without scikit-learn)
             mlp_epoch      examples/train_mlp.py's train_epoch: its MLP over 500 x 3 spiral
                            points, batch 64, SGD with momentum
             chars_steps    20 of examples/train_chars.py's train_step on its character
                            transformer
           goal for the digits and MLP rows: <= 1.0 of torch's time

Each repeat times every row of pytensor, then of torch; the median of the repeats is printed
with the ratio pytensor/torch (below 1 pytensor is faster). `--threads` goes to both
set_num_threads (default 1).

    python3 benchmarks/bench_train.py [--reps 5] [--only adam_fused] [--threads 1]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import statistics
import sys
import time
import types

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


def _adam_row(**kw):
    return lambda lib, optim_mod: _adam_setup(lib, optim_mod, **kw)


def _example(name: str, lib_name: str):
    """examples/<name>.py as a module running on `lib_name` ("pytensor" or "torch")."""
    path = os.path.join(ROOT, "examples", name + ".py")
    with open(path) as f:
        source = f.read()
    if lib_name == "torch":
        source = re.sub(r"^(import|from) pytensor\b", r"\1 torch", source, flags=re.M)
    module = types.ModuleType(f"{name}_{lib_name}")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _digits_setup(lib, optim_mod):
    ex = _example("train_digits", lib.__name__)
    lib.manual_seed(0)
    dataset = ex.load_digits_dataset()
    g = lib.Generator().manual_seed(0)
    train_set, _ = ex.random_split(dataset, [0.8, 0.2], generator=g)
    loader = ex.DataLoader(train_set, batch_size=32, shuffle=True, generator=g)
    model = ex.DigitsCNN()
    loss_fn, optimizer = ex.nn.CrossEntropyLoss(), optim_mod.Adam(model.parameters(), lr=2e-3)
    return lambda: ex.train_epoch(model, loader, loss_fn, optimizer)


def _mlp_setup(lib, optim_mod):
    ex = _example("train_mlp", lib.__name__)
    lib.manual_seed(0)
    g = lib.Generator().manual_seed(0)
    x, y = ex.make_spirals(500, 3, generator=g)
    x = (x - x.mean(dim=0)) / x.std(dim=0)
    loader = ex.DataLoader(ex.TensorDataset(x, y), batch_size=64, shuffle=True, generator=g)
    model = ex.make_model(3)
    loss_fn = ex.nn.CrossEntropyLoss()
    optimizer = optim_mod.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return lambda: ex.train_epoch(model, loader, loss_fn, optimizer)


def _chars_setup(lib, optim_mod):
    ex = _example("train_chars", lib.__name__)
    lib.manual_seed(0)
    text = ex.load_text()
    chars = sorted(set(text))
    data = lib.tensor([chars.index(c) for c in text], dtype=lib.long)
    model = ex.CharTransformer(len(chars))
    optimizer = optim_mod.AdamW(model.parameters(), lr=1e-3)
    g = lib.Generator().manual_seed(0)

    def steps():
        model.train()
        for _ in range(20):
            ex.train_step(model, optimizer, *ex.get_batch(data, 32, 64, g))
    return steps


ROWS = {
    "adam_default": _adam_row(),
    "adam_foreach": _adam_row(foreach=True),
    "adam_fused": _adam_row(fused=True),
    "digits_epoch": _digits_setup,
    "mlp_epoch": _mlp_setup,
    "chars_steps": _chars_setup,
}
SECTIONS = {"optim": ["adam_default", "adam_foreach", "adam_fused"],
            "epochs": ["digits_epoch", "mlp_epoch", "chars_steps"]}


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
    print(f"threads={args.threads}  (optim: Adam over {N_PARAMS:,} float32 parameters in "
          f"{N_TENSORS} tensors; epochs: the example models)")
    print(f"{'row':16s} {'pytensor ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    for section, rows in SECTIONS.items():
        print(f"[{section}]")
        for row in rows:
            if args.only and row != args.only:
                continue
            if row == "digits_epoch" and importlib.util.find_spec("sklearn") is None:
                print(f"{row:16s} skipped: scikit-learn is not installed")
                continue
            step_pt = ROWS[row](pytensor, pytensor.optim)
            step_t = ROWS[row](torch, torch.optim) if torch else None
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
