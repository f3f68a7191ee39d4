"""The losses in float16 and bfloat16: computed in float32 and returned in the input's dtype, as
torch's CPU kernels do. Each is checked against the same loss computed from the float32 copy of
its operands (runs without torch), against torch (values, gradients, dtypes), and the losses whose
torch kernels refuse the reduced types refuse them with torch's message.
"""
import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F

from _torch_oracle import requires_torch, torch

# kl_div's 'mean' warns that it will become 'batchmean' (torch's warning, checked in test_nn_loss)
pytestmark = pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")

HALF = ["float16", "bfloat16"]
RED = ["none", "mean", "sum"]
# a relative tolerance a few units of the last place of each dtype
TOL = {"float16": 4e-3, "bfloat16": 3e-2}

RNG = np.random.default_rng(0)
X = RNG.random((4, 3)) * 0.8 + 0.1
Y = RNG.random((4, 3)) * 0.8 + 0.1
SGN = np.sign(RNG.standard_normal((4, 3)))
W3 = RNG.random(3) + 0.5
T = np.array([0, 2, 1, 1])


def _cases(m):
    """name -> f(module, functional, x, y, cast) computing the loss; cast makes a tensor of x's
    dtype from NumPy."""
    return {
        "mse": lambda F, x, y, c: F.mse_loss(x, y, reduction=m),
        "l1": lambda F, x, y, c: F.l1_loss(x, y, reduction=m),
        "smooth_l1": lambda F, x, y, c: F.smooth_l1_loss(x, y, reduction=m, beta=0.3),
        "huber": lambda F, x, y, c: F.huber_loss(x, y, reduction=m, delta=0.4),
        "soft_margin": lambda F, x, y, c: F.soft_margin_loss(x, c(SGN), reduction=m),
        "bce": lambda F, x, y, c: F.binary_cross_entropy(x, y, reduction=m),
        "bce_weight": lambda F, x, y, c: F.binary_cross_entropy(x, y, c(W3), reduction=m),
        "bce_logits": lambda F, x, y, c: F.binary_cross_entropy_with_logits(
            x, y, pos_weight=c(W3), reduction=m),
        "nll": lambda F, x, y, c: F.nll_loss(x.log(), c(T, "int64"), reduction=m),
        "nll_weight": lambda F, x, y, c: F.nll_loss(x.log(), c(T, "int64"), c(W3), reduction=m),
        "nll2d": lambda F, x, y, c: F.nll_loss(x.log().reshape(1, 4, 3, 1),
                                               c(T[None, :3, None], "int64"), reduction=m),
        "cross_entropy": lambda F, x, y, c: F.cross_entropy(x, c(T, "int64"), reduction=m),
        "cross_entropy_smooth": lambda F, x, y, c: F.cross_entropy(
            x, c(T, "int64"), reduction=m, label_smoothing=0.1),
        "kl_div": lambda F, x, y, c: F.kl_div(x.log(), y, reduction=m),
    }


def _pt_cast(dtype):
    def c(a, dt=None):
        return pt.from_numpy(np.array(a, dtype=dt or "float32")).clone().to(
            getattr(pt, dt or dtype))
    return c


def _run_pt(fn, dtype, grad_dtype=None):
    x = pt.from_numpy(np.array(X, dtype="float32")).to(getattr(pt, dtype)).requires_grad_()
    y = pt.from_numpy(np.array(Y, dtype="float32")).to(getattr(pt, dtype))
    out = fn(F, x, y, _pt_cast(dtype))
    out.sum().backward()
    return out, x.grad


def _np(t):
    return np.array(t.detach().to(pt.float64).numpy())


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", sorted(_cases("none")))
def test_reduced_dtype_matches_float32(name, dtype, reduction):
    fn = _cases(reduction)[name]
    out, grad = _run_pt(fn, dtype)
    assert out.dtype == getattr(pt, dtype) and grad.dtype == getattr(pt, dtype)
    # the float32 reference from the same (rounded) operands
    x32 = pt.from_numpy(np.array(X, dtype="float32")).to(getattr(pt, dtype)).float()
    x32.requires_grad_()
    y32 = pt.from_numpy(np.array(Y, dtype="float32")).to(getattr(pt, dtype)).float()

    def cast(a, dt=None):
        return pt.from_numpy(np.array(a, dtype=dt or "float32")).to(getattr(pt, dt or dtype)) \
            .to(getattr(pt, dt or "float32"))
    ref = fn(F, x32, y32, cast)
    ref.sum().backward()
    tol = TOL[dtype]
    np.testing.assert_allclose(_np(out), _np(ref), rtol=tol, atol=tol)
    np.testing.assert_allclose(_np(grad), _np(x32.grad), rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", sorted(_cases("none")))
def test_reduced_dtype_matches_torch(name, dtype, reduction):
    fn = _cases(reduction)[name]
    out, grad = _run_pt(fn, dtype)
    tdt = getattr(torch, dtype)
    tx = torch.tensor(X, dtype=torch.float32).to(tdt).requires_grad_()
    ty = torch.tensor(Y, dtype=torch.float32).to(tdt)

    def tcast(a, dt=None):
        return torch.tensor(np.array(a, dtype=dt or "float32")).to(getattr(torch, dt or dtype))
    want = fn(torch.nn.functional, tx, ty, tcast)
    want.sum().backward()
    assert str(out.dtype) == str(want.dtype).replace("torch", "pytensor")
    tol = TOL[dtype]
    np.testing.assert_allclose(_np(out), want.detach().double().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(_np(grad), tx.grad.double().numpy(), rtol=tol, atol=tol)


def test_half_mean_accumulates_beyond_the_half_range():
    # 70000 ones: a float16 accumulator would overflow at 65504
    x = pt.ones(70000, dtype=pt.float16)
    assert F.mse_loss(x, pt.zeros(70000, dtype=pt.float16)).item() == 1.0
    assert F.l1_loss(x, pt.zeros(70000, dtype=pt.float16)).item() == 1.0


def test_half_sum_overflows_to_inf_as_the_result_dtype_does():
    x = pt.ones(70000, dtype=pt.float16)
    r = F.mse_loss(x, pt.zeros(70000, dtype=pt.float16), reduction="sum")
    assert r.dtype == pt.float16 and r.item() == float("inf")


def test_mixed_half_and_float_promote():
    x = pt.from_numpy(np.array(X, dtype="float32"))
    r = F.mse_loss(x.half(), x * 0.5)
    assert r.dtype == pt.float32


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_refusals_kept_where_torch_refuses(dtype, name):
    x = pt.from_numpy(np.array(X, dtype="float32")).to(getattr(pt, dtype))
    with pytest.raises(NotImplementedError,
                       match=f"^\"multi_margin_loss_cpu_kernel\" not implemented for '{name}'$"):
        F.multi_margin_loss(x, pt.tensor(T))
    with pytest.raises(NotImplementedError, match="^\"multilabel_margin_loss_forward_out_frame\" "
                       f"not implemented for '{name}'$"):
        F.multilabel_margin_loss(x, pt.tensor([[0, 1, -1]] * 4))


def test_integer_inputs_still_refused():
    x = pt.tensor([[1, 2, 3]])
    with pytest.raises(NotImplementedError, match="^\"mse_cpu\" not implemented for 'Long'$"):
        F.mse_loss(x, x)
    with pytest.raises(NotImplementedError,
                       match="^\"nll_loss_out_frame\" not implemented for 'Long'$"):
        F.nll_loss(x, pt.tensor([0]))
