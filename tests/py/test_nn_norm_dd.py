"""The normalizations' backward in one call and their double backward: batch, layer and group
norm (and prelu) give all their gradients from one call of the fused backward operator, which
computes only those asked for; the backward operators are differentiable (gradgradcheck in
float64, second-order gradients against torch); group norm keeps channels_last / channels_last_3d
inputs in that layout (values and strides against torch)."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

F32, F64 = pytensor.float32, pytensor.float64
RNG = np.random.default_rng(11)


def _pt(a, dtype=F64, grad=False):
    return pytensor.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _tt(a, dtype=None, grad=False):
    r = torch.tensor(np.asarray(a), dtype=dtype or torch.float64)
    return r.requires_grad_(grad)


def _ggc(fn, *inputs):
    assert pytensor.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def _params(C, grad=True):
    return (_pt(RNG.standard_normal(C), grad=grad), _pt(RNG.standard_normal(C), grad=grad))


# ---------------------------------------------------------------- the functions under test
# name -> (pytensor fn(x, w, b), torch fn(x, w, b), input shape, C)
def _bn(training, affine=True):
    rm0, rv0 = RNG.standard_normal(3), RNG.random(3) + 0.5

    def p(x, w, b):
        return F.batch_norm(x, _pt(rm0), _pt(rv0), w if affine else None,
                            b if affine else None, training, 0.1, 1e-3)

    def t(x, w, b):
        return torch.nn.functional.batch_norm(x, _tt(rm0), _tt(rv0), w if affine else None,
                                              b if affine else None, training, 0.1, 1e-3)
    return p, t, (4, 3, 5), 3


def _ln(affine=True):
    def p(x, w, b):
        return F.layer_norm(x, [2, 3], w if affine else None, b if affine else None, 1e-3)

    def t(x, w, b):
        return torch.nn.functional.layer_norm(x, [2, 3], w if affine else None,
                                              b if affine else None, 1e-3)
    return p, t, (4, 2, 3), (2, 3)


def _gn(affine=True):
    def p(x, w, b):
        return F.group_norm(x, 2, w if affine else None, b if affine else None, 1e-3)

    def t(x, w, b):
        return torch.nn.functional.group_norm(x, 2, w if affine else None,
                                              b if affine else None, 1e-3)
    return p, t, (3, 4, 5), 4


CASES = {
    "bn_train": lambda: _bn(True), "bn_train_plain": lambda: _bn(True, False),
    "bn_eval": lambda: _bn(False), "bn_eval_plain": lambda: _bn(False, False),
    "ln": lambda: _ln(), "ln_plain": lambda: _ln(False),
    "gn": lambda: _gn(), "gn_plain": lambda: _gn(False),
}


# ---------------------------------------------------------------- one backward call
@pytest.mark.parametrize("name", ["bn_train", "bn_eval", "ln", "gn"])
def test_only_the_input_gradient_when_only_the_input_requires_grad(name):
    pfn, _, shape, C = CASES[name]()
    x = RNG.standard_normal(shape)
    w0, b0 = RNG.standard_normal(C), RNG.standard_normal(C)
    g = RNG.standard_normal(shape)
    # reference: every input requiring grad
    xa, wa, ba = _pt(x, grad=True), _pt(w0, grad=True), _pt(b0, grad=True)
    pfn(xa, wa, ba).backward(_pt(g))
    # only x
    xo, wo, bo = _pt(x, grad=True), _pt(w0), _pt(b0)
    y = pfn(xo, wo, bo)
    y.backward(_pt(g))
    assert wo.grad is None and bo.grad is None
    np.testing.assert_allclose(_np(xo.grad), _np(xa.grad), rtol=1e-12, atol=1e-12)
    # only the weight: its gradient alone, the same values
    xw, ww = _pt(x), _pt(w0, grad=True)
    pfn(xw, ww, _pt(b0)).backward(_pt(g))
    assert xw.grad is None
    np.testing.assert_allclose(_np(ww.grad), _np(wa.grad), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["bn_train", "ln", "gn"])
def test_node_names_unchanged(name):
    pfn, _, shape, C = CASES[name]()
    w, b = _params(C)
    y = pfn(_pt(RNG.standard_normal(shape), grad=True), w, b)
    want = {"bn_train": "NativeBatchNormBackward0", "ln": "NativeLayerNormBackward0",
            "gn": "NativeGroupNormBackward0"}[name]
    assert y.grad_fn.name() == want


def test_prelu_one_backward_call():
    x, w = _pt(RNG.standard_normal((2, 3, 4)), grad=True), _pt(RNG.random(3), grad=True)
    y = F.prelu(x, w)
    assert y.grad_fn.name() == "PreluKernelBackward0"
    g = RNG.standard_normal((2, 3, 4))
    y.backward(_pt(g))
    xn, wn = _np(x), _np(w)[None, :, None]
    np.testing.assert_allclose(_np(x.grad), np.where(xn > 0, g, wn * g), rtol=1e-12)
    np.testing.assert_allclose(_np(w.grad), np.where(xn > 0, 0, xn * g).sum(axis=(0, 2)),
                               rtol=1e-12)
    x2 = _pt(_np(x), grad=True)
    F.prelu(x2, _pt(_np(w))).backward(_pt(g))
    np.testing.assert_allclose(_np(x2.grad), _np(x.grad), rtol=1e-12)


# ---------------------------------------------------------------- double backward
@pytest.mark.parametrize("name", list(CASES))
def test_gradgradcheck(name):
    pfn, _, shape, C = CASES[name]()
    x = _pt(RNG.standard_normal(shape), grad=True)
    w, b = _params(C)
    if name.endswith("plain"):
        _ggc(lambda x: pfn(x, None, None), x)
    else:
        _ggc(pfn, x, w, b)


def test_gradgradcheck_channels_last_and_2d():
    x4 = _pt(RNG.standard_normal((2, 4, 2, 3))).contiguous(memory_format=pytensor.channels_last)
    x4.requires_grad_(True)
    w, b = _params(4)
    _ggc(lambda x, w, b: F.group_norm(x, 2, w, b), x4, w, b)
    _ggc(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), x4, w, b)
    x2 = _pt(RNG.standard_normal((5, 4)), grad=True)
    _ggc(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), x2, w, b)
    xi = _pt(RNG.standard_normal((2, 4, 5)), grad=True)
    _ggc(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), xi, w, b)


def test_gradgradcheck_prelu():
    x = _pt(RNG.standard_normal((2, 3, 4)), grad=True)
    w = _pt(RNG.random(3), grad=True)
    _ggc(lambda x, w: F.prelu(x, w), x, w)


def _second_order(mod, fn, x, w, b, g, v, affine):
    """Gradients of <v, d<g, y>/dx> + sum((d<g, y>/dw)^2) with respect to x, w, b and g."""
    y = fn(x, w, b)
    ins = [x, w, b] if affine else [x]
    firsts = mod.autograd.grad(y, ins, g, create_graph=True)
    loss = (firsts[0] * v).sum()
    if affine:
        loss = loss + (firsts[1] * firsts[1]).sum() + (firsts[2] * firsts[0].sum()).sum()
    return mod.autograd.grad(loss, ins + [g], allow_unused=True)


@requires_torch
@pytest.mark.parametrize("name", list(CASES))
def test_second_order_matches_torch(name):
    pfn, tfn, shape, C = CASES[name]()
    affine = not name.endswith("plain")
    x, g, v = (RNG.standard_normal(shape) for _ in range(3))
    w0, b0 = RNG.standard_normal(C), RNG.standard_normal(C)
    pr = _second_order(pytensor, pfn, _pt(x, grad=True), _pt(w0, grad=True), _pt(b0, grad=True),
                       _pt(g, grad=True), _pt(v), affine)
    tr = _second_order(torch, tfn, _tt(x, grad=True), _tt(w0, grad=True), _tt(b0, grad=True),
                       _tt(g, grad=True), _tt(v), affine)
    assert len(pr) == len(tr)
    for p, t in zip(pr, tr):
        if t is None:
            assert p is None or np.allclose(_np(p), 0)
            continue
        np.testing.assert_allclose(_np(p), t.double().numpy(), rtol=1e-9, atol=1e-10)


@requires_torch
def test_double_backward_node_names_match_torch():
    x = _pt(RNG.standard_normal((4, 3, 5)), grad=True)
    w, b = _params(3)
    y = F.batch_norm(x, None, None, w, b, training=True)
    gx, = pytensor.autograd.grad((y * y).sum(), [x], create_graph=True)
    tx = _tt(_np(x), grad=True)
    ty = torch.nn.functional.batch_norm(tx, None, None, _tt(_np(w), grad=True),
                                        _tt(_np(b), grad=True), training=True)
    tgx, = torch.autograd.grad((ty * ty).sum(), [tx], create_graph=True)
    assert gx.grad_fn.name() == type(tgx.grad_fn).__name__ == "NativeBatchNormBackwardBackward0"
    y = F.layer_norm(x, [5])
    gx, = pytensor.autograd.grad((y * y).sum(), [x], create_graph=True)
    assert gx.grad_fn.name() == "NativeLayerNormBackwardBackward0"


@requires_torch
@pytest.mark.parametrize("name", ["bn_train", "ln"])
def test_third_order_matches_torch(name):
    # the double backward is made of operators: it differentiates again, with the saved
    # statistics as constants, as torch's
    pfn, tfn, shape, C = CASES[name]()
    x, v = RNG.standard_normal(shape), RNG.standard_normal(shape)
    w0, b0 = RNG.standard_normal(C), RNG.standard_normal(C)

    def third(mod, fn, x, w, b, v):
        g1, = mod.autograd.grad((fn(x, w, b) ** 3).sum(), [x], create_graph=True)
        g2, = mod.autograd.grad((g1 * v).sum(), [x], create_graph=True)
        return mod.autograd.grad((g2 * v).sum(), [x, w])

    pr = third(pytensor, pfn, _pt(x, grad=True), _pt(w0, grad=True), _pt(b0), _pt(v))
    tr = third(torch, tfn, _tt(x, grad=True), _tt(w0, grad=True), _tt(b0), _tt(v))
    for p, t in zip(pr, tr):
        np.testing.assert_allclose(_np(p), t.numpy(), rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- group norm layouts
def _cl(t):
    fmt = pytensor.channels_last if t.dim() == 4 else pytensor.channels_last_3d
    return t.contiguous(memory_format=fmt)


def _tcl(t):
    fmt = torch.channels_last if t.dim() == 4 else torch.channels_last_3d
    return t.contiguous(memory_format=fmt)


def ref_group_norm(x, G, w, b, eps):
    N, C = x.shape[:2]
    xr = x.reshape(N, G, -1)
    m = xr.mean(axis=2, keepdims=True)
    v = ((xr - m) ** 2).mean(axis=2, keepdims=True)
    y = ((xr - m) / np.sqrt(v + eps)).reshape(x.shape)
    sh = (1, C) + (1,) * (x.ndim - 2)
    return y * w.reshape(sh) + b.reshape(sh)


@pytest.mark.parametrize("shape", [(2, 6, 3, 4), (3, 4, 2, 3, 2)])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_group_norm_channels_last_matches_numpy(shape, dtype):
    x = RNG.standard_normal(shape) + 3.0
    C = shape[1]
    w, b = RNG.standard_normal(C), RNG.standard_normal(C)
    px = _cl(_pt(x, dtype)).requires_grad_(True)
    pw, pb = _pt(w, dtype, True), _pt(b, dtype, True)
    y = F.group_norm(px, 2, pw, pb, 1e-5)
    assert tuple(y.stride()) == tuple(px.stride())
    tol = 1e-5 if dtype == F32 else 1e-12
    np.testing.assert_allclose(_np(y), ref_group_norm(x, 2, w, b, 1e-5), rtol=tol, atol=tol)
    g = RNG.standard_normal(shape)
    gx, gw, gb = pytensor.autograd.grad(y, [px, pw, pb], _cl(_pt(g, dtype)))
    assert tuple(gx.stride()) == tuple(px.stride())
    # the same gradients as the contiguous layout's
    qx = _pt(x, dtype, True)
    qw, qb = _pt(w, dtype, True), _pt(b, dtype, True)
    hx, hw, hb = pytensor.autograd.grad(F.group_norm(qx, 2, qw, qb, 1e-5), [qx, qw, qb],
                                        _pt(g, dtype))
    for p, q in ((gx, hx), (gw, hw), (gb, hb)):
        np.testing.assert_allclose(_np(p), _np(q), rtol=tol * 10, atol=tol * 10)


def test_group_norm_large_offset_statistics():
    # one pass about a shift: a large common offset does not cost the variance its precision
    x = (1000.0 + RNG.standard_normal((2, 4, 64, 64))).astype(np.float32)
    ref = ref_group_norm(x.astype(np.float64), 2, np.ones(4), np.zeros(4), 1e-5)
    for px in (_pt(x, F32), _cl(_pt(x, F32))):
        np.testing.assert_allclose(_np(F.group_norm(px, 2)), ref, rtol=1e-3, atol=1e-3)


@requires_torch
@pytest.mark.parametrize("shape", [(2, 6, 3, 4), (3, 4, 2, 3, 2), (2, 8, 1, 5)])
@pytest.mark.parametrize("grad_layout", ["same", "contiguous"])
def test_group_norm_channels_last_matches_torch(shape, grad_layout):
    x = RNG.standard_normal(shape)
    C = shape[1]
    w, b = RNG.standard_normal(C), RNG.standard_normal(C)
    g = RNG.standard_normal(shape)
    px = _cl(_pt(x, F32)).requires_grad_(True)
    tx = _tcl(_tt(x, torch.float32)).requires_grad_(True)
    pw, pb = _pt(w, F32, True), _pt(b, F32, True)
    tw, tb = _tt(w, torch.float32, True), _tt(b, torch.float32, True)
    py, ty = F.group_norm(px, 2, pw, pb), torch.nn.functional.group_norm(tx, 2, tw, tb)
    assert tuple(py.stride()) == tuple(ty.stride())
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=1e-5, atol=1e-5)
    pg, tg = _pt(g, F32), _tt(g, torch.float32)
    if grad_layout == "same":
        pg, tg = _cl(pg), _tcl(tg)
    pr = pytensor.autograd.grad(py, [px, pw, pb], pg)
    tr = torch.autograd.grad(ty, [tx, tw, tb], tg)
    assert tuple(pr[0].stride()) == tuple(tr[0].stride())
    for p, t in zip(pr, tr):
        np.testing.assert_allclose(_np(p), t.double().numpy(), rtol=1e-4, atol=1e-4)


@requires_torch
@pytest.mark.parametrize("fn", ["batch_norm", "layer_norm"])
def test_batch_and_layer_norm_channels_last_strides_match_torch(fn):
    x = RNG.standard_normal((2, 3, 4, 5))
    g = RNG.standard_normal((2, 3, 4, 5))
    px = _cl(_pt(x, F32)).requires_grad_(True)
    tx = _tcl(_tt(x, torch.float32)).requires_grad_(True)
    if fn == "batch_norm":
        py = F.batch_norm(px, None, None, training=True)
        ty = torch.nn.functional.batch_norm(tx, None, None, training=True)
    else:
        py, ty = F.layer_norm(px, [4, 5]), torch.nn.functional.layer_norm(tx, [4, 5])
    assert tuple(py.stride()) == tuple(ty.stride())
    for pg, tg in ((_pt(g, F32), _tt(g, torch.float32)),
                   (_cl(_pt(g, F32)), _tcl(_tt(g, torch.float32)))):
        p, = pytensor.autograd.grad(py, [px], pg, retain_graph=True)
        t, = torch.autograd.grad(ty, [tx], tg, retain_graph=True)
        assert tuple(p.stride()) == tuple(t.stride())
        np.testing.assert_allclose(_np(p), t.double().numpy(), rtol=1e-4, atol=1e-4)
