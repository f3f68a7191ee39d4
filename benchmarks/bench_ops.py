"""Operators side by side: pytensor beside PyTorch and NumPy, in one process, at one thread count.

Rows, all float32:

1. Memory-bound work on 16M elements (64 MB a tensor): ``copy_`` (NumPy: ``copyto``), the memcpy
   bandwidth every other row is read against; ``add`` and ``mul``, allocating (``c = a + b``) and
   into ``out=``; ``exp``, ``tanh``, ``sigmoid``; ``sum`` and ``mean``; ``softmax`` over the last
   dim of (4096, 4096). Throughput is GB/s of bytes read plus bytes written (the least any
   implementation must move), and add/mul say what fraction of the copy bandwidth they reach.
2. sgemm, C = A @ B with square row-major matrices of 1024, 2048 and 4096: ``pytensor.mm`` (or
   ``matmul``), ``torch.mm``, NumPy's ``@`` and ``bli_sgemm`` called through ctypes on the libblis
   that pytensor's module links: the ceiling a BLIS-backed ``mm`` can reach. GFLOP/s = 2 n^3 / t.
3. Per-call time on small tensors (1, 10, 100, 1000 elements): add, mul, exp, sum, relu, abs,
   where the dispatcher and the allocation cost more than the arithmetic.

Each time is the best of N runs (a warm-up call first). Ratios are time ratios pytensor/torch and
pytensor/NumPy: below 1 pytensor is faster. An operator this build of pytensor lacks prints "n/a"
and the run goes on; so does a missing torch or NumPy. NumPy runs elementwise operators and
reductions on one thread whatever the setting; its ``@`` goes to its own BLAS, whose threads are
set to the same count where that can be done (threadpoolctl, or the environment before NumPy
loads).

    python benchmarks/bench_ops.py [--quick] [--only add,sgemm] [--reps N] [--threads N]
                                   [--libs pytensor,torch,numpy,blis] [--png F.png] [--json F.json]
"""
from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import importlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
import timeit
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Run from a source checkout with an in-place build: use that build.
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, ROOT)

LIBS = ("pytensor", "torch", "numpy", "blis")
COLUMNS = ("pytensor", "torch", "numpy")  # blis appears in the sgemm rows' note
GROUPS = ("memory", "sgemm", "small")
MEMORY_OPS = ("copy", "add", "mul", "exp", "tanh", "sigmoid", "sum", "mean", "softmax")
SMALL_OPS = ("add", "mul", "exp", "sum", "relu", "abs")
# Environment variables that set NumPy's BLAS threads, read when its library loads.
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


@dataclass
class Sizes:
    elements: int        # memory-bound rows
    softmax: tuple       # (rows, cols); rows * cols == elements
    gemm: tuple          # square sgemm sizes
    small: tuple         # per-call rows
    reps: int            # best of, memory-bound and small rows
    gemm_reps: int       # best of, sgemm below 4096 (4096 takes min(gemm_reps, 2))
    small_target_s: float  # each small-row sample runs about this long


FULL = Sizes(elements=16 << 20, softmax=(4096, 4096), gemm=(1024, 2048, 4096),
             small=(1, 10, 100, 1000), reps=5, gemm_reps=3, small_target_s=0.01)
QUICK = Sizes(elements=1 << 16, softmax=(256, 256), gemm=(64, 128), small=(1, 1000), reps=2,
              gemm_reps=2, small_target_s=0.001)


@dataclass
class Row:
    group: str
    op: str
    label: str
    size: str
    unit: str                      # "GB/s" or "GFLOP/s"
    work: float                    # bytes moved or flops, per call
    times: dict = field(default_factory=dict)     # lib -> seconds per call, None when not run
    missing: dict = field(default_factory=dict)   # lib -> why it did not run
    notes: list = field(default_factory=list)

    def throughput(self, lib: str) -> Optional[float]:
        t = self.times.get(lib)
        return self.work / t / 1e9 if t else None

    def ratio(self, other: str) -> Optional[float]:
        mine, theirs = self.times.get("pytensor"), self.times.get(other)
        return mine / theirs if mine and theirs else None


# ---------------------------------------------------------------------------- libraries

class Libs:
    """The libraries of this run; an absent or deselected one is None."""

    def __init__(self, pytensor=None, torch=None, np=None, blis=None):
        self.pytensor, self.torch, self.np, self.blis = pytensor, torch, np, blis

    def module(self, lib: str):
        return {"pytensor": self.pytensor, "torch": self.torch, "numpy": self.np,
                "blis": self.blis}[lib]


def import_optional(name: str):
    try:
        return importlib.import_module(name)
    except Exception:  # not installed, or broken: the column reads n/a
        return None


def core_module_path(pytensor) -> Optional[str]:
    core = getattr(getattr(pytensor, "_C", None), "_core", None)
    return getattr(core, "__file__", None)


def find_libblis(pytensor) -> Optional[str]:
    """The libblis pytensor's module has loaded: from this process's maps (exactly the library in
    use), else the module's ldd, else the linker's search."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                path = line.split()[-1]
                if "libblis" in os.path.basename(path) and os.path.exists(path):
                    return path
    except OSError:
        pass
    core = core_module_path(pytensor) if pytensor is not None else None
    if core:
        try:
            out = subprocess.run(["ldd", core], capture_output=True, text=True, timeout=10).stdout
            for line in out.splitlines():
                if "libblis" in line and "=>" in line:
                    path = line.split("=>")[1].split("(")[0].strip()
                    if os.path.exists(path):
                        return path
        except (OSError, subprocess.SubprocessError):
            pass
    return ctypes.util.find_library("blis")


class Blis:
    """bli_sgemm through ctypes. Note [BLIS types]: the typed API takes trans_t (an enum: int),
    dim_t and inc_t (gint_t: 64-bit on 64-bit builds, BLIS_INT_TYPE_SIZE's default) and pointers to
    alpha and beta; strides are per row and per column, so row-major is (rs, cs) = (n, 1)."""

    def __init__(self, path: str):
        self.path = path
        self.lib = ctypes.CDLL(path)
        i64, ptr, fptr = ctypes.c_int64, ctypes.c_void_p, ctypes.POINTER(ctypes.c_float)
        self.sgemm = self.lib.bli_sgemm
        self.sgemm.restype = None
        self.sgemm.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, fptr,
                               ptr, i64, i64, ptr, i64, i64, fptr, ptr, i64, i64]
        self.alpha, self.beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        self.version = ""
        if hasattr(self.lib, "bli_info_get_version_str"):
            self.lib.bli_info_get_version_str.restype = ctypes.c_char_p
            self.version = self.lib.bli_info_get_version_str().decode()

    def set_threads(self, n: int) -> None:
        self.lib.bli_thread_set_num_threads.argtypes = [ctypes.c_int64]
        self.lib.bli_thread_set_num_threads(n)

    def get_threads(self) -> int:
        self.lib.bli_thread_get_num_threads.restype = ctypes.c_int64
        return self.lib.bli_thread_get_num_threads()

    def mm(self, m: int, k: int, n: int, a: int, b: int, c: int) -> None:
        """c[m, n] = a[m, k] @ b[k, n], row-major, addresses as ints."""
        self.sgemm(0, 0, m, n, k, ctypes.byref(self.alpha), a, k, 1, b, n, 1,
                   ctypes.byref(self.beta), c, n, 1)


def float_buffer(count: int, np):
    """(owner, address) of `count` float32s: random NumPy data when NumPy is here."""
    if np is not None:
        arr = np.random.default_rng(0).random(count, dtype=np.float32)
        return arr, arr.ctypes.data
    buf = (ctypes.c_float * count)()
    return buf, ctypes.addressof(buf)


def check_blis(blis: Blis, np) -> None:
    """One small product against NumPy, so that no number comes from a mis-declared call."""
    if np is None:
        return
    rng = np.random.default_rng(1)
    a = rng.random((37, 53), dtype=np.float32)
    b = rng.random((53, 29), dtype=np.float32)
    c = np.empty((37, 29), dtype=np.float32)
    blis.mm(37, 53, 29, a.ctypes.data, b.ctypes.data, c.ctypes.data)
    if not np.allclose(c, a @ b, rtol=1e-4, atol=1e-4):
        raise RuntimeError("bli_sgemm through ctypes disagrees with NumPy")


def load_libs(names, threads: int, log: Callable[[str], None]) -> Libs:
    """Imports the selected libraries and gives each `threads` threads."""
    np_preloaded = "numpy" in sys.modules
    if "numpy" in names and not np_preloaded:
        for var in BLAS_THREAD_VARS:  # read once, when NumPy's BLAS loads
            os.environ[var] = str(threads)
    pytensor = import_optional("pytensor") if "pytensor" in names else None
    torch = import_optional("torch") if "torch" in names else None
    np = import_optional("numpy") if "numpy" in names else None
    blis = None
    if "blis" in names:
        path = find_libblis(pytensor)
        if path is not None:
            try:
                blis = Blis(path)
                check_blis(blis, np)
            except (OSError, AttributeError, RuntimeError) as exc:
                log(f"bli_sgemm unusable ({exc}): its column reads n/a")
                blis = None
    libs = Libs(pytensor, torch, np, blis)
    set_threads(libs, threads, np_preloaded, log)
    return libs


def set_threads(libs: Libs, threads: int, np_preloaded: bool, log) -> None:
    if libs.pytensor is not None and hasattr(libs.pytensor, "set_num_threads"):
        libs.pytensor.set_num_threads(threads)
    if libs.torch is not None:
        libs.torch.set_num_threads(threads)
    if libs.blis is not None:
        libs.blis.set_threads(threads)
    np_blas = "not set (NumPy was loaded before this run)" if np_preloaded else "set by environment"
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(limits=threads, user_api="blas")
        np_blas = "set by threadpoolctl"
    except Exception:  # threadpoolctl is optional
        pass
    parts = [lib for lib in ("pytensor", "torch") if libs.module(lib) is not None]
    if libs.blis is not None:
        parts.append("bli_sgemm")
    log(f"threads: {threads} for {', '.join(parts) or 'nothing'}"
        + (f"; NumPy's BLAS ({np_blas}) for @" if libs.np is not None else ""))
    if libs.np is not None:
        log("NumPy runs elementwise operators and reductions on one thread (it has no threading "
            "for them).")


# ---------------------------------------------------------------------------- timing

def best_time(fn: Callable[[], object], reps: int, warmup: bool = True) -> float:
    """Seconds per call, best of `reps` single calls."""
    if warmup:
        fn()
    return min(timeit.repeat(fn, number=1, repeat=max(reps, 1)))


def best_time_calibrated(fn: Callable[[], object], reps: int, target_s: float) -> float:
    """Seconds per call for fast calls, best of `reps` loops of about `target_s` each. The loop's
    length comes from a warm-up of the same duration (at least 20 calls): an operator's first
    calls pay one-time costs (lazy set-up, a thread pool starting) that are no part of a call."""
    calls, start = 0, time.perf_counter()
    while calls < 20 or time.perf_counter() - start < target_s:
        fn()
        calls += 1
    return min(timeit.repeat(fn, number=calls, repeat=max(reps, 1))) / calls


# ---------------------------------------------------------------------------- cases

class Inputs:
    """Per library, random float32 tensors of one shape, made once and shared by the rows."""

    def __init__(self, libs: Libs, shape: tuple):
        self.libs, self.shape, self.cache = libs, shape, {}

    def get(self, lib: str, count: int = 2) -> list:
        have = self.cache.setdefault(lib, [])
        while len(have) < count:
            have.append(self.make(lib))
        return have[:count]

    def make(self, lib: str):
        if lib == "pytensor":
            return self.libs.pytensor.rand(*self.shape)
        if lib == "torch":
            return self.libs.torch.rand(*self.shape)
        np = self.libs.np
        return np.random.default_rng(len(self.cache.get(lib, []))).random(self.shape,
                                                                          dtype=np.float32)

    def empty(self, lib: str):
        if lib == "pytensor":
            return self.libs.pytensor.empty(*self.shape)
        if lib == "torch":
            return self.libs.torch.empty(*self.shape)
        return self.libs.np.empty(self.shape, dtype=self.libs.np.float32)


def np_softmax(np, x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# What each library calls for an operator. A maker gets (module, inputs) and returns the zero-
# argument call to time; `needs` is the pytensor attribute that must exist for it to run.
def unary_makers(name: str, np_fn: Callable):
    return {
        "pytensor": lambda m, x: (lambda f=getattr(m, name), a=x[0]: f(a)),
        "torch": lambda m, x: (lambda f=getattr(m, name), a=x[0]: f(a)),
        "numpy": lambda m, x: (lambda a=x[0]: np_fn(m, a)),
    }


def np_sigmoid_out(np, a, c):
    np.negative(a, out=c)
    np.exp(c, out=c)
    c += 1.0
    return np.divide(1.0, c, out=c)


NP_UNARY_OUT = {
    "exp": lambda np, a, c: np.exp(a, out=c),
    "tanh": lambda np, a, c: np.tanh(a, out=c),
    "sigmoid": np_sigmoid_out,
}


def unary_out_makers(name: str):
    return {
        "pytensor": lambda m, x: (lambda f=getattr(m, name), a=x[0], c=x[2]: f(a, out=c)),
        "torch": lambda m, x: (lambda f=getattr(m, name), a=x[0], c=x[2]: f(a, out=c)),
        "numpy": lambda m, x: (lambda a=x[0], c=x[2]: NP_UNARY_OUT[name](m, a, c)),
    }


NP_NAMES = {"mul": "multiply"}  # NumPy's name where it differs from torch's


def binary_makers(name: str, out: bool, operator: bool):
    def maker(lib):
        def make(m, x):
            a, b = x[0], x[1]
            fname = NP_NAMES.get(name, name) if lib == "numpy" else name
            if out:
                c = x[2]
                f = getattr(m, fname)
                return lambda: f(a, b, out=c)
            if operator:
                return (lambda: a + b) if name == "add" else (lambda: a * b)
            f = getattr(m, fname)
            return lambda: f(a, b)
        return make
    return {lib: maker(lib) for lib in COLUMNS}


def copy_makers():
    return {
        "pytensor": lambda m, x: (lambda d=x[2], s=x[0]: d.copy_(s)),
        "torch": lambda m, x: (lambda d=x[2], s=x[0]: d.copy_(s)),
        "numpy": lambda m, x: (lambda d=x[2], s=x[0], f=m.copyto: f(d, s)),
    }


NP_UNARY = {
    "exp": lambda np, a: np.exp(a),
    "tanh": lambda np, a: np.tanh(a),
    "sigmoid": lambda np, a: 1.0 / (1.0 + np.exp(-a)),
    "sum": lambda np, a: np.sum(a),
    "mean": lambda np, a: np.mean(a),
    "relu": lambda np, a: np.maximum(a, 0),
    "abs": lambda np, a: np.abs(a),
}
NP_COMPOSITE = {"sigmoid": "1/(1+exp(-x))", "relu": "maximum(x, 0)",
                "softmax": "exp(x-max)/sum"}


@dataclass
class Case:
    group: str
    op: str
    label: str
    size: str
    unit: str
    work: float
    makers: dict                 # lib -> maker(module, inputs) -> call
    needs: tuple                 # pytensor attributes the pytensor call uses
    inputs: Optional[Inputs]
    outputs: bool = False        # the call writes into a third, preallocated tensor


def size_text(n: int) -> str:
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def memory_cases(libs: Libs, sizes: Sizes) -> list:
    n = sizes.elements
    flat = Inputs(libs, (n,))
    mat = Inputs(libs, sizes.softmax)
    nbytes = 4 * n
    st = size_text(n)
    cases = [Case("memory", "copy", "copy_ (np: copyto)", st, "GB/s", 2 * nbytes, copy_makers(),
                  ("Tensor.copy_",), flat, outputs=True)]
    for name in ("add", "mul"):
        sym = "+" if name == "add" else "*"
        cases.append(Case("memory", name, f"{name}: c = a {sym} b", st, "GB/s", 3 * nbytes,
                          binary_makers(name, out=False, operator=True), (name,), flat))
        cases.append(Case("memory", name, f"{name}(a, b, out=c)", st, "GB/s", 3 * nbytes,
                          binary_makers(name, out=True, operator=False), (name,), flat,
                          outputs=True))
    for name in ("exp", "tanh", "sigmoid"):
        cases.append(Case("memory", name, name, st, "GB/s", 2 * nbytes,
                          unary_makers(name, NP_UNARY[name]), (name,), flat))
        cases.append(Case("memory", name, f"{name}(a, out=c)", st, "GB/s", 2 * nbytes,
                          unary_out_makers(name), (name,), flat, outputs=True))
    for name in ("sum", "mean"):
        cases.append(Case("memory", name, name, st, "GB/s", nbytes,
                          unary_makers(name, NP_UNARY[name]), (name,), flat))
    rows, cols = sizes.softmax
    softmax = {
        "pytensor": lambda m, x: (lambda f=m.softmax, a=x[0]: f(a, -1)),
        "torch": lambda m, x: (lambda f=m.softmax, a=x[0]: f(a, -1)),
        "numpy": lambda m, x: (lambda a=x[0]: np_softmax(m, a)),
    }
    cases.append(Case("memory", "softmax", "softmax(x, -1)", f"{rows}x{cols}", "GB/s",
                      2 * 4 * rows * cols, softmax, ("softmax",), mat))
    return cases


def gemm_cases(libs: Libs, sizes: Sizes) -> list:
    cases = []
    for n in sizes.gemm:
        makers = {
            "pytensor": lambda m, x: (lambda g=first_attr(m, PT_MM), a=x[0], b=x[1]: g(a, b)),
            "torch": lambda m, x: (lambda g=m.mm, a=x[0], b=x[1]: g(a, b)),
            "numpy": lambda m, x: (lambda a=x[0], b=x[1]: a @ b),
        }
        cases.append(Case("sgemm", "sgemm", f"sgemm ({pt_mm_name(libs)})", f"{n}x{n}", "GFLOP/s",
                          2.0 * n ** 3, makers, ("|".join(PT_MM),), Inputs(libs, (n, n))))
    return cases


PT_MM = ("mm", "matmul")  # pytensor's product for the sgemm rows: the first it has


def first_attr(module, names: tuple):
    return next(getattr(module, n) for n in names if hasattr(module, n))


def pt_mm_name(libs: Libs) -> str:
    have = [n for n in PT_MM if libs.pytensor is not None and hasattr(libs.pytensor, n)]
    return have[0] if have else PT_MM[0]


def small_cases(libs: Libs, sizes: Sizes) -> list:
    cases = []
    for n in sizes.small:
        inputs = Inputs(libs, (n,))
        for name in SMALL_OPS:
            if name in ("add", "mul"):
                makers, work = binary_makers(name, out=False, operator=False), 12 * n
            else:
                makers = unary_makers(name, NP_UNARY[name])
                work = 4 * n if name == "sum" else 8 * n
            cases.append(Case("small", name, f"{name} (per call)", str(n), "GB/s", work, makers,
                              (name,), inputs))
    return cases


# ---------------------------------------------------------------------------- running

def pytensor_lacks(pytensor, needs: tuple) -> Optional[str]:
    """Why pytensor cannot run a row: an attribute it lacks ("a|b": it has neither)."""
    for need in needs:
        if not any(has_attr(pytensor, alt) for alt in need.split("|")):
            return f"pytensor has no {need.replace('|', ' or ')} yet"
    return None


def has_attr(pytensor, attr: str) -> bool:
    if attr.startswith("Tensor."):
        return hasattr(pytensor.Tensor, attr[len("Tensor."):])
    return hasattr(pytensor, attr)


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:100]}"


def run_case(case: Case, libs: Libs, sizes: Sizes, reps: Optional[int]) -> Row:
    row = Row(case.group, case.op, case.label, case.size, case.unit, case.work)
    for lib in COLUMNS:
        module = libs.module(lib)
        if module is None:
            row.times[lib], row.missing[lib] = None, f"{lib} not loaded"
            continue
        if lib == "pytensor":
            lack = pytensor_lacks(module, case.needs)
            if lack:
                row.times[lib], row.missing[lib] = None, lack
                continue
        try:
            inputs = case.inputs.get(lib, 2)
            if case.outputs:
                inputs = inputs + [case.inputs.empty(lib)]
            call = case.makers[lib](module, inputs)
            row.times[lib] = time_call(case, call, sizes, reps)
        except Exception as exc:  # one library's failure must not end the run
            row.times[lib], row.missing[lib] = None, short_error(exc)
    if case.group == "sgemm":
        run_blis(case, row, libs, sizes, reps)
    if lib_note := NP_COMPOSITE.get(case.op):
        if row.times.get("numpy"):
            row.notes.append(f"np: {lib_note}")
    return row


def time_call(case: Case, call, sizes: Sizes, reps: Optional[int]) -> float:
    if case.group == "small":
        return best_time_calibrated(call, reps or sizes.reps, sizes.small_target_s)
    if case.group == "sgemm":
        # Each product runs long enough that the first call is one more sample, not a warm-up.
        r = reps or (min(sizes.gemm_reps, 2) if case.work >= 2.0 * 4096 ** 3 else sizes.gemm_reps)
        return best_time(call, r, warmup=False)
    return best_time(call, reps or sizes.reps)


def run_blis(case: Case, row: Row, libs: Libs, sizes: Sizes, reps: Optional[int]) -> None:
    if libs.blis is None:
        row.times["blis"], row.missing["blis"] = None, "no usable libblis"
        return
    n = int(case.size.split("x")[0])
    (a, pa), (b, pb), (c, pc) = (float_buffer(n * n, libs.np) for _ in range(3))
    row.times["blis"] = time_call(case, lambda: libs.blis.mm(n, n, n, pa, pb, pc), sizes, reps)
    del a, b, c


def selected(cases: list, only: Optional[set]) -> list:
    if not only:
        return cases
    keep = [c for c in cases if c.op in only or c.group in only]
    # add/mul are read against the copy bandwidth: measure it too.
    if any(c.group == "memory" and c.op in ("add", "mul") for c in keep):
        keep = [c for c in cases if c.op == "copy"] + [c for c in keep if c.op != "copy"]
    return keep


def copy_reference(rows: list) -> Optional[tuple]:
    """(GB/s, which) of the best copy measured: the bandwidth add and mul are read against."""
    best = None
    for r in rows:
        if r.op == "copy":
            for lib in COLUMNS:
                g = r.throughput(lib)
                if g and (best is None or g > best[0]):
                    best = (g, f"{lib} copy")
    return best


def annotate(row: Row, rows: list, libs: Libs) -> None:
    if row.group == "memory" and row.op in ("add", "mul"):
        ref = copy_reference(rows)
        g = row.throughput("pytensor")
        if ref and g:
            row.notes.append(f"pt {g / ref[0]:.2f}x of copy bw")
    if row.group == "sgemm" and row.times.get("blis"):
        text = f"bli_sgemm {fmt_time(row.times['blis'])} {fmt_thr(row.throughput('blis'))}"
        if row.times.get("pytensor"):
            text += f", pt/blis {row.ratio('blis'):.2f}"
        row.notes.append(text)
    for lib, why in row.missing.items():
        if lib in COLUMNS and libs.module(lib) is not None:
            row.notes.append(f"{lib}: {why}" if not why.startswith(lib) else why)


# ---------------------------------------------------------------------------- printing

def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_thr(v: Optional[float]) -> str:
    if v is None:
        return "n/a"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def fmt_ratio(v: Optional[float]) -> str:
    return "n/a" if v is None else f"{v:.2f}"


HEADER = (f"{'row':<24}{'size':>10}  {'unit':<8}" + "".join(f"{lib:>20}" for lib in COLUMNS)
          + f"{'pt/torch':>10}{'pt/numpy':>10}  note")


def format_row(row: Row) -> str:
    cells = []
    for lib in COLUMNS:
        t = row.times.get(lib)
        cells.append(f"{fmt_time(t):>10}{fmt_thr(row.throughput(lib)):>10}" if t
                     else f"{'n/a':>20}")
    return (f"{row.label:<24}{row.size:>10}  {row.unit:<8}" + "".join(cells)
            + f"{fmt_ratio(row.ratio('torch')):>10}{fmt_ratio(row.ratio('numpy')):>10}  "
            + "; ".join(row.notes))


GROUP_TITLES = {
    "memory": "memory-bound, float32 (GB/s = bytes read + written per second)",
    "sgemm": "sgemm, float32 row-major (GFLOP/s = 2 n^3 / time)",
    "small": "small tensors, per-call time (GB/s as above, for scale)",
}


# ---------------------------------------------------------------------------- outputs

def write_png(path: str, rows: list, meta: dict, log) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        log(f"--png {path}: the chart needs matplotlib, which is not importable here; "
            "the table above has the same numbers")
        return False
    labels = [f"{r.label} [{r.size}]" for r in rows]
    vs_torch = [r.ratio("torch") for r in rows]
    vs_numpy = [r.ratio("numpy") for r in rows]
    height = 0.36
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.32 * len(rows)))
    ys = list(range(len(rows)))
    # Bars grow from the 1.0 line: left of it pytensor is faster, right of it slower.
    for offset, values, name, color in ((-height / 2, vs_torch, "pytensor / torch", "#d62728"),
                                        (height / 2, vs_numpy, "pytensor / NumPy", "#1f77b4")):
        pos = [y + offset for y, v in zip(ys, values) if v]
        vals = [v for v in values if v]
        ax.barh(pos, [v - 1.0 for v in vals], left=1.0, height=height, color=color, label=name)
        for y, v in zip(pos, vals):
            ax.text(v, y, f" {v:.2f} " if v >= 1 else f" {v:.2f}  ", va="center", fontsize=6,
                    ha="left" if v >= 1 else "right")
    for y, a, b in zip(ys, vs_torch, vs_numpy):
        if not a and not b:
            ax.text(1.0, y, "  n/a", va="center", fontsize=7, color="gray")
    present = [v for v in vs_torch + vs_numpy if v]
    lo = min(present + [0.5]) / 2
    hi = max(present + [2.0]) * 2
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio, pytensor / other (log scale; < 1: pytensor faster)")
    ax.set_title(f"pytensor {meta.get('pytensor') or 'n/a'} vs torch {meta.get('torch') or 'n/a'} "
                 f"and NumPy {meta.get('numpy') or 'n/a'}, {meta['threads']} thread"
                 + ("s" if meta["threads"] > 1 else ""), fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    log(f"chart written to {path}")
    return True


def version_of(module) -> Optional[str]:
    return getattr(module, "__version__", None) if module is not None else None


def describe(libs: Libs, threads: int, sizes: Sizes, quick: bool) -> dict:
    meta = {"pytensor": version_of(libs.pytensor), "torch": version_of(libs.torch),
            "numpy": version_of(libs.np), "blis": libs.blis.path if libs.blis else None,
            "blis_version": libs.blis.version if libs.blis else None, "threads": threads,
            "quick": quick, "python": platform.python_version(), "machine": platform.machine(),
            "cpu": cpu_name(), "elements": sizes.elements}
    if libs.pytensor is not None:
        try:
            config = libs.pytensor._C._config()
            meta["pytensor_blis"] = config.get("blis")
            meta["pytensor_cpu_capability"] = config.get("cpu_capability")
        except Exception:  # an older build without the config table
            pass
    return meta


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# ---------------------------------------------------------------------------- main

def default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats (a smoke run)")
    ap.add_argument("--only", default="", metavar="NAME[,NAME]",
                    help=f"rows of these operators or groups: {', '.join(valid_names())}")
    ap.add_argument("--reps", type=int, default=None, help="best of N for every row")
    ap.add_argument("--threads", type=int, default=default_threads(),
                    help="threads for every library (default: all cores)")
    ap.add_argument("--libs", default=",".join(LIBS),
                    help=f"libraries to load (default: {','.join(LIBS)})")
    ap.add_argument("--png", metavar="PATH", help="write a chart of the ratios (needs matplotlib)")
    ap.add_argument("--json", metavar="PATH", help="write the raw numbers")
    args = ap.parse_args(argv)
    args.only = {s.strip() for s in args.only.split(",") if s.strip()}
    if bad := args.only - set(valid_names()):
        ap.error(f"--only: unknown {', '.join(sorted(bad))} (known: {', '.join(valid_names())})")
    args.libs = {s.strip() for s in args.libs.split(",") if s.strip()}
    if bad := args.libs - set(LIBS):
        ap.error(f"--libs: unknown {', '.join(sorted(bad))} (known: {', '.join(LIBS)})")
    if args.reps is not None and args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.threads < 1:
        ap.error("--threads must be at least 1")
    return args


def valid_names() -> list:
    return list(dict.fromkeys(GROUPS + MEMORY_OPS + ("sgemm",) + SMALL_OPS))


def run(args: argparse.Namespace, libs: Libs, log=print) -> dict:
    sizes = QUICK if args.quick else FULL
    meta = describe(libs, args.threads, sizes, args.quick)
    log(f"pytensor {meta['pytensor'] or 'n/a'} ({meta.get('pytensor_blis') or 'no BLIS'}; "
        f"{meta.get('pytensor_cpu_capability') or '?'}), torch {meta['torch'] or 'n/a'}, "
        f"numpy {meta['numpy'] or 'n/a'}; {meta['cpu']}")
    reps_text = f"best of {args.reps}" if args.reps else (
        f"best of {sizes.reps} (sgemm {sizes.gemm_reps}, 4096: 2)")
    log(f"times: {reps_text}, per call. Ratios are time ratios pytensor/torch and "
        "pytensor/numpy: < 1 means pytensor is faster.")
    if hasattr(os, "getloadavg"):
        load = os.getloadavg()[0]
        log(f"load average {load:.2f} on {default_threads()} cores"
            + (": other work is running, expect noisy times" if load >= 0.5 else ""))
    t0 = time.perf_counter()
    rows, group = [], None
    cases = (memory_cases(libs, sizes) + gemm_cases(libs, sizes) + small_cases(libs, sizes))
    chosen = selected(cases, args.only)
    for case in chosen:
        if case.group != group:
            group = case.group
            log(f"\n== {GROUP_TITLES[group]}")
            log(HEADER)
        row = run_case(case, libs, sizes, args.reps)
        annotate(row, rows, libs)
        rows.append(row)
        log(format_row(row))
        if row.op == "copy":
            log_copy_bandwidth(row, args.threads, log)
        if case.inputs is not None and case is last_of_inputs(chosen, case):
            case.inputs.cache.clear()  # free the 64 MB tensors before the next shape
    elapsed = time.perf_counter() - t0
    log(f"\n(total {elapsed:.1f} s)")
    result = {"meta": dict(meta, seconds=elapsed),
              "rows": [dict(asdict(r), throughput={lib: r.throughput(lib) for lib in LIBS},
                            ratio={lib: r.ratio(lib) for lib in LIBS if lib != "pytensor"})
                       for r in rows]}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=1)
        log(f"numbers written to {args.json}")
    if args.png:
        write_png(args.png, rows, meta, log)
    return result


def last_of_inputs(cases: list, case: Case) -> Case:
    return [c for c in cases if c.inputs is case.inputs][-1]


def log_copy_bandwidth(row: Row, threads: int, log) -> None:
    parts = []
    if row.throughput("numpy"):
        parts.append(f"NumPy copyto {fmt_thr(row.throughput('numpy'))} GB/s (1 thread)")
    if row.throughput("pytensor"):
        parts.append(f"pytensor copy_ {fmt_thr(row.throughput('pytensor'))} GB/s "
                     f"({threads} thread{'s' if threads > 1 else ''})")
    if parts:
        log(f"{'':<24}memcpy bandwidth of this run: {', '.join(parts)}; add/mul are read "
            "against the best copy")


def main(argv=None) -> dict:
    args = parse_args(argv)
    libs = load_libs(args.libs, args.threads, print)
    if libs.pytensor is None and "pytensor" in args.libs:
        print("pytensor is not importable: build it first (python3 tools/dev_build.py)")
    return run(args, libs)


if __name__ == "__main__":
    main()
