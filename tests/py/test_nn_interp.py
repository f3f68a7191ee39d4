"""F.interpolate and its operators (upsample_nearest*, _upsample_nearest_exact*, upsample_linear1d,
upsample_bilinear2d, upsample_bicubic2d, upsample_trilinear3d, the antialiased bilinear and
bicubic, each with its backward). A NumPy reference of torch's formulas (one interpolation
matrix per spatial dim) runs everywhere; torch, where installed, pins values, gradients, memory
formats, node names and messages. gradcheck runs in float64 for every operator, gradgradcheck
for the backward operators' derivatives."""
import math

import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F
from pytensor._C import _nn
from pytensor.autograd import gradcheck, gradgradcheck

from _torch_oracle import requires_torch, torch


# ---------------------------------------------------------------- NumPy reference

def _scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale else n_in / n_out


def _cubic(t, a):
    t = abs(t)
    if t < 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return (((t - 5) * t + 8) * t - 4) * a
    return 0.0


def interp_matrix(mode, n_in, n_out, align_corners=False, scale=None, antialias=False,
                  shortcut=False):
    """The (n_out, n_in) matrix of one dim, from torch's formulas in float64 (shortcut: the 2-d
    nearest kernels' exact handling of out == in and out == 2 * in)."""
    m = np.zeros((n_out, n_in))
    s = _scale(n_in, n_out, align_corners, scale)
    for o in range(n_out):
        if mode == "nearest":
            sf = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
            i = min(int(math.floor(np.float32(o) * sf)), n_in - 1)
            if shortcut and n_out == n_in:
                i = o
            elif shortcut and n_out == 2 * n_in:
                i = o >> 1
            m[o, i] = 1
        elif mode == "nearest-exact":
            sf = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
            src = np.float32(np.float64(o + 0.5) * np.float64(sf))  # torch: double, then float
            m[o, min(int(math.floor(src)), n_in - 1)] = 1
        elif antialias:
            half = 1.0 if mode == "linear" else 2.0
            support = half * s if s >= 1 else half
            center = s * (o + 0.5)
            inv = 1 / s if s >= 1 else 1.0
            lo = max(int(center - support + 0.5), 0)
            hi = min(int(center + support + 0.5), n_in)
            w = [(max(0.0, 1 - abs((j - center + 0.5) * inv)) if mode == "linear"
                  else _cubic((j - center + 0.5) * inv, -0.5)) for j in range(lo, hi)]
            m[o, lo:hi] = np.array(w) / sum(w)
        elif mode == "linear":
            if n_in == n_out:
                m[o, o] = 1
                continue
            src = s * o if align_corners else max(s * (o + 0.5) - 0.5, 0.0)
            i0 = min(int(math.floor(src)), n_in - 1)
            lam = min(max(src - i0, 0.0), 1.0)
            m[o, i0] += 1 - lam
            m[o, min(i0 + 1, n_in - 1)] += lam
        else:  # cubic
            src = s * o if align_corners else s * (o + 0.5) - 0.5
            i0 = min(int(math.floor(src)), n_in - 1)
            t = min(max(src - i0, 0.0), 1.0)
            for j, w in enumerate([_cubic(t + 1, -0.75), _cubic(t, -0.75), _cubic(1 - t, -0.75),
                                   _cubic(2 - t, -0.75)]):
                m[o, min(max(i0 - 1 + j, 0), n_in - 1)] += w
    return m


def np_interpolate(a, sizes, mode, align_corners=False, scales=None, antialias=False):
    base = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    for d, n_out in enumerate(sizes):
        m = interp_matrix(base, a.shape[2 + d], n_out, align_corners,
                          scales[d] if scales else None, antialias, len(sizes) == 2)
        a = np.moveaxis(np.tensordot(m, np.moveaxis(a, 2 + d, 0), axes=1), 0, 2 + d)
    return a


MODES = [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1),
         ("nearest-exact", 2), ("nearest-exact", 3), ("linear", 1), ("bilinear", 2),
         ("bicubic", 2), ("trilinear", 3)]


def t(a):
    return pt.from_numpy(np.ascontiguousarray(a))


def kwargs_for(mode, align_corners):
    return {} if mode.startswith("nearest") else {"align_corners": align_corners}


@pytest.mark.parametrize("mode,nd,align_corners",
                         [(m, n, ac) for m, n in MODES
                          for ac in ((False,) if m.startswith("nearest") else (False, True))])
@pytest.mark.parametrize("size", [(7, 3, 5), (2, 8, 4), (5, 6, 4)])
def test_size_matches_numpy(mode, nd, align_corners, size):
    a = np.random.default_rng(0).standard_normal((2, 3) + (5, 6, 4)[:nd])
    got = F.interpolate(t(a), size=size[:nd], mode=mode, **kwargs_for(mode, align_corners))
    want = np_interpolate(a, size[:nd], mode, align_corners)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,nd", MODES)
@pytest.mark.parametrize("factor", [2.0, 0.6, 1.7])
def test_scale_factor_matches_numpy(mode, nd, factor):
    a = np.random.default_rng(1).standard_normal((1, 2) + (5, 6, 4)[:nd])
    got = F.interpolate(t(a), scale_factor=factor, mode=mode, **kwargs_for(mode, False))
    sizes = [math.floor(n * factor) for n in a.shape[2:]]
    want = np_interpolate(a, sizes, mode, False, [factor] * nd)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    got = F.interpolate(t(a), scale_factor=factor, mode=mode, recompute_scale_factor=True,
                        **kwargs_for(mode, False))
    np.testing.assert_allclose(got.numpy(), np_interpolate(a, sizes, mode), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size", [(3, 2), (9, 11), (4, 7)])
def test_antialias_matches_numpy(mode, size):
    a = np.random.default_rng(2).standard_normal((1, 2, 8, 9))
    got = F.interpolate(t(a), size=size, mode=mode, antialias=True)
    np.testing.assert_allclose(got.numpy(), np_interpolate(a, size, mode, antialias=True),
                               rtol=1e-12, atol=1e-12)


def test_nearest_scale_given_with_unchanged_size():
    """torch's 2-d nearest copies a dim whose size the scale leaves unchanged; its 1-d and 3-d
    forward kernels apply the scale (floor(o / 1.3) here), its backward kernels do not."""
    a = np.arange(3.0).reshape(1, 1, 3)
    assert F.interpolate(t(a), scale_factor=1.3).tolist() == [[[0.0, 0.0, 1.0]]]
    a2 = np.arange(3.0).reshape(1, 1, 3, 1)
    assert F.interpolate(t(a2), scale_factor=(1.3, 1.0)).reshape(-1).tolist() == [0.0, 1.0, 2.0]
    # every nearest backward takes the shortcut, as torch's do
    x = t(np.zeros((1, 1, 3))).requires_grad_()
    y = F.interpolate(x, scale_factor=2.2)
    y.backward(t(np.arange(6.0).reshape(1, 1, 6)))
    assert x.grad.tolist() == [[[1.0, 5.0, 9.0]]]


def test_float32_close_to_float64():
    a = np.random.default_rng(3).standard_normal((2, 3, 6, 7))
    for mode in ("bilinear", "bicubic"):
        got = F.interpolate(t(a.astype(np.float32)), size=(9, 4), mode=mode, align_corners=False)
        assert got.dtype == pt.float32
        np.testing.assert_allclose(got.numpy(), np_interpolate(a, (9, 4), mode), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("mode,nd", MODES)
def test_noncontiguous_and_channels_last(mode, nd):
    a = np.random.default_rng(4).standard_normal((2, 5) + (4, 5, 3)[:nd])
    x = t(a.transpose(1, 0, *range(2, 2 + nd)).copy()).transpose(0, 1)
    size = (7, 3, 6)[:nd]
    want = np_interpolate(a, size, mode)
    np.testing.assert_allclose(F.interpolate(x, size=size, mode=mode).numpy(), want,
                               rtol=1e-12, atol=1e-12)
    if nd >= 2:
        fmt = pt.channels_last if nd == 2 else pt.channels_last_3d
        xc = t(a).contiguous(memory_format=fmt).requires_grad_()
        y = F.interpolate(xc, size=size, mode=mode)
        assert y.is_contiguous(memory_format=fmt)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
        y.backward(pt.ones_like(y))
        xn = t(a).requires_grad_()
        F.interpolate(xn, size=size, mode=mode).sum().backward()
        np.testing.assert_allclose(xc.grad.numpy(), xn.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_batch_of_zero():
    y = F.interpolate(pt.zeros(0, 3, 4, 4), size=(6, 6), mode="bilinear")
    assert y.shape == (0, 3, 6, 6)


OPS = [("upsample_nearest1d", 1, False), ("_upsample_nearest_exact1d", 1, False),
       ("upsample_nearest2d", 2, False), ("_upsample_nearest_exact2d", 2, False),
       ("upsample_nearest3d", 3, False), ("_upsample_nearest_exact3d", 3, False),
       ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
       ("_upsample_bilinear2d_aa", 2, True), ("upsample_bicubic2d", 2, True),
       ("_upsample_bicubic2d_aa", 2, True), ("upsample_trilinear3d", 3, True)]


@pytest.mark.parametrize("name,nd,ac", OPS)
def test_gradcheck_and_double_backward(name, nd, ac):
    x = t(np.random.default_rng(5).standard_normal((1, 2) + (3, 4, 3)[:nd])).requires_grad_()
    op = getattr(_nn, name)
    size = [5, 2, 4][:nd]
    for align in ((False, True) if ac else (None,)):
        args = (size, align) if ac else (size,)
        assert gradcheck(lambda v: op(v, *args, None), (x,))
        assert gradgradcheck(lambda v: op(v, *args, None), (x,))


def test_backward_operator_direct():
    g = t(np.ones((1, 1, 4)))
    gi = _nn.upsample_linear1d_backward(g, [4], [1, 1, 2], True)
    np.testing.assert_allclose(gi.numpy(), [[[2.0, 2.0]]])


def test_messages():
    x = pt.zeros(2, 3, 4, 5)
    with pytest.raises(ValueError, match="align_corners option can only be set with the "
                       "interpolating modes: linear | bilinear | bicubic | trilinear"):
        F.interpolate(x, size=(2, 2), mode="nearest", align_corners=True)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=(2, 2), scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="Input and output must have the same number of spatial "
                       "dimensions"):
        F.interpolate(x, size=(2, 2, 2))
    with pytest.raises(ValueError, match="Input and scale_factor must have the same number"):
        F.interpolate(x, scale_factor=(2.0,))
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful with an "
                       "explicit size"):
        F.interpolate(x, size=(2, 2), recompute_scale_factor=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(x, size=(2, 2), mode="nearest", antialias=True)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(x, size=(2, 2), mode="linear")
    with pytest.raises(NotImplementedError, match=r"Input Error: Only 3D, 4D and 5D input "
                       r"Tensors supported \(got 2D\)"):
        F.interpolate(pt.zeros(2, 3), size=2)
    with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, "
                       r"but got input \(H: 4, W: 5\) output \(H: 0, W: 3\)"):
        _nn.upsample_bilinear2d(x, [0, 3], False)
    with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, "
                       r"but got input \(W: 4\) and output \(W: 0\)"):
        _nn.upsample_nearest1d(pt.zeros(2, 3, 4), [0])
    with pytest.raises(RuntimeError, match="It is expected input_size equals to 4, but got size "
                       "3"):
        _nn.upsample_bilinear2d(pt.zeros(2, 3, 4), [3, 3], False)
    with pytest.raises(RuntimeError, match="It is expected output_size equals to 2, but got size "
                       "1"):
        _nn.upsample_bilinear2d(x, [3], False)
    with pytest.raises(RuntimeError, match=r"Non-empty 4D data tensor expected but got a tensor "
                       r"with sizes \[2, 0, 4, 4\]"):
        _nn.upsample_bilinear2d(pt.zeros(2, 0, 4, 4), [3, 3], False)
    with pytest.raises(RuntimeError, match="Must specify exactly one of output_size and "
                       "scale_factors"):
        _nn.upsample_bilinear2d(x, [3, 3], False, [2.0, 2.0])
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_linear\" not "
                       "implemented for 'Int'"):
        _nn.upsample_linear1d(pt.zeros(2, 3, 4, dtype=pt.int32), [8], False)
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_nearest\" not "
                       "implemented for 'Long'"):
        F.interpolate(pt.zeros(2, 3, 4, dtype=pt.int64), size=8)
    with pytest.raises(RuntimeError, match=r"Expected grad_output to have the same shape as "
                       r"output; output.size\(3\) = 10 but got grad_output.size\(3\) = 8"):
        _nn.upsample_nearest2d_backward(pt.zeros(2, 3, 8, 8), [8, 10], [2, 3, 4, 5])
    with pytest.raises(RuntimeError, match="Expected grad_output to be a tensor of dimension 4 "
                       "but got: dimension 3"):
        _nn.upsample_nearest2d_backward(pt.zeros(2, 3, 8), [8, 10], [2, 3, 4, 5])


def test_area_mode_uses_adaptive_avg_pool():
    if not hasattr(F, "adaptive_avg_pool2d"):
        pytest.skip("adaptive_avg_pool2d is not in this build")
    a = np.arange(16.0).reshape(1, 1, 4, 4)
    got = F.interpolate(t(a), size=(2, 2), mode="area")
    np.testing.assert_allclose(got.numpy(), a.reshape(1, 1, 2, 2, 2, 2).mean((3, 5)))
    got = F.interpolate(t(a), scale_factor=0.5, mode="area")
    np.testing.assert_allclose(got.numpy(), a.reshape(1, 1, 2, 2, 2, 2).mean((3, 5)))


def test_deprecated_aliases_warn():
    x = t(np.arange(4.0).reshape(1, 1, 2, 2))
    with pytest.warns(UserWarning, match="nn.functional.upsample is deprecated"):
        y = F.upsample(x, scale_factor=2)
    np.testing.assert_array_equal(y.numpy(), np_interpolate(x.numpy(), (4, 4), "nearest"))
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        F.upsample_nearest(x, size=3)
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        y = F.upsample_bilinear(x, size=(3, 3))
    np.testing.assert_allclose(y.numpy(), np_interpolate(x.numpy(), (3, 3), "bilinear", True))


# ---------------------------------------------------------------- against torch

def to_pt(x):
    return pt.from_numpy(x.detach().numpy().copy())


@requires_torch
@pytest.mark.parametrize("mode,nd", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec", [{"size": (9, 3, 6)}, {"scale_factor": 2},
                                  {"scale_factor": (0.7, 1.5, 3.3)},
                                  {"scale_factor": 1.3, "recompute_scale_factor": True}])
def test_matches_torch_with_grad(mode, nd, dtype, spec):
    spec = {k: (v[:nd] if isinstance(v, tuple) else v) for k, v in spec.items()}
    for ac in ((None,) if mode.startswith("nearest") else (False, True)):
        for aa in ((False, True) if mode in ("bilinear", "bicubic") and not ac else (False,)):
            xt = torch.randn((2, 3) + (5, 7, 4)[:nd], dtype=getattr(torch, dtype),
                             requires_grad=True)
            yt = torch.nn.functional.interpolate(xt, mode=mode, align_corners=ac, antialias=aa,
                                                 **spec)
            g = torch.randn_like(yt)
            yt.backward(g)
            x = to_pt(xt).requires_grad_()
            y = F.interpolate(x, mode=mode, align_corners=ac, antialias=aa, **spec)
            y.backward(to_pt(g))
            tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-12,
                                                                            "atol": 1e-12}
            np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **tol)
            np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), **tol)
            assert y.grad_fn.name() == yt.grad_fn.name()


@requires_torch
def test_memory_formats_match_torch():
    xt = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    x = to_pt(xt.contiguous()).contiguous(memory_format=pt.channels_last)
    for mode in ("nearest", "bilinear", "bicubic"):
        want = torch.nn.functional.interpolate(xt, size=(7, 3), mode=mode)
        got = F.interpolate(x, size=(7, 3), mode=mode)
        assert got.is_contiguous(memory_format=pt.channels_last) == \
            want.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


@requires_torch
def test_messages_match_torch():
    cases = [("upsample_bilinear2d", (2, 3, 4, 5), ([0, 3], False)),
             ("upsample_nearest3d", (2, 3, 4, 4, 4), ([0, 1, 1],)),
             ("upsample_nearest1d", (2, 3, 0), ([3],)),
             ("upsample_bilinear2d", (2, 0, 4, 4), ([3, 3], False)),
             ("upsample_bilinear2d", (2, 3, 4, 5), (None, False, [2.0])),
             ("upsample_bicubic2d", (2, 3, 4), ([3, 3], False))]
    for name, shape, args in cases:
        with pytest.raises(Exception) as want:
            getattr(torch._C._nn, name)(torch.zeros(shape), *args)
        with pytest.raises(type(want.value)) as got:
            getattr(_nn, name)(pt.zeros(*shape), *args)
        assert str(want.value) == str(got.value)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_thread_split_gives_the_same_result(mode, channels_last):
    """Above the grain the work is split across threads (planes, rows or batches): every
    element must come out as on one thread."""
    a = np.random.default_rng(6).standard_normal((4, 8, 40, 40))
    x = t(a)
    if channels_last:
        x = x.contiguous(memory_format=pt.channels_last)
    old = pt.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            pt.set_num_threads(n)
            xg = x.detach().requires_grad_()
            y = F.interpolate(xg, size=(70, 90), mode=mode)
            y.backward(pt.ones_like(y))
            results.append((y.numpy(), xg.grad.numpy()))
    finally:
        pt.set_num_threads(old)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
