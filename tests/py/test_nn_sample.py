"""grid_sample (grid_sampler, grid_sampler_2d, grid_sampler_3d and their backward kernels),
affine_grid (affine_grid_generator and its backward, 2-D and 3-D) and the shuffles
(pixel_shuffle, pixel_unshuffle, channel_shuffle, native_channel_shuffle). NumPy references run
everywhere (a direct transcription of grid_sample's definition, the affine grid as
base @ theta^T, the shuffles as reshapes and transposes); torch, where installed, pins values,
gradients, node names and messages. gradcheck runs in float64 for every operator."""
import math

import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F
from pytensor.autograd import gradcheck, gradgradcheck

from _torch_oracle import requires_torch, torch


def t(a):
    return pt.from_numpy(np.ascontiguousarray(a))


# ---------------------------------------------------------------- grid_sample

def _unnormalize(c, size, align_corners):
    return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2


def _reflect(x, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    x = abs(x - lo)
    extra, flips = math.fmod(x, span), math.floor(x / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _pad(x, size, padding, align_corners):
    if padding == "border":
        return min(max(x, 0.0), size - 1.0)
    if padding == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return min(max(x, 0.0), size - 1.0)
    return x


def _cubic_w(t_):
    a = -0.75

    def k(x):
        x = abs(x)
        return ((a + 2) * x - (a + 3)) * x * x + 1 if x <= 1 else \
            ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [k(t_ + 1), k(t_), k(1 - t_), k(2 - t_)]


def np_grid_sample(inp, grid, mode, padding, align_corners):
    n, c, h, w = inp.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def read(b, y, x):
        return inp[b, :, y, x] if 0 <= x < w and 0 <= y < h else np.zeros(c)
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                gx, gy = grid[b, i, j]
                if mode == "bicubic":
                    ix, iy = _unnormalize(gx, w, align_corners), _unnormalize(gy, h, align_corners)
                    fx, fy = math.floor(ix), math.floor(iy)
                    wx, wy = _cubic_w(ix - fx), _cubic_w(iy - fy)
                    acc = np.zeros(c)
                    for p in range(4):
                        for q in range(4):
                            x = int(_pad(fx - 1 + q, w, padding, align_corners))
                            y = int(_pad(fy - 1 + p, h, padding, align_corners))
                            acc += wy[p] * wx[q] * read(b, y, x)
                    out[b, :, i, j] = acc
                    continue
                ix = _pad(_unnormalize(gx, w, align_corners), w, padding, align_corners)
                iy = _pad(_unnormalize(gy, h, align_corners), h, padding, align_corners)
                if mode == "nearest":
                    out[b, :, i, j] = read(b, int(np.rint(iy)), int(np.rint(ix)))
                    continue
                x0, y0 = math.floor(ix), math.floor(iy)
                dx, dy = ix - x0, iy - y0
                out[b, :, i, j] = (read(b, y0, x0) * (1 - dx) * (1 - dy)
                                   + read(b, y0, x0 + 1) * dx * (1 - dy)
                                   + read(b, y0 + 1, x0) * (1 - dx) * dy
                                   + read(b, y0 + 1, x0 + 1) * dx * dy)
    return out


GRID_CASES = [(m, p, ac) for m in ("bilinear", "nearest", "bicubic")
              for p in ("zeros", "border", "reflection") for ac in (False, True)]


@pytest.mark.parametrize("mode,padding,align_corners", GRID_CASES)
def test_grid_sample_matches_numpy(mode, padding, align_corners):
    rng = np.random.default_rng(0)
    inp = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, (2, 3, 6, 2))
    got = F.grid_sample(t(inp), t(grid), mode=mode, padding_mode=padding,
                        align_corners=align_corners)
    want = np_grid_sample(inp, grid, mode, padding, align_corners)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    got32 = F.grid_sample(t(inp.astype(np.float32)), t(grid.astype(np.float32)), mode=mode,
                          padding_mode=padding, align_corners=align_corners)
    assert got32.dtype == pt.float32
    if mode != "nearest":  # float32 coordinates may round to the other neighbour
        np.testing.assert_allclose(got32.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode,padding,align_corners", GRID_CASES)
def test_grid_sample_gradcheck(mode, padding, align_corners):
    rng = np.random.default_rng(1)
    x = t(rng.standard_normal((1, 2, 3, 4))).requires_grad_()
    grid = t(rng.uniform(-0.9, 0.9, (1, 2, 3, 2))).requires_grad_(mode != "nearest")
    fn = lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding,  # noqa: E731
                                    align_corners=align_corners)
    assert gradcheck(fn, (x, grid))


def np_grid_sample_3d(inp, grid, mode, padding, align_corners):
    n, c, d, h, w = inp.shape
    out = np.zeros((n, c) + grid.shape[1:4])
    for b in range(n):
        for idx in np.ndindex(*grid.shape[1:4]):
            gx, gy, gz = grid[(b,) + idx]
            ix = _pad(_unnormalize(gx, w, align_corners), w, padding, align_corners)
            iy = _pad(_unnormalize(gy, h, align_corners), h, padding, align_corners)
            iz = _pad(_unnormalize(gz, d, align_corners), d, padding, align_corners)
            if mode == "nearest":
                x, y, z = int(np.rint(ix)), int(np.rint(iy)), int(np.rint(iz))
                if 0 <= x < w and 0 <= y < h and 0 <= z < d:
                    out[(b, slice(None)) + idx] = inp[b, :, z, y, x]
                continue
            x0, y0, z0 = math.floor(ix), math.floor(iy), math.floor(iz)
            acc = np.zeros(c)
            for dz in (0, 1):
                for dy in (0, 1):
                    for dx in (0, 1):
                        x, y, z = x0 + dx, y0 + dy, z0 + dz
                        wt = ((ix - x0) if dx else (x0 + 1 - ix)) * \
                            ((iy - y0) if dy else (y0 + 1 - iy)) * \
                            ((iz - z0) if dz else (z0 + 1 - iz))
                        if 0 <= x < w and 0 <= y < h and 0 <= z < d:
                            acc += wt * inp[b, :, z, y, x]
            out[(b, slice(None)) + idx] = acc
    return out


GRID3_CASES = [(m, p, ac) for m in ("bilinear", "nearest")
               for p in ("zeros", "border", "reflection") for ac in (False, True)]


@pytest.mark.parametrize("mode,padding,align_corners", GRID3_CASES)
def test_grid_sample_3d_matches_numpy_and_gradcheck(mode, padding, align_corners):
    rng = np.random.default_rng(6)
    inp = rng.standard_normal((2, 2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, (2, 2, 3, 2, 3))
    got = F.grid_sample(t(inp), t(grid), mode=mode, padding_mode=padding,
                        align_corners=align_corners)
    np.testing.assert_allclose(got.numpy(), np_grid_sample_3d(inp, grid, mode, padding,
                                                              align_corners),
                               rtol=1e-12, atol=1e-12)
    x = t(inp[:1, :, :2]).requires_grad_()
    g = t(rng.uniform(-0.9, 0.9, (1, 2, 1, 2, 3))).requires_grad_(mode != "nearest")
    assert gradcheck(lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding,
                                                align_corners=align_corners), (x, g))


def test_grid_sample_strided_inputs():
    rng = np.random.default_rng(2)
    inp = rng.standard_normal((2, 5, 4, 3))
    grid = rng.uniform(-1, 1, (2, 2, 6, 3))
    x = t(inp).permute(0, 3, 1, 2)  # (2, 3, 5, 4), channels innermost
    g = t(grid)[..., 1:]            # last dim stride 1, sizes (2, 2, 6, 2) with odd strides
    got = F.grid_sample(x, g, align_corners=False)
    want = np_grid_sample(inp.transpose(0, 3, 1, 2), grid[..., 1:], "bilinear", "zeros", False)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_grid_sample_empty_batch_and_channels():
    assert F.grid_sample(pt.zeros(0, 3, 4, 5), pt.zeros(0, 2, 2, 2),
                         align_corners=True).shape == (0, 3, 2, 2)
    assert F.grid_sample(pt.zeros(2, 0, 4, 5), pt.zeros(2, 2, 2, 2),
                         align_corners=True).shape == (2, 0, 2, 2)


def test_grid_sample_messages():
    x = pt.zeros(2, 3, 4, 5)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or "
                       "'bicubic', but got: 'foo'"):
        F.grid_sample(x, pt.zeros(2, 2, 2, 2), mode="foo")
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or "
                       "'reflection', but got: 'foo'"):
        F.grid_sample(x, pt.zeros(2, 2, 2, 2), padding_mode="foo")
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.grid_sample(x, pt.zeros(2, 2, 2, 2))
    with pytest.raises(RuntimeError, match=r"expected grid and input to have same batch size, "
                       r"but got input with sizes \[2, 3, 4, 5\] and grid with sizes "
                       r"\[1, 6, 7, 2\]"):
        F.grid_sample(x, pt.zeros(1, 6, 7, 2), align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected grid to have size 2 in last dimension, but "
                       r"got grid with sizes \[2, 6, 7, 1\]"):
        F.grid_sample(x, pt.zeros(2, 6, 7, 1), align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected input to have non-empty spatial "
                       r"dimensions, but input has sizes \[2, 3, 0, 5\] with dimension 2 being "
                       r"empty"):
        F.grid_sample(pt.zeros(2, 3, 0, 5), pt.zeros(2, 6, 7, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(pt.zeros(2, 3, 4, 4, 4), pt.zeros(2, 3, 3, 3, 3), mode="bicubic",
                      align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected 5D input and grid with same number of "
                       r"dimensions, but got input with sizes \[2, 3, 4\] and grid with sizes "
                       r"\[2, 3, 1\]"):
        F.grid_sample(pt.zeros(2, 3, 4), pt.zeros(2, 3, 1), align_corners=False)
    with pytest.raises(NotImplementedError, match="\"grid_sampler3d_cpu\" not implemented for "
                       "'Int'"):
        pt.grid_sampler(pt.zeros(1, 1, 2, 2, 2, dtype=pt.int32),
                        pt.zeros(1, 1, 1, 1, 3, dtype=pt.int32), 0, 0, False)
    with pytest.raises(NotImplementedError, match="\"grid_sampler_2d_cpu_kernel_impl\" not "
                       "implemented for 'Int'"):
        pt.grid_sampler(pt.zeros(2, 3, 4, 5, dtype=pt.int32), pt.zeros(2, 2, 2, 2,
                        dtype=pt.int32), 0, 0, False)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        pt.grid_sampler_2d(x, pt.zeros(2, 2, 2, 2, dtype=pt.float64), 0, 0, False)


def test_grid_sample_double_backward_is_refused():
    x = t(np.ones((1, 1, 3, 3))).requires_grad_()
    g = t(np.zeros((1, 1, 1, 2))).requires_grad_()
    gx, gg = pt.autograd.grad(F.grid_sample(x, g, align_corners=False).sum(), (x, g),
                              create_graph=True)
    with pytest.raises(NotImplementedError, match="grid_sampler_2d_backward"):
        pt.autograd.grad(gg.sum(), x)


# ---------------------------------------------------------------- affine_grid

def np_affine_grid(theta, size, align_corners):
    n, _, h, w = size

    def lin(k):
        if k <= 1:
            return np.zeros(k)
        v = np.linspace(-1, 1, k)
        return v if align_corners else v * (k - 1) / k
    xs, ys = np.meshgrid(lin(w), lin(h))
    base = np.stack([xs, ys, np.ones_like(xs)], -1)  # (h, w, 3)
    return np.einsum("hwk,njk->nhwj", base, theta)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (3, 2, 2, 1)])
def test_affine_grid_matches_numpy_and_gradcheck(align_corners, size):
    theta = np.random.default_rng(3).standard_normal((size[0], 2, 3))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.affine_grid(t(theta), size, align_corners=align_corners)
    np.testing.assert_allclose(got.numpy(), np_affine_grid(theta, size, align_corners),
                               rtol=1e-12, atol=1e-12)
    th = t(theta).requires_grad_()
    assert gradcheck(lambda v: pt.affine_grid_generator(v, list(size), align_corners), (th,))
    assert gradgradcheck(lambda v: pt.affine_grid_generator(v, list(size), align_corners), (th,))


def np_affine_grid_3d(theta, size, align_corners):
    n, _, d, h, w = size

    def lin(k):
        if k <= 1:
            return np.zeros(k)
        v = np.linspace(-1, 1, k)
        return v if align_corners else v * (k - 1) / k
    zs, ys, xs = np.meshgrid(lin(d), lin(h), lin(w), indexing="ij")
    base = np.stack([xs, ys, zs, np.ones_like(xs)], -1)
    return np.einsum("dhwk,njk->ndhwj", base, theta)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_3d(align_corners):
    size = (2, 1, 3, 4, 2)
    theta = np.random.default_rng(7).standard_normal((2, 3, 4))
    got = F.affine_grid(t(theta), size, align_corners=align_corners)
    assert got.shape == (2, 3, 4, 2, 3)
    np.testing.assert_allclose(got.numpy(), np_affine_grid_3d(theta, size, align_corners),
                               rtol=1e-12, atol=1e-12)
    th = t(theta).requires_grad_()
    assert gradcheck(lambda v: pt.affine_grid_generator(v, list(size), align_corners), (th,))


def test_affine_grid_messages():
    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(pt.zeros(2, 2, 3, dtype=pt.int32), [2, 3, 4, 4], align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3 "
                       r"for size \[2, 3, 4, 4\]"):
        F.affine_grid(pt.zeros(2, 3, 3), [2, 3, 4, 4], align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(pt.zeros(2, 2, 3), [2, 3, 4], align_corners=False)
    with pytest.raises(ValueError, match=r"Expected non-zero, positive output size. Got "
                       r"\[2, 3, 0, 4\]"):
        F.affine_grid(pt.zeros(2, 2, 3), [2, 3, 0, 4], align_corners=False)
    with pytest.raises(RuntimeError, match="AffineGridGenerator needs 4d"):
        pt.affine_grid_generator(pt.zeros(2, 2, 3), [2, 3, 4], False)
    with pytest.raises(ValueError, match="Expected a batch of 3D affine matrices of shape Nx3x4"):
        F.affine_grid(pt.zeros(2, 2, 3), [2, 3, 4, 4, 4], align_corners=False)


# ---------------------------------------------------------------- shuffles

def np_pixel_shuffle(a, r):
    *b, c, h, w = a.shape
    x = a.reshape(*b, c // (r * r), r, r, h, w)
    nb = len(b)
    x = x.transpose(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return x.reshape(*b, c // (r * r), h * r, w * r)


def np_pixel_unshuffle(a, r):
    *b, c, h, w = a.shape
    nb = len(b)
    x = a.reshape(*b, c, h // r, r, w // r, r)
    x = x.transpose(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return x.reshape(*b, c * r * r, h // r, w // r)


def np_channel_shuffle(a, g):
    n, c = a.shape[:2]
    return a.reshape(n, g, c // g, *a.shape[2:]).swapaxes(1, 2).reshape(a.shape)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((18, 2, 3), 3), ((2, 1, 4, 1, 1), 1),
                                     ((0, 4, 2, 2), 2)])
def test_pixel_shuffle_roundtrip(shape, r):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    y = F.pixel_shuffle(t(a), r)
    np.testing.assert_array_equal(y.numpy(), np_pixel_shuffle(a, r))
    np.testing.assert_array_equal(F.pixel_unshuffle(y, r).numpy(), a)
    np.testing.assert_array_equal(F.pixel_unshuffle(t(np_pixel_shuffle(a, r)), r).numpy(),
                                  np_pixel_unshuffle(np_pixel_shuffle(a, r), r))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float32, np.complex128])
def test_shuffles_any_dtype_and_channels_last(dtype):
    a = (np.arange(2 * 8 * 2 * 3) % 5).reshape(2, 8, 2, 3).astype(dtype)
    np.testing.assert_array_equal(F.pixel_shuffle(t(a), 2).numpy(), np_pixel_shuffle(a, 2))
    np.testing.assert_array_equal(F.channel_shuffle(t(a), 4).numpy(), np_channel_shuffle(a, 4))
    xc = t(a).contiguous(memory_format=pt.channels_last)
    y = F.pixel_shuffle(xc, 2)
    assert y.is_contiguous(memory_format=pt.channels_last)
    np.testing.assert_array_equal(y.numpy(), np_pixel_shuffle(a, 2))
    y = F.channel_shuffle(xc, 2)
    assert y.is_contiguous(memory_format=pt.channels_last)
    np.testing.assert_array_equal(y.numpy(), np_channel_shuffle(a, 2))


def test_shuffles_gradcheck():
    x = t(np.random.default_rng(4).standard_normal((2, 8, 2, 3))).requires_grad_()
    assert gradcheck(lambda v: F.pixel_shuffle(v, 2), (x,))
    assert gradcheck(lambda v: F.channel_shuffle(v, 4), (x,))
    assert gradcheck(lambda v: pt.native_channel_shuffle(v, 2), (x,))
    y = t(np.random.default_rng(5).standard_normal((2, 3, 4, 6))).requires_grad_()
    assert gradcheck(lambda v: F.pixel_unshuffle(v, 2), (y,))
    assert gradgradcheck(lambda v: F.pixel_unshuffle(v, 2), (y,))
    assert F.pixel_shuffle(x, 2).grad_fn.name() == "PixelShuffleBackward0"
    assert F.channel_shuffle(x, 2).grad_fn.name() == "ChannelShuffleBackward0"


def test_shuffle_messages():
    with pytest.raises(RuntimeError, match=r"pixel_shuffle expects input to have at least 3 "
                       r"dimensions, but got input with 2 dimension\(s\)"):
        F.pixel_shuffle(pt.zeros(2, 3), 2)
    with pytest.raises(RuntimeError, match="pixel_shuffle expects a positive upscale_factor, but "
                       "got 0"):
        F.pixel_shuffle(pt.zeros(2, 3, 4, 4), 0)
    with pytest.raises(RuntimeError, match=r"input.size\(-3\)=3 is not divisible by 4"):
        F.pixel_shuffle(pt.zeros(2, 3, 4, 4), 2)
    with pytest.raises(RuntimeError, match=r"pixel_unshuffle expects height to be divisible by "
                       r"downscale_factor, but input.size\(-2\)=5 is not divisible by 2"):
        F.pixel_unshuffle(pt.zeros(2, 3, 5, 4), 2)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\)=5 is not divisible by 2"):
        F.pixel_unshuffle(pt.zeros(2, 3, 4, 5), 2)
    with pytest.raises(RuntimeError, match=r"channel_shuffle expects input with > 2 dims, but got "
                       r"input with sizes \[3, 4\]"):
        F.channel_shuffle(pt.zeros(3, 4), 2)
    with pytest.raises(RuntimeError, match="Number of groups to divide channels in must be "
                       "positive. Value of groups:0"):
        F.channel_shuffle(pt.zeros(3, 4, 5), 0)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 4 "
                       "channels and 3 groups."):
        F.channel_shuffle(pt.zeros(3, 4, 5), 3)


def test_meta_tensors():
    m = pt.empty(2, 4, 4, 6, device="meta")
    assert F.pixel_shuffle(m, 2).shape == (2, 1, 8, 12)
    assert F.grid_sample(m, pt.empty(2, 3, 5, 2, device="meta"), align_corners=True).shape == \
        (2, 4, 3, 5)
    assert F.interpolate(m, scale_factor=2, mode="bicubic").shape == (2, 4, 8, 12)
    assert F.pad(m, (1, 2, 1, 2), mode="reflect").shape == (2, 4, 7, 9)
    assert F.pad(m, (1, 2)).device.type == "meta"


# ---------------------------------------------------------------- against torch

def to_pt(x):
    return pt.from_numpy(x.detach().numpy().copy())


@requires_torch
@pytest.mark.parametrize("mode,padding,align_corners", GRID_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid_sample_matches_torch_with_grad(mode, padding, align_corners, dtype):
    td = getattr(torch, dtype)
    xt = torch.randn(2, 3, 5, 6, dtype=td, requires_grad=True)
    gt = (torch.rand(2, 4, 7, 2, dtype=td) * 2.6 - 1.3).requires_grad_()
    yt = torch.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=padding,
                                         align_corners=align_corners)
    go = torch.randn_like(yt)
    yt.backward(go)
    x, g = to_pt(xt).requires_grad_(), to_pt(gt).requires_grad_()
    y = F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align_corners)
    y.backward(to_pt(go))
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **tol)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), **tol)
    np.testing.assert_allclose(g.grad.numpy(), gt.grad.numpy(), **tol)
    assert y.grad_fn.name() == yt.grad_fn.name()


@requires_torch
@pytest.mark.parametrize("mode,padding,align_corners", GRID3_CASES)
def test_grid_sample_3d_matches_torch_with_grad(mode, padding, align_corners):
    xt = torch.randn(2, 3, 4, 5, 3, requires_grad=True)
    gt = (torch.rand(2, 3, 2, 4, 3) * 2.6 - 1.3).requires_grad_()
    yt = torch.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=padding,
                                         align_corners=align_corners)
    go = torch.randn_like(yt)
    yt.backward(go)
    x, g = to_pt(xt).requires_grad_(), to_pt(gt).requires_grad_()
    y = F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align_corners)
    y.backward(to_pt(go))
    for got, want in ((y, yt), (x.grad, xt.grad), (g.grad, gt.grad)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-4,
                                   atol=1e-4)
    assert y.grad_fn.name() == yt.grad_fn.name()


@requires_torch
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(align_corners):
    th = torch.randn(3, 2, 3, dtype=torch.float32, requires_grad=True)
    gt = torch.nn.functional.affine_grid(th, [3, 1, 4, 5], align_corners=align_corners)
    go = torch.randn_like(gt)
    gt.backward(go)
    tp = to_pt(th).requires_grad_()
    gp = F.affine_grid(tp, [3, 1, 4, 5], align_corners=align_corners)
    gp.backward(to_pt(go))
    np.testing.assert_allclose(gp.detach().numpy(), gt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tp.grad.numpy(), th.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert gp.grad_fn.name() == gt.grad_fn.name()


@requires_torch
def test_shuffle_messages_match_torch():
    cases = [("pixel_shuffle", (2, 3), 2), ("pixel_shuffle", (2, 3, 4, 4), 2),
             ("pixel_unshuffle", (2, 3, 5, 4), 2), ("channel_shuffle", (3, 4, 5), 3),
             ("channel_shuffle", (3, 4, 5), 0)]
    for name, shape, arg in cases:
        with pytest.raises(Exception) as want:
            getattr(torch, name)(torch.zeros(shape), arg)
        with pytest.raises(type(want.value)) as got:
            getattr(pt, name)(pt.zeros(*shape), arg)
        assert str(want.value) == str(got.value)


def test_thread_split_gives_the_same_result():
    rng = np.random.default_rng(8)
    x = t(rng.standard_normal((4, 16, 30, 30)))
    g = t(rng.uniform(-1.2, 1.2, (4, 40, 40, 2)))
    old = pt.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            pt.set_num_threads(n)
            xg, gg = x.detach().requires_grad_(), g.detach().requires_grad_()
            y = F.grid_sample(xg, gg, mode="bicubic", padding_mode="reflection",
                              align_corners=False)
            y.backward(pt.ones_like(y))
            results.append((y.numpy(), xg.grad.numpy(), gg.grad.numpy()))
    finally:
        pt.set_num_threads(old)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
