"""pytensor.nn.functional.linear: values against NumPy and torch, the nodes torch records
(AddmmBackward0 for 2-d input, ViewBackward0 over addmm for contiguous inputs of 3+ dims, matmul
and AddBackward0 otherwise), gradcheck, and the shape message."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(5)


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def test_linear_matches_numpy():
    x, w, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 4)), RNG.standard_normal(5)
    y = F.linear(pytensor.tensor(x), pytensor.tensor(w), pytensor.tensor(b))
    np.testing.assert_allclose(_np(y), x @ w.T + b, rtol=1e-12)
    y = F.linear(pytensor.tensor(x[0, 0]), pytensor.tensor(w))
    np.testing.assert_allclose(_np(y), x[0, 0] @ w.T, rtol=1e-12)


def test_linear_gradcheck():
    w = pytensor.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    b = pytensor.tensor(RNG.standard_normal(3), requires_grad=True)
    for shape in ((2, 4), (2, 2, 4), (4,)):
        x = pytensor.tensor(RNG.standard_normal(shape), requires_grad=True)
        assert pytensor.autograd.gradcheck(F.linear, (x, w, b))
    xt = pytensor.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    assert pytensor.autograd.gradcheck(lambda x, w: F.linear(x.transpose(0, 1), w), (xt, w))


def test_linear_message():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied"):
        F.linear(pytensor.ones(3, 4), pytensor.ones(5, 3), pytensor.ones(5))


@requires_torch
@pytest.mark.parametrize("case", ["2d", "3d", "4d", "noncontig", "nobias"])
def test_linear_matches_torch(case):
    x = RNG.standard_normal((2, 3, 4, 6)).astype(np.float32)
    w, b = RNG.standard_normal((5, 6)).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    pick = {"2d": lambda t: t[0, 0], "3d": lambda t: t[0], "4d": lambda t: t,
            "noncontig": lambda t: t[0].transpose(0, 1), "nobias": lambda t: t[0]}[case]
    px, pw, pb = (pytensor.tensor(a, requires_grad=True) for a in (x, w, b))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    py = F.linear(pick(px), pw, None if case == "nobias" else pb)
    ty = torch.nn.functional.linear(pick(tx), tw, None if case == "nobias" else tb)
    if case != "nobias":
        assert py.grad_fn.name() == type(ty.grad_fn).__name__
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=1e-5, atol=1e-5)
    g = RNG.standard_normal(tuple(ty.shape)).astype(np.float32)
    py.backward(pytensor.tensor(g))
    ty.backward(torch.tensor(g))
    for p, t in ((px, tx), (pw, tw)):
        np.testing.assert_allclose(_np(p.grad), t.grad.double().numpy(), rtol=1e-4, atol=1e-4)
