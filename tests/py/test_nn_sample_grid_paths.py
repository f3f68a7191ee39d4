"""The grid sampler's backward paths (Note [bilinear grid backward] in nn_sample_kernels.c and the
trilinear and bicubic per-point forms): grids reaching far outside the input, exactly onto its
edges and corners, nan and inf coordinates, strided and channels-last operands, every padding
mode. float32 against the float64 kernels (which take the same paths), torch where installed."""
import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F

from _torch_oracle import requires_torch, torch


def _grid(shape, seed, spread, nudged=True):
    rng = np.random.default_rng(seed)
    g = rng.uniform(-spread, spread, shape)
    flat = g.reshape(-1)
    # exact edges and corners, far outside; just past +-1 where the dtypes agree on the side
    # (float32 and float64 may round the same point onto either side of a reflection edge)
    specials = [-1.0, 1.0, 0.0, 3.0, -3.0, 1e6, -1e6, 0.999, -0.999]
    specials += [-1.0 - 1e-7, 1.0 + 1e-7] if nudged else []
    flat[:len(specials)] = specials
    return g


def _run(lib, x_np, g_np, dtype, mode, padding, ac, channels_last=False):
    x = lib.from_numpy(x_np).to(dtype)
    if channels_last:
        x = x.contiguous(memory_format=lib.channels_last if x.dim() == 4 else lib.channels_last_3d)
    x = x.requires_grad_()
    g = lib.from_numpy(g_np).to(dtype).requires_grad_()
    y = F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=ac) if lib is pt else \
        torch.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=ac)
    gy = lib.from_numpy(np.random.default_rng(5).standard_normal(tuple(y.shape))).to(dtype)
    y.backward(gy)
    return [t.detach().double().numpy() for t in (y, x.grad, g.grad)]


CASES = [(m, p, ac) for m in ("bilinear", "bicubic", "nearest")
         for p in ("zeros", "border", "reflection") for ac in (False, True)]


@pytest.mark.parametrize("mode,padding,ac", CASES)
def test_2d_float32_matches_float64(mode, padding, ac):
    x = np.random.default_rng(0).standard_normal((3, 5, 7, 9))
    g = _grid((3, 6, 8, 2), 1, 2.5, nudged=False)
    r32 = _run(pt, x, g, pt.float32, mode, padding, ac)
    r64 = _run(pt, x, g, pt.float64, mode, padding, ac)
    for a, b in zip(r32, r64):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4 * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_3d_float32_matches_float64(padding, ac):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6))
    g = _grid((2, 3, 4, 5, 3), 1, 2.5, nudged=False)
    r32 = _run(pt, x, g, pt.float32, "bilinear", padding, ac)
    r64 = _run(pt, x, g, pt.float64, "bilinear", padding, ac)
    for a, b in zip(r32, r64):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4 * max(1.0, np.abs(b).max()))


def test_bilinear_layouts_give_the_same_bits():
    x = np.random.default_rng(2).standard_normal((2, 4, 6, 5)).astype(np.float32)
    g = _grid((2, 7, 3, 2), 3, 1.5).astype(np.float32)
    a = _run(pt, x, g, pt.float32, "bilinear", "zeros", False)
    b = _run(pt, x, g, pt.float32, "bilinear", "zeros", False, channels_last=True)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    # a strided (transposed) grid and grad_output take the same path
    xt = pt.from_numpy(x).requires_grad_()
    gt = pt.from_numpy(np.ascontiguousarray(g.transpose(0, 2, 1, 3))).transpose(1, 2)
    gt = gt.detach().requires_grad_()
    y = F.grid_sample(xt, gt, align_corners=False)
    gy = pt.from_numpy(np.random.default_rng(5).standard_normal(tuple(y.shape))).float()
    y.backward(gy)
    np.testing.assert_array_equal(xt.grad.numpy(), a[1].astype(np.float32))
    np.testing.assert_array_equal(gt.grad.numpy(), a[2].astype(np.float32))


def test_bilinear_nonfinite_coordinates():
    x = pt.ones(1, 1, 3, 3, requires_grad=True)
    g = pt.tensor([[[[float("nan"), 0.0], [float("inf"), 0.0], [-float("inf"), 0.5],
                     [0.0, 0.0]]]], requires_grad=True)
    y = F.grid_sample(x, g, align_corners=False)
    y.backward(pt.ones_like(y))
    assert np.isfinite(y.detach().numpy()[0, 0, 0, 3])
    assert np.isfinite(x.grad.numpy()).all()  # nan points scatter nothing into the input


@requires_torch
@pytest.mark.parametrize("mode,padding,ac", CASES)
def test_2d_matches_torch(mode, padding, ac):
    x = np.random.default_rng(0).standard_normal((3, 5, 7, 9)).astype(np.float32)
    g = _grid((3, 6, 8, 2), 1, 2.5).astype(np.float32)
    for cl in (False, True):
        a = _run(pt, x, g, pt.float32, mode, padding, ac, cl)
        b = _run(torch, x, g, torch.float32, mode, padding, ac, cl)
        for u, v in zip(a, b):
            np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(v).max()))


@requires_torch
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_3d_matches_torch(padding):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    g = _grid((2, 3, 4, 5, 3), 1, 2.5).astype(np.float32)
    a = _run(pt, x, g, pt.float32, "bilinear", padding, False)
    b = _run(torch, x, g, torch.float32, "bilinear", padding, False)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(v).max()))
