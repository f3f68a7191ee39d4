"""pytensor.nn.functional's adaptive_max_pool3d and fractional_max_pool2d/3d, forward and backward,
against NumPy references (always) and torch (when installed): values, flat indices, shapes,
dtypes, layouts, autograd node names, gradients; gradcheck and gradgradcheck in float64; the
samples drawn when none are given; output_ratio; bad input with torch's exceptions and messages."""
import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(17)
NN = pytensor._C._nn


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


def _distinct(shape):
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 + 0.05).reshape(shape)


# ---------------------------------------------------------------- NumPy references
def _starts(u, size_in, size_out, k, dt):
    """torch's interval sequence, each operation rounded to dt."""
    out = np.zeros(size_out, np.int64)
    if size_out > 1:
        alpha = dt(dt(size_in - k) / dt(size_out - 1))
        for i in range(size_out - 1):
            out[i] = int(dt(dt(dt(i) + dt(u)) * alpha)) - int(dt(dt(u) * alpha))
    if size_out > 0:
        out[-1] = size_in - k
    return out


def _fractional_ref(x, k, out, samples):
    """x (N, C, *spatial) with nd = len(k); samples (N, C, nd) in torch's order per dim."""
    nd = len(k)
    dt = x.dtype.type
    n, c = x.shape[:2]
    sp = x.shape[2:]
    order = [1, 0] if nd == 2 else [0, 1, 2]  # which sample each dim (H, W) or (T, H, W) reads
    vals = np.zeros((n, c) + tuple(out), x.dtype)
    idx = np.zeros((n, c) + tuple(out), np.int64)
    for b in range(n):
        for ch in range(c):
            st = [_starts(samples[b, ch, order[d]], sp[d], out[d], k[d], dt) for d in range(nd)]
            for o in np.ndindex(*out):
                lo = [st[d][o[d]] for d in range(nd)]
                win = x[(b, ch) + tuple(slice(lo[d], lo[d] + k[d]) for d in range(nd))]
                flat = int(np.argmax(win))
                pos = np.unravel_index(flat, win.shape)
                vals[(b, ch) + o] = win[pos]
                idx[(b, ch) + o] = np.ravel_multi_index(tuple(lo[d] + pos[d] for d in range(nd)),
                                                        sp)
    return vals, idx


def _adaptive_max_ref(x, out):
    n, c = x.shape[:2]
    sp = x.shape[2:]
    vals = np.zeros((n, c) + tuple(out), x.dtype)
    idx = np.zeros((n, c) + tuple(out), np.int64)
    for o in np.ndindex(*out):
        lo = [o[d] * sp[d] // out[d] for d in range(3)]
        hi = [-(-(o[d] + 1) * sp[d] // out[d]) for d in range(3)]
        win = x[(slice(None), slice(None)) + tuple(slice(lo[d], hi[d]) for d in range(3))]
        flat = win.reshape(n, c, -1).argmax(-1)
        pos = np.unravel_index(flat, win.shape[2:])
        vals[(slice(None), slice(None)) + o] = np.take_along_axis(
            win.reshape(n, c, -1), flat[..., None], -1)[..., 0]
        idx[(slice(None), slice(None)) + o] = np.ravel_multi_index(
            tuple(lo[d] + pos[d] for d in range(3)), sp)
    return vals, idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k,out", [((2, 3, 9, 11), (2, 3), (4, 5)),
                                         ((3, 10, 10), (3, 3), (7, 2)),
                                         ((1, 2, 7, 8, 9), (2, 3, 2), (3, 4, 5)),
                                         ((2, 5, 6, 7), (2, 2, 2), (4, 1, 6))],
                         ids=["2d", "2d_unbatched", "3d", "3d_unbatched"])
def test_fractional_matches_numpy(dtype, shape, k, out):
    nd = len(k)
    x = RNG.standard_normal(shape).astype(dtype)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    samples = RNG.random((xb.shape[0], xb.shape[1], nd)).astype(dtype)
    fn = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    v, i = fn(_pt(x), k, output_size=out, return_indices=True, _random_samples=_pt(samples))
    rv, ri = _fractional_ref(xb, k, out, samples)
    if not batched:
        rv, ri = rv[0], ri[0]
    np.testing.assert_array_equal(i.numpy(), ri)
    np.testing.assert_array_equal(v.numpy(), rv)
    assert v.dtype == (pytensor.float32 if dtype == np.float32 else pytensor.float64)


def test_adaptive_max_pool3d_matches_numpy():
    x = RNG.standard_normal((2, 3, 5, 7, 6))
    for out in [(2, 3, 4), (5, 7, 6), (1, 1, 1), (7, 9, 8)]:
        v, i = F.adaptive_max_pool3d(_pt(x), out, return_indices=True)
        rv, ri = _adaptive_max_ref(x, out)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)
    v = F.adaptive_max_pool3d(_pt(x[0]), (None, 2, 3))
    np.testing.assert_array_equal(v.numpy(), _adaptive_max_ref(x[:1], (5, 2, 3))[0][0])


def test_fractional_draws_samples_and_takes_ratio():
    x = _pt(RNG.standard_normal((2, 3, 10, 12)))
    pytensor.manual_seed(3)
    a = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.25))
    pytensor.manual_seed(3)
    b = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.25))
    assert tuple(a.shape) == (2, 3, 5, 3)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    pytensor.manual_seed(3)
    s = pytensor.rand(2, 3, 2, dtype=x.dtype)
    c = F.fractional_max_pool2d(x, 2, output_size=(5, 3), _random_samples=s)
    np.testing.assert_array_equal(a.numpy(), c.numpy())
    y = F.fractional_max_pool3d(_pt(RNG.standard_normal((3, 8, 8, 8))), 2, output_ratio=0.5)
    assert tuple(y.shape) == (3, 4, 4, 4)


def test_fractional_nan_wins():
    x = np.arange(36.0).reshape(1, 1, 6, 6)
    x[0, 0, 0, 0] = np.nan
    v, i = F.fractional_max_pool2d(_pt(x), 3, output_size=2, return_indices=True,
                                   _random_samples=pytensor.zeros(1, 1, 2, dtype=pytensor.float64))
    assert np.isnan(v.numpy()[0, 0, 0, 0]) and i.numpy()[0, 0, 0, 0] == 0


def test_fractional_threads_agree():
    x = _pt(RNG.standard_normal((4, 16, 40, 40)))
    s = pytensor.rand(4, 16, 2, dtype=x.dtype)
    n = pytensor.get_num_threads()
    try:
        pytensor.set_num_threads(1)
        one = F.fractional_max_pool2d(x, 3, output_size=17, return_indices=True,
                                      _random_samples=s)
    finally:
        pytensor.set_num_threads(n)
    many = F.fractional_max_pool2d(x, 3, output_size=17, return_indices=True, _random_samples=s)
    np.testing.assert_array_equal(one[1].numpy(), many[1].numpy())


# ---------------------------------------------------------------- autograd
def _frac2(x):
    s = pytensor.tensor([[[0.3, 0.7], [0.9, 0.1]]] * x.shape[0], dtype=x.dtype)
    return F.fractional_max_pool2d(x, 2, output_size=(3, 4), _random_samples=s)


def _frac3(x):
    s = pytensor.tensor([[[0.3, 0.7, 0.5]]] * x.shape[0], dtype=x.dtype)
    return F.fractional_max_pool3d(x, (2, 1, 2), output_size=(2, 3, 2), _random_samples=s)


GRAD_CASES = [
    ("fractional_max_pool2d", _frac2, (2, 2, 6, 7)),
    ("fractional_max_pool3d", _frac3, (1, 1, 4, 5, 4)),
    ("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), (2, 2, 4, 5, 3)),
    ("adaptive_max_pool3d_unbatched", lambda x: F.adaptive_max_pool3d(x, 2), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn, shape):
    x = _pt(_distinct(shape), grad=True)
    assert pytensor.autograd.gradcheck(fn, (x,))
    assert pytensor.autograd.gradgradcheck(fn, (x,))


# ---------------------------------------------------------------- against torch
TORCH_CASES = [
    ("frac2d", 2, (2, 5, 9, 11), lambda F_, x, s: F_.fractional_max_pool2d(
        x, (2, 3), output_size=(4, 6), return_indices=True, _random_samples=s)),
    ("frac2d_ratio", 2, (2, 5, 16, 13), lambda F_, x, s: F_.fractional_max_pool2d(
        x, 3, output_ratio=(0.5, 0.7), return_indices=True, _random_samples=s)),
    ("frac2d_unbatched", 2, (5, 9, 11), lambda F_, x, s: F_.fractional_max_pool2d(
        x, 2, output_size=5, _random_samples=s)),
    ("frac2d_full", 2, (1, 3, 6, 6), lambda F_, x, s: F_.fractional_max_pool2d(
        x, 1, output_size=6, return_indices=True, _random_samples=s)),
    ("frac3d", 3, (2, 3, 7, 9, 8), lambda F_, x, s: F_.fractional_max_pool3d(
        x, (2, 3, 2), output_size=(3, 5, 4), return_indices=True, _random_samples=s)),
    ("frac3d_unbatched", 3, (3, 7, 9, 8), lambda F_, x, s: F_.fractional_max_pool3d(
        x, 2, output_ratio=0.5, _random_samples=s)),
    ("amax3d", 3, (2, 3, 6, 9, 7), lambda F_, x, s: F_.adaptive_max_pool3d(x, (3, 4, 2), True)),
    ("amax3d_up", 3, (2, 3, 3, 4, 5), lambda F_, x, s: F_.adaptive_max_pool3d(x, (5, 6, 7))),
    ("amax3d_unbatched", 3, (3, 6, 9, 7), lambda F_, x, s: F_.adaptive_max_pool3d(x, 2, True)),
]


@requires_torch
@pytest.mark.parametrize("name,nd,shape,fn", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
@pytest.mark.parametrize("cl", [False, True], ids=["planar", "channels_last"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True], ids=["", "nan"])
def test_matches_torch(name, nd, shape, fn, cl, dtype, nan):
    if cl and len(shape) != nd + 2:
        pytest.skip("channels-last needs a batched input")
    a = RNG.standard_normal(shape).astype(dtype)
    if nan:
        a.reshape(-1)[::7] = np.nan
    batch = shape[0] if len(shape) == nd + 2 else 1
    s = RNG.random((batch, shape[-nd - 1], nd)).astype(dtype)
    p, t = _pt(a, cl, grad=True), _th(a, cl, grad=True)
    po = fn(F, p, pytensor.from_numpy(s))
    to = fn(torch.nn.functional, t, torch.from_numpy(s))
    if isinstance(to, tuple):
        np.testing.assert_array_equal(po[1].numpy(), to[1].numpy())
        assert po[1].dtype == pytensor.int64
        po, to = po[0], to[0]
    assert tuple(po.shape) == tuple(to.shape)
    assert str(po.dtype) == str(to.dtype).replace("torch", "pytensor")
    np.testing.assert_array_equal(po.detach().numpy(), to.detach().numpy())
    assert po.is_contiguous() == to.is_contiguous()
    assert po.grad_fn.name() == type(to.grad_fn).__name__
    g = RNG.standard_normal(tuple(to.shape)).astype(dtype)
    po.backward(pytensor.from_numpy(g))
    to.backward(torch.from_numpy(g))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_matches_torch(dt):
    a = RNG.standard_normal((2, 4, 23, 19)) * 3
    s = RNG.random((2, 4, 2))
    tdt, pdt = getattr(torch, dt), getattr(pytensor, dt)
    for k, out in [((2, 2), (11, 9)), ((3, 2), (20, 17)), ((1, 1), (23, 19))]:
        tv, ti = torch.nn.functional.fractional_max_pool2d(
            torch.from_numpy(a).to(tdt), k, output_size=out, return_indices=True,
            _random_samples=torch.from_numpy(s).to(tdt))
        pv, pi = F.fractional_max_pool2d(_pt(a).to(pdt), k, output_size=out, return_indices=True,
                                         _random_samples=_pt(s).to(pdt))
        assert pv.dtype == pdt
        np.testing.assert_array_equal(pi.numpy(), ti.numpy())
        np.testing.assert_array_equal(pv.to(pytensor.float32).numpy(), tv.float().numpy())
    a3 = RNG.standard_normal((1, 2, 5, 6, 7))
    tv = torch.nn.functional.adaptive_max_pool3d(torch.from_numpy(a3).to(tdt), (2, 3, 4))
    pv = F.adaptive_max_pool3d(_pt(a3).to(pdt), (2, 3, 4))
    np.testing.assert_array_equal(pv.to(pytensor.float32).numpy(), tv.float().numpy())


# ---------------------------------------------------------------- bad input
X2, X3 = (1, 3, 8, 8), (1, 3, 8, 8, 8)


def _s(*shape, dtype="float64"):
    return pytensor.zeros(*shape, dtype=getattr(pytensor, dtype)) + 0.5


BAD = [
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2), ValueError,
     "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_ratio=(0.5, 0.5, 0.5)),
     ValueError, "fractional_max_pool2d requires output_ratio to either be a single Int or tuple "
     "of Ints."),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros(X3)), 2), ValueError,
     "fractional_max_pool3d requires specifying either an output_size or an output_ratio"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=8), RuntimeError,
     "fractional_max_pool2d(): pool height 2 too large relative to input height 8"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=(3, 8)), RuntimeError,
     "fractional_max_pool2d(): pool width 2 too large relative to input width 8"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros((1, 0, 8, 8))), 2, output_size=3), RuntimeError,
     "fractional_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
     "got[1, 0, 8, 8] with dimension 1 being empty."),
    (lambda: NN.fractional_max_pool2d(_pt(np.zeros((8, 8))), [2, 2], [3, 3], _s(1, 8, 2)),
     RuntimeError, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [8, 8]"),
    (lambda: NN.fractional_max_pool2d(_pt(np.zeros(X2)), [2, 2], [-1, 3], _s(1, 3, 2)),
     RuntimeError, "Trying to create tensor with negative dimension -1: [1, 3, -1, 3]"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=3,
                                     _random_samples=_s(1, 3, 2, dtype="float32")), RuntimeError,
     "Expect _random_samples to have the same dtype as input"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=3,
                                     _random_samples=_s(1, 3)), RuntimeError,
     "Expect _random_samples to have 3 dimensions, got 2"),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros((2, 3, 8, 8))), 2, output_size=3,
                                     _random_samples=_s(1, 3, 2)), RuntimeError,
     "Expect _random_samples.size(0) no less then input batch size."),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=3,
                                     _random_samples=_s(1, 4, 2)), RuntimeError,
     "Expect _random_samples.size(1) equals to input channel size."),
    (lambda: F.fractional_max_pool2d(_pt(np.zeros(X2)), 2, output_size=3,
                                     _random_samples=_s(1, 3, 3)), RuntimeError,
     "Expect _random_samples.size(2) equals to 2; got 3."),
    (lambda: NN.fractional_max_pool2d(_pt(np.zeros(X2)), [2], [3, 3], _s(1, 3, 2)), RuntimeError,
     "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints"),
    (lambda: NN.fractional_max_pool2d(_pt(np.zeros(X2)), [2, 2], [3], _s(1, 3, 2)), RuntimeError,
     "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints"),
    (lambda: NN.fractional_max_pool2d(_pt(np.zeros(X2)).to(pytensor.int32), [2, 2], [3, 3],
                                      _s(1, 3, 2).to(pytensor.int32)), NotImplementedError,
     "\"fractional_max_pool2d_out_frame\" not implemented for 'Int'"),
    (lambda: NN.fractional_max_pool3d(_pt(np.zeros(X3)), [2], [3, 3, 3], _s(1, 3, 3)),
     RuntimeError, "fractional_max_pool3d: kernel_size must either be a single Int or tuple of "
     "three Ints"),
    (lambda: NN.fractional_max_pool3d(_pt(np.zeros(X3)), [2, 2, 2], [3, 3], _s(1, 3, 3)),
     RuntimeError, "fractional_max_pool3d: output_size must either be a single Int or tuple of "
     "three Ints"),
    (lambda: NN.fractional_max_pool3d(_pt(np.zeros((8, 8, 8))), [2, 2, 2], [3, 3, 3],
                                      _s(1, 3, 3)), RuntimeError,
     "fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: [8, 8, 8]"),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros(X3)), 2, output_size=(8, 3, 3)), RuntimeError,
     "fractional_max_pool3d_out(): pool time 2 too large relative to input time 8"),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros(X3)), 2, output_size=(3, 8, 3)), RuntimeError,
     "fractional_max_pool3d_out(): pool height 2 too large relative to input height 8"),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros(X3)), 2, output_size=(3, 3, 8)), RuntimeError,
     "fractional_max_pool3d_out(): pool width 2 too large relative to input width 8"),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros((1, 0, 8, 8, 8))), 2, output_size=3),
     RuntimeError, "fractional_max_pool3d_out(): Expected input to have non-zero size for "
     "non-batch dimensions, but got[1, 0, 8, 8, 8] with dimension 1 being empty."),
    (lambda: F.fractional_max_pool3d(_pt(np.zeros(X3)), 2, output_size=3,
                                     _random_samples=_s(1, 3, 2)), RuntimeError,
     "Expect _random_samples.size(2) equals to 3; got 2."),
    (lambda: F.adaptive_max_pool3d(_pt(np.zeros((3, 4, 5))), 2), RuntimeError,
     "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [3, 4, 5]"),
    (lambda: F.adaptive_max_pool3d(_pt(np.zeros((2, 0, 3, 4, 5))), 2), RuntimeError,
     "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes [2, 0, 3, 4, 5] with dimension 1 being empty"),
    (lambda: NN.adaptive_max_pool3d(_pt(np.zeros((2, 3, 4, 5))), [2, 2]), RuntimeError,
     "adaptive_max_pool3d(): internal error: output_size.size() must be 3"),
    (lambda: NN.adaptive_max_pool3d(_pt(np.zeros((2, 3, 4, 5))), [2, -1, 2]), RuntimeError,
     "Trying to create tensor with negative dimension -1: [2, 2, -1, 2]"),
    (lambda: NN.adaptive_max_pool3d(_pt(np.zeros((2, 3, 4, 5))).to(pytensor.int32), [2, 2, 2]),
     NotImplementedError, "\"adaptive_max_pool3d_cpu\" not implemented for 'Int'"),
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
    """The same calls on torch raise the same exception type and message."""
    fn, exc, msg = BAD[i]
    import types

    def ts(*shape, dtype="float64"):
        return torch.zeros(*shape, dtype=getattr(torch, dtype)) + 0.5

    g = dict(fn.__globals__)
    g.update(F=torch.nn.functional, NN=torch._C._nn, pytensor=torch, _s=ts,
             _pt=lambda a, cl=False, grad=False: torch.from_numpy(np.ascontiguousarray(a)))
    tfn = types.FunctionType(fn.__code__, g)
    with pytest.raises(exc) as info:
        tfn()
    assert str(info.value).split("\n")[0] == msg


def test_backward_operators_check_their_arguments():
    x = _pt(np.zeros((2, 3, 8, 8)))
    idx = pytensor.zeros(2, 3, 3, 3, dtype=pytensor.int64)
    with pytest.raises(RuntimeError, match=r"gradOutput sizes unexpected"):
        NN.fractional_max_pool2d_backward(_pt(np.zeros((2, 3, 3, 4))), x, [2, 2], [3, 3], idx)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Int"):
        NN.fractional_max_pool2d_backward(_pt(np.zeros((2, 3, 3, 3))), x, [2, 2], [3, 3],
                                          idx.to(pytensor.int32))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        NN.fractional_max_pool2d_backward(_pt(np.zeros((2, 3, 3, 3), np.float32)), x, [2, 2],
                                          [3, 3], idx)
    x3 = _pt(np.zeros((2, 3, 8, 8, 8)))
    idx3 = pytensor.zeros(2, 3, 3, 3, 3, dtype=pytensor.int64)
    for shape, dim in [((2, 3, 3, 3, 4), "width"), ((2, 3, 3, 4, 3), "height"),
                       ((2, 3, 4, 3, 3), "time")]:
        with pytest.raises(RuntimeError, match=f"gradOutput {dim} unexpected"):
            NN.fractional_max_pool3d_backward(_pt(np.zeros(shape)), x3, [2, 2, 2], [3, 3, 3],
                                              idx3)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Int"):
        NN.adaptive_max_pool3d_backward(_pt(np.zeros((2, 3, 3, 3, 3))), x3,
                                        idx3.to(pytensor.int32))
    with pytest.raises(RuntimeError, match="expected dtype float64 for `gradOutput`"):
        NN.adaptive_max_pool3d_backward(_pt(np.zeros((2, 3, 3, 3, 3), np.float32)), x3, idx3)


def test_empty_batch():
    v, i = F.fractional_max_pool2d(_pt(np.zeros((0, 3, 8, 8))), 2, output_size=3,
                                   return_indices=True)
    assert tuple(v.shape) == (0, 3, 3, 3) and tuple(i.shape) == (0, 3, 3, 3)
    v = F.adaptive_max_pool3d(_pt(np.zeros((0, 2, 3, 4, 5))), 2)
    assert tuple(v.shape) == (0, 2, 2, 2, 2)


@requires_torch
def test_double_backward_node_names_match_torch():
    cases = [(lambda F_, x: F_.adaptive_max_pool3d(x, 2), (2, 3, 6, 7, 8)),
             (lambda F_, x: F_.fractional_max_pool2d(x, 2, output_size=3), (2, 3, 7, 8)),
             (lambda F_, x: F_.fractional_max_pool3d(x, 2, output_size=3), (2, 3, 6, 7, 8))]
    for fn, shape in cases:
        a = _distinct(shape)
        p, t = _pt(a, grad=True), _th(a, grad=True)
        gp = pytensor.autograd.grad(fn(F, p).sum(), p, create_graph=True)[0]
        gt = torch.autograd.grad(fn(torch.nn.functional, t).sum(), t, create_graph=True)[0]
        assert gp.grad_fn.name() == type(gt.grad_fn).__name__
