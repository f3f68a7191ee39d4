"""The CPU kernel machinery seen from Python: the kernel stubs chosen at start-up (the "cpu kernels"
phase), switching capabilities, the thread controls, and results that do not depend on either.
Operator families test their own ops under every capability in their own files; this file checks
the machinery with add, sub and mul."""
import os
import subprocess
import sys

import pytest

import pytensor
from pytensor._C import ffi, lib

DETECTED = lib.pt_cpu_capability_detected()
CAPABILITIES = list(range(DETECTED + 1))
NAMES = {0: "default", 1: "avx2", 2: "avx512"}


def _stubs() -> dict:
    out = {}
    name, cap = ffi.new("const char **"), ffi.new("int32_t *")
    for i in range(lib.pt_cpu_stub_count()):
        assert lib.pt_cpu_stub_info(i, name, cap) == 0
        out[ffi.string(name[0]).decode()] = cap[0]
    return out


@pytest.fixture
def restore_capability():
    yield
    assert lib.pt_cpu_capability_select(lib.pt_cpu_capability()) == 0


def test_the_init_report_lists_every_stub_with_its_capability():
    phases = {p["name"]: p for p in pytensor._C._init_report()["phases"]}
    stubs = _stubs()
    assert "binary" in stubs
    detail = phases["cpu kernels"]["detail"]
    for name, cap in stubs.items():
        assert f"{name}: {NAMES[cap]}" in detail
    assert phases["cpu kernels"]["count"] == len(stubs)


def test_stubs_use_the_capability_in_use_at_start_up():
    in_use = lib.pt_cpu_capability()
    assert all(cap <= in_use for cap in _stubs().values())


def test_the_environment_lowers_the_capability_of_every_stub():
    code = ("import pytensor; from pytensor._C import lib, ffi\n"
            "n, c = ffi.new('const char **'), ffi.new('int32_t *')\n"
            "caps = [lib.pt_cpu_stub_info(i, n, c) or c[0] for i in range(lib.pt_cpu_stub_count())]\n"
            "print(lib.pt_cpu_capability(), max(caps))")
    env = dict(os.environ, PYTENSOR_CPU_CAPABILITY="default")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "0"]


def test_selecting_a_capability_above_the_cpu_fails(restore_capability):
    with pytest.raises(ValueError, match="is not available"):
        pytensor._C._check(lib.pt_cpu_capability_select(DETECTED + 1))
    with pytest.raises(ValueError, match="is not available"):
        pytensor._C._check(lib.pt_cpu_capability_select(-1))


DTYPES = [pytensor.bool, pytensor.uint8, pytensor.int8, pytensor.int16, pytensor.int32,
          pytensor.int64, pytensor.float16, pytensor.bfloat16, pytensor.float32, pytensor.float64,
          pytensor.complex64, pytensor.complex128]


def _operands(dtype, n):
    g = pytensor.Generator().manual_seed(n)
    if dtype == pytensor.bool:
        return (pytensor.randint(0, 2, (n,), generator=g).to(pytensor.bool),
                pytensor.randint(0, 2, (n,), generator=g).to(pytensor.bool))
    if dtype.is_floating_point or dtype.is_complex:
        a = pytensor.randn(n, generator=g, dtype=pytensor.float64) * 100
        b = pytensor.randn(n, generator=g, dtype=pytensor.float64) * 100
        return a.to(dtype), b.to(dtype)
    a = pytensor.randint(-100, 100, (n,), generator=g, dtype=pytensor.int64)
    b = pytensor.randint(-100, 100, (n,), generator=g, dtype=pytensor.int64)
    return a.to(dtype), b.to(dtype)


def _bits(t):
    # bfloat16 -> float32 is exact, so the float32 bytes stand for the bfloat16 ones.
    return (t.to(pytensor.float32) if t.dtype == pytensor.bfloat16 else t).numpy().tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 7, 1000, 70001])
def test_every_capability_computes_the_same_bits(dtype, n, restore_capability):
    a, b = _operands(dtype, n)
    alpha = True if dtype == pytensor.bool else (3 if not (dtype.is_floating_point or dtype.is_complex) else 0.75)
    results = {}
    for cap in CAPABILITIES:
        assert lib.pt_cpu_capability_select(cap) == 0
        m = n // 2
        outs = [a + b, a * b, pytensor.add(a, b, alpha=alpha), a[0:2 * m:2] * b[1:2 * m:2],
                a.reshape(1, n) + b[:1]]
        if dtype != pytensor.bool:
            outs += [a - b, pytensor.sub(a, b, alpha=alpha)]
        results[cap] = [_bits(o) for o in outs]
    for cap in CAPABILITIES[1:]:
        assert results[cap] == results[0], f"{NAMES[cap]} differs from default for {dtype}"


def test_num_threads_round_trips_and_refuses_bad_values():
    saved = pytensor.get_num_threads()
    try:
        pytensor.set_num_threads(1)
        assert pytensor.get_num_threads() == 1
        pytensor.set_num_threads(3)
        assert pytensor.get_num_threads() == (3 if pytensor.has_openmp else 1)
        with pytest.raises(RuntimeError, match="positive integer, got 0"):
            pytensor.set_num_threads(0)
        with pytest.raises(RuntimeError, match="positive integer, got -2"):
            pytensor.set_num_threads(-2)
        with pytest.raises(TypeError, match="must be int, not float"):
            pytensor.set_num_threads(2.0)
        with pytest.raises(TypeError, match="must be int, not bool"):
            pytensor.set_num_threads(True)
        with pytest.raises(RuntimeError, match="positive integer"):
            pytensor.set_num_threads(1 << 40)
    finally:
        pytensor.set_num_threads(saved)
    assert pytensor.get_num_threads() == saved


@pytest.mark.parametrize("shape", [(300_000,), (513, 777), (3, 70_001)])
def test_results_do_not_depend_on_the_thread_count(shape):
    saved = pytensor.get_num_threads()
    g = pytensor.Generator().manual_seed(5)
    a = pytensor.randn(*shape, generator=g)
    b = pytensor.randn(shape[-1], generator=g, dtype=pytensor.float16)
    outs = []
    try:
        for threads in (1, 2, 5):
            pytensor.set_num_threads(threads)
            outs.append([(a + b).numpy().tobytes(), (a.t() * 3).numpy().tobytes(),
                         pytensor.add(a, b, alpha=0.5).numpy().tobytes()])
    finally:
        pytensor.set_num_threads(saved)
    assert outs[0] == outs[1] == outs[2]
