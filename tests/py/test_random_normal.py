"""normal_ and what draws through it (randn, randn_like, normal, complex and 16-bit dtypes): the
values against Box-Muller computed by NumPy from the Philox words, the element-to-block layout
(4 float32 or 2 float64 normals per block), the distribution (moments, tails, Kolmogorov-Smirnov
against the normal CDF and, where torch is installed, against torch.randn's samples), and the
same numbers for one seed under every CPU capability and thread count."""
import hashlib
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import pytensor
from pytensor._C import ffi, lib

from _torch_oracle import requires_torch, torch

FLOATS = [pytensor.float16, pytensor.bfloat16, pytensor.float32, pytensor.float64]


def gen(seed=0):
    return pytensor.Generator().manual_seed(seed)


def words(seed, blocks):
    """The four words of each Philox block in `blocks`, as a (len, 4) uint32 array."""
    out = np.empty((len(blocks), 4), dtype=np.uint32)
    ctr, key, w = ffi.new("uint32_t[4]"), ffi.new("uint32_t[2]"), ffi.new("uint32_t[4]")
    key[0], key[1] = seed & 0xFFFFFFFF, seed >> 32
    for i, b in enumerate(blocks):
        ctr[0], ctr[1], ctr[2], ctr[3] = b & 0xFFFFFFFF, b >> 32, 0, 0
        lib.pt_philox4x32_10(ctr, key, w)
        out[i] = list(w)
    return out


def box_muller(u1, u2):
    r = np.sqrt(-2.0 * np.log(u1))
    return r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)


def normal_cdf(x):
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


# ---------------------------------------------------------------- values and layout
def test_float32_elements_are_the_four_normals_of_block_i_over_4():
    n, seed, offset = 1001, 123, 17
    g = gen(seed)
    g.set_offset(offset)
    got = pytensor.empty(n).normal_(generator=g).numpy().astype(np.float64)
    assert g.get_offset() == offset + (n + 3) // 4
    w = words(seed, range(offset, offset + (n + 3) // 4)).astype(np.float64)
    u = np.floor(w / 256.0) * 2.0 ** -24  # the top 24 bits of each word
    c01, s01 = box_muller(1.0 - u[:, 0], u[:, 1])
    c23, s23 = box_muller(1.0 - u[:, 2], u[:, 3])
    want = np.stack([c01, s01, c23, s23], axis=1).reshape(-1)[:n]
    # float32 arithmetic: a few float32 ulp of the value, or of 1 for small values
    np.testing.assert_allclose(got, want, rtol=3e-7, atol=3e-7)


def test_float64_elements_are_the_two_normals_of_block_i_over_2():
    n, seed = 501, 2 ** 40 + 5
    g = gen(seed)
    got = pytensor.empty(n, dtype=pytensor.float64).normal_(generator=g).numpy()
    assert g.get_offset() == (n + 1) // 2
    w = words(seed, range((n + 1) // 2)).astype(np.uint64)
    def u53(hi, lo):
        return ((hi << np.uint64(32) | lo) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53

    u1, u2 = 1.0 - u53(w[:, 0], w[:, 1]), u53(w[:, 2], w[:, 3])
    c, s = box_muller(u1, u2)
    want = np.stack([c, s], axis=1).reshape(-1)[:n]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64], ids=str)
def test_an_element_depends_only_on_its_index(dtype):
    full = pytensor.randn(300, dtype=dtype, generator=gen(9)).tolist()
    for m in (1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 129):
        assert pytensor.randn(m, dtype=dtype, generator=gen(9)).tolist() == full[:m]


@pytest.mark.parametrize("dtype,per_block", [(pytensor.float32, 4), (pytensor.float64, 2)],
                         ids=["float32", "float64"])
def test_consecutive_calls_start_at_the_next_unused_block(dtype, per_block):
    g = gen(31)
    a = pytensor.randn(10, dtype=dtype, generator=g).tolist()
    b = pytensor.randn(7, dtype=dtype, generator=g).tolist()
    assert g.get_offset() == -(-10 // per_block) + -(-7 // per_block)
    whole = pytensor.randn(40, dtype=dtype, generator=gen(31)).tolist()
    start = -(-10 // per_block) * per_block  # the rest of the last block of `a` is left unused
    assert a == whole[:10] and b == whole[start:start + 7]


def test_mean_and_std_are_applied_in_the_output_precision():
    z = pytensor.randn(1000, generator=gen(4)).numpy()
    got = pytensor.empty(1000).normal_(0.3, 2.5, generator=gen(4)).numpy()
    np.testing.assert_array_equal(got, np.float32(0.3) + np.float32(2.5) * z)
    z64 = pytensor.randn(1000, dtype=pytensor.float64, generator=gen(4)).numpy()
    got64 = pytensor.empty(1000, dtype=pytensor.float64).normal_(-1.5, 0.5, generator=gen(4))
    np.testing.assert_array_equal(got64.numpy(), -1.5 + 0.5 * z64)
    assert pytensor.empty(100).normal_(4.25, 0.0).tolist() == [4.25] * 100


@pytest.mark.parametrize("dtype", [pytensor.float16, pytensor.bfloat16], ids=str)
def test_16_bit_dtypes_round_the_float32_values(dtype):
    want = pytensor.randn(333, generator=gen(6)).to(dtype)
    got = pytensor.randn(333, dtype=dtype, generator=gen(6))
    assert got.dtype is dtype and got.float().tolist() == want.float().tolist()


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64], ids=str)
def test_strided_views_get_the_values_of_their_row_major_order(dtype):
    base = pytensor.zeros(50, 30, dtype=dtype)
    view = base.t()[:, 1:49:2]  # 30 x 24, strided both ways
    view.normal_(generator=gen(8))
    want = pytensor.randn(30 * 24, dtype=dtype, generator=gen(8)).reshape(30, 24)
    assert view.tolist() == want.tolist()
    untouched = base.numpy().copy()
    untouched[1:49:2, :] = 0
    assert not untouched.any()


def test_randn_like_and_normal_overloads_draw_from_the_same_stream():
    x = pytensor.empty(7, 9, dtype=pytensor.float64)
    assert pytensor.randn_like(x, generator=gen(12)).tolist() == \
        pytensor.randn(7, 9, dtype=pytensor.float64, generator=gen(12)).tolist()
    mean = pytensor.arange(12, dtype=pytensor.float32)
    std = pytensor.full((12,), 0.5)
    got = pytensor.normal(mean, std, generator=gen(13)).numpy()
    z = pytensor.randn(12, generator=gen(13)).numpy()
    np.testing.assert_array_equal(got, z * np.float32(0.5) + mean.numpy())


# ---------------------------------------------------------------- the distribution
@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64], ids=str)
def test_moments_and_tails_are_the_standard_normals(dtype):
    n = 2_000_000
    v = pytensor.randn(n, dtype=dtype, generator=gen(21)).numpy().astype(np.float64)
    se = 1.0 / math.sqrt(n)
    assert abs(v.mean()) < 5 * se
    assert abs(v.var() - 1.0) < 5 * math.sqrt(2.0) * se
    assert abs(np.mean(v ** 3)) < 5 * math.sqrt(15.0) * se  # skewness 0
    assert abs(np.mean(v ** 4) - 3.0) < 5 * math.sqrt(96.0) * se  # kurtosis 3
    for k, p in ((1, 0.31731050786291415), (2, 0.04550026389635842), (3, 0.0026997960632601866),
                 (4, 6.334248366623996e-05)):
        frac = np.mean(np.abs(v) > k)
        assert abs(frac - p) < 5 * math.sqrt(p * (1 - p) / n), k


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64], ids=str)
def test_kolmogorov_smirnov_against_the_normal_cdf(dtype):
    n = 200_000
    v = np.sort(pytensor.randn(n, dtype=dtype, generator=gen(22)).numpy().astype(np.float64))
    cdf = normal_cdf(v)
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    assert d < 1.63 / math.sqrt(n)  # the 1% critical value


def test_the_cosine_and_sine_normals_of_a_pair_are_uncorrelated():
    v = pytensor.randn(4 * 250_000, dtype=pytensor.float32, generator=gen(23)).numpy()
    lanes = v.reshape(-1, 4).astype(np.float64)
    for i in range(4):
        assert abs(lanes[:, i].mean()) < 0.01 and abs(lanes[:, i].std() - 1.0) < 0.01
        for j in range(i + 1, 4):
            assert abs(np.corrcoef(lanes[:, i], lanes[:, j])[0, 1]) < 0.01
    # r^2 = z0^2 + z1^2 of a pair is exponential with mean 2 (chi-square with 2 degrees)
    r2 = lanes[:, 0] ** 2 + lanes[:, 1] ** 2
    assert abs(r2.mean() - 2.0) < 0.02 and abs(np.mean(r2 > 2.0) - math.exp(-1.0)) < 0.005


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_two_sample_kolmogorov_smirnov_against_torch_randn(dtype):
    n = 200_000
    torch.manual_seed(0)
    a = np.sort(pytensor.randn(n, dtype=getattr(pytensor, dtype), generator=gen(24)).numpy())
    b = np.sort(torch.randn(n, dtype=getattr(torch, dtype)).numpy())
    grid = np.concatenate([a, b])
    d = np.max(np.abs(np.searchsorted(a, grid, side="right") / n -
                      np.searchsorted(b, grid, side="right") / n))
    assert d < 1.63 * math.sqrt(2.0 / n)


def test_log_normal_and_complex_normal_still_follow_their_distributions():
    v = pytensor.empty(400_000, dtype=pytensor.float64).log_normal_(0.5, 0.25, generator=gen(25))
    logs = np.log(v.numpy())
    assert abs(logs.mean() - 0.5) < 0.005 and abs(logs.std() - 0.25) < 0.005
    c = pytensor.randn(300_000, dtype=pytensor.complex64, generator=gen(26)).numpy()
    assert abs(np.mean(np.abs(c) ** 2) - 1.0) < 0.01
    assert abs(np.mean(c.real * c.imag)) < 0.01


# ---------------------------------------------------------------- capabilities and threads
_SCRIPT = """
import hashlib, pytensor
def g(s): return pytensor.Generator().manual_seed(s)
A = pytensor.ops.aten
x = pytensor.rand(70_001, generator=g(1))
parts = [pytensor.randn(n, dtype=d, generator=g(n))
         for n in (1, 3, 5, 64, 65, 1000, 200_003)
         for d in (pytensor.float32, pytensor.float64, pytensor.float16, pytensor.bfloat16)]
parts.append(pytensor.empty(700, 300, dtype=pytensor.float64).t().normal_(1.0, 2.0, generator=g(2)))
parts.append(pytensor.empty(150_001).normal_(-3.0, 0.5, generator=g(3)))
parts.append(pytensor.randn_like(x, generator=g(4)))
parts.append(A.normal(x, x, generator=g(5)))
parts.append(pytensor.empty(90_000, dtype=pytensor.float64).log_normal_(generator=g(6)))
parts.append(pytensor.randn(80_001, dtype=pytensor.complex64, generator=g(7)))
exact = [p.float() if p.dtype is pytensor.bfloat16 else p for p in parts]
print(hashlib.sha256(b"".join(p.numpy().tobytes() for p in exact)).hexdigest())
"""


def _digest(capability: str, threads: str) -> str:
    # The child imports the pytensor this process imported (installed or built in place).
    home = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))
    env = dict(os.environ, OMP_NUM_THREADS=threads, PYTENSOR_CPU_CAPABILITY=capability,
               PYTHONPATH=home + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-P", "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.capability_independent  # starts a child per capability itself
def test_one_seed_gives_the_same_numbers_under_every_capability_and_thread_count():
    names = [ffi.string(lib.pt_cpu_capability_name(c)).decode()
             for c in range(lib.pt_cpu_capability_detected() + 1)]
    digests = {(cap, threads): _digest(cap, threads) for cap in names for threads in ("1", "2")}
    assert len(set(digests.values())) == 1, digests


@pytest.mark.capability_independent  # selects every capability itself
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_switching_capabilities_in_process_keeps_the_bits(dtype):
    in_use = lib.pt_cpu_capability()
    try:
        results = []
        for cap in range(lib.pt_cpu_capability_detected() + 1):
            assert lib.pt_cpu_capability_select(cap) == 0
            t = pytensor.randn(4099, dtype=dtype, generator=gen(27))
            exact = t if dtype in (pytensor.float32, pytensor.float64) else t.float()
            results.append(exact.numpy().tobytes())
    finally:
        assert lib.pt_cpu_capability_select(in_use) == 0
    assert len(set(results)) == 1
