"""pytensor.nn.functional's normalizations (batch_norm, instance_norm, layer_norm, group_norm,
rms_norm): forward and backward against NumPy references (run without torch) and against torch
(values, dtypes, running statistics, node names, channels_last, non-contiguous, batch-less and
empty inputs), float64 gradcheck of each function, the backward operators' output masks, and
torch's messages for bad input."""
from __future__ import annotations

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


def _tt(t, grad=False):
    r = torch.tensor(_np(t), dtype=torch.float64 if t.dtype == F64 else torch.float32)
    return r.requires_grad_(grad)


RNG = np.random.default_rng(7)


# ---------------------------------------------------------------- NumPy references
def ref_norm(x, axes, eps, w=None, b=None):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def test_layer_norm_matches_numpy():
    x = RNG.standard_normal((4, 3, 5))
    w, b = RNG.standard_normal(5), RNG.standard_normal(5)
    y = F.layer_norm(_pt(x), [5], _pt(w), _pt(b), eps=1e-5)
    np.testing.assert_allclose(_np(y), ref_norm(x, (2,), 1e-5, w, b), rtol=1e-10, atol=1e-12)
    y2 = F.layer_norm(_pt(x), [3, 5])
    np.testing.assert_allclose(_np(y2), ref_norm(x, (1, 2), 1e-5), rtol=1e-10, atol=1e-12)


def test_layer_norm_float32_accumulates_in_double():
    # a large offset: a float accumulation of sum(x) and sum(x^2) would lose the variance
    x = (1000.0 + RNG.standard_normal((2, 4096))).astype(np.float32)
    y = F.layer_norm(_pt(x, F32), [4096])
    ref = ref_norm(x.astype(np.float64), (1,), 1e-5)
    np.testing.assert_allclose(_np(y), ref, atol=2e-4)


def test_batch_norm_training_matches_numpy_and_updates_running_stats():
    x = RNG.standard_normal((4, 3, 5, 2))
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    rm, rv = _pt(np.zeros(3)), _pt(np.ones(3))
    y = F.batch_norm(_pt(x), rm, rv, _pt(w), _pt(b), training=True, momentum=0.2, eps=1e-3)
    ref = ref_norm(x, (0, 2, 3), 1e-3, w.reshape(1, 3, 1, 1), b.reshape(1, 3, 1, 1))
    np.testing.assert_allclose(_np(y), ref, rtol=1e-10, atol=1e-12)
    n = 4 * 5 * 2
    np.testing.assert_allclose(_np(rm), 0.2 * x.mean(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(_np(rv), 0.8 + 0.2 * x.var(axis=(0, 2, 3)) * n / (n - 1),
                               rtol=1e-12)


def test_batch_norm_eval_uses_running_stats():
    x = RNG.standard_normal((4, 3))
    rm, rv = RNG.standard_normal(3), RNG.random(3) + 0.5
    y = F.batch_norm(_pt(x), _pt(rm), _pt(rv), training=False, eps=1e-5)
    np.testing.assert_allclose(_np(y), (x - rm) / np.sqrt(rv + 1e-5), rtol=1e-12)


def test_group_norm_matches_numpy():
    x = RNG.standard_normal((2, 6, 4))
    w, b = RNG.standard_normal(6), RNG.standard_normal(6)
    y = F.group_norm(_pt(x), 3, _pt(w), _pt(b))
    ref = ref_norm(x.reshape(2, 3, 8), (2,), 1e-5).reshape(2, 6, 4) * w[:, None] + b[:, None]
    np.testing.assert_allclose(_np(y), ref, rtol=1e-10, atol=1e-12)


def test_instance_norm_matches_numpy_and_averages_running_stats():
    x = RNG.standard_normal((2, 3, 5))
    rm, rv = _pt(np.zeros(3)), _pt(np.ones(3))
    y = F.instance_norm(_pt(x), rm, rv, momentum=0.5)
    np.testing.assert_allclose(_np(y), ref_norm(x, (2,), 1e-5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(rm), 0.5 * x.mean(axis=2).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(_np(rv), 0.5 + 0.5 * (x.var(axis=2) * 5 / 4).mean(axis=0),
                               rtol=1e-12)


def test_rms_norm_matches_numpy():
    x = RNG.standard_normal((3, 4))
    w = RNG.standard_normal(4)
    y = F.rms_norm(_pt(x), [4], _pt(w), eps=1e-6)
    ref = x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(_np(y), ref, rtol=1e-12)
    y = F.rms_norm(_pt(x), [4])  # eps None: float64's machine epsilon
    ref = x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-12)


# ---------------------------------------------------------------- gradcheck (float64)
def _gc(fn, *inputs):
    assert pytensor.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)


def test_gradcheck_layer_norm():
    x, w, b = _pt(RNG.standard_normal((3, 2, 4)), grad=True), _pt(RNG.standard_normal(4), grad=True), \
        _pt(RNG.standard_normal(4), grad=True)
    _gc(lambda x, w, b: F.layer_norm(x, [4], w, b), x, w, b)
    _gc(lambda x: F.layer_norm(x, [2, 4]), x)


@pytest.mark.parametrize("training", [True, False])
def test_gradcheck_batch_norm(training):
    x = _pt(RNG.standard_normal((3, 2, 4)), grad=True)
    w, b = _pt(RNG.standard_normal(2), grad=True), _pt(RNG.standard_normal(2), grad=True)
    rm, rv = _pt(RNG.standard_normal(2)), _pt(RNG.random(2) + 0.5)
    _gc(lambda x, w, b: F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training), x, w, b)


def test_gradcheck_batch_norm_2d_and_channels_last():
    x = _pt(RNG.standard_normal((5, 3)), grad=True)
    w = _pt(RNG.standard_normal(3), grad=True)
    _gc(lambda x, w: F.batch_norm(x, None, None, w, None, training=True), x, w)
    x4 = _pt(RNG.standard_normal((2, 3, 2, 2))).contiguous(memory_format=pytensor.channels_last)
    x4.requires_grad_(True)
    _gc(lambda x: F.batch_norm(x, None, None, training=True), x4)


def test_gradcheck_group_instance_rms_norm():
    x = _pt(RNG.standard_normal((2, 4, 3)), grad=True)
    w, b = _pt(RNG.standard_normal(4), grad=True), _pt(RNG.standard_normal(4), grad=True)
    _gc(lambda x, w, b: F.group_norm(x, 2, w, b), x, w, b)
    _gc(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), x, w, b)
    w3 = _pt(RNG.standard_normal(3), grad=True)
    _gc(lambda x, w: F.rms_norm(x, [3], w), x, w3)


def test_backward_operators_honour_the_output_mask():
    x = _pt(RNG.standard_normal((3, 4)))
    y, mean, rstd = pytensor.native_layer_norm(x, [4], None, None, 1e-5)
    g = _pt(RNG.standard_normal((3, 4)))
    dx, dw, db = _nn.native_layer_norm_backward(g, x, [4], mean, rstd, None, None,
                                                [True, False, False])
    # the gradients not asked for are empty tensors (torch: undefined)
    assert tuple(dx.shape) == (3, 4) and dw.numel() == 0 and db.numel() == 0
    y, m, r = pytensor.native_group_norm(x.view(3, 4, 1), None, None, 3, 4, 1, 2, 1e-5)
    gx, gw, gb = _nn.native_group_norm_backward(g.view(3, 4, 1), x.view(3, 4, 1), m, r, None,
                                                3, 4, 1, 2, [False, True, True])
    assert gx.numel() == 0 and tuple(gw.shape) == (4,) and tuple(gb.shape) == (4,)
    np.testing.assert_allclose(_np(gb), _np(g).sum(axis=0), rtol=1e-12)


# ---------------------------------------------------------------- bad input
def test_messages():
    x = _pt(RNG.standard_normal((4, 3, 5)))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with "
                       r"shape \[\*, 4\], but got input of size\[4, 3, 5\]"):
        F.layer_norm(x, [4])
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as "
                       r"normalized_shape, but got weight of shape \[4\] and normalized_shape = "
                       r"\[5\]"):
        F.layer_norm(x, [5], _pt(np.ones(4)))
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(x, _pt(np.zeros(4)), _pt(np.ones(3)), training=True)
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, "
                       r"got input size"):
        F.batch_norm(_pt(np.ones((1, 3))), None, None, training=True)
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(_pt(np.ones((2, 3, 1))))
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be divisible "
                       r"by num_groups, but got input of shape \[4, 3, 5\] and num_groups=2"):
        F.group_norm(x, 2)
    with pytest.raises(RuntimeError, match=r"Expected weight to be a vector of size equal to the "
                       r"number of channels in input"):
        F.group_norm(x, 3, _pt(np.ones(4)))
    with pytest.raises(NotImplementedError, match="\"LayerNormKernelImpl\" not implemented for "
                       "'Int'"):
        F.layer_norm(pytensor.ones(2, 3, dtype=pytensor.int32), [3])
    with pytest.raises(RuntimeError, match=r"mixed dtype \(CPU\): expect parameter to have scalar "
                       r"type of Float"):
        F.layer_norm(x.float(), [5], _pt(np.ones(5)))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with "
                       r"shape \[\*4\]"):
        F.rms_norm(x, [4])


# ---------------------------------------------------------------- against torch
def _check(pfn, tfn, inputs, dtype=F32, tol=1e-5):
    pins = [_pt(a, dtype, grad=True) for a in inputs]
    tins = [torch.tensor(a, dtype=torch.float32 if dtype == F32 else torch.float64,
                         requires_grad=True) for a in inputs]
    py, ty = pfn(*pins), tfn(*tins)
    assert tuple(py.shape) == tuple(ty.shape) and str(py.dtype).split(".")[-1] == \
        str(ty.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=tol, atol=tol)
    assert py.grad_fn.name() == type(ty.grad_fn).__name__
    g = RNG.standard_normal(tuple(ty.shape))
    py.backward(_pt(g, dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    for p, t in zip(pins, tins):
        np.testing.assert_allclose(_np(p.grad), t.grad.double().numpy(), rtol=tol * 10,
                                   atol=tol * 10)


@requires_torch
@pytest.mark.parametrize("shape,ns", [((4, 3, 5), [5]), ((2, 3, 4, 6), [4, 6]), ((7,), [7])])
def test_layer_norm_matches_torch(shape, ns):
    x, w, b = RNG.standard_normal(shape), RNG.standard_normal(ns), RNG.standard_normal(ns)
    _check(lambda x, w, b: F.layer_norm(x, ns, w, b),
           lambda x, w, b: torch.nn.functional.layer_norm(x, ns, w, b), [x, w, b])


@requires_torch
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(shape, training):
    x, w, b = RNG.standard_normal(shape), RNG.standard_normal(3), RNG.standard_normal(3)
    rm0, rv0 = RNG.standard_normal(3), RNG.random(3) + 0.5
    prm, prv = _pt(rm0, F32), _pt(rv0, F32)
    trm, trv = torch.tensor(rm0, dtype=torch.float32), torch.tensor(rv0, dtype=torch.float32)
    _check(lambda x, w, b: F.batch_norm(x, prm, prv, w, b, training, 0.3, 1e-4),
           lambda x, w, b: torch.nn.functional.batch_norm(x, trm, trv, w, b, training, 0.3, 1e-4),
           [x, w, b])
    np.testing.assert_allclose(_np(prm), trm.double().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(prv), trv.double().numpy(), rtol=1e-5, atol=1e-6)


@requires_torch
def test_batch_norm_channels_last_keeps_format():
    x = RNG.standard_normal((2, 3, 4, 5))
    px = _pt(x, F32).contiguous(memory_format=pytensor.channels_last).requires_grad_(True)
    tx = torch.tensor(x, dtype=torch.float32).to(memory_format=torch.channels_last)
    tx.requires_grad_(True)
    py = F.batch_norm(px, None, None, training=True)
    ty = torch.nn.functional.batch_norm(tx, None, None, training=True)
    assert tuple(py.stride()) == tuple(ty.stride())
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), atol=1e-5)
    g = RNG.standard_normal(x.shape)
    py.backward(_pt(g, F32))
    ty.backward(torch.tensor(g, dtype=torch.float32))
    np.testing.assert_allclose(_np(px.grad), tx.grad.double().numpy(), atol=1e-5)


@requires_torch
@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 4), ((2, 4), 2)])
def test_group_norm_matches_torch(shape, groups):
    C = shape[1]
    x, w, b = RNG.standard_normal(shape), RNG.standard_normal(C), RNG.standard_normal(C)
    _check(lambda x, w, b: F.group_norm(x, groups, w, b),
           lambda x, w, b: torch.nn.functional.group_norm(x, groups, w, b), [x, w, b])


@requires_torch
def test_instance_and_rms_norm_match_torch():
    x, w = RNG.standard_normal((2, 3, 6)), RNG.standard_normal(3)
    _check(lambda x, w: F.instance_norm(x, weight=w),
           lambda x, w: torch.nn.functional.instance_norm(x, weight=w), [x, w])
    w6 = RNG.standard_normal(6)
    _check(lambda x, w: F.rms_norm(x, [6], w), lambda x, w: torch.nn.functional.rms_norm(x, [6], w),
           [x, w6])


@requires_torch
def test_non_contiguous_and_empty_inputs():
    x = RNG.standard_normal((5, 4, 3))
    px = _pt(x, F32).transpose(0, 2)
    tx = torch.tensor(x, dtype=torch.float32).transpose(0, 2)
    for pf, tf in ((lambda t: F.layer_norm(t, [5]), lambda t: torch.nn.functional.layer_norm(t, [5])),
                   (lambda t: F.batch_norm(t, None, None, training=True),
                    lambda t: torch.nn.functional.batch_norm(t, None, None, training=True)),
                   (lambda t: F.group_norm(t, 2), lambda t: torch.nn.functional.group_norm(t, 2))):
        np.testing.assert_allclose(_np(pf(px)), tf(tx).double().numpy(), atol=1e-5)
    e = F.layer_norm(pytensor.zeros(0, 4), [4])
    assert tuple(e.shape) == (0, 4)


@requires_torch
@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_reduced_precision_inputs(dt):
    x = RNG.standard_normal((4, 3, 8))
    px = _pt(x, F32).to(getattr(pytensor, dt))
    tx = torch.tensor(x, dtype=torch.float32).to(getattr(torch, dt))
    for pf, tf in ((lambda t: F.layer_norm(t, [8]), lambda t: torch.nn.functional.layer_norm(t, [8])),
                   (lambda t: F.group_norm(t, 3), lambda t: torch.nn.functional.group_norm(t, 3)),
                   (lambda t: F.batch_norm(t, None, None, training=True),
                    lambda t: torch.nn.functional.batch_norm(t, None, None, training=True))):
        py, ty = pf(px), tf(tx)
        assert str(py.dtype).split(".")[-1] == dt
        np.testing.assert_allclose(_np(py.float()), ty.double().numpy(), atol=3e-2)
