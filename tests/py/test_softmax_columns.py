"""softmax and log_softmax along a dim that is not the last of a contiguous tensor, which the
kernels take by columns (Note [softmax across columns]): forward and the backward operators
against NumPy in float64 (these run without torch) and against torch, with inner sizes around the
column block (1, 63, 64, 65, 200), special values inside a column, and the same bits at every
thread count."""
import numpy as np
import pytest

import pytensor as pt
from _torch_oracle import requires_torch, torch

SHAPES = [((4, 7, 63), 1), ((2, 5, 64), 1), ((3, 6, 65), 1), ((2, 3, 200), 1),
          ((3, 21, 8, 8), 1), ((9, 130), 0), ((2, 4, 3, 5), 2), ((5, 1, 70), 1)]
TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-13)}


def np_softmax(x, dim, log):
    m = x.max(axis=dim, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=dim, keepdims=True)
    return (x - m) - np.log(s) if log else e / s


def np_backward(g, y, dim, log):
    if log:
        return g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    return y * (g - (g * y).sum(axis=dim, keepdims=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_forward_and_backward_match_numpy(shape, dim, dtype, log):
    rng = np.random.default_rng(sum(shape) + dim)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    fn = pt.log_softmax if log else pt.softmax
    y = fn(pt.from_numpy(x), dim)
    want = np_softmax(x.astype(np.float64), dim, log)
    np.testing.assert_allclose(y.numpy(), want, **TOL[dtype])
    back = pt._log_softmax_backward_data if log else pt._softmax_backward_data
    gi = back(pt.from_numpy(g), y, dim, getattr(pt, dtype))
    np.testing.assert_allclose(gi.numpy(), np_backward(g.astype(np.float64), y.numpy().astype(
        np.float64), dim, log), **TOL[dtype])


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_autograd_through_a_middle_dim(log):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 70))
    g = rng.standard_normal((2, 5, 70))
    t = pt.from_numpy(x).requires_grad_()
    (pt.log_softmax if log else pt.softmax)(t, 1).backward(pt.from_numpy(g))
    y = np_softmax(x, 1, log)
    np.testing.assert_allclose(t.grad.numpy(), np_backward(g, y, 1, log), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_special_values_stay_in_their_column(log):
    x = np.zeros((2, 4, 67), dtype=np.float32)
    x[0, :, 3] = [np.inf, 0, 1, 2]           # an infinite maximum: nan column
    x[0, 1, 10] = np.nan                     # a nan: nan column
    x[1, :, 20] = -np.inf                    # every value -inf: nan column
    x[1, 0, 30], x[1, 1, 30] = -np.inf, 5.0  # one -inf among finite values
    x[1, :, 40] = [1e4, 1e4 - 1, -1e4, 0]    # large values
    got = (pt.log_softmax if log else pt.softmax)(pt.from_numpy(x), 1).numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np_softmax(x.astype(np.float64), 1, log)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, equal_nan=True)
    nan_cols = np.isnan(got).any(axis=1)
    assert nan_cols[0, 3] and nan_cols[0, 10] and nan_cols[1, 20]
    assert nan_cols.sum() == 3  # no other column touched


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_same_bits_at_every_thread_count(log):
    x = pt.from_numpy(np.random.default_rng(5).standard_normal((16, 21, 40, 40)).astype(np.float32))
    g = pt.from_numpy(np.random.default_rng(6).standard_normal((16, 21, 40, 40)).astype(np.float32))
    fn = pt.log_softmax if log else pt.softmax
    back = pt._log_softmax_backward_data if log else pt._softmax_backward_data
    before = pt.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            pt.set_num_threads(n)
            y = fn(x, 1)
            results.append((y.numpy().copy(), back(g, y, 1, pt.float32).numpy().copy()))
    finally:
        pt.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_forward_and_gradient_match_torch(shape, dim, dtype, log):
    x = torch.randn(shape, dtype=getattr(torch, dtype)) * 3
    g = torch.randn(shape, dtype=getattr(torch, dtype))
    name = "log_softmax" if log else "softmax"
    tx = x.clone().requires_grad_()
    ty = getattr(torch, name)(tx, dim)
    ty.backward(g)
    px = pt.from_numpy(x.numpy()).requires_grad_()
    py = getattr(pt, name)(px, dim)
    py.backward(pt.from_numpy(g.numpy()))
    np.testing.assert_allclose(py.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), **TOL[dtype])
