"""pytensor.nn.functional's activations: forward and backward against torch (values, dtypes,
node names, non-contiguous and empty inputs, in-place forms), float64 gradcheck and gradgradcheck
of every function (the backward operators' own derivatives), NumPy references that run without
torch, and torch's messages for bad input."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from pytensor._C import _nn
from _torch_oracle import requires_torch, torch

F32, F64 = pytensor.float32, pytensor.float64


def _pt(a, dtype=F64, grad=False):
    return pytensor.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


# Each case: name, pytensor call, torch call (same arguments) and whether x may sit on a kink
# (the sample avoids kinks for gradcheck).
CASES = {
    "relu": (lambda F_, x: F_.relu(x)),
    "relu6": (lambda F_, x: F_.relu6(x)),
    "elu": (lambda F_, x: F_.elu(x, 0.7)),
    "selu": (lambda F_, x: F_.selu(x)),
    "celu": (lambda F_, x: F_.celu(x, 1.3)),
    "leaky_relu": (lambda F_, x: F_.leaky_relu(x, 0.2)),
    "gelu": (lambda F_, x: F_.gelu(x)),
    "gelu_tanh": (lambda F_, x: F_.gelu(x, approximate="tanh")),
    "silu": (lambda F_, x: F_.silu(x)),
    "mish": (lambda F_, x: F_.mish(x)),
    "hardtanh": (lambda F_, x: F_.hardtanh(x, -0.8, 1.1)),
    "hardsigmoid": (lambda F_, x: F_.hardsigmoid(x)),
    "hardswish": (lambda F_, x: F_.hardswish(x)),
    "softplus": (lambda F_, x: F_.softplus(x, 2.0, 3.0)),
    "softshrink": (lambda F_, x: F_.softshrink(x, 0.4)),
    "hardshrink": (lambda F_, x: F_.hardshrink(x, 0.4)),
    "tanhshrink": (lambda F_, x: F_.tanhshrink(x)),
    "softsign": (lambda F_, x: F_.softsign(x)),
    "logsigmoid": (lambda F_, x: F_.logsigmoid(x)),
    "threshold": (lambda F_, x: F_.threshold(x, 0.3, -2.0)),
    "rrelu_eval": (lambda F_, x: F_.rrelu(x, 0.1, 0.3)),
    "glu": (lambda F_, x: F_.glu(x, 1)),
    "softmax": (lambda F_, x: F_.softmax(x, 1)),
    "softmin": (lambda F_, x: F_.softmin(x, 0)),
    "log_softmax": (lambda F_, x: F_.log_softmax(x, -1)),
}
# Functions whose second derivative torch computes too (double backward).
SMOOTH = ["elu", "selu", "celu", "gelu", "gelu_tanh", "silu", "mish", "softplus", "tanhshrink",
          "softsign", "logsigmoid", "glu", "softmax", "softmin", "log_softmax", "hardswish"]


def _sample(shape=(3, 8), seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    # away from the kinks (0, +-0.4, +-3, the thresholds) by at least 0.01
    x = rng.uniform(-scale, scale, size=shape)
    return np.where(np.abs(x - np.round(x * 10) / 10) < 0.01, x + 0.03, x)


def _torch_F():
    return torch.nn.functional


# ---------------------------------------------------------------- against torch
@requires_torch
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_backward_match_torch(name, dtype):
    fn = CASES[name]
    xn = _sample()
    xn[0, :4] = [0.0, -3.0, 3.0, 0.4]  # the boundary points take torch's branch
    gn = np.random.default_rng(1).normal(size=xn.shape)
    x = pytensor.tensor(xn, dtype=getattr(pytensor, dtype), requires_grad=True)
    tx = torch.tensor(xn, dtype=getattr(torch, dtype), requires_grad=True)
    y, ty = fn(F, x), fn(_torch_F(), tx)
    assert y.dtype == getattr(pytensor, dtype) and list(y.shape) == list(ty.shape)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=tol, atol=tol)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = pytensor.tensor(gn[:, :y.shape[1]] if name == "glu" else gn, dtype=y.dtype)
    tg = torch.tensor(g.tolist(), dtype=ty.dtype)
    (gx,) = pytensor.autograd.grad(y, x, g)
    (tgx,) = torch.autograd.grad(ty, tx, tg)
    np.testing.assert_allclose(_np(gx), tgx.numpy(), rtol=tol * 10, atol=tol * 10)


@requires_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_non_contiguous_input_matches_torch(name):
    fn = CASES[name]
    xn = _sample((8, 6), seed=3)
    x = pytensor.tensor(xn, dtype=F32).t()
    tx = torch.tensor(xn, dtype=torch.float32).t()
    assert not x.is_contiguous()
    np.testing.assert_allclose(_np(fn(F, x)), fn(_torch_F(), tx).numpy(), rtol=1e-5, atol=1e-6)


@requires_torch
@pytest.mark.parametrize("name", ["elu", "leaky_relu", "gelu", "silu", "mish", "hardswish",
                                  "hardsigmoid", "softplus", "logsigmoid", "softshrink", "glu",
                                  "softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_dtypes_match_torch(name, dtype):
    fn = CASES[name]
    xn = _sample((4, 8), seed=5)
    x = pytensor.tensor(xn, dtype=getattr(pytensor, dtype), requires_grad=True)
    tx = torch.tensor(xn, dtype=getattr(torch, dtype), requires_grad=True)
    y, ty = fn(F, x), fn(_torch_F(), tx)
    assert y.dtype == getattr(pytensor, dtype)
    tol = 2e-2 if dtype == "bfloat16" else 2e-3
    np.testing.assert_allclose(_np(y), ty.detach().float().numpy(), rtol=tol, atol=tol)
    (gx,) = pytensor.autograd.grad(y.sum(), x)
    (tgx,) = torch.autograd.grad(ty.sum(), tx)
    np.testing.assert_allclose(_np(gx), tgx.float().numpy(), rtol=4 * tol, atol=4 * tol)


@requires_torch
@pytest.mark.parametrize("name", ["relu", "elu", "selu", "celu", "leaky_relu", "hardtanh",
                                  "relu6", "hardsigmoid", "hardswish", "silu", "mish",
                                  "threshold", "rrelu"])
def test_inplace_forms_match_torch(name):
    calls = {
        "relu": lambda F_, x: F_.relu(x, inplace=True),
        "elu": lambda F_, x: F_.elu(x, 0.5, inplace=True),
        "selu": lambda F_, x: F_.selu(x, inplace=True),
        "celu": lambda F_, x: F_.celu(x, 2.0, inplace=True),
        "leaky_relu": lambda F_, x: F_.leaky_relu(x, 0.1, inplace=True),
        "hardtanh": lambda F_, x: F_.hardtanh(x, -0.5, 0.5, inplace=True),
        "relu6": lambda F_, x: F_.relu6(x, inplace=True),
        "hardsigmoid": lambda F_, x: F_.hardsigmoid(x, inplace=True),
        "hardswish": lambda F_, x: F_.hardswish(x, inplace=True),
        "silu": lambda F_, x: F_.silu(x, inplace=True),
        "mish": lambda F_, x: F_.mish(x, inplace=True),
        "threshold": lambda F_, x: F_.threshold(x, 0.1, 5.0, inplace=True),
        "rrelu": lambda F_, x: F_.rrelu(x, 0.2, 0.4, inplace=True),
    }
    xn = _sample((2, 5), seed=7)
    x = pytensor.tensor(xn, dtype=F64, requires_grad=True)
    tx = torch.tensor(xn, dtype=torch.float64, requires_grad=True)
    xi, txi = x * 1, tx * 1
    y, ty = calls[name](F, xi), calls[name](_torch_F(), txi)
    assert y is xi
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert y.grad_fn.name() == ty.grad_fn.name()
    (gx,) = pytensor.autograd.grad(y.sum(), x)
    (tgx,) = torch.autograd.grad(ty.sum(), tx)
    np.testing.assert_allclose(_np(gx), tgx.numpy(), rtol=1e-12, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("name", ["relu", "elu", "gelu", "silu", "hardswish", "softplus",
                                  "logsigmoid", "softmax", "log_softmax", "mish"])
def test_empty_and_scalar_inputs(name):
    fn = CASES[name]
    for shape in [(0, 4), ()]:
        if name in ("softmax", "log_softmax") and shape == ():
            continue
        xn = np.zeros(shape) + 0.5
        y = fn(F, pytensor.tensor(xn, dtype=F32))
        ty = fn(_torch_F(), torch.tensor(xn, dtype=torch.float32))
        assert list(y.shape) == list(ty.shape)
        np.testing.assert_allclose(_np(y), ty.numpy(), rtol=1e-6)


@requires_torch
@pytest.mark.parametrize("op,args", [
    ("hardtanh_backward", (-0.5, 0.5)), ("threshold_backward", (0.2,)),
    ("leaky_relu_backward", (0.3, False)), ("softplus_backward", (1.5, 2.0)),
    ("hardsigmoid_backward", ()), ("hardswish_backward", ()), ("mish_backward", ()),
    ("softshrink_backward", (0.3,)), ("hardshrink_backward", (0.3,)),
    ("silu_backward", ()), ("gelu_backward", ()),
])
def test_backward_operators_match_torch(op, args):
    xn, gn = _sample((3, 4), seed=11), _sample((3, 4), seed=12)
    r = getattr(_nn, op)(_pt(gn), _pt(xn), *args)
    tr = getattr(torch.ops.aten, op)(torch.tensor(gn), torch.tensor(xn), *args)
    np.testing.assert_allclose(_np(r), tr.numpy(), rtol=1e-12, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("is_result", [False, True])
def test_elu_backward_matches_torch(is_result):
    xn, gn = _sample((3, 4), seed=13), _sample((3, 4), seed=14)
    r = _nn.elu_backward(_pt(gn), 0.7, 1.2, 0.9, is_result, _pt(xn))
    tr = torch.ops.aten.elu_backward(torch.tensor(gn), 0.7, 1.2, 0.9, is_result, torch.tensor(xn))
    np.testing.assert_allclose(_np(r), tr.numpy(), rtol=1e-12, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_data_matches_torch(dim, log):
    gn, xn = _sample((3, 5, 4), seed=15), _sample((3, 5, 4), seed=16)
    y = (F.log_softmax if log else F.softmax)(_pt(xn), dim)
    ty = (torch.log_softmax if log else torch.softmax)(torch.tensor(xn), dim)
    op = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    r = getattr(pytensor, op)(_pt(gn).transpose(0, 2).contiguous().transpose(0, 2), y, dim, F64)
    tr = getattr(torch, op)(torch.tensor(gn), ty, dim, torch.float64)
    np.testing.assert_allclose(_np(r), tr.numpy(), rtol=1e-12, atol=1e-12)


@requires_torch
def test_softmax_dtype_argument_matches_torch():
    xn = _sample((2, 6), seed=17)
    x = pytensor.tensor(xn, dtype=F32, requires_grad=True)
    tx = torch.tensor(xn, dtype=torch.float32, requires_grad=True)
    for fn in ("softmax", "log_softmax", "softmin"):
        y = getattr(F, fn)(x, 1, dtype=F64)
        ty = getattr(_torch_F(), fn)(tx, 1, dtype=torch.float64)
        assert y.dtype == F64
        np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-6)
        (gx,) = pytensor.autograd.grad(y[:, 0].sum(), x)
        (tgx,) = torch.autograd.grad(ty[:, 0].sum(), tx)
        assert gx.dtype == F32
        np.testing.assert_allclose(_np(gx), tgx.numpy(), rtol=1e-5, atol=1e-6)


@requires_torch
@pytest.mark.parametrize("shape,wshape", [((2, 3, 4), (3,)), ((2, 3), (1,)), ((5,), (1,)),
                                          ((2, 3, 2, 2), (3,)), ((), ())])
def test_prelu_matches_torch(shape, wshape):
    xn = _sample(shape, seed=19) if shape else np.array(-1.5)
    wn = np.linspace(0.1, 0.5, int(np.prod(wshape))).reshape(wshape)
    x, w = _pt(xn, grad=True), _pt(wn, grad=True)
    tx = torch.tensor(xn, requires_grad=True)
    tw = torch.tensor(wn, requires_grad=True)
    y, ty = F.prelu(x, w), _torch_F().prelu(tx, tw)
    assert list(y.shape) == list(ty.shape) and y.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-12)
    gx, gw = pytensor.autograd.grad((y * y).sum(), [x, w])
    tgx, tgw = torch.autograd.grad((ty * ty).sum(), [tx, tw])
    np.testing.assert_allclose(_np(gx), tgx.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(gw), tgw.numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- gradcheck (no torch)
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn = CASES[name]
    x = _pt(_sample((2, 4), seed=21), grad=True)
    assert pytensor.autograd.gradcheck(lambda t: fn(F, t), (x,))


@pytest.mark.parametrize("name", SMOOTH)
def test_gradgradcheck(name):
    fn = CASES[name]
    x = _pt(_sample((2, 4), seed=23, scale=2.5), grad=True)
    assert pytensor.autograd.gradgradcheck(lambda t: fn(F, t), (x,))


def test_gradgradcheck_of_prelu_and_piecewise_backward_operators():
    x = _pt(_sample((2, 3), seed=25), grad=True)
    w = _pt([0.2, 0.3, 0.4], grad=True)
    assert pytensor.autograd.gradgradcheck(lambda a, b: F.prelu(a, b) * a, (x, w))
    for fn in [lambda t: F.leaky_relu(t, 0.2) * t, lambda t: F.hardtanh(t) * t,
               lambda t: F.relu(t) * t, lambda t: F.softshrink(t) * t,
               lambda t: F.elu(t, 0.5, inplace=False) * t]:
        assert pytensor.autograd.gradgradcheck(fn, (x,))


def test_gradcheck_of_inplace_elu_and_leaky_relu():
    x = _pt(_sample((2, 3), seed=27), grad=True)
    assert pytensor.autograd.gradcheck(lambda t: F.elu(t * 1, 0.5, inplace=True), (x,))
    assert pytensor.autograd.gradcheck(lambda t: F.celu(t * 1, 0.5, inplace=True), (x,))
    assert pytensor.autograd.gradcheck(lambda t: F.leaky_relu(t * 1, 0.3, inplace=True), (x,))


# ---------------------------------------------------------------- NumPy references (no torch)
def _ref(name, x):
    sig = 1 / (1 + np.exp(-x))
    erf = np.vectorize(math.erf)
    return {
        "relu": np.maximum(x, 0),
        "elu": np.where(x > 0, x, 0.7 * np.expm1(x)),
        "leaky_relu": np.where(x > 0, x, 0.2 * x),
        "gelu": 0.5 * x * (1 + erf(x / math.sqrt(2))),
        "silu": x * sig,
        "mish": x * np.tanh(np.log1p(np.exp(x))),
        "hardtanh": np.clip(x, -0.8, 1.1),
        "hardsigmoid": np.clip(x + 3, 0, 6) / 6,
        "hardswish": x * np.clip(x + 3, 0, 6) / 6,
        "softplus": np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2),
        "softshrink": np.where(x > 0.4, x - 0.4, np.where(x < -0.4, x + 0.4, 0)),
        "hardshrink": np.where(np.abs(x) > 0.4, x, 0),
        "logsigmoid": np.log(sig),
        "softmax": np.exp(x) / np.exp(x).sum(1, keepdims=True),
        "log_softmax": x - np.log(np.exp(x).sum(-1, keepdims=True)),
    }[name]


@pytest.mark.parametrize("name", ["relu", "elu", "leaky_relu", "gelu", "silu", "mish",
                                  "hardtanh", "hardsigmoid", "hardswish", "softplus",
                                  "softshrink", "hardshrink", "logsigmoid", "softmax",
                                  "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_matches_numpy(name, dtype):
    xn = _sample((4, 40), seed=29, scale=6.0)
    y = CASES[name](F, pytensor.tensor(xn, dtype=getattr(pytensor, dtype)))
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(_np(y), _ref(name, xn), rtol=tol, atol=tol)


def test_large_inputs_stay_finite():
    x = pytensor.tensor([-100.0, -30.0, 30.0, 100.0], dtype=F32)
    for fn in (F.mish, F.softplus, F.logsigmoid, F.silu, F.gelu, F.elu):
        assert np.all(np.isfinite(_np(fn(x))))
    np.testing.assert_allclose(_np(F.mish(x))[2:], [30.0, 100.0])
    np.testing.assert_allclose(_np(F.logsigmoid(x))[:2], [-100.0, -30.0])


def test_large_input_is_split_across_threads_and_matches_single_thread():
    xn = _sample((300, 1000), seed=31)
    x = pytensor.tensor(xn, dtype=F32, requires_grad=True)
    old = pytensor.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            pytensor.set_num_threads(n)
            y = F.gelu(x)
            (g,) = pytensor.autograd.grad(F.softmax(y, 1).sum(0)[0], x)
            outs.append((_np(y), _np(g)))
    finally:
        pytensor.set_num_threads(old)
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_gelu_and_silu_live_in_nn_module():
    assert not hasattr(pytensor, "gelu") and not hasattr(pytensor, "silu")
    assert _nn.gelu(pytensor.tensor([0.0])).tolist() == [0.0]
    assert _nn.silu_(pytensor.tensor([0.0])).tolist() == [0.0]


# ---------------------------------------------------------------- glu
def test_glu_halves_and_backward():
    xn = _sample((2, 6), seed=33)
    x = _pt(xn, grad=True)
    y = F.glu(x)
    a, b = xn[:, :3], xn[:, 3:]
    np.testing.assert_allclose(_np(y), a / (1 + np.exp(-b)), rtol=1e-13)
    (g,) = pytensor.autograd.grad(y.sum(), x)
    s = 1 / (1 + np.exp(-b))
    np.testing.assert_allclose(_np(g), np.concatenate([s, a * s * (1 - s)], 1), rtol=1e-12)
    assert list(F.glu(_pt(np.ones((4, 3))), 0).shape) == [2, 3]


# ---------------------------------------------------------------- rrelu
def test_rrelu_training_is_reproducible_and_in_bounds():
    xn = _sample((50,), seed=35)
    x = _pt(xn, grad=True)
    pytensor.manual_seed(5)
    y1 = F.rrelu(x, 0.1, 0.3, training=True)
    pytensor.manual_seed(5)
    y2 = F.rrelu(x, 0.1, 0.3, training=True)
    np.testing.assert_array_equal(_np(y1), _np(y2))
    neg = xn <= 0
    slope = _np(y1)[neg] / xn[neg]
    assert np.all(slope >= 0.1) and np.all(slope <= 0.3) and len(set(slope.round(12))) > 1
    np.testing.assert_array_equal(_np(y1)[~neg], xn[~neg])
    (g,) = pytensor.autograd.grad(y1.sum(), x)
    np.testing.assert_allclose(_np(g)[neg], slope, rtol=1e-12)
    np.testing.assert_array_equal(_np(g)[~neg], 1.0)


def test_rrelu_with_noise_fills_noise():
    x = _pt([-1.0, 2.0, -3.0])
    noise = pytensor.empty(3, dtype=F64)
    y = _nn.rrelu_with_noise(x, noise, 0.2, 0.5, True)
    nz = _np(noise)
    assert nz[1] == 1.0 and 0.2 <= nz[0] <= 0.5 and 0.2 <= nz[2] <= 0.5
    np.testing.assert_allclose(_np(y), _np(x) * nz)


# ---------------------------------------------------------------- dropout family
def test_dropout_p_checks_and_eval_identity():
    x = pytensor.ones(4)
    for fn in (F.dropout, F.alpha_dropout, F.feature_alpha_dropout, F.dropout1d, F.dropout2d,
               F.dropout3d):
        with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, "
                                             r"but got -0.5"):
            fn(x, -0.5)
    for name in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, "
                                               "but got 1.5"):
            getattr(pytensor, name)(pytensor.ones(2, 2), 1.5, True)
    assert F.dropout(x, 0.5, training=False).tolist() == [1.0] * 4
    assert F.alpha_dropout(x, 0.5, training=False) is x
    assert F.dropout2d(pytensor.ones(1, 2, 2, 2), 0.0).tolist() == [[[[1.0] * 2] * 2] * 2]


def test_feature_dropout_drops_whole_channels():
    pytensor.manual_seed(3)
    x = pytensor.ones(4, 16, 5, 5)
    y = _np(F.dropout2d(x, 0.5))
    per_channel = y.reshape(4, 16, 25)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert 0 < (per_channel[..., 0] == 0).sum() < 64
    pytensor.manual_seed(3)
    np.testing.assert_array_equal(_np(F.dropout2d(x, 0.5)), y)
    z = _np(F.dropout1d(pytensor.ones(8, 10), 0.5))  # unbatched (C, L)
    assert z.shape == (8, 10) and np.all((z == 0).all(-1) | (z == 2.0).all(-1))


def test_dropout_rank_rules():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a "
                                           "4D input"):
        F.dropout1d(pytensor.ones(1, 1, 1, 1))
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input to dropout2d"):
        F.dropout2d(pytensor.ones(2, 2), training=False)
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
        F.dropout2d(pytensor.ones(2, 2, 2), training=False)
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        F.dropout3d(pytensor.ones(2, 2, 2), training=False)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in "
                                           "the input"):
        pytensor.feature_dropout(pytensor.ones(3), 0.5, True)


def test_dropout_inplace_and_gradient():
    x = pytensor.ones(100, dtype=F64, requires_grad=True)
    y = F.dropout(x * 1, 0.25, inplace=True)
    assert y.grad_fn.name() == "MulBackward0"
    (g,) = pytensor.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(_np(g), _np(y))  # kept elements scale by 1 / (1 - p)
    a = F.alpha_dropout(x, 0.5, training=True)
    assert a.grad_fn.name() == "AddBackward0"
    b = pytensor.feature_alpha_dropout(pytensor.ones(3, 4), 1.0, True)
    assert b.tolist() == [[0.0] * 4] * 3


def test_alpha_dropout_keeps_mean_and_variance():
    pytensor.manual_seed(0)
    x = pytensor.randn(200000, dtype=F64)
    y = _np(F.alpha_dropout(x, 0.3, training=True))
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03


# ---------------------------------------------------------------- gumbel_softmax
def test_gumbel_softmax_hard_is_one_hot_with_soft_gradient():
    pytensor.manual_seed(1)
    logits = _pt(_sample((4, 5), seed=37), grad=True)
    y = F.gumbel_softmax(logits, tau=0.5, hard=True)
    yn = _np(y)
    assert np.all((yn == 0) | (yn == 1)) and np.all(yn.sum(1) == 1)
    (g,) = pytensor.autograd.grad((y * _pt(np.arange(5.0))).sum(), logits)
    assert np.any(_np(g) != 0)
    soft = F.gumbel_softmax(logits, tau=2.0)
    np.testing.assert_allclose(_np(soft).sum(1), 1.0, rtol=1e-12)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-3)


# ---------------------------------------------------------------- bad input
def test_softmax_dim_none_warns_and_picks_torch_dim():
    x = pytensor.tensor(_sample((2, 3), seed=39))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been "
                                         "deprecated"):
        y = F.softmax(x)
    np.testing.assert_allclose(_np(y).sum(1), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(_np(F.log_softmax(pytensor.ones(3))), -math.log(3))


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: F.elu(pytensor.tensor([1, 2])), NotImplementedError,
     "\"elu_cpu\" not implemented for 'Long'"),
    (lambda: F.gelu(pytensor.tensor([1, 2])), NotImplementedError,
     "\"GeluKernelImpl\" not implemented for 'Long'"),
    (lambda: F.mish(pytensor.tensor([True])), NotImplementedError,
     "\"mish_cpu\" not implemented for 'Bool'"),
    (lambda: F.leaky_relu(pytensor.tensor([1 + 1j])), NotImplementedError,
     "\"leaky_relu_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: F.softplus(pytensor.tensor([1], dtype=pytensor.uint8)), NotImplementedError,
     "\"softplus_cpu\" not implemented for 'Byte'"),
    (lambda: F.hardtanh(pytensor.tensor([True])), RuntimeError,
     "Bool inputs not supported for hardtanh"),
    (lambda: F.hardtanh(pytensor.tensor([1], dtype=pytensor.uint8)), RuntimeError,
     "cannot do hardtanh on an unsigned type with negative limits"),
    (lambda: F.hardtanh(pytensor.ones(2), 1.0, 0.0), ValueError,
     "min_val cannot be greater than max_val"),
    (lambda: F.celu(pytensor.ones(2), 0.0), RuntimeError,
     "ZeroDivisionError: alpha cannot be 0 for CELU"),
    (lambda: F.softshrink(pytensor.ones(2), -1.0), RuntimeError,
     r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, but found -1"),
    (lambda: F.rrelu(pytensor.ones(2), 0.5, 0.1), RuntimeError,
     "Lower bound should be less than or equal to the upper bound"),
    (lambda: F.glu(pytensor.ones(3)), RuntimeError,
     "Halving dimension must be even, but dimension 0 is size 3"),
    (lambda: F.glu(pytensor.tensor(1.0)), RuntimeError,
     "glu does not support scalars because halving size must be even"),
    (lambda: F.glu(pytensor.tensor([1, 2])), NotImplementedError,
     "\"glu_cpu\" not implemented for 'Long'"),
    (lambda: F.gelu(pytensor.ones(2), approximate="x"), RuntimeError,
     "approximate argument must be either none or tanh."),
    (lambda: F.prelu(pytensor.ones(2, 3), pytensor.ones(2)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and "
     "channel size = 3."),
    (lambda: F.prelu(pytensor.tensor(1.0), pytensor.ones(2)), RuntimeError,
     "Not allow zero-dim input tensor."),
    (lambda: F.prelu(pytensor.ones(2, 3), pytensor.ones(3, dtype=F64)), RuntimeError,
     "prelu: Type promoting not supported. Got Float and Double"),
    (lambda: F.prelu(pytensor.ones(2, 1), pytensor.ones(1, 1)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda: F.prelu(pytensor.tensor([1, 2]), pytensor.tensor([1])), NotImplementedError,
     "\"prelu_cpu\" not implemented for 'Long'"),
    (lambda: pytensor._softmax_backward_data(pytensor.ones(2), pytensor.ones(3), 0, F32),
     RuntimeError, "Expected tensor for argument #1 'grad' to have same size as tensor for "
     r"argument #2 'output'; but \[2\] does not equal \[3\]"),
])
def test_bad_input_messages(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_inplace_backward_with_negative_slope_is_refused():
    x = _pt([1.0, -1.0], grad=True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with "
                                           "a negative slope which is not supported"):
        F.elu(x * 1, -1.0, inplace=True).sum().backward()
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is "
                                           "triggered with a negative slope"):
        F.leaky_relu(x * 1, -0.5, inplace=True).sum().backward()


# ---------------------------------------------------------------- capabilities
@pytest.mark.capability_independent  # selects every capability itself
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_capability_matches_the_default(dtype):
    """The AVX2 and AVX-512 tables give the default table's bits (one source, no contraction)."""
    from pytensor._C import lib
    xn = _sample((3, 37), seed=41, scale=8.0)
    x = pytensor.tensor(xn, dtype=getattr(pytensor, dtype))
    xs = x[:, 1:]  # a misaligned start and a tail for the vector loops
    g = pytensor.tensor(_sample((3, 37), seed=42), dtype=x.dtype)
    calls = [lambda t: F.elu(t), lambda t: F.leaky_relu(t), lambda t: F.softplus(t),
             lambda t: F.hardswish(t), lambda t: F.mish(t), lambda t: F.logsigmoid(t),
             lambda t: F.softshrink(t), lambda t: F.glu(t[:, :36]),
             lambda t: _nn.gelu_backward(g[:, :t.shape[1]], t, approximate="tanh"),
             lambda t: _nn.silu_backward(g[:, :t.shape[1]], t),
             lambda t: _nn.mish_backward(g[:, :t.shape[1]], t),
             lambda t: _nn.softplus_backward(g[:, :t.shape[1]], t, 1.0, 20.0),
             # the forward's exp differs between capabilities (Note [vector exp]): its
             # result is computed once, outside the loop
             lambda t: pytensor._softmax_backward_data(g[:, :t.shape[1]], soft[t.shape[1]], 1,
                                                       t.dtype),
             lambda t: pytensor._log_softmax_backward_data(g[:, :t.shape[1]],
                                                           logsoft[t.shape[1]], 1, t.dtype)]
    soft = {t.shape[1]: t.softmax(1) for t in (x, xs)}
    logsoft = {t.shape[1]: t.log_softmax(1) for t in (x, xs)}
    # gelu's float32 backward runs vec_math_simd.h's FMA erf and exp where the build has them
    # (Note [vector exp]): the vector builds agree bit for bit, the default one within the ulp
    # bounds
    vector_calls = [lambda t: _nn.gelu_backward(g[:, :t.shape[1]], t)]
    in_use = lib.pt_cpu_capability()
    results, vector_results = [], []
    try:
        for cap in range(lib.pt_cpu_capability_detected() + 1):
            assert lib.pt_cpu_capability_select(cap) == 0
            results.append([c(t).tolist() for c in calls for t in (x, xs)])
            vector_results.append([c(t).tolist() for c in vector_calls for t in (x, xs)])
    finally:
        assert lib.pt_cpu_capability_select(in_use) == 0
    for r in results[1:]:
        assert r == results[0]
    for r in vector_results[2:]:
        assert r == vector_results[1]
    for r in vector_results[1:]:
        for a, b in zip(r, vector_results[0]):
            np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 0,
                                       atol=1e-7 if dtype == "float32" else 0)


def test_dropout_returns_its_input_where_torch_does():
    x = pytensor.ones(3, requires_grad=True)
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.5, training=False) is x
    y = F.dropout2d(pytensor.ones(1, 2, 2, 2), 0.5, training=False)
    assert y.tolist() == [[[[1.0] * 2] * 2] * 2]
    y = F.dropout(x, 1.0)
    assert y.tolist() == [0.0] * 3 and y.grad_fn.name() == "MulBackward0"
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        F.dropout(pytensor.tensor([1, 2]), 0.5)
