"""Convolution paths and layouts: channels-last (NHWC) problems and the direct depthwise loops on
every path, oneDNN loaded on first use, the one-call backward of convolution, conv_tbc and
pytensor.nn.grad.

Each case runs against the NumPy reference of test_nn_conv.py (one multiply-add per kernel tap)
and, where installed, torch (values, strides, node names, messages). The `path` fixture runs a
case with oneDNN on and off, so a build without oneDNN (or PYTENSOR_ONEDNN=0) runs the GEMM and
depthwise paths only.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from pytensor.backends import onednn
from pytensor.nn import grad as nn_grad
from _torch_oracle import requires_torch, torch
from test_nn_conv import pt, ref_conv, ref_conv_grads

CL = pytensor.channels_last


@pytest.fixture(params=["gemm", "onednn"])
def path(request):
    if request.param == "onednn" and not onednn.is_available():
        pytest.skip("built without oneDNN")
    with onednn.flags(enabled=request.param == "onednn"):
        yield request.param


def to_torch(t):
    return torch.from_numpy(np.ascontiguousarray(t.detach().numpy()))


def _cl_strides(shape):
    n, c, *sp = shape
    s, out = max(c, 1), [0] * len(shape)
    out[1] = 1
    for d in range(len(shape) - 1, 1, -1):
        out[d] = s
        s *= max(shape[d], 1)
    out[0] = s
    return tuple(out)


def _strides(shape):
    out, s = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = s
        s *= max(shape[d], 1)
    return tuple(out)


# ---------------------------------------------------------------- channels-last

CL_CASES = [
    pytest.param(dict(n=2, cin=3, cout=4, size=(7, 6), k=3, stride=1, padding=1, groups=1),
                 id="3x3"),
    pytest.param(dict(n=2, cin=4, cout=6, size=(9, 8), k=3, stride=2, padding=1, groups=2),
                 id="stride2-groups"),
    pytest.param(dict(n=3, cin=8, cout=5, size=(5, 5), k=1, stride=1, padding=0, groups=1),
                 id="1x1"),
    pytest.param(dict(n=2, cin=6, cout=6, size=(8, 7), k=3, stride=1, padding=1, groups=6),
                 id="depthwise"),
    pytest.param(dict(n=1, cin=4, cout=4, size=(6, 6), k=(2, 3), stride=(2, 1), padding=(1, 0),
                      groups=1), id="rect"),
]


@pytest.mark.parametrize("cl_w", [False, True])
@pytest.mark.parametrize("cl_x", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("c", CL_CASES)
def test_channels_last_forward_and_gradients(c, dtype, cl_x, cl_w, path):
    if not (cl_x or cl_w):
        pytest.skip("contiguous: test_nn_conv.py")
    rng = np.random.default_rng(0)
    k = c["k"] if isinstance(c["k"], tuple) else (c["k"],) * 2
    x = rng.standard_normal((c["n"], c["cin"], *c["size"]))
    w = rng.standard_normal((c["cout"], c["cin"] // c["groups"], *k))
    b = rng.standard_normal(c["cout"])
    dt = getattr(pytensor, dtype)
    xt, wt, bt = pt(x, dt), pt(w, dt), pt(b, dt, True)
    if cl_x:
        xt = xt.contiguous(memory_format=CL)
    if cl_w:
        wt = wt.contiguous(memory_format=CL)
    xt.requires_grad_(True)
    wt.requires_grad_(True)
    y = F.conv2d(xt, wt, bt, stride=c["stride"], padding=c["padding"], groups=c["groups"])
    # channels-last when an operand is in it and not plainly contiguous as well (torch's rule)
    cl = any(t.is_contiguous(memory_format=CL) and not t.is_contiguous() for t in (xt, wt))
    want = _cl_strides if cl else _strides
    assert tuple(y.stride()) == want(tuple(y.shape))
    ry = ref_conv(x, w, b, c["stride"], c["padding"], 1, c["groups"])
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(y.detach().numpy(), ry, **tol)
    gy = rng.standard_normal(tuple(y.shape))
    rgx, rgw = ref_conv_grads(x.shape, x, w, gy, c["stride"], c["padding"], 1, c["groups"])
    gi, gw, gb = pytensor.convolution_backward(
        pt(gy, dt).contiguous(memory_format=CL), xt.detach(), wt.detach(), [c["cout"]],
        list(c["stride"]) if isinstance(c["stride"], tuple) else [c["stride"]] * 2,
        list(c["padding"]) if isinstance(c["padding"], tuple) else [c["padding"]] * 2, [1, 1],
        False, [0, 0], c["groups"], [True, True, True])
    assert tuple(gi.stride()) == want(tuple(gi.shape))
    assert tuple(gw.stride()) == want(tuple(gw.shape))
    np.testing.assert_allclose(gi.numpy(), rgx, **tol)
    np.testing.assert_allclose(gw.numpy(), rgw, **tol)
    np.testing.assert_allclose(gb.numpy(), gy.sum(axis=(0, 2, 3)), **tol)
    y.backward(pt(gy, dt))
    np.testing.assert_allclose(xt.grad.numpy(), rgx, **tol)
    np.testing.assert_allclose(wt.grad.numpy(), rgw, **tol)


def test_channels_last_transposed_and_3d(path):
    rng = np.random.default_rng(1)
    x = pt(rng.standard_normal((2, 4, 5, 4)), pytensor.float32)
    w = pt(rng.standard_normal((4, 3, 3, 3)), pytensor.float32)
    want = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    got = F.conv_transpose2d(x.contiguous(memory_format=CL), w, stride=2, padding=1,
                             output_padding=1)
    assert got.is_contiguous(memory_format=CL)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    x3 = pt(rng.standard_normal((2, 3, 4, 5, 4)), pytensor.float64)
    w3 = pt(rng.standard_normal((2, 3, 2, 2, 2)), pytensor.float64)
    want = F.conv3d(x3, w3, padding=1)
    got = F.conv3d(x3.contiguous(memory_format=pytensor.channels_last_3d), w3, padding=1)
    assert got.is_contiguous(memory_format=pytensor.channels_last_3d)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_channels_last_gradcheck():
    rng = np.random.default_rng(2)
    x = pt(rng.standard_normal((1, 4, 5, 5)), pytensor.float64).contiguous(memory_format=CL)
    w = pt(rng.standard_normal((4, 2, 3, 3)), pytensor.float64).contiguous(memory_format=CL)
    x.requires_grad_(True)
    w.requires_grad_(True)
    fn = lambda a, b: F.conv2d(a, b, padding=1, groups=2)  # noqa: E731
    assert pytensor.autograd.gradcheck(fn, (x, w))
    assert pytensor.autograd.gradgradcheck(fn, (x, w))


@requires_torch
@pytest.mark.parametrize("groups", [1, 8])
def test_channels_last_strides_match_torch(groups, path):
    for cl_x, cl_w in ((True, False), (False, True), (True, True)):
        x, w = pytensor.randn(2, 8, 6, 6), pytensor.randn(8 if groups > 1 else 4, 8 // groups, 3, 3)
        tx, tw = to_torch(x), to_torch(w)
        if cl_x:
            x, tx = x.contiguous(memory_format=CL), tx.contiguous(memory_format=torch.channels_last)
        if cl_w:
            w, tw = w.contiguous(memory_format=CL), tw.contiguous(memory_format=torch.channels_last)
        y = F.conv2d(x, w, padding=1, groups=groups)
        ty = torch.nn.functional.conv2d(tx, tw, padding=1, groups=groups)
        assert tuple(y.stride()) == tuple(ty.stride())
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)
        g = pytensor.randn(*y.shape)
        r = pytensor.convolution_backward(g, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0],
                                          groups, [True, True, False])
        tr = torch.ops.aten.convolution_backward(to_torch(g), tx, tw, None, [1, 1], [1, 1], [1, 1],
                                                 False, [0, 0], groups, [True, True, False])
        for a, b in zip(r[:2], tr[:2]):
            assert tuple(a.stride()) == tuple(b.stride())
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- depthwise

DW_CASES = [
    pytest.param(dict(n=2, c=6, m=1, size=(9, 8), k=3, stride=1, padding=1, dilation=1), id="3x3"),
    pytest.param(dict(n=2, c=5, m=1, size=(9, 9), k=3, stride=2, padding=1, dilation=1), id="s2"),
    pytest.param(dict(n=1, c=4, m=2, size=(7, 6), k=(3, 2), stride=(1, 2), padding=(0, 1),
                      dilation=(2, 1)), id="mult2-rect-dil"),
    pytest.param(dict(n=3, c=3, m=1, size=(5, 40), k=5, stride=1, padding=2, dilation=1),
                 id="5x5-wide"),
    pytest.param(dict(n=2, c=4, m=1, size=(13,), k=3, stride=2, padding=1, dilation=1), id="1d"),
]


def _dw_inputs(c, rng):
    dims = len(c["size"])
    k = c["k"] if isinstance(c["k"], tuple) else (c["k"],) * dims
    x = rng.standard_normal((c["n"], c["c"], *c["size"]))
    w = rng.standard_normal((c["c"] * c["m"], 1, *k))
    return x, w


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("c", DW_CASES)
def test_depthwise_matches_reference(c, dtype, path):
    rng = np.random.default_rng(3)
    x, w = _dw_inputs(c, rng)
    dims = x.ndim - 2
    dt = getattr(pytensor, dtype)
    xt, wt = pt(x, dt, True), pt(w, dt, True)
    conv = getattr(F, f"conv{dims}d")
    y = conv(xt, wt, None, stride=c["stride"], padding=c["padding"], dilation=c["dilation"],
             groups=c["c"])
    if dims == 2:
        # Note [convolution paths]: these planes are small, so oneDNN takes float32 where it runs
        want = "onednn" if path == "onednn" and dtype == "float32" else "depthwise"
        for p in ("forward", "backward_data", "backward_weight"):
            assert onednn.conv_path(xt, wt, c["stride"], c["padding"], c["dilation"],
                                    groups=c["c"], pass_=p) == want
    ry = ref_conv(x, w, None, c["stride"], c["padding"], c["dilation"], c["c"])
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(y.detach().numpy(), ry, **tol)
    gy = rng.standard_normal(tuple(y.shape))
    rgx, rgw = ref_conv_grads(x.shape, x, w, gy, c["stride"], c["padding"], c["dilation"], c["c"])
    y.backward(pt(gy, dt))
    np.testing.assert_allclose(xt.grad.numpy(), rgx, **tol)
    np.testing.assert_allclose(wt.grad.numpy(), rgw, **tol)


@pytest.mark.parametrize("c", DW_CASES[1:3])
def test_depthwise_gradcheck(c, path):
    rng = np.random.default_rng(4)
    c = dict(c, n=1)
    x, w = _dw_inputs(c, rng)
    ins = (pt(x, pytensor.float64, True), pt(w, pytensor.float64, True))
    fn = lambda a, b: F.conv2d(a, b, stride=c["stride"], padding=c["padding"],  # noqa: E731
                               dilation=c["dilation"], groups=c["c"])
    assert pytensor.autograd.gradcheck(fn, ins)
    assert pytensor.autograd.gradgradcheck(fn, ins)


def test_depthwise_path_follows_the_plane_size():
    # Note [convolution paths]: the direct loops from a 40 x 40 plane up, oneDNN below it
    if not onednn.is_available():
        pytest.skip("built without oneDNN")
    w = pytensor.empty(8, 1, 3, 3)
    for size, want in [((39, 41), "onednn"), ((40, 40), "depthwise"), ((112, 112), "depthwise"),
                       ((7, 7), "onednn")]:
        x = pytensor.empty(2, 8, *size)
        for p in ("forward", "backward_data", "backward_weight"):
            assert onednn.conv_path(x, w, 1, 1, 1, groups=8, pass_=p) == want, (size, p)
    # channels-last data is oneDNN's at every size; float64 the direct loops'
    x = pytensor.empty(2, 8, 64, 64).to(memory_format=pytensor.channels_last)
    assert onednn.conv_path(x, w, 1, 1, 1, groups=8) == "onednn"
    x64, w64 = pytensor.empty(2, 8, 7, 7, dtype=pytensor.float64), w.double()
    assert onednn.conv_path(x64, w64, 1, 1, 1, groups=8) == "depthwise"
    with onednn.flags(enabled=False):
        assert onednn.conv_path(pytensor.empty(2, 8, 7, 7), w, 1, 1, 1, groups=8) == "depthwise"


def test_depthwise_large_plane_matches_reference():
    rng = np.random.default_rng(6)
    c = dict(n=1, c=3, m=1, size=(41, 40), k=3, stride=1, padding=1, dilation=1)
    x, w = _dw_inputs(c, rng)
    xt, wt = pt(x, pytensor.float32, True), pt(w, pytensor.float32, True)
    assert onednn.conv_path(xt, wt, 1, 1, 1, groups=3) == "depthwise"
    y = F.conv2d(xt, wt, None, padding=1, groups=3)
    np.testing.assert_allclose(y.detach().numpy(), ref_conv(x, w, None, 1, 1, 1, 3),
                               rtol=1e-4, atol=1e-4)


def test_depthwise_does_not_depend_on_threads():
    rng = np.random.default_rng(5)
    x = pt(rng.standard_normal((4, 16, 20, 20)), pytensor.float32, True)
    w = pt(rng.standard_normal((16, 1, 3, 3)), pytensor.float32, True)
    was = pytensor.get_num_threads()
    outs = []
    try:
        for n in (1, 2):
            pytensor.set_num_threads(n)
            with onednn.flags(enabled=False):
                y = F.conv2d(x, w, padding=1, groups=16)
                gx, gw = pytensor.autograd.grad((y * y).sum(), (x, w))
            outs.append([t.detach().numpy() for t in (y, gx, gw)])
    finally:
        pytensor.set_num_threads(was)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


@requires_torch
def test_depthwise_matches_torch(path):
    x, w = pytensor.randn(4, 32, 14, 14), pytensor.randn(32, 1, 3, 3)
    for stride in (1, 2):
        y = F.conv2d(x, w, padding=1, stride=stride, groups=32)
        ty = torch.nn.functional.conv2d(to_torch(x), to_torch(w), padding=1, stride=stride,
                                        groups=32)
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- one-call backward

def test_one_backward_call_gives_every_gradient():
    x = pytensor.randn(2, 3, 6, 6, requires_grad=True)
    w = pytensor.randn(4, 3, 3, 3, requires_grad=True)
    b = pytensor.randn(4, requires_grad=True)
    y = F.conv2d(x, w, b, padding=1)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert list(y.grad_fn._saved_bias_sym_sizes_opt) == [4]
    gy = pytensor.randn(*y.shape)
    gx, gw, gb = pytensor.autograd.grad(y, (x, w, b), gy)
    r = pytensor.convolution_backward(gy, x.detach(), w.detach(), [4], [1, 1], [1, 1], [1, 1],
                                      False, [0, 0], 1, [True, True, True])
    for a, e in zip((gx, gw, gb), r):
        np.testing.assert_array_equal(a.numpy(), e.numpy())
    # no bias: its sizes are None; only the input's gradient asked for
    y = F.conv2d(x, w, None, padding=1)
    assert y.grad_fn._saved_bias_sym_sizes_opt is None
    (gx2,) = pytensor.autograd.grad(y, x, gy)
    np.testing.assert_array_equal(gx2.numpy(), r[0].numpy())


def test_double_backward_through_one_call():
    x = pytensor.randn(1, 2, 5, 5, dtype=pytensor.float64, requires_grad=True)
    w = pytensor.randn(3, 2, 3, 3, dtype=pytensor.float64, requires_grad=True)
    b = pytensor.randn(3, dtype=pytensor.float64, requires_grad=True)
    fn = lambda a, c, d: F.conv2d(a, c, d, stride=2, padding=1)  # noqa: E731
    assert pytensor.autograd.gradgradcheck(fn, (x, w, b))
    y = fn(x, w, b)
    gx, = pytensor.autograd.grad(y.sum(), x, create_graph=True)
    assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
    gw, = pytensor.autograd.grad((gx * gx).sum(), w)
    assert tuple(gw.shape) == (3, 2, 3, 3)


# ---------------------------------------------------------------- conv_tbc

def ref_tbc(x, w, b, pad):
    """conv_tbc from the definition: y[t, n, o] = b[o] + sum_k sum_c x[t + k - pad, n, c] w[k, c, o]."""
    T, N, _ = x.shape
    K, _, O = w.shape
    olen = T + 2 * pad - K + 1
    y = np.tile(b, (olen, N, 1)).astype(np.float64)
    for t in range(olen):
        for k in range(K):
            s = t + k - pad
            if 0 <= s < T:
                y[t] += x[s] @ w[k]
    return y


@pytest.mark.parametrize("pad", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv_tbc_matches_reference(pad, dtype, path):
    rng = np.random.default_rng(6)
    x, w, b = (rng.standard_normal(s) for s in ((7, 2, 3), (3, 3, 4), (4,)))
    dt = getattr(pytensor, dtype)
    xt, wt, bt = pt(x, dt, True), pt(w, dt, True), pt(b, dt, True)
    y = F.conv_tbc(xt, wt, bt, pad)
    assert y.grad_fn.name() == "ConvTbcBackward0" and y.is_contiguous()
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(y.detach().numpy(), ref_tbc(x, w, b, pad), **tol)
    y.sum().backward()
    # d/dx of sum(y): each input step gets the weights of the taps that read it
    gx = np.zeros_like(x)
    gw = np.zeros_like(w)
    for t in range(y.shape[0]):
        for k in range(w.shape[0]):
            s = t + k - pad
            if 0 <= s < x.shape[0]:
                gx[s] += w[k].sum(axis=1)
                gw[k] += x[s].sum(axis=0)[:, None]
    np.testing.assert_allclose(xt.grad.numpy(), gx, **tol)
    np.testing.assert_allclose(wt.grad.numpy(), gw, **tol)
    np.testing.assert_allclose(bt.grad.numpy(), np.full(4, y.shape[0] * 2.0), **tol)


def test_conv_tbc_gradcheck_and_empty():
    rng = np.random.default_rng(7)
    ins = tuple(pt(rng.standard_normal(s), pytensor.float64, True)
                for s in ((5, 2, 3), (2, 3, 2), (2,)))
    assert pytensor.autograd.gradcheck(lambda a, b, c: pytensor.conv_tbc(a, b, c, 1), ins)
    assert pytensor.autograd.gradgradcheck(lambda a, b, c: pytensor.conv_tbc(a, b, c, 1), ins)
    x = pytensor.randn(5, 2, 3, requires_grad=True)
    y = pytensor.conv_tbc(x, pytensor.randn(6, 3, 4), pytensor.randn(4))
    assert tuple(y.shape) == (0, 2, 4)
    r = pytensor.conv_tbc_backward(pytensor.empty(0, 2, 4), x.detach(), pytensor.randn(6, 3, 4),
                                   pytensor.randn(4), 0)
    assert [tuple(t.shape) for t in r] == [(5, 2, 3), (6, 3, 4), (4,)]
    assert all(t.abs().sum().item() == 0 for t in r)


@pytest.mark.parametrize("pad", [0, 2, -1])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
def test_conv_tbc_integers_exact(pad, dtype):
    """Integer dtypes go by products (Note [conv_tbc by products]); exact against the definition,
    wrapping as the dtype does."""
    rng = np.random.default_rng(8)
    x, w, b = (rng.integers(0, 4, s) for s in ((7, 2, 3), (3, 3, 4), (4,)))
    dt = getattr(pytensor, dtype)
    y = pytensor.conv_tbc(pytensor.tensor(x.tolist(), dtype=dt), pytensor.tensor(w.tolist(), dtype=dt),
                          pytensor.tensor(b.tolist(), dtype=dt), pad)
    assert y.dtype is dt
    want = ref_tbc(x, w, b, pad).astype(np.int64).astype(getattr(np, dtype))
    np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("pad", [1, -1])
def test_conv_tbc_complex_values_and_backward(pad):
    """Complex values go by products; conv_tbc_backward of complex operands called directly
    gives the gradients of sum(real(conj(g) * y)) (torch's convention), checked against the
    definition; requires_grad on a complex input is refused as torch refuses it."""
    rng = np.random.default_rng(9)
    shapes = ((6, 2, 3), (3, 3, 2), (2,))
    x, w, b = (rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in shapes)
    c = [pytensor.tensor(a.tolist(), dtype=pytensor.complex128) for a in (x, w, b)]
    y = pytensor.conv_tbc(*c, pad)
    np.testing.assert_allclose(y.numpy(), _tbc_complex(x, w, b, pad), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(y.shape) + 1j * rng.standard_normal(y.shape)
    gi, gw, gb = pytensor.conv_tbc_backward(pytensor.tensor(g.tolist(), dtype=pytensor.complex128),
                                            *c, pad)
    # d/dconj(x) of <g, y>: each tap's product transposed against the conjugate weights
    ex, ew = np.zeros_like(x), np.zeros_like(w)
    for t in range(y.shape[0]):
        for k in range(w.shape[0]):
            s_ = t + k - pad
            if 0 <= s_ < x.shape[0]:
                ex[s_] += g[t] @ w[k].T
                ew[k] += x[s_].T @ g[t]
    np.testing.assert_allclose(gi.numpy(), ex, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ew, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), g.sum(axis=(0, 1)), rtol=1e-12, atol=1e-12)
    if torch is not None:
        tg = torch.ops.aten.conv_tbc_backward(torch.tensor(g), *(torch.tensor(a) for a in (x, w, b)), pad)
        for mine, theirs in zip((gi, gw, gb), tg):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="conv_tbc does not support automatic differentiation "
                                           "for outputs with complex dtype."):
        pytensor.conv_tbc(c[0].requires_grad_(), c[1], c[2], pad)


def _tbc_complex(x, w, b, pad):
    T, N, _ = x.shape
    K, _, O = w.shape
    olen = T + 2 * pad - K + 1
    y = np.tile(b, (olen, N, 1))
    for t in range(olen):
        for k in range(K):
            s = t + k - pad
            if 0 <= s < T:
                y[t] += x[s] @ w[k]
    return y


def test_conv_tbc_bool_refused():
    x = pytensor.ones(4, 2, 3, dtype=pytensor.bool)
    with pytest.raises((RuntimeError, NotImplementedError), match="Bool"):
        pytensor.conv_tbc(x, pytensor.ones(2, 3, 4, dtype=pytensor.bool),
                          pytensor.ones(4, dtype=pytensor.bool), 0)


TBC_BAD = [
    ((5, 3), (3, 3, 4), (4,), 0, "Input must have 3 dims: time, batch, in_channel"),
    ((5, 2, 3), (3, 4), (4,), 0, "Weight tensor must have 3 dims: kernel_width, in_channels, "
                                 "out_channels."),
    ((5, 2, 3), (3, 3, 4), (1, 4), 0, "Bias must be 1-D"),
    ((5, 2, 3), (3, 2, 4), (4,), 0, "Input dim 2 (input channels) is not == dim 1 in the weight "
                                    "tensor"),
    ((5, 2, 3), (3, 3, 4), (3,), 0, "Bias size must equal dim 2 in the weight tensor (output "
                                    "channels)."),
    ((5, 2, 3), (9, 3, 4), (4,), 0, "Trying to create tensor with negative dimension -3: "
                                    "[-3, 2, 4]"),
]


@pytest.mark.parametrize("i", range(len(TBC_BAD)))
def test_conv_tbc_bad_inputs(i):
    xs, ws, bs, pad, msg = TBC_BAD[i]
    with pytest.raises(RuntimeError) as e:
        pytensor.conv_tbc(pytensor.randn(*xs), pytensor.randn(*ws), pytensor.randn(*bs), pad)
    assert str(e.value) == msg
    if torch is not None:
        with pytest.raises(RuntimeError) as t:
            torch.conv_tbc(torch.randn(*xs), torch.randn(*ws), torch.randn(*bs), pad)
        assert str(t.value) == msg


@requires_torch
def test_conv_tbc_matches_torch():
    x, w, b = pytensor.randn(9, 3, 4), pytensor.randn(3, 4, 5), pytensor.randn(5)
    for pad in (0, 1, 3):
        tx, tw, tb = (to_torch(t).requires_grad_(True) for t in (x, w, b))
        ox, ow, ob = (t.clone().requires_grad_(True) for t in (x, w, b))
        y = pytensor.conv_tbc(ox, ow, ob, pad)
        ty = torch.conv_tbc(tx, tw, tb, pad)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
        g = pytensor.randn(*y.shape)
        y.backward(g)
        ty.backward(to_torch(g))
        for a, e in ((ox, tx), (ow, tw), (ob, tb)):
            np.testing.assert_allclose(a.grad.numpy(), e.grad.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- pytensor.nn.grad

@pytest.mark.parametrize("dims", [1, 2, 3])
def test_nn_grad_matches_autograd(dims):
    rng = np.random.default_rng(8)
    x = pt(rng.standard_normal((2, 4) + (6,) * dims), pytensor.float64, True)
    w = pt(rng.standard_normal((6, 2) + (3,) * dims), pytensor.float64, True)
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    y = getattr(F, f"conv{dims}d")(x, w, **kw)
    gy = pytensor.randn(*y.shape, dtype=pytensor.float64)
    gx, gw = pytensor.autograd.grad(y, (x, w), gy)
    got_x = getattr(nn_grad, f"conv{dims}d_input")(tuple(x.shape), w.detach(), gy, **kw)
    got_w = getattr(nn_grad, f"conv{dims}d_weight")(x.detach(), tuple(w.shape), gy, **kw)
    np.testing.assert_allclose(got_x.numpy(), gx.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_w.numpy(), gw.numpy(), rtol=1e-12, atol=1e-12)
    assert F.grad is nn_grad


@requires_torch
def test_nn_grad_matches_torch():
    x, w = pytensor.randn(2, 3, 7, 7), pytensor.randn(4, 3, 3, 2)
    gy = pytensor.randn(2, 4, 4, 6)
    kw = dict(stride=(2, 1), padding=(1, 0), dilation=(1, 1))
    np.testing.assert_allclose(
        nn_grad.conv2d_input((2, 3, 7, 7), w, gy, **kw).numpy(),
        torch.nn.grad.conv2d_input((2, 3, 7, 7), to_torch(w), to_torch(gy), **kw).numpy(),
        rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        nn_grad.conv2d_weight(x, (4, 3, 3, 2), gy, **kw).numpy(),
        torch.nn.grad.conv2d_weight(to_torch(x), (4, 3, 3, 2), to_torch(gy), **kw).numpy(),
        rtol=1e-4, atol=1e-4)
    assert sorted(nn_grad.__all__) == sorted(n for n in dir(torch.nn.grad)
                                             if n.startswith("conv") and n[-1] != "_")


# ---------------------------------------------------------------- oneDNN loaded on first use

def _run(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_onednn_is_not_loaded_at_import():
    code = ("import pytensor\n"
            "maps = open('/proc/self/maps').read()\n"
            "print('libdnnl' in maps, pytensor._C._config().get('onednn_loaded', '-'))\n"
            "import pytensor.nn.functional as F\n"
            "F.conv2d(pytensor.randn(1, 3, 8, 8), pytensor.randn(4, 3, 3, 3))\n"
            "maps = open('/proc/self/maps').read()\n"
            "print('libdnnl' in maps, pytensor._C._config().get('onednn_loaded', '-'))\n")
    before, after = _run(code).splitlines()
    assert before == "False -"
    if onednn.is_available() and os.environ.get("PYTENSOR_ONEDNN") != "0":
        assert after.startswith("True oneDNN ")
    else:
        assert after.startswith("False")


def test_onednn_report_is_truthful():
    cfg = pytensor._C._config()
    if not pytensor.has_onednn:
        assert cfg["onednn"] == "no"
        assert not onednn.is_available()
        return
    assert "found at build time, loaded on first use" in cfg["onednn"]
    assert onednn.is_available() == pytensor._C._config()["onednn_loaded"].startswith("oneDNN ")


def test_onednn_is_available_loads_it():
    out = _run("import pytensor\nfrom pytensor.backends import onednn\n"
               "print(onednn.is_available(), 'libdnnl' in open('/proc/self/maps').read())")
    assert out in ("True True", "False False")
    assert out.startswith(str(onednn.is_available()))


def test_onednn_that_fails_to_load_falls_back():
    if not pytensor.has_onednn:
        pytest.skip("built without oneDNN")
    code = ("import pytensor, pytensor.nn.functional as F\n"
            "from pytensor.backends import onednn\n"
            "x, w = pytensor.randn(1, 3, 8, 8), pytensor.randn(4, 3, 3, 3)\n"
            "y = F.conv2d(x, w)\n"
            "with onednn.flags(enabled=False):\n"
            "    z = F.conv2d(x, w)\n"
            "print((y - z).abs().max().item() < 1e-4, onednn.is_available(), onednn.conv_path(x, w))\n"
            "print(pytensor._C._config()['onednn_loaded'])\n")
    first, second = _run(code, PYTENSOR_ONEDNN_LIBRARY="libpytensor-no-such-dnnl.so").splitlines()
    assert first == "True False gemm"
    assert second.startswith("no: ") and "libpytensor-no-such-dnnl.so" in second
