"""pytensor.nn.functional.embedding_bag and its operators: sums, means and maxima of bags against
NumPy references (every mode, offsets or 2-D input, include_last_offset, padding_idx,
per_sample_weights, empty bags, int32/int64 indices) and against torch (values, the auxiliary
results, gradients of weight and per_sample_weights, scale_grad_by_freq, max_norm, non-contiguous
and reduced-precision weights), gradcheck in float64, and torch's messages."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from pytensor._C import _nn
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(11)


def _np(t):
    return np.asarray(t.detach().double().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _bags(n, offsets, include_last):
    m = len(offsets)
    nb = m - 1 if include_last else m
    return [(offsets[b], offsets[b + 1] if b + 1 < m else n) for b in range(max(nb, 0))]


def _ref(w, idx, offsets, mode, psw=None, include_last=False, pad=-1):
    """NumPy reference of the output and of the weight / per-sample-weight gradients for grad g."""
    D = w.shape[1]
    out = np.zeros((len(_bags(len(idx), offsets, include_last)), D))
    for b, (s, e) in enumerate(_bags(len(idx), offsets, include_last)):
        rows = [i for i in range(s, e) if idx[i] != pad]
        if not rows:
            continue
        vals = np.stack([w[idx[i]] * (psw[i] if psw is not None else 1.0) for i in rows])
        out[b] = {"sum": vals.sum(0), "mean": vals.mean(0), "max": vals.max(0)}[mode]
    return out


def _ref_grad(w, idx, offsets, mode, g, psw=None, include_last=False, pad=-1, freq=False):
    gw = np.zeros_like(w)
    gp = np.zeros(len(idx))
    counts = np.bincount(idx, minlength=w.shape[0]) if len(idx) else np.zeros(w.shape[0])
    for b, (s, e) in enumerate(_bags(len(idx), offsets, include_last)):
        rows = [i for i in range(s, e) if idx[i] != pad]
        if not rows:
            continue
        if mode == "max":
            vals = np.stack([w[idx[i]] for i in rows])
            arg = vals.argmax(0)
            for k in range(w.shape[1]):
                gw[idx[rows[arg[k]]], k] += g[b, k]
            continue
        for i in rows:
            s_ = 1.0 / len(rows) if mode == "mean" else 1.0
            if freq:
                s_ /= counts[idx[i]]
            if psw is not None:
                gp[i] = g[b] @ w[idx[i]]
                s_ *= psw[i]
            gw[idx[i]] += s_ * g[b]
    return gw, gp


CONFIGS = [  # (indices, offsets, include_last_offset, padding_idx)
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 4], False, None),
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 0, 3, 3, 8], False, None),          # empty bags, last empty
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 6, 8], True, None),
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 6], True, None),                 # trailing indices unused
    ([1, 2, 2, 5, 2, 3, 2, 9], [0, 3, 5], False, 2),                   # padding, a bag all padding
    ([0, 2, 2, 9, 9, 3], [0, 1, 3], False, -1),                        # padding_idx wraps to 9
    ([], [0, 0], False, None),                                          # no indices
    ([3, 3, 3], [0], False, None),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("cfg", range(len(CONFIGS)))
@pytest.mark.parametrize("idx_dtype", [pytensor.int64, pytensor.int32])
def test_forward_and_backward_match_numpy(mode, cfg, idx_dtype):
    idx, off, last, pad = CONFIGS[cfg]
    wn = RNG.standard_normal((10, 5))
    w = pytensor.tensor(wn, requires_grad=True)
    y = F.embedding_bag(pytensor.tensor(idx, dtype=idx_dtype), w,
                        pytensor.tensor(off, dtype=idx_dtype), mode=mode,
                        include_last_offset=last, padding_idx=pad)
    p = -1 if pad is None else pad % 10
    ref = _ref(wn, np.array(idx, dtype=np.int64), off, mode, include_last=last, pad=p)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-12, atol=1e-12)
    assert y.grad_fn.name() == "EmbeddingBagBackward0"
    g = RNG.standard_normal(ref.shape)
    y.backward(pytensor.tensor(g))
    gw, _ = _ref_grad(wn, np.array(idx, dtype=np.int64), off, mode, g, include_last=last, pad=p)
    np.testing.assert_allclose(_np(w.grad), gw, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64])
def test_per_sample_weights_and_frequency_match_numpy(dtype):
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 4])
    off = [0, 4, 4, 7]
    wn, pn = RNG.standard_normal((10, 3)), RNG.standard_normal(9)
    w = pytensor.tensor(wn, dtype=dtype, requires_grad=True)
    p = pytensor.tensor(pn, dtype=dtype, requires_grad=True)
    y = F.embedding_bag(pytensor.tensor(idx), w, pytensor.tensor(off), mode="sum",
                        per_sample_weights=p, scale_grad_by_freq=True, padding_idx=5)
    tol = 1e-5 if dtype == pytensor.float32 else 1e-12
    wr, pr = _np(w), _np(p)
    np.testing.assert_allclose(_np(y), _ref(wr, idx, off, "sum", pr, pad=5), rtol=tol, atol=tol)
    g = RNG.standard_normal((4, 3))
    y.backward(pytensor.tensor(g, dtype=dtype))
    gw, gp = _ref_grad(wr, idx, off, "sum", g, pr, pad=5, freq=True)
    np.testing.assert_allclose(_np(w.grad), gw, rtol=tol, atol=tol)
    np.testing.assert_allclose(_np(p.grad), gp, rtol=tol, atol=tol)


def test_two_dimensional_input_is_fixed_bags():
    wn = RNG.standard_normal((6, 4))
    idx = np.array([[0, 1, 5], [2, 2, 3]])
    pn = RNG.standard_normal((2, 3))
    y = F.embedding_bag(pytensor.tensor(idx), pytensor.tensor(wn), mode="sum",
                        per_sample_weights=pytensor.tensor(pn))
    np.testing.assert_allclose(_np(y), _ref(wn, idx.ravel(), [0, 3], "sum", pn.ravel()),
                               rtol=1e-12)
    y = F.embedding_bag(pytensor.tensor(idx), pytensor.tensor(wn))  # mode="mean" by default
    np.testing.assert_allclose(_np(y), _ref(wn, idx.ravel(), [0, 3], "mean"), rtol=1e-12)


def test_auxiliary_results():
    w = pytensor.tensor(RNG.standard_normal((10, 3)))
    idx, off = pytensor.tensor([1, 2, 3]), pytensor.tensor([0, 0, 2])
    out, o2b, bsz, mx = pytensor._embedding_bag(w, idx, off, False, 2, False, None, False, 3)
    assert o2b.tolist() == [1, 1, 2] and bsz.tolist() == [0, 2, 0]
    assert tuple(mx.shape) == (3, 3) and mx[0].tolist() == [0, 0, 0] and mx[2].tolist() == [0] * 3
    _, _, bsz, mx = pytensor._embedding_bag(w, idx, off, False, 1)
    assert bsz.tolist() == [0, 2, 1] and mx.tolist() == [0, 2, 1]
    _, o2b, bsz, mx = pytensor._embedding_bag(w, idx, off, False, 0)
    assert o2b.tolist() == [1, 1, 2] and bsz.tolist() == [0, 0, 0] and mx.tolist() == [0, 0, 0]
    r = pytensor._embedding_bag_forward_only(w, idx, off, False, 1)
    assert [t.tolist() for t in r[1:]] == [[1, 1, 2], [0, 2, 1], [0, 2, 1]]
    assert all(t.dtype == pytensor.int64 for t in r[1:])


def test_zero_sizes():
    w = pytensor.tensor(RNG.standard_normal((4, 0)), requires_grad=True)
    y = F.embedding_bag(pytensor.tensor([1, 2]), w, pytensor.tensor([0, 1]), mode="max")
    assert tuple(y.shape) == (2, 0)
    y.sum().backward()
    assert tuple(w.grad.shape) == (4, 0)
    w = pytensor.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    y = F.embedding_bag(pytensor.tensor([], dtype=pytensor.int64), w,
                        pytensor.tensor([], dtype=pytensor.int64))
    assert tuple(y.shape) == (0, 3)
    y.sum().backward()
    assert w.grad.tolist() == [[0.0] * 3] * 4
    y = F.embedding_bag(pytensor.zeros((0, 5), dtype=pytensor.int64), w, mode="sum")
    assert tuple(y.shape) == (0, 3)


def test_non_contiguous_weight():
    base = RNG.standard_normal((5, 10))
    w = pytensor.tensor(base).t()  # (10, 5), column stride 10
    idx, off = pytensor.tensor([1, 2, 9, 0]), pytensor.tensor([0, 2])
    for mode in ("sum", "mean", "max"):
        ref = _ref(base.T, np.array([1, 2, 9, 0]), [0, 2], mode)
        np.testing.assert_allclose(_np(F.embedding_bag(idx, w, off, mode=mode)), ref,
                                   rtol=1e-12)
    w2 = pytensor.tensor(RNG.standard_normal((20, 5)))[::2]  # row stride 10
    ref = _ref(_np(w2), np.array([1, 2, 9, 0]), [0, 2], "sum")
    np.testing.assert_allclose(_np(F.embedding_bag(idx, w2, off, mode="sum")), ref, rtol=1e-12)


def test_max_norm_renorms_read_rows_in_place():
    w = pytensor.tensor(np.full((4, 2), 3.0), requires_grad=True)
    F.embedding_bag(pytensor.tensor([1, 3]), w, pytensor.tensor([0]), max_norm=1.0)
    n = np.linalg.norm(_np(w), axis=1)
    assert n[0] == pytest.approx(np.hypot(3, 3)) and n[1] == pytest.approx(1.0, rel=1e-6)
    assert n[3] == pytest.approx(1.0, rel=1e-6)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradcheck(mode):
    idx, off = pytensor.tensor([0, 3, 3, 1, 4, 2]), pytensor.tensor([0, 2, 2, 5])
    w = pytensor.tensor(RNG.standard_normal((5, 3)), requires_grad=True)
    assert pytensor.autograd.gradcheck(
        lambda w: F.embedding_bag(idx, w, off, mode=mode, padding_idx=2), (w,))
    if mode == "sum":
        p = pytensor.tensor(RNG.standard_normal(6), requires_grad=True)
        assert pytensor.autograd.gradcheck(
            lambda w, p: F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=p,
                                         padding_idx=3), (w, p))


def test_threads_split_bags_and_rows():
    """Large enough for the forward's and the backward's parallel paths."""
    wn = RNG.standard_normal((3000, 64)).astype(np.float32)
    idx = RNG.integers(0, 3000, size=40000)
    off = np.arange(0, 40000, 20)
    w = pytensor.tensor(wn, requires_grad=True)
    y = F.embedding_bag(pytensor.tensor(idx), w, pytensor.tensor(off), mode="mean")
    ref = wn.astype(np.float64)[idx].reshape(-1, 20, 64).mean(1)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-4, atol=1e-5)
    g = RNG.standard_normal((2000, 64)).astype(np.float32)
    y.backward(pytensor.tensor(g))
    ref_g = np.zeros((3000, 64))
    np.add.at(ref_g, idx, np.repeat(g.astype(np.float64) / 20, 20, axis=0))
    np.testing.assert_allclose(_np(w.grad), ref_g, rtol=1e-4, atol=1e-5)


def test_backward_operators():
    w = pytensor.tensor(RNG.standard_normal((6, 2)))
    idx, off = pytensor.tensor([1, 2, 5, 1]), pytensor.tensor([0, 3])
    _, o2b, bsz, mx = pytensor._embedding_bag(w, idx, off, False, 1)
    g = pytensor.tensor(RNG.standard_normal((2, 2)))
    a = _nn._embedding_bag_backward(g, idx, off, o2b, bsz, mx, 6, False, 1, False, None)
    b = _nn._embedding_bag_dense_backward(g, idx, o2b, bsz, mx, 6, False, 1, None)
    # an empty offset2bag (torch's float32 sum results) is rebuilt from the offsets
    c = _nn._embedding_bag_backward(g, idx, off, pytensor.tensor([], dtype=pytensor.int64), bsz,
                                    mx, 6, False, 1, False, None)
    assert a.tolist() == b.tolist() == c.tolist()
    gp = _nn._embedding_bag_per_sample_weights_backward(g, w, idx, off, o2b, 0)
    ref = [float(np.dot(_np(g)[bg], _np(w)[i])) for i, bg in zip([1, 2, 5, 1], [0, 0, 0, 1])]
    np.testing.assert_allclose(_np(gp), ref, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="sparse layout"):
        _nn._embedding_bag_backward(g, idx, off, o2b, bsz, mx, 6, False, 1, True, None)
    with pytest.raises(RuntimeError, match="only supported for mode='sum'"):
        _nn._embedding_bag_per_sample_weights_backward(g, w, idx, off, o2b, 1)


def test_meta_shapes():
    w = pytensor.empty((10, 3), device="meta")
    idx, off = pytensor.empty(7, dtype=pytensor.int64, device="meta"), \
        pytensor.empty(3, dtype=pytensor.int64, device="meta")
    r = pytensor._embedding_bag(w, idx, off, False, 2)
    assert [tuple(t.shape) for t in r] == [(3, 3), (7,), (3,), (3, 3)]
    r = pytensor._embedding_bag_forward_only(w, idx, off, False, 0, False, None, True)
    assert [tuple(t.shape) for t in r] == [(2, 3), (7,), (2,), (2,)]


W = np.arange(30.0).reshape(10, 3)
I8 = [1, 2, 4, 5, 4, 3, 2, 9]

MESSAGES = [  # (call, exception, message) with w: float32 (10, 3), i: int64 (8,), o: [0, 4]
    (lambda w, i, o, m: m._embedding_bag(w, i, o, False, 3), RuntimeError,
     "`mode` must be sum, mean, or max."),
    (lambda w, i, o, m: m._embedding_bag(w, i, o, False, 1, False, m.ones(8)), RuntimeError,
     "embedding_bag: per_sample_weights only supported with mode='sum'"),
    (lambda w, i, o, m: m._embedding_bag(w, i, o, False, 0, False, m.ones(7)), RuntimeError,
     "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false."),
    (lambda w, i, o, m: m._embedding_bag(w, i, o, False, 0, False, m.ones(8, 1)), RuntimeError,
     "Expected per_sample_weights.value().dim() == 1 to be true, but got false."),
    (lambda w, i, o, m: m._embedding_bag(w, i, o, False, 0, False, m.ones(8).double()),
     RuntimeError, "Expected tensor for argument #1 'weight' to have the same type as tensor for "
     "argument #1 'per_sample_weights'; but type torch.FloatTensor does not equal "
     "torch.DoubleTensor (while checking arguments for embedding_bag)"),
    (lambda w, i, o, m: m._embedding_bag(w, i.float(), o), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
     "Int; but got torch.FloatTensor instead (while checking arguments for embedding_bag)"),
    (lambda w, i, o, m: m._embedding_bag(w, i, o.view(2, 1)), RuntimeError,
     "offsets has to be a 1D Tensor, but got Tensor of dimension 2"),
    (lambda w, i, o, m: m._embedding_bag(w[0], i, o), RuntimeError,
     "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    (lambda w, i, o, m: m._embedding_bag(w.int(), i, o), RuntimeError,
     "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, "
     "BFloat16, Float, Double; but got torch.IntTensor instead (while checking arguments for "
     "embedding_bag)"),
    (lambda w, i, o, m: m._embedding_bag(w, m.tensor([1, 2, 10, 3]), o), RuntimeError,
     "Index 2 of input takes value 10 which is not in the valid range [0, 10)"),
    (lambda w, i, o, m: m._embedding_bag(w, m.tensor([1, 2, -1, 3]), o, False, 1), RuntimeError,
     "Index 2 of input takes value -1 which is not in the valid range [0, 10)"),
    (lambda w, i, o, m: m._embedding_bag(w, i, m.tensor([1, 4])), RuntimeError,
     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
     "position 0. However, got 1"),
    (lambda w, i, o, m: m._embedding_bag(w, i, m.tensor([0, 9])), RuntimeError,
     "offsets[-1] can not be greater than input's length 8 but got offsets[-1] of 9"),
    (lambda w, i, o, m: m.embedding_bag(w, i, o, False, 1, False, None, False, 10), RuntimeError,
     "padding_idx must be within the number of embeddings, -10 through 9, but got 10"),
    (lambda w, i, o, m: m.embedding_bag(w, i, o, False, 1, False, None, False, -11),
     RuntimeError, "padding_idx must be within the number of embeddings, -10 through 9, but got "
     "-11"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o, per_sample_weights=m.ones(7)),
     ValueError, "embedding_bag: If per_sample_weights ("),  # then torch.Size / pytensor.Size
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w[0], o), ValueError,
     "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i.view(2, 4), w, o), ValueError,
     "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
     "length sequences. However, found offsets of type"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w), ValueError,
     "offsets has to be a 1D Tensor but got None"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o.view(1, 2)), ValueError,
     "offsets has to be a 1D Tensor"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i.view(2, 2, 2), w), ValueError,
     "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o, mode="min"), ValueError,
     "mode has to be one of sum, mean or max"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o, mode="max",
                                                      scale_grad_by_freq=True), ValueError,
     "max mode does not support scaling the gradient by the frequency"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o, mode="max", sparse=True),
     ValueError, "max mode does not support sparse weights"),
    (lambda w, i, o, m: m.nn.functional.embedding_bag(i, w, o, per_sample_weights=m.ones(8)),
     NotImplementedError, "embedding_bag: per_sample_weights was not None. per_sample_weights is "
     "only supported for mode='sum' (got mode='mean'). Please open a feature request on GitHub."),
]


def _args(m):
    return (m.tensor(W, dtype=m.float32), m.tensor(I8), m.tensor([0, 4]), m)


@pytest.mark.parametrize("case", range(len(MESSAGES)))
def test_messages(case):
    call, exc, msg = MESSAGES[case]
    with pytest.raises(exc) as e:
        call(*_args(pytensor))
    assert str(e.value).startswith(msg), str(e.value)


@requires_torch
@pytest.mark.parametrize("case", range(len(MESSAGES)))
def test_messages_are_torchs(case):
    call, exc, msg = MESSAGES[case]
    with pytest.raises(exc) as e:
        call(*_args(torch))
    assert str(e.value).startswith(msg), str(e.value)


def test_messages_of_our_own():
    w, i = pytensor.tensor(W), pytensor.tensor(I8)
    with pytest.raises(NotImplementedError, match="sparse layout"):
        F.embedding_bag(i, w, pytensor.tensor([0, 4]), sparse=True)
    with pytest.raises(RuntimeError, match="offsets have to be non-decreasing"):
        pytensor._embedding_bag(w, i, pytensor.tensor([0, 5, 4]))
    with pytest.raises(RuntimeError, match="input has to be a 1D Tensor, but got Tensor of "
                       "dimension 2"):
        pytensor._embedding_bag(w, i.view(2, 4), pytensor.tensor([0, 1]))


# ---------------------------------------------------------------- against torch

def _pair(a, dtype=np.float64, grad=False):
    return (pytensor.tensor(a, requires_grad=grad) if a.dtype.kind in "iu" else
            pytensor.tensor(a.astype(dtype), requires_grad=grad),
            torch.tensor(a) if a.dtype.kind in "iu" else
            torch.tensor(a.astype(dtype), requires_grad=grad))


TORCH_CASES = [  # kwargs beyond (input, weight, offsets)
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"),
    dict(mode="sum", padding_idx=3), dict(mode="mean", padding_idx=-7), dict(mode="max", padding_idx=3),
    dict(mode="sum", scale_grad_by_freq=True), dict(mode="mean", scale_grad_by_freq=True),
    dict(mode="sum", include_last_offset=True), dict(mode="max", include_last_offset=True),
    dict(mode="sum", psw=True), dict(mode="sum", psw=True, padding_idx=3),
    dict(mode="mean", max_norm=1.5), dict(mode="sum", max_norm=0.7, norm_type=1.0),
]


@requires_torch
@pytest.mark.parametrize("case", range(len(TORCH_CASES)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("idx32", [False, True])
def test_matches_torch(case, dtype, idx32):
    kw = dict(TORCH_CASES[case])
    wn = RNG.standard_normal((10, 6))
    idx = RNG.integers(0, 10, size=15)
    idx[[2, 7]] = 3
    off = np.array([0, 3, 3, 9, 12])
    if kw.get("include_last_offset"):
        # torch's backward reads past its buffers for indices after the last offset
        off = np.array([0, 3, 3, 9, 12, 15])
    if kw.get("scale_grad_by_freq"):
        # torch's CPU backward divides group g of the sorted indices by the count of the g-th
        # sorted index, not of its own: equal counts everywhere make the two agree
        idx = RNG.permutation(np.repeat(np.arange(5), 3))
    if idx32:
        idx, off = idx.astype(np.int32), off.astype(np.int32)
    pw, tw = _pair(wn, dtype, grad=True)
    pi, ti = _pair(idx)
    po, to = _pair(off)
    pk, tk = dict(kw), dict(kw)
    if kw.pop("psw", None):
        pk.pop("psw"), tk.pop("psw")
        pn = RNG.standard_normal(15)
        pk["per_sample_weights"], tk["per_sample_weights"] = _pair(pn, dtype, grad=True)
    py = F.embedding_bag(pi, pw, po, **pk)
    ty = torch.nn.functional.embedding_bag(ti, tw, to, **tk)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(_np(pw), tw.detach().double().numpy(), rtol=tol, atol=tol)
    assert py.grad_fn.name() == type(ty.grad_fn).__name__
    g = RNG.standard_normal(tuple(ty.shape)).astype(dtype)
    py.backward(pytensor.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(pw.grad), tw.grad.double().numpy(), rtol=tol, atol=tol)
    if "per_sample_weights" in pk:
        np.testing.assert_allclose(_np(pk["per_sample_weights"].grad),
                                   tk["per_sample_weights"].grad.double().numpy(), rtol=tol,
                                   atol=tol)


@requires_torch
@pytest.mark.parametrize("mode", [1, 2])
def test_auxiliary_results_match_torch(mode):
    wn = RNG.standard_normal((10, 4))
    idx, off = np.array([1, 2, 3, 3, 7, 7, 0]), np.array([0, 0, 2, 5])
    r = pytensor._embedding_bag(pytensor.tensor(wn), pytensor.tensor(idx), pytensor.tensor(off),
                                False, mode, False, None, False, 3)
    t = torch._embedding_bag(torch.tensor(wn), torch.tensor(idx), torch.tensor(off), False, mode,
                             False, None, False, 3)
    for a, b in zip(r[1:], t[1:]):
        assert a.tolist() == b.tolist()


@requires_torch
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_reduced_precision_matches_torch(dt, mode):
    wn = RNG.standard_normal((10, 8))
    idx, off = RNG.integers(0, 10, size=12), np.array([0, 5, 5, 9])
    pw = pytensor.tensor(wn).to(getattr(pytensor, dt)).requires_grad_()
    tw = torch.tensor(wn).to(getattr(torch, dt)).requires_grad_()
    py = F.embedding_bag(pytensor.tensor(idx), pw, pytensor.tensor(off), mode=mode)
    ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, torch.tensor(off), mode=mode)
    assert py.dtype == getattr(pytensor, dt)
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=1e-2, atol=1e-2)
    g = RNG.standard_normal(tuple(ty.shape))
    py.backward(pytensor.tensor(g).to(getattr(pytensor, dt)))
    ty.backward(torch.tensor(g).to(getattr(torch, dt)))
    assert pw.grad.dtype == getattr(pytensor, dt)
    np.testing.assert_allclose(_np(pw.grad), tw.grad.double().numpy(), rtol=1e-2, atol=1e-2)


@requires_torch
def test_two_dimensional_and_non_contiguous_match_torch():
    base = RNG.standard_normal((7, 12)).astype(np.float32)
    idx = RNG.integers(0, 12, size=(4, 5))
    pw = pytensor.tensor(base, requires_grad=True)
    tw = torch.tensor(base, requires_grad=True)
    for mode in ("sum", "mean", "max"):
        py = F.embedding_bag(pytensor.tensor(idx), pw.t(), mode=mode)
        ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw.t(), mode=mode)
        np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=1e-6, atol=1e-6)
        py.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(_np(pw.grad), tw.grad.double().numpy(), rtol=1e-6, atol=1e-6)


def test_mixed_index_dtypes_are_promoted():
    """torch accepts int32 indices with int64 offsets and the reverse."""
    w = pytensor.tensor(W)
    i, o = pytensor.tensor(I8), pytensor.tensor([0, 4])
    ref = F.embedding_bag(i, w, o).tolist()
    assert F.embedding_bag(i.int(), w, o).tolist() == ref
    assert F.embedding_bag(i, w, o.int()).tolist() == ref


def test_second_derivative_is_refused_as_torch():
    w = pytensor.tensor(W, requires_grad=True)
    y = F.embedding_bag(pytensor.tensor(I8), w, pytensor.tensor([0, 4]), mode="sum")
    g, = pytensor.autograd.grad((y ** 2).sum(), w, create_graph=True)
    with pytest.raises(NotImplementedError, match="_embedding_bag_backward' is not implemented"):
        g.sum().backward()


def test_max_keeps_the_first_of_equals_and_skips_later_nans_as_torch():
    nan = float("nan")
    w = pytensor.tensor([[1.0, 2.0], [nan, 0.0], [3.0, nan], [1.0, 2.0]])
    one = pytensor.tensor([0])
    out, _, _, mx = pytensor._embedding_bag(w, pytensor.tensor([0, 1, 2]), one, False, 2)
    assert out.tolist() == [[3.0, 2.0]] and mx.tolist() == [[2, 0]]
    out, _, _, mx = pytensor._embedding_bag(w, pytensor.tensor([1, 0]), one, False, 2)
    assert np.isnan(out[0, 0].item()) and out[0, 1].item() == 2.0 and mx.tolist() == [[1, 0]]
    out, _, _, mx = pytensor._embedding_bag(w, pytensor.tensor([0, 3]), one, False, 2)
    assert out.tolist() == [[1.0, 2.0]] and mx.tolist() == [[0, 0]]
