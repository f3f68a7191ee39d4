"""Convolutions (F.conv1d/2d/3d, conv_transpose1d/2d/3d, unfold, fold; the operators convolution,
convolution_backward, _convolution, im2col, col2im) on both paths: oneDNN and im2col + GEMM.

Every case runs against a NumPy reference written from the definition (one multiply-add per
kernel tap over the whole batch), forward and both gradients, on each path (the `path` fixture
turns oneDNN off for 'gemm'); float64 gradients are checked by gradcheck and gradgradcheck;
torch, where installed, pins values, dtypes, memory formats, node names and error texts.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from pytensor.backends import onednn
from _torch_oracle import requires_torch, torch

PATHS = ["gemm", "onednn"]


@pytest.fixture(params=PATHS)
def path(request):
    if request.param == "onednn" and not onednn.is_available():
        pytest.skip("built without oneDNN")
    with onednn.flags(enabled=request.param == "onednn"):
        yield request.param


# ---------------------------------------------------------------- the NumPy reference

def _tup(v, d):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * d


def _taps(k):
    return itertools.product(*[range(n) for n in k])


def _window(xp, tap, out, s, dil):
    """xp's elements read by kernel tap `tap` at every output position."""
    idx = tuple(slice(t * d, t * d + st * (o - 1) + 1, st) for t, o, st, d in zip(tap, out, s, dil))
    return (slice(None), slice(None)) + idx


def ref_conv(x, w, b, s, p, dil, groups):
    """Plain convolution: y[n, o, pos] = sum over taps of x[n, c, pos*s - p + tap*d] w[o, c, tap]."""
    d = x.ndim - 2
    s, p, dil = _tup(s, d), _tup(p, d), _tup(dil, d)
    k = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    out = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(d)]
    cin_g, cout_g = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out), dtype=np.float64)
    for tap in _taps(k):
        win = xp[_window(xp, tap, out, s, dil)]
        for g in range(groups):
            y[:, g * cout_g:(g + 1) * cout_g] += np.einsum(
                "nc...,oc->no...", win[:, g * cin_g:(g + 1) * cin_g],
                w[g * cout_g:(g + 1) * cout_g, :, *tap])
    if b is not None:
        y += b.reshape(1, -1, *([1] * d))
    return y


def ref_conv_grads(x_shape, x, w, gy, s, p, dil, groups):
    """Gradients of the plain convolution of x (shape x_shape) with respect to x and w, from gy
    (x may be None when only the input gradient is wanted)."""
    d = len(x_shape) - 2
    s, p, dil = _tup(s, d), _tup(p, d), _tup(dil, d)
    k = w.shape[2:]
    padded = [x_shape[0], x_shape[1]] + [x_shape[2 + i] + 2 * p[i] for i in range(d)]
    gxp = np.zeros(padded)
    xp = None if x is None else np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    out = gy.shape[2:]
    cin_g, cout_g = x_shape[1] // groups, w.shape[0] // groups
    gw = np.zeros(w.shape)
    for tap in _taps(k):
        sl = _window(gxp, tap, out, s, dil)
        for g in range(groups):
            go = gy[:, g * cout_g:(g + 1) * cout_g]
            cs = slice(g * cin_g, (g + 1) * cin_g)
            gxp[sl[0], cs, *sl[2:]] += np.einsum("no...,oc->nc...", go,
                                                 w[g * cout_g:(g + 1) * cout_g, :, *tap])
            if xp is not None:
                ax = [0] + list(range(2, go.ndim))
                gw[g * cout_g:(g + 1) * cout_g, :, *tap] = np.tensordot(
                    go, xp[sl[0], cs, *sl[2:]], axes=(ax, ax))
    crop = (slice(None), slice(None)) + tuple(slice(q, q + x_shape[2 + i]) for i, q in enumerate(p))
    return gxp[crop], gw


def transposed_out(x, w, s, p, dil, op, groups):
    d = x.ndim - 2
    s, p, dil, op = _tup(s, d), _tup(p, d), _tup(dil, d), _tup(op, d)
    return [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + dil[i] * (w.shape[2 + i] - 1) + op[i] + 1
            for i in range(d)]


def reference(case, x, w, b, gy):
    """(y, gx, gw, gb) of the case by the definition."""
    dims, tr, s, p, dil, op, groups = (case[k] for k in ("dims", "transposed", "stride", "padding",
                                                          "dilation", "output_padding", "groups"))
    axes = (0,) + tuple(range(2, 2 + dims))
    if not tr:
        y = ref_conv(x, w, b, s, p, dil, groups)
        gx, gw = ref_conv_grads(x.shape, x, w, gy, s, p, dil, groups)
    else:
        out = transposed_out(x, w, s, p, dil, op, groups)
        plain_x_shape = (x.shape[0], w.shape[1] * groups, *out)
        y, _ = ref_conv_grads(plain_x_shape, None, w, x, s, p, dil, groups)
        if b is not None:
            y = y + b.reshape(1, -1, *([1] * dims))
        gx = ref_conv(gy, w, None, s, p, dil, groups)
        _, gw = ref_conv_grads(gy.shape, gy, w, x, s, p, dil, groups)
    gb = gy.sum(axis=axes)
    return y, gx, gw, gb


# ---------------------------------------------------------------- cases

def case(name, dims, n, cin, cout, size, k, stride=1, padding=0, dilation=1, groups=1,
         transposed=False, output_padding=0, bias=True):
    return pytest.param(dict(dims=dims, n=n, cin=cin, cout=cout, size=size, k=k, stride=stride,
                             padding=padding, dilation=dilation, groups=groups,
                             transposed=transposed, output_padding=output_padding, bias=bias),
                        id=name)


CASES = [
    case("2d-3x3", 2, 2, 3, 4, (7, 6), 3, padding=1),
    case("2d-stride2", 2, 2, 4, 5, (9, 8), 3, stride=2, padding=1),
    case("2d-rect-kernel", 2, 1, 3, 2, (6, 7), (2, 3), stride=(1, 2), padding=(1, 0)),
    case("2d-dilation", 2, 2, 3, 4, (9, 9), 3, dilation=2, padding=2),
    case("2d-1x1", 2, 3, 8, 6, (5, 5), 1, bias=False),
    case("2d-1x1-stride2", 2, 2, 4, 3, (6, 6), 1, stride=2),
    case("2d-groups", 2, 2, 6, 4, (6, 6), 3, groups=2, padding=1),
    case("2d-depthwise", 2, 3, 4, 8, (7, 7), 3, groups=4, padding=1),
    case("2d-batch1", 2, 1, 5, 7, (10, 10), 3),
    case("2d-large", 2, 4, 16, 16, (14, 14), 3, padding=1),
    case("1d", 1, 2, 3, 4, (11,), 3, stride=2, padding=1),
    case("1d-dilation-groups", 1, 2, 4, 6, (12,), 3, dilation=3, groups=2),
    case("3d", 3, 2, 2, 3, (5, 6, 4), 3, padding=1),
    case("3d-stride", 3, 1, 3, 2, (6, 6, 6), 2, stride=2, bias=False),
    case("t2d", 2, 2, 4, 3, (5, 4), 3, transposed=True),
    case("t2d-stride-outpad", 2, 2, 3, 4, (4, 5), 3, stride=2, padding=1, output_padding=1,
         transposed=True),
    case("t2d-groups-dil", 2, 2, 4, 6, (5, 5), 2, dilation=2, groups=2, transposed=True),
    case("t1d", 1, 2, 3, 2, (6,), 4, stride=3, padding=1, output_padding=2, transposed=True),
    case("t3d", 3, 1, 2, 3, (3, 4, 3), 2, stride=2, transposed=True),
]


def make_inputs(c, dtype, rng):
    x = rng.standard_normal((c["n"], c["cin"], *c["size"]))
    k = _tup(c["k"], c["dims"])
    g = c["groups"]
    if c["transposed"]:
        w = rng.standard_normal((c["cin"], c["cout"] // g, *k))
    else:
        w = rng.standard_normal((c["cout"], c["cin"] // g, *k))
    b = rng.standard_normal(c["cout"]) if c["bias"] else None
    return x, w, b


def call(c, x, w, b):
    d = c["dims"]
    if c["transposed"]:
        fn = getattr(F, f"conv_transpose{d}d")
        return fn(x, w, b, stride=c["stride"], padding=c["padding"],
                  output_padding=c["output_padding"], groups=c["groups"], dilation=c["dilation"])
    fn = getattr(F, f"conv{d}d")
    return fn(x, w, b, stride=c["stride"], padding=c["padding"], dilation=c["dilation"],
              groups=c["groups"])


def pt(a, dtype, grad=False):
    t = pytensor.from_numpy(np.ascontiguousarray(a)).to(dtype)
    return t.requires_grad_(True) if grad else t


# ---------------------------------------------------------------- against the reference

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("c", CASES)
def test_forward_and_gradients_match_reference(c, dtype, path):
    rng = np.random.default_rng(0)
    x, w, b = make_inputs(c, dtype, rng)
    dt = getattr(pytensor, dtype)
    xt, wt = pt(x, dt, True), pt(w, dt, True)
    bt = pt(b, dt, True) if b is not None else None
    y = call(c, xt, wt, bt)
    gy = rng.standard_normal(tuple(y.shape))
    ry, rgx, rgw, rgb = reference(c, x, w, b, gy)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    assert y.dtype == dt
    np.testing.assert_allclose(y.detach().numpy(), ry, **tol)
    y.backward(pt(gy, dt))
    np.testing.assert_allclose(xt.grad.numpy(), rgx, **tol)
    np.testing.assert_allclose(wt.grad.numpy(), rgw, **tol)
    if bt is not None:
        np.testing.assert_allclose(bt.grad.numpy(), rgb, **tol)


@pytest.mark.parametrize("c", [CASES[0], CASES[6], CASES[10], CASES[12], CASES[15], CASES[17]])
def test_gradcheck_float64(c, path):
    rng = np.random.default_rng(1)
    c = dict(c, n=1)
    x, w, b = make_inputs(c, "float64", rng)
    ins = (pt(x, pytensor.float64, True), pt(w, pytensor.float64, True),
           pt(b, pytensor.float64, True) if b is not None else None)
    assert pytensor.autograd.gradcheck(lambda *a: call(c, *a), ins)


@pytest.mark.parametrize("c", [CASES[2], CASES[16]])
def test_gradgradcheck_float64(c, path):
    rng = np.random.default_rng(2)
    c = dict(c, n=1)
    x, w, b = make_inputs(c, "float64", rng)
    ins = (pt(x, pytensor.float64, True), pt(w, pytensor.float64, True),
           pt(b, pytensor.float64, True) if b is not None else None)
    assert pytensor.autograd.gradgradcheck(lambda *a: call(c, *a), ins)


def test_paths_are_visible_and_switchable():
    x, w = pytensor.empty(2, 3, 8, 8), pytensor.empty(4, 3, 3, 3)
    with onednn.flags(enabled=False):
        assert onednn.conv_path(x, w) == "gemm"
        assert onednn.conv_path(x, w, pass_="backward_weight") == "gemm"
    assert onednn.conv_path(x.double(), w.double()) == "gemm"
    assert onednn.conv_path(pytensor.empty(0, 3, 8, 8), w) == "none"
    if onednn.is_available():
        assert onednn.conv_path(pytensor.empty(2, 8, 5, 5), pytensor.empty(4, 8, 1, 1)) == "gemm"
    if onednn.is_available() and onednn.enabled:  # (PYTENSOR_ONEDNN=0 turns it off)
        assert onednn.conv_path(x, w) == "onednn"
        assert onednn.conv_path(pytensor.empty(32, 64, 56, 56), pytensor.empty(64, 64, 3, 3),
                                padding=1) == "onednn"
    with pytest.raises(ValueError, match="pass_"):
        onednn.conv_path(x, w, pass_="sideways")


def test_enabled_flag_round_trips():
    was = onednn.enabled
    try:
        onednn.enabled = False
        assert onednn.enabled is False
        onednn.enabled = True
        assert onednn.enabled is True
    finally:
        onednn.enabled = was
    # available: built with it and it loads (Note [oneDNN loaded on first use])
    assert pytensor.has_onednn or not onednn.is_available()


def test_unbatched_input_gives_unbatched_output(path):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((3, 6, 6)), rng.standard_normal((2, 3, 3, 3))
    y = F.conv2d(pt(x, pytensor.float64), pt(w, pytensor.float64), padding=1)
    assert tuple(y.shape) == (2, 6, 6)
    np.testing.assert_allclose(y.numpy(), ref_conv(x[None], w, None, 1, 1, 1, 1)[0], rtol=1e-12)


def test_non_contiguous_inputs(path):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 9, 8))[:, ::2, :, ::-1]
    w = rng.standard_normal((3, 4, 3, 3)).transpose(1, 0, 2, 3)
    xt = pytensor.from_numpy(rng.standard_normal((2, 6, 9, 8)))
    xt = pt(x, pytensor.float64)
    xs = pytensor.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
    y = F.conv2d(xs, pt(w, pytensor.float64))
    np.testing.assert_allclose(y.numpy(), ref_conv(x, w, None, 1, 0, 1, 1), rtol=1e-12)
    assert not xs.is_contiguous() and tuple(xt.shape) == tuple(xs.shape)


@pytest.mark.parametrize("mode", ["same", "valid"])
@pytest.mark.parametrize("k,dil", [(3, 1), (4, 1), (4, 2), (2, 3)])
def test_string_padding(mode, k, dil, path):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 3, 9)), rng.standard_normal((4, 3, k))
    y = F.conv1d(pt(x, pytensor.float64), pt(w, pytensor.float64), padding=mode, dilation=dil)
    total = dil * (k - 1)
    if mode == "same":
        left = total // 2
        xp = np.pad(x, [(0, 0), (0, 0), (left, total - left)])
        want = ref_conv(xp, w, None, 1, 0, dil, 1)
        assert tuple(y.shape) == (2, 4, 9)
    else:
        want = ref_conv(x, w, None, 1, 0, dil, 1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)


def test_zero_batch_and_zero_channels(path):
    y = F.conv2d(pytensor.zeros(0, 3, 5, 5), pytensor.zeros(4, 3, 3, 3))
    assert tuple(y.shape) == (0, 4, 3, 3)
    y = F.conv2d(pytensor.zeros(1, 0, 5, 5), pytensor.zeros(4, 0, 3, 3), pytensor.ones(4))
    assert tuple(y.shape) == (1, 4, 3, 3) and y.sum().item() == 36.0


def test_channels_last_kept(path):
    rng = np.random.default_rng(6)
    x = pt(rng.standard_normal((2, 3, 6, 6)), pytensor.float32)
    w = pt(rng.standard_normal((4, 3, 3, 3)), pytensor.float32)
    xc = x.contiguous(memory_format=pytensor.channels_last)
    y = F.conv2d(xc, w)
    assert y.is_contiguous(memory_format=pytensor.channels_last)
    np.testing.assert_allclose(y.numpy(), F.conv2d(x, w).numpy(), rtol=1e-5, atol=1e-5)


def test_half_and_bfloat16_compute_in_float32(path):
    rng = np.random.default_rng(7)
    x = pt(rng.standard_normal((1, 3, 5, 5)), pytensor.float32)
    w = pt(rng.standard_normal((2, 3, 3, 3)), pytensor.float32)
    for dt in (pytensor.float16, pytensor.bfloat16):
        y = F.conv2d(x.to(dt), w.to(dt), pytensor.ones(2).to(dt))
        assert y.dtype == dt
        want = F.conv2d(x.to(dt).float(), w.to(dt).float(), pytensor.ones(2))
        np.testing.assert_allclose(y.float().numpy(), want.to(dt).float().numpy(), rtol=0, atol=0)


def test_meta_tensors_give_shapes():
    y = F.conv2d(pytensor.empty(2, 3, 5, 5, device="meta"),
                 pytensor.empty(4, 3, 3, 3, device="meta"), stride=2)
    assert tuple(y.shape) == (2, 4, 2, 2) and y.device.type == "meta"


def test_convolution_backward_output_mask():
    x, w = pytensor.randn(1, 2, 5, 5), pytensor.randn(3, 2, 3, 3)
    gy = pytensor.randn(1, 3, 3, 3)
    gi, gw, gb = pytensor.convolution_backward(gy, x, w, [3], [1, 1], [0, 0], [1, 1], False,
                                               [0, 0], 1, [False, True, True])
    assert gi is None and tuple(gw.shape) == (3, 2, 3, 3)
    np.testing.assert_allclose(gb.numpy(), gy.numpy().sum(axis=(0, 2, 3)), rtol=1e-5)


# ---------------------------------------------------------------- unfold and fold

def ref_unfold(x, k, d, p, s):
    y = ref_conv(x.reshape(-1, 1, *x.shape[2:]), np.eye(k[0] * k[1]).reshape(-1, 1, *k),
                 None, s, p, d, 1)
    n, c = x.shape[:2]
    return y.reshape(n, c * k[0] * k[1], -1)


@pytest.mark.parametrize("k,d,p,s", [((2, 2), (1, 1), (0, 0), (1, 1)),
                                     ((3, 2), (2, 1), (1, 2), (2, 1))])
def test_unfold_and_fold_match_reference(k, d, p, s):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 7, 6))
    u = F.unfold(pt(x, pytensor.float64), k, d, p, s)
    np.testing.assert_allclose(u.numpy(), ref_unfold(x, k, d, p, s), rtol=1e-12)
    # fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>
    cols = rng.standard_normal(tuple(u.shape))
    f = F.fold(pt(cols, pytensor.float64), (7, 6), k, d, p, s)
    np.testing.assert_allclose((u.numpy() * cols).sum(), (x * f.numpy()).sum(), rtol=1e-10)


def test_unfold_fold_gradcheck():
    x = pytensor.randn(1, 2, 5, 4, dtype=pytensor.float64, requires_grad=True)
    assert pytensor.autograd.gradcheck(lambda t: F.unfold(t, (2, 3), 1, 1, (2, 1)), (x,))
    c = pytensor.randn(2, 8, 20, dtype=pytensor.float64, requires_grad=True)
    assert pytensor.autograd.gradcheck(lambda t: F.fold(t, (4, 5), 2, padding=(1, 0)), (c,))


def test_unbatched_unfold():
    x = pytensor.randn(3, 5, 5)
    assert tuple(F.unfold(x, 2).shape) == (12, 16)
    assert tuple(F.fold(F.unfold(x, 2), (5, 5), 2).shape) == (3, 5, 5)


# ---------------------------------------------------------------- messages

BAD = [
    (lambda m: m.F.conv2d(m.randn(1, 2), m.randn(3, 2, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 2]"),
    (lambda m: m.F.conv_transpose2d(m.randn(1, 2), m.randn(3, 2, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: "
     "[1, 2]"),
    (lambda m: m.F.conv2d(m.randn(1, 4, 5, 5), m.randn(4, 3, 3, 3)),
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 "
     "channels, but got 4 channels instead"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 2, 2), m.randn(4, 3, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't "
     "be greater than actual input size"),
    (lambda m: m.F.conv1d(m.randn(1, 3, 2), m.randn(4, 3, 3)),
     "Calculated padded input size per channel: (2). Kernel size: (3). Kernel size can't be "
     "greater than actual input size"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), dilation=3),
     "Calculated padded input size per channel: (5 x 5). Kernel size: (7 x 7). Kernel size can't "
     "be greater than actual input size"),
    (lambda m: m.convolution(m.randn(1, 3, 5, 5), m.randn(4, 3, 3), None, [1], [0], [1], False, [0], 1),
     "Expected 3-dimensional input for 3-dimensional weight [4, 3, 3], but got 4-dimensional "
     "input of size [1, 3, 5, 5] instead"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), stride=0),
     "non-positive stride is not supported"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), padding=-1),
     "negative padding is not supported"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), groups=0),
     "non-positive groups is not supported"),
    (lambda m: m.F.conv2d(m.randn(1, 4, 5, 5), m.randn(3, 2, 3, 3), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
     "[[3, 2, 3, 3]] instead"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(0, 3, 3, 3)),
     "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size "
     "[0, 3, 3, 3] instead"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), m.randn(3)),
     "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but "
     "got bias of size [3] instead"),
    (lambda m: m.F.conv_transpose2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3)),
     "Given transposed=1, weight of size [4, 3, 3, 3], expected input[1, 3, 5, 5] to have 4 "
     "channels, but got 3 channels instead"),
    (lambda m: m.F.conv_transpose2d(m.randn(1, 3, 5, 5), m.randn(3, 2, 3, 3), m.randn(3)),
     "Given transposed=1, weight of size [3, 2, 3, 3], expected bias to be 1-dimensional with 2 "
     "elements, but got bias of size [3] instead"),
    (lambda m: m.F.conv_transpose2d(m.randn(1, 3, 5, 5), m.randn(3, 3, 3, 3), output_padding=1),
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
     "dilation_height: 1 dilation_width: 1"),
    (lambda m: m.F.conv_transpose1d(m.randn(1, 3, 5), m.randn(3, 3, 3), output_padding=1),
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 0 output_padding_width: 1 stride_height: 1 stride_width: 1 "
     "dilation_height: 1 dilation_width: 1"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), padding="foo"),
     "Invalid padding string: 'foo'"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3).double()),
     "expected scalar type Float but found Double"),
    (lambda m: m.F.conv2d(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), m.randn(4).double()),
     "Input type (float) and bias type (double) should be the same"),
    (lambda m: m.convolution(m.randn(1, 3, 5, 5), m.randn(4, 3, 3, 3), None, [1, 1, 1], [0], [1],
                                    False, [0], 1),
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 1, 1]"),
    (lambda m: m.F.unfold(m.randn(1, 3, 2, 2), 3),
     "Given input with spatial size (2, 2), kernel_size=(3, 3), dilation=(1, 1), padding=(0, 0), "
     "calculated shape of the array of sliding blocks as (0, 0), but its components must be at "
     "least one."),
    (lambda m: m.F.unfold(m.randn(1, 3, 4, 4), 2, stride=0),
     "stride should be greater than zero, but got stride_height: 0 stride_width: 0"),
    (lambda m: m.F.unfold(m.randn(1, 3, 4, 4), 0),
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (lambda m: m.F.unfold(m.randn(1, 3, 4, 4), 2, padding=-1),
     "padding should be non-negative, but got pad_height: -1 pad_width: -1"),
    (lambda m: m.F.fold(m.randn(1, 7, 4), (3, 3), 2),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
     "input.size(1)=7 and kernel_size=(2, 2)."),
    (lambda m: m.F.fold(m.randn(1, 8, 5), (3, 3), 2),
     "Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, "
     "1), expected size of input's dimension 2 to match the calculated number of sliding blocks 2 "
     "* 2 = 4, but got input.size(2)=5."),
]


class _Lib:
    """What a BAD case calls: randn, F and convolution of one library."""

    def __init__(self, lib, functional):
        self.randn, self.F, self.convolution = lib.randn, functional, lib.convolution


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_messages(i):
    fn, msg = BAD[i]
    with pytest.raises(RuntimeError) as e:
        fn(_Lib(pytensor, F))
    assert str(e.value).split("\n")[0] == msg


@requires_torch
@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_messages_are_torchs(i):
    fn, msg = BAD[i]
    with pytest.raises(RuntimeError) as e:
        fn(_Lib(torch, torch.nn.functional))
    assert str(e.value).split("\n")[0] == msg


def test_unsupported_dtype_refused():
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.conv2d(pytensor.ones(1, 3, 5, 5, dtype=pytensor.int64),
                 pytensor.ones(4, 3, 3, 3, dtype=pytensor.int64))
    with pytest.raises(NotImplementedError, match="\"im2col_out_cpu\" not implemented for 'Long'"):
        F.unfold(pytensor.ones(1, 3, 4, 4, dtype=pytensor.int64), 2)


# ---------------------------------------------------------------- against torch

def to_torch(t):
    return torch.from_numpy(t.detach().numpy().copy())


@requires_torch
@pytest.mark.parametrize("c", CASES)
def test_matches_torch(c, path):
    rng = np.random.default_rng(9)
    x, w, b = make_inputs(c, "float32", rng)
    ours = [pt(a, pytensor.float32, True) if a is not None else None for a in (x, w, b)]
    theirs = [torch.tensor(a, dtype=torch.float32, requires_grad=True) if a is not None else None
              for a in (x, w, b)]
    y = call(c, *ours)
    d = c["dims"]
    if c["transposed"]:
        ty = getattr(torch.nn.functional, f"conv_transpose{d}d")(
            *theirs, stride=c["stride"], padding=c["padding"], output_padding=c["output_padding"],
            groups=c["groups"], dilation=c["dilation"])
    else:
        ty = getattr(torch.nn.functional, f"conv{d}d")(
            *theirs, stride=c["stride"], padding=c["padding"], dilation=c["dilation"],
            groups=c["groups"])
    assert y.grad_fn.name() == ty.grad_fn.name() == "ConvolutionBackward0"
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
    gy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(pt(gy, pytensor.float32))
    ty.backward(torch.from_numpy(gy))
    for a, ta in zip(ours, theirs):
        if a is not None:
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-4)


@requires_torch
def test_node_names_match_torch():
    x = pytensor.randn(1, 2, 5, 5, requires_grad=True)
    w = pytensor.randn(3, 2, 3, 3, requires_grad=True)
    y = F.conv2d(x, w)
    (gx,) = pytensor.autograd.grad(y.sum(), x, create_graph=True)
    assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
    y2 = pytensor._convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, False, False,
                               True, True)
    assert y2.grad_fn.name() == "ConvolutionBackward1"
    assert F.conv2d(x[0], w).grad_fn.name() == "SqueezeBackward1"
    u = pytensor._C._nn.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1])
    assert u.grad_fn.name() == "Im2ColBackward0"
    assert pytensor._C._nn.col2im(u, [5, 5], [2, 2], [1, 1], [0, 0], [1, 1]).grad_fn.name() == \
        "Col2ImBackward0"


@requires_torch
def test_double_backward_matches_torch(path):
    rng = np.random.default_rng(10)
    x, w = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3))
    ox, ow = pt(x, pytensor.float64, True), pt(w, pytensor.float64, True)
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (x, w))
    outs = []
    for lib, F_, a, b in ((pytensor, F, ox, ow), (torch, torch.nn.functional, tx, tw)):
        y = F_.conv2d(a, b, stride=2, padding=1)
        gx, gw = lib.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        outs.append([t.detach().numpy() for t in lib.autograd.grad(
            (gx * gx).sum() + (gw ** 3).sum(), (a, b))])
    for o, t in zip(*outs):
        np.testing.assert_allclose(o, t, rtol=1e-9, atol=1e-9)


@requires_torch
def test_memory_format_matches_torch(path):
    for dims in (2, 3):
        fmt = "channels_last" if dims == 2 else "channels_last_3d"
        xs = (2, 3) + (5,) * dims
        ws = (4, 3) + (3,) * dims
        for cl_x, cl_w in ((True, False), (False, True), (False, False)):
            x, w = pytensor.randn(*xs), pytensor.randn(*ws)
            tx, tw = to_torch(x), to_torch(w)
            if cl_x:
                x, tx = (x.contiguous(memory_format=getattr(pytensor, fmt)),
                         tx.contiguous(memory_format=getattr(torch, fmt)))
            if cl_w:
                w, tw = (w.contiguous(memory_format=getattr(pytensor, fmt)),
                         tw.contiguous(memory_format=getattr(torch, fmt)))
            y = getattr(F, f"conv{dims}d")(x, w)
            ty = getattr(torch.nn.functional, f"conv{dims}d")(tx, tw)
            assert y.is_contiguous(memory_format=getattr(pytensor, fmt)) == \
                ty.is_contiguous(memory_format=getattr(torch, fmt))
            assert tuple(y.stride()) == tuple(ty.stride())


@requires_torch
@pytest.mark.parametrize("mode", ["same", "valid"])
def test_string_padding_matches_torch(mode):
    x, w = pytensor.randn(2, 3, 8, 7), pytensor.randn(4, 3, 4, 3)
    y = F.conv2d(x, w, padding=mode, dilation=(1, 2))
    with pytest.warns(UserWarning) if mode == "same" else _nothing():
        ty = torch.nn.functional.conv2d(to_torch(x), to_torch(w), padding=mode, dilation=(1, 2))
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-4, atol=1e-5)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@requires_torch
def test_unfold_fold_match_torch():
    x = pytensor.randn(2, 3, 7, 6)
    u = F.unfold(x, (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    tu = torch.nn.functional.unfold(to_torch(x), (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    np.testing.assert_array_equal(u.numpy(), tu.numpy())
    f = F.fold(u, (7, 6), (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    tf = torch.nn.functional.fold(tu, (7, 6), (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    np.testing.assert_allclose(f.numpy(), tf.numpy(), rtol=1e-6, atol=1e-6)


@requires_torch
def test_half_matches_torch():
    x, w = pytensor.randn(1, 3, 6, 6), pytensor.randn(4, 3, 3, 3)
    for dt, tdt in ((pytensor.bfloat16, torch.bfloat16), (pytensor.float16, torch.float16)):
        y = F.conv2d(x.to(dt), w.to(dt), padding=1)
        ty = torch.nn.functional.conv2d(to_torch(x).to(tdt), to_torch(w).to(tdt), padding=1)
        assert str(y.dtype).split(".")[1] == str(ty.dtype).split(".")[1]
        np.testing.assert_allclose(y.float().numpy(), ty.float().numpy(), rtol=2e-2, atol=5e-2)


def test_start_up_variable_turns_onednn_off():
    import os
    import subprocess
    import sys
    code = ("import pytensor; from pytensor.backends import onednn; "
            "print(onednn.enabled, onednn.conv_path(pytensor.empty(2, 3, 8, 8), "
            "pytensor.empty(4, 3, 3, 3)), pytensor._C._config()['onednn'])")
    env = dict(os.environ, PYTENSOR_ONEDNN="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split(" ", 2)
    assert out[0] == "False" and out[1] == "gemm"
    assert out[2].strip() == "no" or "disabled (PYTENSOR_ONEDNN=0)" in out[2]
