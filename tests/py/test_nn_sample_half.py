"""float16 and bfloat16 in the sampling family (Note [reduced precision sampling] in
csrc/kernels/nn/nn_sample.h): pad (every mode, forward and backward), interpolate (nearest,
nearest-exact, linear, bilinear, bicubic, trilinear, area), grid_sample (2-D bilinear, nearest,
bicubic; 3-D), affine_grid, the shuffles. The kernels compute in float32 and round once, so the
result in a reduced dtype is exactly the float32 result (on the same, representable, operands)
rounded to that dtype: checked without torch. torch, where installed, pins dtypes and values
within the dtype's resolution, and the refusals that stay (antialiased interpolation) keep its
messages."""
import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F

from _torch_oracle import requires_torch, torch

HALVES = ["float16", "bfloat16"]


def _rand(shape, dt, seed=0, scale=1.0, shift=0.0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale + shift
    return pt.from_numpy(x).to(getattr(pt, dt))  # representable in dt


def _both(fn, inputs, dt, grad=True):
    """fn on the reduced inputs and on their float32 copies; forward and input gradients."""
    outs = []
    for cast in (lambda t: t, lambda t: t.float()):
        xs = [cast(t.detach()).requires_grad_(grad and t.is_floating_point()) for t in inputs]
        y = fn(*xs)
        g = None
        if grad:
            gy = _rand(tuple(y.shape), dt, seed=7)
            y.backward(cast(gy))
            g = [x.grad for x in xs if x.requires_grad]
        outs.append((y, g))
    return outs


def _assert_rounded(reduced, full, dt):
    assert reduced.dtype == getattr(pt, dt), (reduced.dtype, dt)
    want = full.to(getattr(pt, dt)).float().numpy()
    np.testing.assert_array_equal(reduced.float().numpy(), want)


def _check(fn, inputs, dt, grad=True):
    (yr, gr), (yf, gf) = _both(fn, inputs, dt, grad)
    _assert_rounded(yr, yf, dt)
    if grad:
        for a, b in zip(gr, gf):
            # backward: float32 sums of the rounded gradient, rounded once
            _assert_rounded(a, b, dt)


@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("mode,nd", [(m, nd) for m in ("constant", "reflect", "replicate",
                                                        "circular") for nd in (1, 2, 3)])
def test_pad(dt, mode, nd):
    x = _rand((2, 3) + (5,) * nd, dt)
    fn = lambda x: F.pad(x, (2, 1) * nd, mode=mode)  # noqa: E731
    if mode != "circular" or nd == 1:
        _check(fn, [x], dt)
        return
    # circular padding is a composite of copies: its backward sums the overlapping slices in
    # the reduced dtype (twice rounded where torch's autograd is too)
    (yr, gr), (yf, gf) = _both(fn, [x], dt)
    _assert_rounded(yr, yf, dt)
    tol = {"float16": 4e-3, "bfloat16": 3e-2}[dt]
    np.testing.assert_allclose(gr[0].float().numpy(), gf[0].numpy(), rtol=tol, atol=tol)


INTERP = [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 2), ("linear", 1),
          ("bilinear", 2), ("bicubic", 2), ("trilinear", 3), ("area", 2)]


@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("mode,nd", INTERP)
@pytest.mark.parametrize("scale", [2.0, 0.6])
def test_interpolate(dt, mode, nd, scale):
    x = _rand((2, 3) + (6,) * nd, dt)
    kw = {} if mode in ("nearest", "nearest-exact", "area") else {"align_corners": False}
    _check(lambda x: F.interpolate(x, scale_factor=scale, mode=mode, **kw), [x], dt)


@pytest.mark.parametrize("dt", HALVES)
def test_interpolate_channels_last_and_align_corners(dt):
    x = _rand((2, 4, 5, 6), dt).contiguous(memory_format=pt.channels_last)
    (yr, gr), (yf, gf) = _both(lambda x: F.interpolate(x, size=(9, 7), mode="bilinear",
                                                       align_corners=True), [x], dt)
    _assert_rounded(yr, yf, dt)
    _assert_rounded(gr[0], gf[0], dt)
    assert yr.is_contiguous(memory_format=pt.channels_last)


@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_2d(dt, mode, padding):
    x = _rand((2, 3, 5, 6), dt)
    g = _rand((2, 4, 3, 2), dt, seed=1, scale=0.7)
    _check(lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding,
                                      align_corners=False), [x, g], dt)


@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d(dt, mode):
    x = _rand((2, 3, 4, 5, 6), dt)
    g = _rand((2, 3, 2, 4, 3), dt, seed=1, scale=0.7)
    _check(lambda x, g: F.grid_sample(x, g, mode=mode, align_corners=True), [x, g], dt)


@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 4, 5, 6)])
def test_affine_grid(dt, size):
    theta = _rand((2, len(size) - 2, len(size) - 1), dt)
    _check(lambda th: F.affine_grid(th, size, align_corners=False), [theta], dt)


@pytest.mark.parametrize("dt", HALVES)
def test_shuffles(dt):
    x = _rand((2, 8, 4, 6), dt)
    _check(lambda x: F.pixel_shuffle(x, 2), [x], dt)
    _check(lambda x: F.pixel_unshuffle(x, 2), [x], dt)
    _check(lambda x: F.channel_shuffle(x, 4), [x], dt)
    _check(lambda x: F.native_channel_shuffle(x, 2), [x], dt, grad=False)


@pytest.mark.parametrize("dt", HALVES)
def test_operators_direct(dt):
    """The backward operators themselves take reduced grads and return their dtype."""
    from pytensor._C import _nn
    g = _rand((1, 2, 8, 8), dt)
    r = _nn.upsample_bilinear2d_backward(g, [8, 8], [1, 2, 4, 4], False)
    assert r.dtype == getattr(pt, dt) and tuple(r.shape) == (1, 2, 4, 4)
    self_ = _rand((1, 2, 4, 4), dt)
    r = _nn.reflection_pad2d_backward(_rand((1, 2, 6, 6), dt), self_, [1, 1, 1, 1])
    assert r.dtype == getattr(pt, dt)
    x, grid = _rand((1, 2, 4, 4), dt), _rand((1, 3, 3, 2), dt, scale=0.5)
    gi, gg = pt.ops.aten.grid_sampler_2d_backward(_rand((1, 2, 3, 3), dt), x, grid, 0, 0, False,
                                                   [True, False])
    assert gi.dtype == gg.dtype == getattr(pt, dt)
    assert not gg.float().abs().sum().item()


@pytest.mark.parametrize("dt", HALVES)
def test_refusals_kept(dt):
    name = {"float16": "Half", "bfloat16": "BFloat16"}[dt]
    x = _rand((1, 1, 4, 4), dt)
    for mode in ("bilinear", "bicubic"):
        with pytest.raises(NotImplementedError,
                           match=f'"compute_index_ranges_weights" not implemented for \'{name}\''):
            F.interpolate(x, scale_factor=2, mode=mode, antialias=True)
    from pytensor._C import _nn
    with pytest.raises(NotImplementedError, match=f'"upsample_bilinear2d_aa_backward_cpu" not '
                                                  f'implemented for \'{name}\''):
        _nn._upsample_bilinear2d_aa_backward(_rand((1, 1, 8, 8), dt), [8, 8], [1, 1, 4, 4], False)
    with pytest.raises(RuntimeError, match="expected scalar type"):
        F.grid_sample(x, pt.zeros(1, 2, 2, 2), align_corners=False)


def test_grid_sample_modes_constants():
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == {"bilinear": 0, "nearest": 1, "bicubic": 2}
    assert F.GRID_SAMPLE_PADDING_MODES == {"zeros": 0, "border": 1, "reflection": 2}


@requires_torch
def test_constants_and_native_channel_shuffle_match_torch():
    TF = torch.nn.functional
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert F.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES
    x = np.arange(2 * 6 * 2 * 2, dtype=np.float32).reshape(2, 6, 2, 2)
    np.testing.assert_array_equal(F.native_channel_shuffle(pt.from_numpy(x), 3).numpy(),
                                  TF.native_channel_shuffle(torch.from_numpy(x), 3).numpy())


@requires_torch
@pytest.mark.parametrize("dt", HALVES)
@pytest.mark.parametrize("case", ["bilinear", "bicubic", "nearest", "trilinear", "grid",
                                  "grid3d", "affine", "reflect"])
def test_matches_torch(dt, case):
    rng = np.random.default_rng(3)
    tol = {"float16": 2e-3, "bfloat16": 2e-2}[dt]
    if case in ("grid", "grid3d"):
        tol *= 5  # torch's reduced-precision grid sampler computes in the reduced dtype

    def run(lib, Fn, x_np, g_np=None):
        tdt = getattr(lib, dt)
        x = lib.from_numpy(x_np).to(tdt).requires_grad_()
        g = lib.from_numpy(g_np).to(tdt).requires_grad_() if g_np is not None else None
        if case in ("bilinear", "bicubic", "nearest"):
            kw = {} if case == "nearest" else {"align_corners": False}
            y = Fn.interpolate(x, scale_factor=2, mode=case, **kw)
        elif case == "trilinear":
            y = Fn.interpolate(x, scale_factor=2, mode=case, align_corners=True)
        elif case in ("grid", "grid3d"):
            y = Fn.grid_sample(x, g, align_corners=False)
        elif case == "affine":
            y = Fn.affine_grid(x, [2, 3, 5, 4], align_corners=False)
        else:
            y = Fn.pad(x, (2, 2, 1, 1), mode="reflect")
        y.backward(lib.ones(*y.shape, dtype=tdt))
        grads = [x.grad] + ([g.grad] if g is not None else [])
        return y, grads

    g_np = None
    if case == "trilinear":
        x_np = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    elif case == "grid3d":
        x_np = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
        g_np = rng.uniform(-1, 1, (1, 2, 3, 4, 3)).astype(np.float32)
    elif case == "grid":
        x_np = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
        g_np = rng.uniform(-1, 1, (2, 4, 3, 2)).astype(np.float32)
    elif case == "affine":
        x_np = rng.standard_normal((2, 2, 3)).astype(np.float32)
    else:
        x_np = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    yp, gp = run(pt, F, x_np, g_np)
    yt, gt = run(torch, torch.nn.functional, x_np, g_np)
    assert str(yp.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    np.testing.assert_allclose(yp.detach().float().numpy(), yt.detach().float().numpy(), rtol=tol,
                               atol=tol)
    for a, b in zip(gp, gt):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        scale = max(1.0, float(np.abs(b.float().numpy()).max()))
        np.testing.assert_allclose(a.float().numpy(), b.float().numpy(), rtol=2 * tol,
                                   atol=2 * tol * scale)
