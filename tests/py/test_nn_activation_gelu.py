"""gelu's float32 erf (vec_math.h pt_verff_fast, float arithmetic in full-width lanes): the forward
and the backward of gelu(approximate='none') in float32 against float64 references computed with
math.erf, over a dense grid of arguments (every float32 in [-4, 4] with a stride, large |x|, tiny
x, +-0, +-inf, nan). The erf inside is within 1.5 ulp of erf (Note in vec_math.h); gelu inherits
0.5 |x| times that as an absolute error, plus its own roundings."""
import math

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F

from _torch_oracle import requires_torch, torch

SQRT1_2 = 1 / math.sqrt(2)
EPS = 2.0 ** -23  # float32's ulp at 1


def _dense_grid():
    # every 97th float32 bit pattern in [0, 4] (about 11 million), both signs
    bits = np.arange(0, np.float32(4.0).view(np.uint32) + 1, 97, dtype=np.uint32)
    pos = bits.view(np.float32)
    extra = np.array([1e-45, 1e-38, 1e-30, 1e-10, 1e-7, 0.921875, 0.92187494, 3.925, 3.9250002,
                      4.0, 5.0, 10.0, 26.0, 1e10, 1e30, 3.4e38], dtype=np.float32)
    return np.concatenate([pos, -pos, extra, -extra])


def _erf64(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _gelu_ref(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + _erf64(x * SQRT1_2))


def _gelu_grad_ref(x):
    x = x.astype(np.float64)
    return 0.5 * (1 + _erf64(x * SQRT1_2)) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _ulp32(y):
    a = np.abs(y).astype(np.float32)
    return (np.nextafter(a, np.float32(np.inf)) - a).astype(np.float64)


@pytest.fixture(scope="module")
def grid():
    return _dense_grid()


def test_gelu_forward_float32_error_bound(grid):
    y = F.gelu(pytensor.from_numpy(grid)).numpy().astype(np.float64)
    ref = _gelu_ref(grid)
    # erf's 1.5 ulp (of a value below 1) scaled by 0.5 |x|, and the result's roundings
    bound = 0.5 * np.abs(grid) * 1.5 * EPS + 2 * _ulp32(ref)
    err = np.abs(y - ref)
    worst = np.argmax(err / bound)
    assert np.all(err <= bound), (grid[worst], y[worst], ref[worst])
    # where gelu is x * Phi(x) with Phi near 1 (x >= 0) the result is within 2 ulp of it
    pos = grid >= 0
    assert np.all(err[pos] <= 2 * _ulp32(ref[pos]) + 1e-45)


def test_gelu_backward_float32_error_bound(grid):
    x = pytensor.from_numpy(grid).requires_grad_()
    F.gelu(x).backward(pytensor.ones(grid.shape[0]))
    g = x.grad.numpy().astype(np.float64)
    ref = _gelu_grad_ref(grid)
    bound = 3 * EPS * (1 + np.abs(grid) * np.exp(-0.5 * grid.astype(np.float64) ** 2)) + 1e-44
    err = np.abs(g - ref)
    worst = np.argmax(err / bound)
    assert np.all(err <= bound), (grid[worst], g[worst], ref[worst])


def test_gelu_float32_special_values():
    x = np.array([0.0, -0.0, np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38], dtype=np.float32)
    y = F.gelu(pytensor.from_numpy(x)).numpy()
    assert y[0] == 0 and y[1] == 0 and np.signbit(y[1])
    assert y[2] == np.inf and np.isnan(y[3])
    assert y[4] == np.float32(0.0) or abs(y[4]) <= 1e-45  # 0.5 * 1e-45 rounds to 0 or the least
    assert y[6] == np.float32(3.4e38) and y[7] == 0
    xt = pytensor.from_numpy(x).requires_grad_()
    F.gelu(xt).backward(pytensor.ones(8))
    gr = xt.grad.numpy()
    assert gr[0] == 0.5 and gr[1] == 0.5 and np.isnan(gr[3])
    assert gr[6] == 1.0 and gr[7] == 0.0


def test_gelu_float32_matches_float64_on_tensor_shapes():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((64, 257)) * 3).astype(np.float32)
    y32 = F.gelu(pytensor.from_numpy(x)).numpy()
    y64 = F.gelu(pytensor.from_numpy(x.astype(np.float64))).numpy()
    np.testing.assert_allclose(y32, y64, rtol=4e-7, atol=4e-7)
    # strided (non-contiguous) input takes the strided loop: same values
    ys = F.gelu(pytensor.from_numpy(x).t()).numpy()
    np.testing.assert_array_equal(ys, y32.T)


@requires_torch
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_close_to_torch(approximate):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((32, 512)) * 4).astype(np.float32)
    g = rng.standard_normal((32, 512)).astype(np.float32)
    xp = pytensor.from_numpy(x).requires_grad_()
    F.gelu(xp, approximate=approximate).backward(pytensor.from_numpy(g))
    xt = torch.from_numpy(x).requires_grad_()
    torch.nn.functional.gelu(xt, approximate=approximate).backward(torch.from_numpy(g))
    np.testing.assert_allclose(F.gelu(pytensor.from_numpy(x), approximate=approximate).numpy(),
                               torch.nn.functional.gelu(torch.from_numpy(x),
                                                        approximate=approximate).numpy(),
                               rtol=1e-6, atol=1e-6)
    # the tanh form cancels in 1 - t * t for large |x|: absolute agreement there
    np.testing.assert_allclose(xp.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5)
