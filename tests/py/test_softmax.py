"""softmax and log_softmax against torch: every dim of 1- to 4-d tensors, strided and transposed
inputs, 0-d and empty ones, float16/bfloat16 (computed in float32), dtype=, torch's refusals,
out=, numerical stability with large and infinite values, rows that cross the thread split, meta
tensors, and agreement of every CPU capability with the default one."""
import numpy as np
import pytest

import pytensor as pt
from pytensor._C import lib

from _torch_oracle import requires_torch, torch
from test_unary import assert_same, to_pt, to_torch

pytestmark = requires_torch

FNS = ["softmax", "log_softmax"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 33), (2, 1, 4, 5)])
@pytest.mark.parametrize("fn", FNS)
def test_every_dim_matches_torch(fn, shape, dtype):
    x = (torch.randn(shape, dtype=torch.float64) * 5).to(getattr(torch, dtype))
    for dim in range(-len(shape), len(shape)):
        assert_same(getattr(torch, fn)(x, dim), getattr(pt, fn)(to_pt(x), dim))
        assert_same(getattr(torch, "_" + fn)(x, dim, False),
                    getattr(pt, "_" + fn)(to_pt(x), dim, False))


@pytest.mark.parametrize("fn", FNS)
def test_strided_inputs(fn):
    x = torch.randn(6, 10, 4)
    views = [lambda t: t.transpose(0, 2), lambda t: t[::2, 1::3],
             lambda t: t[:, :1].expand(6, 5, 4), lambda t: t.permute(2, 0, 1)]
    for view in views:
        tv, pv = view(x), view(to_pt(x))
        for dim in range(3):
            want = getattr(torch, fn)(tv, dim)
            got = getattr(pt, fn)(pv, dim)
            assert_same(want, got)
            assert got.is_contiguous()


@pytest.mark.parametrize("fn", FNS)
def test_zero_d_and_empty(fn):
    for x, dim in ((torch.tensor(3.0), 0), (torch.tensor(3.0), -1), (torch.empty(0, 4), 1),
                   (torch.empty(3, 0), 1), (torch.empty(3, 0), 0)):
        assert_same(getattr(torch, fn)(x, dim), getattr(pt, fn)(to_pt(x), dim))


@pytest.mark.parametrize("fn", FNS)
def test_stability_and_special_values(fn):
    x = torch.tensor([[1e4, 1e4 - 1, -1e4], [88.0, 89.0, 90.0], [-1e30, 0.0, 1e30],
                      [float("-inf"), 0.0, 1.0], [float("nan"), 0.0, 1.0],
                      [float("inf"), 0.0, 1.0], [float("-inf")] * 3])
    assert_same(getattr(torch, fn)(x, 1), getattr(pt, fn)(to_pt(x), 1))


@pytest.mark.parametrize("fn", FNS)
def test_dtype_argument_and_refusals(fn):
    xi = torch.arange(-3, 9).reshape(3, 4)
    assert_same(getattr(torch, fn)(xi, 1, dtype=torch.float64),
                getattr(pt, fn)(to_pt(xi), 1, dtype=pt.float64))
    x = torch.randn(3, 4)
    assert_same(getattr(torch, fn)(x, 0, dtype=torch.float16),
                getattr(pt, fn)(to_pt(x), 0, dtype=pt.float16))
    assert_same(getattr(x, fn)(1), getattr(to_pt(x), fn)(1))
    kname = "softmax_lastdim_kernel_impl" if fn == "softmax" else "log_softmax_lastdim_kernel_impl"
    with pytest.raises(NotImplementedError, match=f"\"{kname}\" not implemented for 'Long'"):
        getattr(pt, fn)(to_pt(xi), 1)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        getattr(pt, fn)(pt.tensor([1 + 1j]), 0)
    with pytest.raises(RuntimeError, match="with half to float conversion is not supported on CPU"):
        getattr(pt, "_" + fn)(to_pt(x).to(pt.float16), 0, True)
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(pt, fn)(to_pt(x), 2)


@pytest.mark.parametrize("fn", FNS)
def test_out(fn):
    x = torch.randn(5, 6)
    for out in (pt.empty(0), pt.empty(5, 6), pt.empty(6, 5).t()):
        r = getattr(pt, fn)(to_pt(x), 1, out=out)
        assert r is out
        assert_same(getattr(torch, fn)(x, 1), out)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        getattr(pt, fn)(to_pt(x), 1, out=pt.empty(5, 6, dtype=pt.float64))
    with pytest.raises(RuntimeError, match="does not match"):
        getattr(pt, fn)(to_pt(x), 1, out=pt.empty(2))


@pytest.mark.parametrize("fn", FNS)
def test_large_rows_and_threads(fn):
    x = torch.randn(70, 1031)
    before = pt.get_num_threads()
    try:
        pt.set_num_threads(1)
        one = getattr(pt, fn)(to_pt(x), 1).numpy().copy()
        pt.set_num_threads(2)
        two = getattr(pt, fn)(to_pt(x), 1).numpy().copy()
        col = getattr(pt, fn)(to_pt(x), 0)
    finally:
        pt.set_num_threads(before)
    assert np.array_equal(one, two)
    assert_same(getattr(torch, fn)(x, 1), pt.from_numpy(two))
    assert_same(getattr(torch, fn)(x, 0), col)


def test_meta():
    m = pt.empty(3, 4, device="meta")
    r = pt.softmax(m, 1)
    assert r.device.type == "meta" and r.shape == (3, 4) and r.dtype == pt.float32
    assert pt.log_softmax(m, 0, dtype=pt.float64).dtype == pt.float64


@pytest.mark.capability_independent  # selects every capability itself
def test_every_capability_matches_the_default():
    """AVX2 and AVX-512 give the same bits; the default kernels' exp is the portable one, without
    FMAs (Note [vector exp]), so their results agree within a few float32 ulp."""
    x = to_pt(torch.randn(9, 1000))
    detected = lib.pt_cpu_capability_detected()
    results = []
    try:
        for cap in range(detected + 1):
            assert lib.pt_cpu_capability_select(cap) == 0
            results.append([getattr(pt, fn)(x[:, 1:], d).numpy().tobytes()
                            for fn in FNS for d in (0, 1)])
    finally:
        lib.pt_cpu_capability_select(lib.pt_cpu_capability())  # the capability in use at start-up
    for r in results[2:]:
        assert r == results[1]
    for r in results[1:]:
        for got, want in zip(r, results[0]):
            a, b = np.frombuffer(got, np.float32), np.frombuffer(want, np.float32)
            np.testing.assert_allclose(a, b, rtol=8 * 2.0 ** -24, atol=8 * 2.0 ** -24)
