"""pytensor.nn.functional's pooling: max, average, adaptive, power-average pooling and max
unpooling, forward and backward, against NumPy references (always) and torch (when installed):
values, flat indices, shapes, dtypes, memory formats (channels-last inputs give channels-last
results), autograd node names, gradients; gradcheck and gradgradcheck in float64; nan
propagation; the split across threads; bad input with torch's exceptions and messages."""
import itertools

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(11)


def _pt(a, cl=False, grad=False):
    t = pytensor.from_numpy(np.ascontiguousarray(a))
    if cl:
        t = t.contiguous(memory_format=pytensor.channels_last if a.ndim == 4
                         else pytensor.channels_last_3d)
    return t.requires_grad_(True) if grad else t


def _th(a, cl=False, grad=False):
    t = torch.from_numpy(np.ascontiguousarray(a))
    if cl:
        t = t.contiguous(memory_format=torch.channels_last if a.ndim == 4
                         else torch.channels_last_3d)
    return t.requires_grad_(True) if grad else t


# ---------------------------------------------------------------- NumPy references
def _out_size(n, k, s, p, d, ceil):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = num // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def ref_max_pool2d(x, k, s, p, d=1, ceil=False):
    """(values, flat indices) of a (N, C, H, W) array, the first maximum kept, nan winning."""
    N, C, H, W = x.shape
    OH, OW = _out_size(H, k, s, p, d, ceil), _out_size(W, k, s, p, d, ceil)
    out = np.empty((N, C, OH, OW), x.dtype)
    idx = np.empty((N, C, OH, OW), np.int64)
    for n, c, oh, ow in itertools.product(range(N), range(C), range(OH), range(OW)):
        best, bi = -np.inf, None
        for i, j in itertools.product(range(k), range(k)):
            h, w = oh * s - p + i * d, ow * s - p + j * d
            if 0 <= h < H and 0 <= w < W:
                v = x[n, c, h, w]
                if bi is None:
                    bi = h * W + w
                if v > best or np.isnan(v):
                    best, bi = v, h * W + w
        out[n, c, oh, ow], idx[n, c, oh, ow] = best, bi
    return out, idx


def ref_avg_pool2d(x, k, s, p, ceil=False, count_include_pad=True, divisor=None):
    N, C, H, W = x.shape
    OH, OW = _out_size(H, k, s, p, 1, ceil), _out_size(W, k, s, p, 1, ceil)
    out = np.zeros((N, C, OH, OW), x.dtype)
    for oh, ow in itertools.product(range(OH), range(OW)):
        h0, w0 = oh * s - p, ow * s - p
        h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
        pool = (h1 - h0) * (w1 - w0)
        h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
        if h0 >= h1 or w0 >= w1:
            continue
        div = divisor or (pool if count_include_pad else (h1 - h0) * (w1 - w0))
        out[:, :, oh, ow] = x[:, :, h0:h1, w0:w1].sum(axis=(2, 3)) / div
    return out


def ref_adaptive(x, osz, reduce):
    N, C, H, W = x.shape
    OH, OW = osz
    out = np.empty((N, C, OH, OW), x.dtype)
    for oh, ow in itertools.product(range(OH), range(OW)):
        h0, h1 = oh * H // OH, -(-(oh + 1) * H // OH)
        w0, w1 = ow * W // OW, -(-(ow + 1) * W // OW)
        out[:, :, oh, ow] = reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3))
    return out


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, 2, 0, 1, False), (3, 2, 1, 1, False),
                                          (3, 2, 1, 1, True), (3, 1, 1, 2, False),
                                          (2, 3, 1, 1, True)])
@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_matches_numpy(k, s, p, d, ceil, cl, dtype):
    x = RNG.standard_normal((2, 3, 7, 9)).astype(dtype)
    v, i = F.max_pool2d(_pt(x, cl), k, s, p, d, ceil, return_indices=True)
    rv, ri = ref_max_pool2d(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(v.numpy(), rv)
    np.testing.assert_array_equal(i.numpy(), ri)
    assert v.dtype == (pytensor.float32 if dtype == np.float32 else pytensor.float64)
    assert i.dtype == pytensor.int64
    if cl:
        assert v.is_contiguous(memory_format=pytensor.channels_last)
        assert i.is_contiguous(memory_format=pytensor.channels_last)


@pytest.mark.parametrize("k,s,p,ceil,cip,div", [(2, 2, 0, False, True, None),
                                                (3, 2, 1, False, True, None),
                                                (3, 2, 1, True, False, None),
                                                (3, 2, 1, True, True, None),
                                                (3, 2, 1, False, True, 5)])
@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "nhwc"])
def test_avg_pool2d_matches_numpy(k, s, p, ceil, cip, div, cl):
    x = RNG.standard_normal((2, 3, 7, 9))
    got = F.avg_pool2d(_pt(x, cl), k, s, p, ceil, cip, div)
    np.testing.assert_allclose(got.numpy(), ref_avg_pool2d(x, k, s, p, ceil, cip, div),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("osz", [(1, 1), (3, 4), (5, 7), (7, 9), (10, 11)])
@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "nhwc"])
def test_adaptive_pools_match_numpy(osz, cl):
    x = RNG.standard_normal((2, 3, 7, 9))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(_pt(x, cl), osz).numpy(),
                               ref_adaptive(x, osz, np.mean), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(F.adaptive_max_pool2d(_pt(x, cl), osz).numpy(),
                                  ref_adaptive(x, osz, np.max))


def test_max_pool_backward_routes_gradient_to_the_maxima():
    x = _pt(np.arange(16.0).reshape(1, 1, 4, 4), grad=True)
    F.max_pool2d(x, 2).sum().backward()
    want = np.zeros((4, 4))
    want[1::2, 1::2] = 1.0
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)


def test_nan_wins_max_pooling_and_is_indexed():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = np.nan
    for cl in (False, True):
        v, i = F.max_pool2d(_pt(x, cl), 2, return_indices=True)
        assert np.isnan(v.numpy()[0, 0, 0, 0]) and i.numpy()[0, 0, 0, 0] == 0
        v, i = F.adaptive_max_pool2d(_pt(x, cl), 1, return_indices=True)
        assert np.isnan(v.numpy()).all() and i.numpy().item() == 0


def test_unbatched_and_zero_batch_inputs():
    x = RNG.standard_normal((3, 6, 6))
    assert F.max_pool2d(_pt(x), 2).shape == (3, 3, 3)
    np.testing.assert_array_equal(F.max_pool2d(_pt(x), 2).numpy(),
                                  ref_max_pool2d(x[None], 2, 2, 0)[0][0])
    assert F.avg_pool2d(_pt(np.zeros((0, 3, 4, 4))), 2).shape == (0, 3, 2, 2)
    assert F.max_pool2d(_pt(np.zeros((0, 3, 4, 4))), 2).shape == (0, 3, 2, 2)
    assert F.adaptive_avg_pool2d(_pt(np.zeros((0, 3, 4, 4))), 2).shape == (0, 3, 2, 2)
    assert F.max_pool1d(_pt(RNG.standard_normal((3, 8))), 2).shape == (3, 4)
    assert F.max_pool3d(_pt(RNG.standard_normal((2, 4, 4, 4))), 2).shape == (2, 2, 2, 2)


def test_non_contiguous_inputs():
    base = RNG.standard_normal((2, 9, 3, 8))
    x = _pt(base).permute(0, 2, 1, 3)  # (2, 3, 9, 8), neither layout
    ref = np.ascontiguousarray(base.transpose(0, 2, 1, 3))
    np.testing.assert_array_equal(F.max_pool2d(x, 3, 2, 1).numpy(), ref_max_pool2d(ref, 3, 2, 1)[0])
    np.testing.assert_allclose(F.avg_pool2d(x[:, :, ::2], 2).numpy(),
                               ref_avg_pool2d(ref[:, :, ::2], 2, 2, 0), rtol=1e-12)


def test_split_across_threads_gives_the_same_results():
    x = RNG.standard_normal((4, 16, 64, 64)).astype(np.float32)
    outs = []
    before = pytensor.get_num_threads()
    try:
        for n in (1, 2):
            pytensor.set_num_threads(n)
            for cl in (False, True):
                t = _pt(x, cl, grad=True)
                v, i = F.max_pool2d(t, 3, 2, 1, return_indices=True)
                a = F.avg_pool2d(t, 3, 2, 1)
                (v.sum() + a.sum()).backward()
                outs.append((n, cl, v.numpy(), i.numpy(), a.numpy(), t.grad.numpy()))
    finally:
        pytensor.set_num_threads(before)
    for n, cl, *arrays in outs[2:]:
        ref = outs[int(cl)][2:]
        for got, want in zip(arrays, ref):
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_unpool_inverts_max_pool():
    x = RNG.standard_normal((2, 3, 6, 8))
    v, i = F.max_pool2d(_pt(x), 2, return_indices=True)
    u = F.max_unpool2d(v, i, 2)
    mask = u.numpy() != 0
    np.testing.assert_array_equal(u.numpy()[mask], x[mask])
    assert mask.sum() == v.numel()
    v, i = F.max_pool1d(_pt(x[0]), 2, return_indices=True)
    assert F.max_unpool1d(v, i, 2).shape == (3, 6, 8)
    v, i = F.max_pool3d(_pt(x), 2, return_indices=True)
    assert F.max_unpool3d(v, i, 2).shape == (2, 2, 6, 8)  # unbatched (C, D, H, W): D 3 -> 1 -> 2


def test_lp_pool_is_the_p_norm_of_each_window():
    x = np.abs(RNG.standard_normal((1, 2, 4, 4))) + 0.1
    got = F.lp_pool2d(_pt(x), 3, 2).numpy()
    want = (ref_avg_pool2d(x ** 3, 2, 2, 0) * 4) ** (1 / 3)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_dtypes_outside_float_are_refused_with_torchs_message():
    with pytest.raises(NotImplementedError, match="\"adaptive_avg_pool2d\" not implemented for "
                                                  "'Long'"):
        F.adaptive_avg_pool2d(pytensor.ones(1, 1, 4, 4, dtype=pytensor.int64), 2)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for "
                                                  "'ComplexFloat'"):
        F.max_pool2d(pytensor.ones(1, 1, 4, 4, dtype=pytensor.complex64), 2)


# ---------------------------------------------------------------- autograd
GRAD_CASES = [
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1), (2, 3, 9)),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), (2, 3, 7, 6)),
    ("max_pool2d_dil_ceil", lambda x: F.max_pool2d(x, 2, 2, 1, 2, True), (1, 2, 7, 6)),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, 1, 1), (1, 2, 4, 3, 4)),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1, True, False), (2, 3, 9)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, True, False), (2, 3, 7, 6)),
    ("avg_pool2d_div", lambda x: F.avg_pool2d(x, 2, 1, 1, divisor_override=3), (1, 2, 5, 4)),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 1, 1), (1, 2, 4, 3, 4)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (2, 3, 7, 6)),
    ("adaptive_avg_pool2d_1", lambda x: F.adaptive_avg_pool2d(x, 1), (2, 3, 7, 6)),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 2, 4, 5, 3)),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 4), (2, 3, 9)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 4)), (2, 3, 7, 6)),
    ("lp_pool1d", lambda x: F.lp_pool1d(x, 2, 3, 2), (2, 3, 9)),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2), (2, 3, 6, 6)),
    ("max_unpool2d", lambda x: F.max_unpool2d(x, pytensor.tensor([[[[0, 3], [9, 14]]]]), 2),
     (1, 1, 2, 2)),
    ("max_unpool3d", lambda x: F.max_unpool3d(
        x, pytensor.tensor([[[[[0, 3], [9, 14]], [[16, 21], [26, 63]]]]]), 2), (1, 1, 2, 2, 2)),
]


def _distinct(shape):
    """Values with distinct, well separated entries, so max pooling is differentiable."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 + 0.05).reshape(shape)


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn, shape):
    x = _pt(_distinct(shape), grad=True)
    assert pytensor.autograd.gradcheck(fn, (x,))


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradgradcheck(name, fn, shape):
    x = _pt(_distinct(shape), grad=True)
    assert pytensor.autograd.gradgradcheck(fn, (x,))


def test_gradcheck_channels_last():
    x = _pt(_distinct((2, 3, 6, 5)), cl=True, grad=True)
    for fn in (lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 3, 2, 1),
               lambda t: F.adaptive_avg_pool2d(t, (4, 3)), lambda t: F.adaptive_max_pool2d(t, 2)):
        assert pytensor.autograd.gradcheck(fn, (x,))


# ---------------------------------------------------------------- against torch
TORCH_CASES = [
    ("max_pool2d", lambda F_, x: F_.max_pool2d(x, 3, 2, 1, return_indices=True), (2, 5, 9, 11)),
    ("max_pool2d_dil", lambda F_, x: F_.max_pool2d(x, (2, 3), (1, 2), (1, 0), (2, 1), True,
                                                   return_indices=True), (2, 5, 9, 11)),
    ("max_pool2d_plain", lambda F_, x: F_.max_pool2d(x, 2), (2, 5, 9, 11)),
    ("max_pool3d", lambda F_, x: F_.max_pool3d(x, 3, 2, 1, return_indices=True), (2, 3, 6, 9, 7)),
    ("max_pool3d_plain", lambda F_, x: F_.max_pool3d(x, 2), (3, 6, 9, 7)),
    ("max_pool1d", lambda F_, x: F_.max_pool1d(x, 3, 2, 1, return_indices=True), (2, 5, 11)),
    ("max_pool1d_plain", lambda F_, x: F_.max_pool1d(x, 3, 2, 1), (5, 11)),
    ("avg_pool1d", lambda F_, x: F_.avg_pool1d(x, 3, 2, 1, True, False), (2, 5, 11)),
    ("avg_pool2d", lambda F_, x: F_.avg_pool2d(x, 3, 2, 1, True, False), (2, 5, 9, 11)),
    ("avg_pool2d_div", lambda F_, x: F_.avg_pool2d(x, 3, 2, 1, False, True, 5), (5, 9, 11)),
    ("avg_pool3d", lambda F_, x: F_.avg_pool3d(x, (2, 3, 2), (1, 2, 1), (1, 0, 1), True, False),
     (2, 3, 6, 9, 7)),
    ("adaptive_avg_pool1d", lambda F_, x: F_.adaptive_avg_pool1d(x, 4), (2, 5, 11)),
    ("adaptive_avg_pool2d", lambda F_, x: F_.adaptive_avg_pool2d(x, (5, None)), (2, 5, 9, 11)),
    ("adaptive_avg_pool2d_1", lambda F_, x: F_.adaptive_avg_pool2d(x, 1), (2, 5, 9, 11)),
    ("adaptive_avg_pool2d_up", lambda F_, x: F_.adaptive_avg_pool2d(x, (13, 15)), (2, 5, 9, 11)),
    ("adaptive_avg_pool3d", lambda F_, x: F_.adaptive_avg_pool3d(x, (3, 4, 2)), (2, 3, 6, 9, 7)),
    ("adaptive_avg_pool3d_1", lambda F_, x: F_.adaptive_avg_pool3d(x, 1), (2, 3, 6, 9, 7)),
    ("adaptive_max_pool1d", lambda F_, x: F_.adaptive_max_pool1d(x, 4, True), (2, 5, 11)),
    ("adaptive_max_pool2d", lambda F_, x: F_.adaptive_max_pool2d(x, (3, 4), True), (2, 5, 9, 11)),
    ("lp_pool1d", lambda F_, x: F_.lp_pool1d(x, 3, 3, 2), (2, 5, 11)),
    ("lp_pool2d", lambda F_, x: F_.lp_pool2d(x, 2, 3, 2), (2, 5, 9, 11)),
    ("lp_pool3d", lambda F_, x: F_.lp_pool3d(x, 2, 2), (2, 3, 6, 8, 8)),
]


def _fmt(lib, ndim):
    return {4: lib.channels_last, 5: lib.channels_last_3d}.get(ndim)


@requires_torch
@pytest.mark.parametrize("name,fn,shape", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
@pytest.mark.parametrize("cl", [False, True], ids=["planar", "channels_last"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True], ids=["", "nan"])
def test_matches_torch(name, fn, shape, cl, dtype, nan):
    if cl and (len(shape) < 4 or (len(shape) == 4 and "3d" in name)):
        pytest.skip("channels-last needs a 4-d input to a 2-d pool or a 5-d one to a 3-d pool")
    a = RNG.standard_normal(shape).astype(dtype)
    if nan:
        if name.startswith("lp") or "avg" in name:
            pytest.skip("nan only matters to max pooling")
        a.reshape(-1)[::7] = np.nan
    p, t = _pt(a, cl, grad=True), _th(a, cl, grad=True)
    po, to = fn(F, p), fn(torch.nn.functional, t)
    if isinstance(to, tuple):
        np.testing.assert_array_equal(po[1].numpy(), to[1].numpy())
        assert po[1].dtype == pytensor.int64
        po, to = po[0], to[0]
    assert tuple(po.shape) == tuple(to.shape)
    assert str(po.dtype) == str(to.dtype).replace("torch", "pytensor")
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(po.detach().numpy(), to.detach().numpy(), rtol=tol, atol=tol)
    if to.dim() >= 4 and not (cl and name.endswith("avg_pool2d_1")):
        assert (po.is_contiguous(memory_format=_fmt(pytensor, to.dim()))
                == to.is_contiguous(memory_format=_fmt(torch, to.dim())))
    if not (cl and name.endswith("_1")):  # torch: AsStridedBackward1 over the mean
        assert po.grad_fn.name() == type(to.grad_fn).__name__
    g = RNG.standard_normal(tuple(to.shape)).astype(dtype)
    po.backward(pytensor.from_numpy(g))
    to.backward(torch.from_numpy(g))
    np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("cl", [False, True], ids=["planar", "channels_last"])
def test_unpool_matches_torch(cl):
    a = RNG.standard_normal((2, 3, 8, 10))
    for k, s, p in [(2, None, 0), (3, 2, 1)]:
        tv, ti = torch.nn.functional.max_pool2d(_th(a, cl), k, s, p, return_indices=True)
        pv, pi = F.max_pool2d(_pt(a, cl), k, s, p, return_indices=True)
        tu = torch.nn.functional.max_unpool2d(tv, ti, k, s, p, output_size=(8, 10))
        pu = F.max_unpool2d(pv, pi, k, s, p, output_size=(8, 10))
        np.testing.assert_array_equal(pu.numpy(), tu.numpy())
        assert (pu.is_contiguous(memory_format=pytensor.channels_last)
                == tu.is_contiguous(memory_format=torch.channels_last))
        assert pu.grad_fn is None


# ---------------------------------------------------------------- bad input
X2 = (2, 3, 8, 8)
X1 = (2, 3, 8)
X3 = (2, 3, 4, 8, 8)
NN = pytensor._C._nn
BAD = [
    (lambda: F.max_pool2d(_pt(np.zeros((3, 8))), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: F.max_pool2d(_pt(np.zeros(X2)), 0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool2d(_pt(np.zeros(X2)), 3, 1, 2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    (lambda: F.max_pool2d(_pt(np.zeros(X2)), 3, 1, -1), RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    (lambda: F.max_pool2d(_pt(np.zeros(X2)), 3, 1, 0, 0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool2d(_pt(np.zeros((1, 1, 2, 2))), 3), RuntimeError,
     "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small"),
    (lambda: F.max_pool2d(_pt(np.zeros(X2)), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: F.max_pool2d(_pt(np.zeros((1, 0, 4, 4))), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
     "got:[1, 0, 4, 4]"),
    (lambda: NN.max_pool2d_with_indices(_pt(np.zeros(X2)), [0, 0], [1, 1]), RuntimeError,
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: NN.max_pool2d_with_indices(_pt(np.zeros(X2)), [2, 2], [-1, -1]), RuntimeError,
     "stride should be greater than zero, but got dH: -1 dW: -1"),
    (lambda: NN.max_pool2d_with_indices(_pt(np.zeros(X2)), [2, 2], [1, 1, 1]), RuntimeError,
     "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints"),
    (lambda: F.max_pool1d(_pt(np.zeros(8)), 2), RuntimeError,
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
     "input, but got:[8]"),
    (lambda: F.max_pool1d(_pt(np.zeros((1, 1, 2))), 3), RuntimeError,
     "max_pool1d() Invalid computed output size: 0"),
    (lambda: F.max_pool1d(_pt(np.zeros(X1)), 2, 1, 2), RuntimeError,
     "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
     "kernel_size=2"),
    (lambda: F.max_pool1d(_pt(np.zeros(X1)), 2, 0), RuntimeError,
     "max_pool1d() stride must be greater than zero, but got 0"),
    (lambda: F.max_pool1d(_pt(np.zeros((1, 1, 2))), 3, return_indices=True), RuntimeError,
     "Given input size: (1x1x2). Calculated output size: (1x1x0). Output size is too small"),
    (lambda: F.max_pool3d(_pt(np.zeros((1, 1, 2, 2, 2))), 3), RuntimeError,
     "Given input size: (1x2x2x2). Calculated output size: (1x0x0x0). Output size is too small"),
    (lambda: F.max_pool3d(_pt(np.zeros((3, 8))), 2), RuntimeError,
     "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (lambda: NN.max_pool3d_with_indices(_pt(np.zeros(X3)), [0, 0, 0], [1, 1, 1]), RuntimeError,
     "kernel size should be greater than zero, but got kT: 0 kH: 0 kW: 0"),
    (lambda: F.avg_pool2d(_pt(np.zeros((3, 8))), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda: F.avg_pool2d(_pt(np.zeros(X2)), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
    (lambda: NN.avg_pool2d(_pt(np.zeros(X2)), [2, 2], [1, 1], [0, 0, 0]), RuntimeError,
     "avg_pool2d: padding must either be a single int, or a tuple of two ints"),
    (lambda: F.avg_pool1d(_pt(np.zeros(8)), 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
     "checking arguments for avg_pool1d)"),
    (lambda: pytensor.avg_pool1d(_pt(np.zeros(X1)), [2, 2]), RuntimeError,
     "avg_pool1d() argument 'kernel_size' should contain one int (got 2)"),
    (lambda: F.avg_pool3d(_pt(np.zeros((1, 1, 2, 2, 2))), 3), RuntimeError,
     "input image (T: 2 H: 2 W: 2) smaller than kernel size (kT: 3 kH: 3 kW: 3)"),
    (lambda: NN.avg_pool3d(_pt(np.zeros(X3)), [2, 2]), RuntimeError,
     "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda: F.adaptive_avg_pool2d(_pt(np.zeros((3, 8))), 2), RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3, 8]"),
    (lambda: F.adaptive_avg_pool2d(_pt(np.zeros((1, 2, 0, 4))), 2), RuntimeError,
     "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes [1, 2, 0, 4] with dimension 2 being empty"),
    (lambda: F.adaptive_avg_pool2d(_pt(np.zeros(X2)), -1), RuntimeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {-1, -1}"),
    (lambda: F.adaptive_avg_pool3d(_pt(np.zeros(X3)), -1), RuntimeError,
     "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
     "received {-1, -1,-1}"),
    (lambda: NN.adaptive_avg_pool3d(_pt(np.zeros(X3)), [2, 2]), RuntimeError,
     "adaptive_avg_pool3d: output_size must be 3"),
    (lambda: F.adaptive_max_pool2d(_pt(np.zeros((3, 8))), 2), RuntimeError,
     "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [3, 8]"),
    (lambda: F.adaptive_avg_pool1d(_pt(np.zeros(X1)), (2, 2)), RuntimeError,
     "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)"),
    (lambda: F.adaptive_max_pool1d(_pt(np.zeros(8)), 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
     "checking arguments for adaptive_max_pool1d)"),
    (lambda: F.max_unpool2d(_pt(np.ones((1, 1, 2, 2))), pytensor.full((1, 1, 2, 2), 100), 2),
     RuntimeError, "Found an invalid max index: 100 (output volumes are of size 4x4)"),
    (lambda: F.max_unpool2d(_pt(np.ones((1, 1, 2, 2))), pytensor.full((1, 1, 2, 2), -1), 2),
     RuntimeError, "Found an invalid max index: -1 (output volumes are of size 4x4)"),
    (lambda: F.max_unpool2d(_pt(np.ones((1, 1, 2, 2))),
                            pytensor.zeros(1, 1, 2, 3, dtype=pytensor.int64), 2), RuntimeError,
     "Expected shape of indices to be same as that of the input tensor ([1, 1, 2, 2]) but got "
     "indices tensor with shape: [1, 1, 2, 3]"),
    (lambda: F.max_unpool2d(_pt(np.ones((1, 1, 2, 2))),
                            pytensor.zeros(1, 1, 2, 2, dtype=pytensor.int32), 2), RuntimeError,
     "elements in indices should be type int64 but got: Int"),
    (lambda: F.max_unpool2d(_pt(np.ones((2, 2))), pytensor.zeros(2, 2, dtype=pytensor.int64), 2),
     RuntimeError, "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 "
     "dimensions."),
    (lambda: F.max_unpool2d(_pt(np.ones((1, 1, 2, 2))),
                            pytensor.zeros(1, 1, 2, 2, dtype=pytensor.int64), 2,
                            output_size=(9, 9)), ValueError,
     'invalid output_size "(9, 9)" (dim 0 must be between 2 and 6)'),
    (lambda: F.max_unpool3d(_pt(np.ones((1, 1, 2, 2, 2))), pytensor.full((1, 1, 2, 2, 2), 100),
                            2), RuntimeError,
     "Found an invalid max index: 100 (output volumes are of size 4x4x4)"),
    (lambda: NN.max_unpool3d(_pt(np.ones((1, 1, 2, 2, 2))),
                             pytensor.zeros(1, 1, 2, 2, 2, dtype=pytensor.int64), [4, 4, 4],
                             [0, 1, 1], [0, 0, 0]), RuntimeError,
     "strides should be greater than zero, but got stride: [0, 1, 1]"),
    (lambda: F.lp_pool1d(_pt(np.zeros(8)), 2, 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
     "checking arguments for avg_pool1d)"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_message(i):
    fn, exc, msg = BAD[i]
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value).split("\n")[0] == msg


@requires_torch
@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_messages_are_torchs(i):
    """The same calls on torch raise the same exception type and message (the table above is
    torch's; this keeps it honest when torch changes)."""
    fn, exc, msg = BAD[i]
    import types
    shim = types.SimpleNamespace(
        F=torch.nn.functional, NN=torch._C._nn, pytensor=torch,
        _pt=lambda a, cl=False, grad=False: torch.from_numpy(np.ascontiguousarray(a)))
    g = dict(fn.__globals__)
    g.update(F=shim.F, NN=shim.NN, pytensor=shim.pytensor, _pt=shim._pt)
    tfn = types.FunctionType(fn.__code__, g)
    with pytest.raises(exc) as info:
        tfn()
    assert str(info.value).split("\n")[0] == msg


# ---------------------------------------------------------------- other dtypes
def test_integer_max_and_long_average_pooling():
    x = np.array([[[[-1, -2, 3], [4, 5, -7], [1, 1, 1]]]])
    for dt in (pytensor.int64, pytensor.int32, pytensor.int16, pytensor.int8):
        v, i = F.max_pool2d(_pt(x).to(dt), 2, 1, return_indices=True)
        assert v.dtype == dt and v.tolist() == [[[[5, 5], [5, 5]]]]
        assert i.tolist() == [[[[4, 4], [4, 4]]]]
    assert F.max_pool2d(_pt(np.abs(x)).to(pytensor.uint8), 2, 1).tolist() == [[[[5, 7], [5, 7]]]]
    # integer quotients truncate toward zero, as torch's
    assert F.avg_pool2d(_pt(x), 2, 1).tolist() == [[[[1, 0], [2, 0]]]]
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        F.avg_pool2d(_pt(x).to(pytensor.int32), 2)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        F.max_pool2d(_pt(x) > 0, 2)
    with pytest.raises(NotImplementedError,
                       match="\"avg_pool3d_out_frame\" not implemented for 'BFloat16'"):
        F.avg_pool3d(_pt(np.ones((1, 1, 2, 2, 2))).to(pytensor.bfloat16), 2)
    with pytest.raises(NotImplementedError, match="\"max_unpool2d\" not implemented for 'Long'"):
        F.max_unpool2d(_pt(x[..., :2, :2]), pytensor.zeros(1, 1, 2, 2, dtype=pytensor.int64), 2)


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_half_precision_pools_compute_in_float32(dt):
    x = RNG.standard_normal((2, 3, 6, 6))
    half = _pt(x).to(getattr(pytensor, dt))
    wide = half.to(pytensor.float32)
    for fn in (lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 3, 2, 1),
               lambda t: F.adaptive_avg_pool2d(t, 4), lambda t: F.adaptive_max_pool2d(t, 4)):
        got = fn(half)
        assert got.dtype == getattr(pytensor, dt)
        np.testing.assert_array_equal(got.to(pytensor.float32).numpy(),
                                      fn(wide).to(getattr(pytensor, dt)).to(pytensor.float32)
                                      .numpy())
    h = half.clone().requires_grad_(True)
    F.avg_pool2d(h, 2).sum().backward()
    assert h.grad.dtype == getattr(pytensor, dt)
    np.testing.assert_array_equal(h.grad.to(pytensor.float32).numpy(), np.full(x.shape, 0.25))


@requires_torch
@pytest.mark.parametrize("dt", ["bfloat16", "float16", "int64", "int32", "uint8"])
@pytest.mark.parametrize("cl", [False, True], ids=["planar", "channels_last"])
def test_other_dtypes_match_torch(dt, cl):
    a = RNG.standard_normal((2, 3, 5, 6)) * 50
    fns = [lambda F_: F_.max_pool2d, lambda F_: F_.avg_pool2d]
    for i, pick in enumerate(fns):
        t = _th(a, cl).to(getattr(torch, dt))
        p = _pt(a, cl).to(getattr(pytensor, dt))
        try:
            want = pick(torch.nn.functional)(t, 3, 2, 1)
        except NotImplementedError as e:
            with pytest.raises(NotImplementedError) as info:
                pick(F)(p, 3, 2, 1)
            assert str(info.value) == str(e).split("\n")[0]
            continue
        got = pick(F)(p, 3, 2, 1)
        assert str(got.dtype).split(".")[-1] == dt
        np.testing.assert_allclose(got.to(pytensor.float64).numpy(), want.double().numpy(),
                                   rtol=1e-2, atol=1e-2)
        assert (got.is_contiguous(memory_format=pytensor.channels_last)
                == want.is_contiguous(memory_format=torch.channels_last))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5, 7, 7), (2, 3, 1, 1), (2, 4, 5, 37), (6, 33, 1),
                                   (2, 3, 4, 5, 6)])
def test_global_average_pooling_kernels(shape, dtype):
    """An output of one element per plane: the plane's sum in partial sums, and a backward that
    fills the plane with the gradient's share."""
    x = RNG.standard_normal(shape).astype(dtype)
    g = RNG.standard_normal(shape[:-2] + (1, 1)).astype(dtype) if len(shape) < 5 else \
        RNG.standard_normal(shape[:-3] + (1, 1, 1)).astype(dtype)
    nd = 3 if len(shape) == 5 else 2
    fwd = pytensor._adaptive_avg_pool3d if nd == 3 else pytensor._adaptive_avg_pool2d
    bwd = (pytensor._adaptive_avg_pool3d_backward if nd == 3
           else pytensor._adaptive_avg_pool2d_backward)
    axes = tuple(range(-nd, 0))
    tol = 1e-6 if dtype == np.float32 else 1e-14
    out = fwd(_pt(x), [1] * nd)
    np.testing.assert_allclose(out.numpy(), x.mean(axis=axes, keepdims=True), rtol=tol, atol=tol)
    gin = bwd(_pt(g), _pt(x))
    want = np.broadcast_to(g / np.prod(shape[-nd:]), shape)
    np.testing.assert_allclose(gin.numpy(), want, rtol=tol, atol=tol)


def test_global_average_pooling_is_the_mean():
    x = RNG.standard_normal((2, 3, 4, 5))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(_pt(x), 1).numpy(),
                               x.mean(axis=(-1, -2), keepdims=True), rtol=1e-14, atol=1e-14)
    # ranks and empty planes the kernel refuses are the mean's, as torch's
    y = RNG.standard_normal((3, 8))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(_pt(y), 1).numpy(),
                               y.mean(keepdims=True), rtol=1e-14, atol=1e-14)
    assert np.isnan(F.adaptive_avg_pool2d(_pt(np.zeros((1, 2, 0, 3))), 1).numpy()).all()
    # Note [global average pooling]: torch's graph, the mean's node
    h = _pt(x, grad=True)
    assert F.adaptive_avg_pool2d(h, 1).grad_fn.name() == "MeanBackward1"
    c = _pt(x, cl=True, grad=True)
    assert F.adaptive_avg_pool2d(c, 1).grad_fn.name() == "MeanBackward1"


@requires_torch
def test_global_average_pooling_edge_cases_match_torch():
    for shape in [(3, 8), (1, 2, 0, 3), (2, 3, 4, 5, 6)]:
        a = RNG.standard_normal(shape)
        got = F.adaptive_avg_pool2d(_pt(a), 1)
        want = torch.nn.functional.adaptive_avg_pool2d(_th(a), 1)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError) as info:
        F.adaptive_avg_pool2d(_pt(np.ones((1, 2, 3, 3), np.int64)), 1)
    with pytest.raises(RuntimeError) as tinfo:
        torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 3, 3, dtype=torch.long), 1)
    assert str(info.value).split("\n")[0] == str(tinfo.value).split("\n")[0]
