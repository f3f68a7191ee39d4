"""pytensor.nn.functional.local_response_norm: a NumPy reference (always) and torch (when
installed) for values, gradients and autograd's node names over 3-d to 5-d inputs, even and odd
window sizes, windows wider than the channels, non-contiguous and empty inputs; gradcheck in
float64; torch's message for inputs of fewer than 3 dims."""
import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(3)


def _reference(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(0, ch - size // 2), min(c, ch + (size - 1) // 2 + 1)
        div[:, ch] = sq[:, lo:hi].sum(axis=1) / size
    return x / (k + alpha * div) ** beta


SHAPES = [(2, 5, 7), (2, 6, 4, 5), (1, 4, 3, 4, 2), (3, 1, 4)]
ARGS = [(3, 1e-4, 0.75, 1.0), (2, 0.5, 0.5, 2.0), (8, 1.0, 1.0, 1.0), (1, 0.3, 0.9, 0.5)]


@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("args", ARGS, ids=[str(a[0]) for a in ARGS])
def test_matches_numpy(shape, args):
    x = RNG.standard_normal(shape)
    out = F.local_response_norm(pytensor.tensor(x), *args)
    np.testing.assert_allclose(out.numpy(), _reference(x, *args), rtol=1e-12, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("args", ARGS, ids=[str(a[0]) for a in ARGS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_torch(shape, args, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    g = RNG.standard_normal(shape).astype(dtype)
    p = pytensor.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    po, to = F.local_response_norm(p, *args), torch.nn.functional.local_response_norm(t, *args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert str(po.dtype) == str(to.dtype).replace("torch", "pytensor")
    np.testing.assert_allclose(po.detach().numpy(), to.detach().numpy(), rtol=tol, atol=tol)
    assert po.grad_fn.name() == type(to.grad_fn).__name__
    po.backward(pytensor.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=tol * 10, atol=tol * 10)


@requires_torch
def test_non_contiguous_matches_torch():
    x = RNG.standard_normal((2, 6, 5, 4))
    p = pytensor.tensor(x).permute(0, 1, 3, 2)
    t = torch.tensor(x).permute(0, 1, 3, 2)
    try:
        to = torch.nn.functional.local_response_norm(t, 3)
    except RuntimeError as e:  # torch's view may refuse the layout; so must ours
        with pytest.raises(RuntimeError):
            F.local_response_norm(p, 3)
        assert "view" in str(e)
        return
    np.testing.assert_allclose(F.local_response_norm(p, 3).numpy(), to.numpy(), rtol=1e-12,
                               atol=1e-12)


def test_non_contiguous_3d_matches_numpy():
    x = RNG.standard_normal((4, 5, 3))
    p = pytensor.tensor(x).transpose(0, 2)  # (3, 5, 4), non-contiguous
    np.testing.assert_allclose(F.local_response_norm(p, 3).numpy(),
                               _reference(x.transpose(2, 1, 0), 3, 1e-4, 0.75, 1.0),
                               rtol=1e-12, atol=1e-12)


def test_empty_input_is_returned():
    x = pytensor.zeros(0, 3, 4)
    assert F.local_response_norm(x, 2) is x


@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 4, 3, 3), (1, 3, 2, 3, 2)])
def test_gradcheck(shape):
    x = pytensor.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert pytensor.autograd.gradcheck(lambda t: F.local_response_norm(t, 3, 0.5, 0.75, 1.0),
                                       (x,))


@pytest.mark.parametrize("ndim", [1, 2])
def test_too_few_dims(ndim):
    with pytest.raises(ValueError) as info:
        F.local_response_norm(pytensor.ones(*([3] * ndim)), 2)
    assert str(info.value) == ("Expected 3D or higher dimensionality                          "
                               f"input (got {ndim} dimensions)")
