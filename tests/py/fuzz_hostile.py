"""Hostile-argument fuzzer: random bad arguments to every public function of pytensor and every
Tensor method, run in child processes so that a crash is a finding, not the end of the run.

Every call is a line of Python built from a pool of hostile expressions (huge and negative ints,
2**63, nan and inf, None, strings, wrong types, nested and ragged lists, empty, 0-d,
non-contiguous, negative-stride, expanded and 64-dim tensors of every dtype, overlapping out=),
so a finding is reported with the line that reproduces it in a fresh process. A child runs calls
one after another and says which call it starts before starting it; when it dies by a signal, or
a call runs past the timeout, the parent records that call and starts a new child after it.
Python exceptions are the expected answer to hostile input; exception types that only a bug
raises (SystemError, NameError, UnboundLocalError, AssertionError, AttributeError from inside a
call, ...) are counted as findings of their own kind.

    python3 tests/py/fuzz_hostile.py --seed 0 --calls 2000      # a fixed run
    python3 tests/py/fuzz_hostile.py --seconds 600 --seed 7     # a long run, until time is up
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import select
import subprocess
import sys
import time

# The pytensor the caller imports (an installed one under the test runner); the source folder only
# when none is importable (a run of this script from a development checkout).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if importlib.util.find_spec("pytensor") is None and _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# Calls that touch the file system, other processes, or block by design; and the attributes that
# are not operations.
SKIP = {
    "save", "load", "from_file", "compile", "cuda", "set_printoptions", "sys", "annotations",
    "manual_seed", "seed", "initial_seed", "set_rng_state", "get_rng_state",
    "set_num_threads", "set_num_interop_threads", "__config__", "Tensor", "Generator",
    "pin_memory", "share_memory_", "register_hook", "backward", "apply_", "map_",
    "tolist", "storage", "untyped_storage", "data_ptr",
}
INTERNAL = ("SystemError", "NameError", "UnboundLocalError", "AssertionError", "KeyError",
            "ZeroDivisionError", "RecursionError", "UnicodeDecodeError", "AttributeError",
            "CDefError", "FFIError")

INTS = ["0", "1", "-1", "2", "3", "-2", "2**31", "-2**31", "2**62", "2**63 - 1", "2**63",
        "-2**63", "-2**63 - 1", "2**64", "10**30", "64", "65"]
FLOATS = ["0.5", "-0.0", "float('nan')", "float('inf')", "-float('inf')", "1e308", "1e-320",
          "1j", "complex('nan')"]
MISC = ["None", "True", "False", "''", "'abc'", "'cpu'", "'meta'", "'cuda'", "b'x'", "[]", "[[]]",
        "[1, [2]]", "[[1, 2], [3]]", "(2**63,)", "(-1,)", "(0,)", "(2, -3)", "[1] * 65", "object()",
        "{}", "slice(None)", "Ellipsis", "[0.5, None]", "(1, 2**64)", "[[[[[[[[1]]]]]]]]",
        "pytensor.float32", "pytensor.int64", "pytensor.bool", "pytensor.complex128",
        "pytensor.float16", "pytensor.bfloat16", "pytensor.uint8", "pytensor.contiguous_format",
        "pytensor.channels_last", "pytensor.strided", "pytensor.Generator()"]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
TENSORS = ["X", "X.t()", "X[1:]", "X[:, ::2]", "X.expand(2, 4, 4)", "Y", "I",
           "pytensor.ones(0)", "pytensor.empty(3, 0, 2)", "pytensor.tensor(3.5)",
           "pytensor.tensor(2**62)", "pytensor.tensor(-1)", "pytensor.zeros([1] * 64)",
           "pytensor.ones(3).expand(4, 3)", "pytensor.tensor([float('nan'), float('inf'), -1.0])",
           "pytensor.arange(6.).as_strided((3,), (-2,), 5)", "pytensor.arange(24.).reshape(2, 3, 4)",
           "pytensor.tensor([True, False, True])", "pytensor.tensor([[0, 1]])",
           "pytensor.ones(2, 3, device='meta')", "pytensor.randn(5, 5).tril()",
           "pytensor.tensor([1 + 2j, float('nan')])", "pytensor.empty(0, 2**62)",
           "pytensor.empty(2**40, 0, 2**40)", "pytensor.zeros([1] * 63 + [2])",
           "pytensor.tensor([2**62, -2**63])", "pytensor.tensor([[2**63 - 1]])",
           "pytensor.ones(3)[None, :, None]", "pytensor.ones(1).expand(2**16)",
           "pytensor.arange(16.).as_strided((2, 2), (0, 7))",
           "pytensor.ones(4, 4).as_strided((3, 3), (1, 1))"] + \
          [f"pytensor.ones(2, 3, dtype=pytensor.{d})" for d in DTYPES] + \
          [f"pytensor.tensor(1, dtype=pytensor.{d})" for d in DTYPES]
KWARGS = ["dim", "keepdim", "dtype", "out", "device", "generator", "size", "alpha", "value", "p",
          "eps", "index", "src", "descending", "k", "memory_format", "requires_grad", "other",
          "min", "max", "out_dtype", "correction", "unbiased", "start", "end", "steps"]
SETUP = ("import pytensor\n"
         "X = pytensor.randn(4, 4)\n"
         "Y = pytensor.arange(8, dtype=pytensor.int64)\n"
         "I = pytensor.tensor([[0, 3], [1, -1]])\n")


def _targets():
    import pytensor
    funcs = sorted(n for n in dir(pytensor) if not n.startswith("_") and n not in SKIP
                   and callable(getattr(pytensor, n)) and not isinstance(getattr(pytensor, n), type))
    methods = sorted(n for n in dir(pytensor.Tensor) if n not in SKIP
                     and (not n.startswith("_") or n in ("__getitem__", "__setitem__", "__add__",
                                                        "__matmul__", "__pow__", "__iadd__",
                                                        "__lshift__", "__floordiv__", "__mod__")))
    return funcs, methods


BENIGN = ["X", "Y", "0", "1", "-1", "2", "X[0]", "I", "pytensor.float64", "(1, 0)", "True"]


def _value(rng: random.Random) -> str:
    if rng.random() < 0.4:  # plausible neighbours make the hostile argument reach deeper
        return rng.choice(BENIGN)
    r = rng.random()
    if r < 0.4:
        return rng.choice(TENSORS)
    if r < 0.65:
        return rng.choice(INTS)
    if r < 0.75:
        return rng.choice(FLOATS)
    return rng.choice(MISC)


BY_TYPE = {
    "Tensor": TENSORS, "int": INTS + ["0", "1", "-1"], "Number": INTS + FLOATS,
    "float": FLOATS + ["1", "0"], "bool": ["True", "False", "2", "None"],
    "dtype": [f"pytensor.{d}" for d in DTYPES] + ["int", "float"],
    "int[]": ["(2, 3)", "(-1,)", "()", "[2**63]", "(0, 0)", "[1] * 65", "(4, 4)", "(1, -2)"],
    "Tensor[]": ["[X, X]", "[X, Y]", "[]", "(X[0], I)", "[X.t(), X[1:]]"],
    "str": ["'abc'", "''", "'mean'", "'sum'", "'floor'"],
}


def _signatures(obj) -> list:
    """(param types) for each overload named in a docstring's first lines: `name(Type a, ...)`."""
    sigs = []
    for line in (getattr(obj, "__doc__", None) or "").splitlines():
        line = line.strip()
        if not line:
            break
        if "(" not in line or not line.endswith(")"):
            continue
        params, kw = [], False
        for part in line[line.index("(") + 1:-1].split(","):
            part = part.strip()
            kw = kw or part == "*"
            if part == "*" or not part:
                continue
            words = part.split("=")[0].split()
            if len(words) >= 2:
                params.append((words[0].rstrip("?"), words[1], "=" in part, kw))
        sigs.append(params)
    return sigs


def _typed(rng: random.Random, typ: str) -> str:
    pool = BY_TYPE.get(typ.replace("?", ""))
    if pool is None or rng.random() < 0.25:
        return _value(rng)
    return rng.choice(pool)


def _call_args(rng: random.Random, sigs: list, drop_self: bool) -> str:
    if not sigs or rng.random() < 0.2:
        args = [_value(rng) for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4)))]
        kwargs = []
        if rng.random() < 0.3:
            name = rng.choice(KWARGS)
            kwargs.append(f"{name}={'X' if name == 'out' and rng.random() < 0.5 else _value(rng)}")
        return ", ".join(args + kwargs)
    params = rng.choice(sigs)[1 if drop_self else 0:]
    out = []
    positional = True
    for typ, name, has_default, kw in params:
        if has_default and rng.random() < 0.5:
            positional = False
            continue
        value = "X" if name == "out" and rng.random() < 0.6 else _typed(rng, typ)
        out.append(value if positional and not kw else f"{name}={value}")
    return ", ".join(out)


def make_calls(seed: int, count: int) -> list:
    import pytensor
    rng = random.Random(seed)
    funcs, methods = _targets()
    calls = []
    for _ in range(count):
        if rng.random() < 0.5:
            name = rng.choice(funcs)
            sigs = _signatures(getattr(pytensor, name))
            calls.append(f"pytensor.{name}({_call_args(rng, sigs, False)})")
        else:
            name = rng.choice(methods)
            sigs = _signatures(getattr(pytensor, name, None))
            calls.append(f"({rng.choice(TENSORS)}).{name}({_call_args(rng, sigs, True)})")
    return calls


# ---------------------------------------------------------------- the child
def child(path: str, start: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    with open(path) as f:
        calls = json.load(f)
    base = {}
    exec(SETUP, base)
    # Calls may print: the protocol keeps a stdout of its own.
    out = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    sys.stdout = open(os.devnull, "w")
    for i in range(start, len(calls)):
        out.write(f"S {i}\n")
        out.flush()
        ns = dict(base)
        exec("X = pytensor.randn(4, 4)\nY = pytensor.arange(8, dtype=pytensor.int64)\n", ns)
        kind = "ok"
        try:
            eval(calls[i], ns)
        except MemoryError:
            kind = "MemoryError"
        except Exception as e:  # noqa: BLE001 - every exception is a valid answer to classify
            kind = type(e).__name__
            if kind == "AttributeError" and "has no attribute" in str(e) and \
                    ("'Tensor'" in str(e) or "module 'pytensor'" in str(e)):
                kind = "MissingAttribute"  # the method itself does not exist: not a bug
            if kind in INTERNAL:
                kind += ": " + str(e).splitlines()[0][:160] if str(e) else ""
        out.write(f"E {i} {kind}\n")
        out.flush()


# ---------------------------------------------------------------- the parent
def run(calls: list, timeout: float, deadline: float | None = None, log=None) -> dict:
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".json", prefix="pt_fuzz_")
    with os.fdopen(fd, "w") as f:
        json.dump(calls, f)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONFAULTHANDLER="")
    import pytensor
    # children import the same pytensor as this process
    here = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    result = {"crashes": [], "hangs": [], "internal": [], "kinds": {}, "calls": 0}
    start = 0
    try:
        while start < len(calls):
            if deadline is not None and time.monotonic() > deadline:
                break
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", path,
                                  str(start)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=env, text=True, bufsize=1)
            current, started = None, False
            while True:
                # The first line waits for the import too, on a machine that may be busy.
                ready, _, _ = select.select([p.stdout], [], [], timeout if started else 120.0)
                started = True
                if not ready:  # the current call ran past the timeout
                    p.kill()
                    p.wait()
                    result["hangs"].append(calls[current] if current is not None else "<start>")
                    start = (current if current is not None else start) + 1
                    break
                line = p.stdout.readline()
                if not line:
                    rc = p.wait()
                    if current is not None and rc != 0:
                        result["crashes"].append((rc, calls[current]))
                        if log:
                            log(f"CRASH rc={rc}: {calls[current]}")
                        start = current + 1
                    else:
                        start = len(calls)
                    break
                tag, idx, *rest = line.split(" ", 2)
                if tag not in ("S", "E"):
                    continue
                idx = int(idx)
                if tag == "S":
                    current = idx
                    result["calls"] += 1
                    if deadline is not None and time.monotonic() > deadline:
                        p.kill()
                        p.wait()
                        start = len(calls)
                        break
                else:
                    kind = rest[0].strip() if rest else "ok"
                    short = kind.split(":")[0]
                    result["kinds"][short] = result["kinds"].get(short, 0) + 1
                    if short in INTERNAL:
                        result["internal"].append((kind, calls[idx]))
                    current = None
            p.stdout.close()
    finally:
        os.unlink(path)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--timeout", type=float, default=20.0)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]))
        return
    deadline = None if a.seconds is None else time.monotonic() + a.seconds
    total = {"crashes": [], "hangs": [], "internal": [], "kinds": {}, "calls": 0}
    seed = a.seed
    while True:
        r = run(make_calls(seed, a.calls), a.timeout, deadline, log=print)
        for k in ("crashes", "hangs", "internal"):
            total[k] += r[k]
        for k, v in r["kinds"].items():
            total["kinds"][k] = total["kinds"].get(k, 0) + v
        total["calls"] += r["calls"]
        if deadline is None or time.monotonic() > deadline:
            break
        seed += 1
    print(f"calls: {total['calls']}, last seed {seed}")
    print("outcomes:", json.dumps(total["kinds"], sort_keys=True))
    for rc, c in total["crashes"]:
        print(f"CRASH (rc {rc}): {c}")
    for c in total["hangs"]:
        print(f"HANG: {c}")
    for kind, c in sorted(set(total["internal"])):
        print(f"INTERNAL {kind}: {c}")
    sys.exit(1 if total["crashes"] or total["hangs"] else 0)


if __name__ == "__main__":
    main()
