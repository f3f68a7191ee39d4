"""The dispatcher's costs, side by side with PyTorch and NumPy in one run.

1. Schema parsing: the text of every registered schema plus tests/data/schemas.txt, repeated to
   reach 2,500+ schemas, parsed through ``pytensor._C.parse_schema`` (Python objects included)
   and through a raw ``lib.pt_schema_parse`` loop (the C parser and one cffi call each), beside
   ``torch._C.parse_schema``. Target: 2,500 typical schemas in under 5 ms.
2. Per-call overhead on 1-element float32 tensors: ``pytensor.add(a, b)`` and ``a + b`` beside
   ``torch.add``/``+`` and ``numpy.add``/``+`` (timeit, best of several repeats, ns per call).
   Targets: <= 0.5x torch and <= 2x NumPy.
3. A custom operator defined from Python (Library + a CPU kernel in Python) beside a
   torch.library custom op with the same kernel.
4. Cold import of pytensor, numpy and torch (benchmarks/bench_import.py's method).

    python benchmarks/bench_dispatch.py [--quick]
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Run from a source checkout with an in-place build: use that build.
INPLACE = importlib.util.find_spec("pytensor") is None
if INPLACE:
    sys.path.insert(0, ROOT)


def best_ns(fn, number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def corpus_texts(pytensor) -> list:
    from pytensor._C import ffi, lib
    texts = []
    out = ffi.new("pt_op **")
    for i in range(lib.pt_dispatch_op_count()):
        if lib.pt_dispatch_op_at(i, out) == 0 and lib.pt_op_schema(out[0]) != ffi.NULL:
            texts.append(ffi.string(lib.pt_schema_text(lib.pt_op_schema(out[0]))).decode())
    path = os.path.join(ROOT, "tests", "data", "schemas.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                texts.append(line)
    return texts


def bench_parse(pytensor, torch, repeat: int) -> None:
    from pytensor._C import ffi, lib
    base = corpus_texts(pytensor)
    texts = (base * (2500 // max(len(base), 1) + 1))[:max(2500, len(base))]
    encoded = [t.encode() for t in texts]
    n = len(texts)
    print(f"\n== schema parsing: {len(base)} distinct schemas, {n} per round")
    parse = pytensor._C.parse_schema

    def py_round():
        for t in texts:
            parse(t)

    out = ffi.new("pt_schema **")
    raw_parse, release = lib.pt_schema_parse, lib.pt_schema_release

    def raw_round():
        for b in encoded:
            if raw_parse(b, out) == 0:
                release(out[0])
            else:
                lib.pt_error_clear()

    rows = [("pytensor._C.parse_schema", py_round), ("lib.pt_schema_parse (raw loop)", raw_round)]
    if torch is not None:
        tparse = torch._C.parse_schema
        ttexts = []
        for t in texts:
            try:
                tparse(t)
                ttexts.append(t)
            except Exception:  # torch refuses a few of the corpus's spellings
                pass

        def torch_round():
            for t in ttexts:
                tparse(t)

        rows.append((f"torch._C.parse_schema ({len(ttexts)} it accepts)", torch_round))
    for label, fn in rows:
        secs = min(timeit.repeat(fn, number=1, repeat=repeat))
        count = n if "torch" not in label else len(ttexts)
        print(f"{label:<44} {count / secs:>12,.0f} schemas/s   {secs / count * 2500 * 1e3:7.2f} "
              "ms per 2,500   (target < 5 ms)")


def bench_calls(pytensor, torch, np, number: int, repeat: int) -> None:
    print(f"\n== per-call overhead, 1-element float32 (best of {repeat} x {number:,})")
    a = pytensor.ones(1)
    b = pytensor.ones(1)
    padd = pytensor.add
    rows = {"pytensor.add(a, b)": best_ns(lambda: padd(a, b), number, repeat),
            "pytensor a + b": best_ns(lambda: a + b, number, repeat)}
    if torch is not None:
        ta, tb = torch.ones(1), torch.ones(1)
        tadd = torch.add
        rows["torch.add(a, b)"] = best_ns(lambda: tadd(ta, tb), number, repeat)
        rows["torch a + b"] = best_ns(lambda: ta + tb, number, repeat)
    na, nb = np.ones(1, dtype=np.float32), np.ones(1, dtype=np.float32)
    nadd = np.add
    rows["numpy.add(a, b)"] = best_ns(lambda: nadd(na, nb), number, repeat)
    rows["numpy a + b"] = best_ns(lambda: na + nb, number, repeat)
    rows["(empty lambda)"] = best_ns(lambda: None, number, repeat)
    for label, ns in rows.items():
        print(f"{label:<24} {ns:8.1f} ns")
    for mine, tname, nname in (("pytensor.add(a, b)", "torch.add(a, b)", "numpy.add(a, b)"),
                               ("pytensor a + b", "torch a + b", "numpy a + b")):
        parts = []
        if tname in rows:
            parts.append(f"vs torch {rows[mine] / rows[tname]:.2f}x (target <= 0.5)")
        parts.append(f"vs numpy {rows[mine] / rows[nname]:.2f}x (target <= 2)")
        print(f"{mine:<24} " + ", ".join(parts))


def bench_custom_op(pytensor, torch, number: int, repeat: int) -> None:
    print(f"\n== custom operator defined from Python, CPU kernel in Python (best of {repeat})")
    lib = pytensor.library.Library("bench_dispatch", "FRAGMENT")
    lib.define("ident(Tensor x) -> Tensor")
    lib.impl("ident", lambda x: x, "CPU")
    a = pytensor.ones(1)
    op = pytensor.ops.bench_dispatch.ident
    ovl = op.default
    rows = {"pytensor packet op(x)": best_ns(lambda: op(a), number, repeat),
            "pytensor overload op.default(x)": best_ns(lambda: ovl(a), number, repeat)}
    if torch is not None:
        tlib = torch.library.Library("bench_dispatch_t", "FRAGMENT")
        tlib.define("ident(Tensor x) -> Tensor")
        tlib.impl("ident", lambda x: x, "CPU")
        ta = torch.ones(1)
        top = torch.ops.bench_dispatch_t.ident
        tovl = top.default
        rows["torch packet op(x)"] = best_ns(lambda: top(ta), number, repeat)
        rows["torch overload op.default(x)"] = best_ns(lambda: tovl(ta), number, repeat)
    for label, ns in rows.items():
        print(f"{label:<34} {ns / 1e3:8.2f} us")
    if torch is not None:
        print(f"packet ratio pytensor/torch   {rows['pytensor packet op(x)'] / rows['torch packet op(x)']:.2f}x")
        print(f"overload ratio pytensor/torch "
              f"{rows['pytensor overload op.default(x)'] / rows['torch overload op.default(x)']:.2f}x")
    lib._destroy()


def bench_import(runs: int) -> None:
    print(f"\n== cold import (fresh interpreter each, median of {runs})")
    sys.path.insert(0, HERE)
    import bench_import as bi
    import subprocess
    env = dict(os.environ, PYTHONSAFEPATH="1")
    if INPLACE:  # an in-place build: the child finds it through PYTHONPATH
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")

    def sample(module: str) -> float:
        return float(subprocess.run([sys.executable, "-c", bi.CHILD.format(m=module)],
                                    capture_output=True, text=True, env=env,
                                    check=True).stdout)

    modules = ["pytensor", "numpy"] + (["torch"] if have("torch") else [])
    for m in modules:
        sample(m)
    times = {m: [] for m in modules}
    for _ in range(runs):
        for m in modules:
            times[m].append(sample(m))
    med = {m: statistics.median(v) for m, v in times.items()}
    for m in modules:
        print(f"{m:<10} {med[m] * 1e3:8.2f} ms")
    print(f"pytensor / numpy = {med['pytensor'] / med['numpy']:.3f}   (target <= 1.5)")
    if "torch" in med:
        print(f"pytensor / torch = {med['pytensor'] / med['torch']:.3f}   (target <= 0.1)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = ap.parse_args()
    number, repeat = (20_000, 3) if args.quick else (200_000, 7)
    t0 = time.perf_counter()
    import numpy as np
    import pytensor
    import pytensor.library  # noqa: F401
    torch = None
    if have("torch"):
        import torch
        import torch.library  # noqa: F401
    print(f"pytensor {pytensor.__version__}" + (f", torch {torch.__version__}" if torch else "")
          + f", numpy {np.__version__}")
    bench_parse(pytensor, torch, repeat)
    bench_calls(pytensor, torch, np, number, repeat)
    bench_custom_op(pytensor, torch, number // 10, repeat)
    bench_import(5 if args.quick else 15)
    print(f"\n(total {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
