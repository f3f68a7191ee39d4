"""pytensor.nn.functional's losses and distances: NumPy references for every function and
reduction (these run without torch), torch's values, gradients, dtypes and shapes (contiguous,
strided and empty inputs, unbatched ones), torch's autograd node names, gradcheck and
gradgradcheck in float64, the legacy size_average/reduce arguments, torch's warnings and the
messages of bad input (class indices out of range, shape and dtype mismatches, bad reductions).
"""
import math
import warnings

import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F
from pytensor.autograd import gradcheck, gradgradcheck

from _torch_oracle import requires_torch, torch

RED = ["none", "mean", "sum"]


def P(a, dtype="float64", grad=False):
    t = pt.from_numpy(np.array(a, dtype=dtype)).clone()
    return t.requires_grad_() if grad else t


def N(t):
    return np.array(t.detach().numpy())


def reduce_np(v, reduction):
    return {"none": v, "mean": v.mean() if v.size else np.nan, "sum": v.sum()}[reduction]


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(N(got), np.asarray(want, dtype=np.float64), rtol=tol, atol=tol)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((4, 5))


# ---------------------------------------------------------------- NumPy references
@pytest.mark.parametrize("reduction", RED)
def test_pointwise_losses_match_numpy(reduction):
    d = X - Y
    z = np.abs(d)
    refs = {
        "mse_loss": (F.mse_loss, {}, d * d),
        "l1_loss": (F.l1_loss, {}, z),
        "smooth_l1_loss": (F.smooth_l1_loss, {"beta": 0.5},
                           np.where(z < 0.5, 0.5 * z * z / 0.5, z - 0.25)),
        "huber_loss": (F.huber_loss, {"delta": 0.7},
                       np.where(z < 0.7, 0.5 * z * z, 0.7 * (z - 0.35))),
        "soft_margin_loss": (F.soft_margin_loss, {}, np.log1p(np.exp(-Y * X))),
    }
    for name, (fn, kw, want) in refs.items():
        close(fn(P(X), P(Y), reduction=reduction, **kw), reduce_np(want, reduction))


@pytest.mark.parametrize("reduction", RED)
def test_binary_cross_entropy_matches_numpy(reduction):
    p = 1 / (1 + np.exp(-X))
    t = RNG.random((4, 5))
    w = RNG.random((4, 5))
    want = -w * (t * np.log(p) + (1 - t) * np.log(1 - p))
    close(F.binary_cross_entropy(P(p), P(t), P(w), reduction=reduction),
          reduce_np(want, reduction))
    pw = RNG.random(5) + 0.5
    want = -w * (pw * t * np.log(p) + (1 - t) * np.log(1 - p))
    close(F.binary_cross_entropy_with_logits(P(X), P(t), P(w), reduction=reduction,
                                             pos_weight=P(pw)), reduce_np(want, reduction))


def test_binary_cross_entropy_clamps_log_at_minus_100():
    got = F.binary_cross_entropy(P([0.0, 1.0]), P([1.0, 0.0]), reduction="none")
    close(got, [100.0, 100.0])


@pytest.mark.parametrize("reduction", RED)
def test_nll_and_cross_entropy_match_numpy(reduction):
    tgt = np.array([0, 4, 2, 1])
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0])
    logp = X - np.log(np.exp(X).sum(1, keepdims=True))
    per = -logp[np.arange(4), tgt] * w[tgt]
    want = per.sum() / w[tgt].sum() if reduction == "mean" else reduce_np(per, reduction)
    close(F.nll_loss(P(logp), pt.tensor(tgt.tolist()), P(w), reduction=reduction), want)
    close(F.cross_entropy(P(X), pt.tensor(tgt.tolist()), P(w), reduction=reduction), want)


def test_nll_loss_ignore_index_and_all_ignored():
    logp = -np.abs(X)
    tgt = pt.tensor([0, -100, 3, -100])
    close(F.nll_loss(P(logp), tgt), (-logp[0, 0] - logp[2, 3]) / 2)
    close(F.nll_loss(P(logp), tgt, reduction="none"), [-logp[0, 0], 0, -logp[2, 3], 0])
    assert math.isnan(F.nll_loss(P(logp), pt.tensor([-100] * 4)).item())


def test_cross_entropy_k_dim_and_unbatched_match_numpy():
    x = RNG.standard_normal((2, 3, 4, 5, 2))
    t = RNG.integers(0, 3, (2, 4, 5, 2))
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    per = -np.take_along_axis(logp, t[:, None], 1)[:, 0]
    close(F.cross_entropy(P(x), pt.tensor(t.tolist()), reduction="none"), per)
    close(F.cross_entropy(P(x), pt.tensor(t.tolist())), per.mean())
    v = X[0]
    close(F.cross_entropy(P(v), pt.tensor(2)), -(v[2] - np.log(np.exp(v).sum())))


def test_cross_entropy_probabilities_and_label_smoothing_match_numpy():
    logp = X - np.log(np.exp(X).sum(1, keepdims=True))
    prob = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
    close(F.cross_entropy(P(X), P(prob)), -(logp * prob).sum() / 4)
    tgt = np.array([0, 4, 2, 1])
    ls = 0.2
    nll = -logp[np.arange(4), tgt]
    smooth = -logp.sum(1)
    want = ((1 - ls) * nll + ls / 5 * smooth).mean()
    close(F.cross_entropy(P(X), pt.tensor(tgt.tolist()), label_smoothing=ls), want)


@pytest.mark.parametrize("reduction", RED)
def test_margin_losses_match_numpy(reduction):
    tgt = np.array([0, 4, 2, 1])
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0])
    for p in (1, 2):
        z = np.maximum(0, 0.8 - X[np.arange(4), tgt][:, None] + X)
        z[np.arange(4), tgt] = 0
        per = (z ** p * w[tgt][:, None]).sum(1) / 5
        close(F.multi_margin_loss(P(X), pt.tensor(tgt.tolist()), p=p, margin=0.8, weight=P(w),
                                  reduction=reduction), reduce_np(per, reduction))
    lab = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0]])
    per = []
    for i in range(4):
        ts = []
        for v in lab[i]:
            if v < 0:
                break
            ts.append(v)
        others = [d for d in range(5) if d not in ts]
        per.append(sum(max(0, 1 - X[i, t] + X[i, d]) for t in ts for d in others) / 5)
    close(F.multilabel_margin_loss(P(X), pt.tensor(lab.tolist()), reduction=reduction),
          reduce_np(np.array(per), reduction))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_margin_losses_reduced_over_many_samples_match_numpy(reduction):
    # The per-sample values behind a reduced loss need a buffer of N values: the reduced forms
    # once wrote N of them into a one-value tensor (past its end from the second sample on).
    rng = np.random.default_rng(5)
    n, c = 3000, 4
    x = rng.standard_normal((n, c))
    tgt = rng.integers(0, c, n)
    z = np.maximum(0, 1 - x[np.arange(n), tgt][:, None] + x)
    z[np.arange(n), tgt] = 0
    close(F.multi_margin_loss(P(x), pt.tensor(tgt.tolist()), reduction=reduction),
          reduce_np(z.sum(1) / c, reduction))
    lab = np.full((n, c), -1)
    lab[:, 0] = tgt
    other = (tgt + 1) % c
    lab[::2, 1] = other[::2]
    per = []
    for i in range(n):
        ts = [tgt[i]] + ([other[i]] if i % 2 == 0 else [])
        per.append(sum(max(0, 1 - x[i, t] + x[i, d]) for t in ts for d in range(c)
                       if d not in ts) / c)
    close(F.multilabel_margin_loss(P(x), pt.tensor(lab.tolist()), reduction=reduction),
          reduce_np(np.array(per), reduction))


@pytest.mark.parametrize("reduction", RED)
def test_embedding_and_ranking_losses_match_numpy(reduction):
    sign = np.where(RNG.random(4) > 0.5, 1.0, -1.0)
    s2 = np.where(RNG.random((4, 5)) > 0.5, 1.0, -1.0)
    want = np.where(s2 == 1, X, np.maximum(0, 0.5 - X))
    close(F.hinge_embedding_loss(P(X), P(s2), margin=0.5, reduction=reduction),
          reduce_np(want, reduction))
    want = np.maximum(0, -sign * (X[:, 0] - Y[:, 0]) + 0.3)
    close(F.margin_ranking_loss(P(X[:, 0]), P(Y[:, 0]), P(sign), margin=0.3,
                                reduction=reduction), reduce_np(want, reduction))
    cos = (X * Y).sum(1) / np.sqrt(((X * X).sum(1) + 1e-12) * ((Y * Y).sum(1) + 1e-12))
    want = np.where(sign == 1, 1 - cos, np.maximum(0, cos - 0.1))
    close(F.cosine_embedding_loss(P(X), P(Y), P(sign), margin=0.1, reduction=reduction),
          reduce_np(want, reduction))


@pytest.mark.parametrize("reduction", RED)
def test_likelihood_losses_match_numpy(reduction):
    t = RNG.random((4, 5)) * 4
    want = np.exp(X) - t * X
    close(F.poisson_nll_loss(P(X), P(t), reduction=reduction), reduce_np(want, reduction))
    rate = np.abs(X) + 0.1
    want = rate - t * np.log(rate + 1e-8)
    st = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
    want = want + np.where(t <= 1, 0, st)
    close(F.poisson_nll_loss(P(rate), P(t), log_input=False, full=True, reduction=reduction),
          reduce_np(want, reduction))
    var = RNG.random((4, 5)) + 0.1
    want = 0.5 * (np.log(var) + (X - Y) ** 2 / var) + 0.5 * np.log(2 * np.pi)
    close(F.gaussian_nll_loss(P(X), P(Y), P(var), full=True, reduction=reduction),
          reduce_np(want, reduction))
    q = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
    logp = X - np.log(np.exp(X).sum(1, keepdims=True))
    want = q * (np.log(q) - logp)
    close(F.kl_div(P(logp), P(q), reduction=reduction if reduction != "mean" else "batchmean"),
          want.sum() / 4 if reduction == "mean" else reduce_np(want, reduction))
    close(F.kl_div(P(logp), P(np.log(q)), reduction="sum", log_target=True), want.sum())


def test_distances_match_numpy():
    cos = (X * Y).sum(1) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1))
    close(F.cosine_similarity(P(X), P(Y)), cos)
    close(F.pairwise_distance(P(X), P(Y)), np.linalg.norm(X - Y + 1e-6, axis=1))
    close(F.pairwise_distance(P(X), P(Y), p=1.0, keepdim=True),
          np.abs(X - Y + 1e-6).sum(1, keepdims=True))
    close(F.normalize(P(X)), X / np.linalg.norm(X, axis=1, keepdims=True))
    z = RNG.standard_normal((4, 5))
    dp, dn = np.linalg.norm(X - Y + 1e-6, axis=1), np.linalg.norm(X - z + 1e-6, axis=1)
    close(F.triplet_margin_loss(P(X), P(Y), P(z), reduction="none"), np.maximum(0, 1 + dp - dn))
    close(F.triplet_margin_with_distance_loss(P(X), P(Y), P(z), reduction="none"),
          np.maximum(0, 1 + dp - dn))


def test_backward_matches_numpy_without_torch():
    x = P(X, grad=True)
    F.mse_loss(x, P(Y)).backward()
    close(x.grad, 2 * (X - Y) / X.size)
    x = P(X, grad=True)
    tgt = [0, 4, 2, 1]
    F.cross_entropy(x, pt.tensor(tgt)).backward()
    sm = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    sm[np.arange(4), tgt] -= 1
    close(x.grad, sm / 4)


# ---------------------------------------------------------------- gradcheck (float64)
def _t():
    return pt.tensor([0, 4, 2, 1])


GRADCHECK = {
    "mse_loss": lambda x, y: F.mse_loss(x, y),
    "mse_loss_sum": lambda x, y: F.mse_loss(x, y, reduction="sum"),
    "l1_loss": lambda x, y: F.l1_loss(x, y, reduction="none"),
    "smooth_l1_loss": lambda x, y: F.smooth_l1_loss(x, y, beta=0.6),
    "huber_loss": lambda x, y: F.huber_loss(x, y, delta=0.6, reduction="none"),
    "soft_margin_loss": lambda x, y: F.soft_margin_loss(x, y.sign()),
    "bce": lambda x, y: F.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
    "bce_with_logits": lambda x, y: F.binary_cross_entropy_with_logits(
        x, y.sigmoid(), pos_weight=pt.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=pt.float64)),
    "nll_loss": lambda x, y: F.nll_loss(x, _t(), reduction="sum"),
    "cross_entropy": lambda x, y: F.cross_entropy(x, _t()),
    "cross_entropy_smoothing": lambda x, y: F.cross_entropy(x, _t(), label_smoothing=0.3),
    "cross_entropy_probs": lambda x, y: F.cross_entropy(x, y.softmax(1)),
    "multi_margin_loss": lambda x, y: F.multi_margin_loss(x, _t(), p=2),
    "multilabel_margin_loss": lambda x, y: F.multilabel_margin_loss(
        x, pt.tensor([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0]])),
    "multilabel_soft_margin_loss": lambda x, y: F.multilabel_soft_margin_loss(x, y.sigmoid()),
    "kl_div": lambda x, y: F.kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean"),
    "poisson_nll_loss": lambda x, y: F.poisson_nll_loss(x, y.abs()),
    "gaussian_nll_loss": lambda x, y: F.gaussian_nll_loss(x, y, y.abs() + 0.5),
    "hinge_embedding_loss": lambda x, y: F.hinge_embedding_loss(x, y.sign()),
    "margin_ranking_loss": lambda x, y: F.margin_ranking_loss(x, y, (x * y).sign().detach()),
    "cosine_embedding_loss": lambda x, y: F.cosine_embedding_loss(
        x, y, pt.tensor([1.0, -1.0, 1.0, -1.0], dtype=pt.float64)),
    "triplet_margin_loss": lambda x, y: F.triplet_margin_loss(x, y, x.flip(0), swap=True),
    "cosine_similarity": lambda x, y: F.cosine_similarity(x, y),
    "pairwise_distance": lambda x, y: F.pairwise_distance(x, y),
    "normalize": lambda x, y: F.normalize(x, dim=0),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    x, y = P(X, grad=True), P(Y, grad=True)
    assert gradcheck(GRADCHECK[name], (x, y))


@pytest.mark.parametrize("name", ["mse_loss", "mse_loss_sum", "smooth_l1_loss", "huber_loss",
                                  "soft_margin_loss", "bce", "bce_with_logits", "nll_loss",
                                  "cross_entropy"])
def test_gradgradcheck(name):
    x, y = P(X, grad=True), P(Y, grad=True)
    assert gradgradcheck(GRADCHECK[name], (x, y))


# ---------------------------------------------------------------- reductions and arguments
def test_legacy_size_average_and_reduce():
    x, y = P(X), P(Y)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        close(F.mse_loss(x, y, size_average=False), ((X - Y) ** 2).sum())
    with pytest.warns(UserWarning, match="reduction='none'"):
        close(F.l1_loss(x, y, reduce=False), np.abs(X - Y))
    with pytest.warns(UserWarning):
        close(F.nll_loss(x, _t(), size_average=False), -X[np.arange(4), [0, 4, 2, 1]].sum())


def test_bad_reduction_string():
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.soft_margin_loss, F.huber_loss):
        with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
            fn(P(X), P(Y), reduction="foo")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.cross_entropy(P(X), _t(), reduction="foo")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.poisson_nll_loss(P(X), P(Y), reduction="foo")


def test_broadcast_warning():
    with pytest.warns(UserWarning, match="Using a target size"):
        got = F.mse_loss(P(X), P(Y[:1]))
    close(got, ((X - Y[:1]) ** 2).mean())


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(P(X), P(np.abs(Y)))


# ---------------------------------------------------------------- bad input
def test_class_index_out_of_range_is_an_error():
    for fn in (F.nll_loss, F.cross_entropy):
        with pytest.raises(IndexError, match="Target 5 is out of bounds."):
            fn(P(X), pt.tensor([0, 1, 5, 2]))
        with pytest.raises(IndexError, match="Target -1 is out of bounds."):
            fn(P(X), pt.tensor([0, 1, -1, 2]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.cross_entropy(P(RNG.standard_normal((2, 3, 4, 4))), pt.full((2, 4, 4), 7))
    with pytest.raises(IndexError, match="Target 9 is out of bounds."):
        F.cross_entropy(P(RNG.standard_normal((2, 3, 4))), pt.full((2, 4), 9))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(P(X), pt.tensor([0, 1, 5, 2]))
    with pytest.raises(RuntimeError, match="out of range"):
        F.multilabel_margin_loss(P(X), pt.full((4, 5), 5))


def test_target_shape_and_dtype_errors():
    with pytest.raises(RuntimeError, match=r"expected target dtype to be Long or Byte, but got "
                                           r"Float"):
        F.nll_loss(P(X), pt.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target "
                                         r"batch_size \(3\)."):
        F.cross_entropy(P(X), pt.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match=r"Expected floating point type for target with class "
                                           r"probabilities, got Long"):
        F.cross_entropy(P(X), pt.zeros((4, 5), dtype=pt.int64))
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 5 "
                                           r"classes or no classes"):
        F.nll_loss(P(X), _t(), P([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(P(X), _t(), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 5\]"):
        F.cross_entropy(P(RNG.standard_normal((2, 3, 4))), pt.zeros((2, 5), dtype=pt.int64))
    with pytest.raises(ValueError, match="Using a target size"):
        F.binary_cross_entropy(P(np.full((4, 5), 0.5)), P(np.full((4, 1), 0.5)))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(P(X), P(Y[:, :1]))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(P(X), P(np.abs(Y) / 10))
    with pytest.raises(NotImplementedError, match=r"\"mse_cpu\" not implemented for 'Long'"):
        F.mse_loss(pt.tensor([1, 2]), pt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multi_margin_loss(P(X), pt.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multilabel_margin_loss(P(X), pt.zeros((3, 5), dtype=pt.int64))
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(P(X), _t(), p=3)
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        F.cosine_embedding_loss(P(X), P(Y), P(np.ones((4, 1))))
    with pytest.raises(RuntimeError, match="The anchor, positive, and negative tensors"):
        F.triplet_margin_loss(P(X), P(Y), P(Y[0]))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(P(X), P(Y), -1.0)


# ---------------------------------------------------------------- against torch
def T(a, grad=False):
    t = torch.from_numpy(np.array(N(a) if isinstance(a, pt.Tensor) else a))
    return t.requires_grad_() if grad else t


def _pair(dtype, shape=(4, 5), seed=1):
    g = np.random.default_rng(seed)
    return (g.standard_normal(shape).astype(dtype), g.standard_normal(shape).astype(dtype))


def _cls(n, c, seed=2):
    return np.random.default_rng(seed).integers(0, c, n)


def _case_args(name, a, b, lib):
    """(function, args, kwargs) of case `name` for lib (torch or pytensor) from arrays a, b."""
    mk = (lambda v, g=False: T(v, g)) if lib == "torch" else (
        lambda v, g=False: P(v, dtype=str(v.dtype), grad=g))
    idx = (lambda v: torch.from_numpy(np.asarray(v, dtype=np.int64))) if lib == "torch" else (
        lambda v: pt.from_numpy(np.array(v, dtype=np.int64)).clone())
    FF = torch.nn.functional if lib == "torch" else F
    sig = 1 / (1 + np.exp(-b))
    n, c = a.shape[0], a.shape[-1] if a.ndim > 1 else a.shape[0]
    w = np.abs(b[0]) + 0.1 if len(b) else np.linspace(0.5, 1.5, c)
    cases = {
        "mse_loss": (FF.mse_loss, [mk(a, True), mk(b, True)], {}),
        "l1_loss": (FF.l1_loss, [mk(a, True), mk(b, True)], {}),
        "smooth_l1_loss": (FF.smooth_l1_loss, [mk(a, True), mk(b, True)], {"beta": 0.5}),
        "huber_loss": (FF.huber_loss, [mk(a, True), mk(b, True)], {"delta": 0.5}),
        "soft_margin_loss": (FF.soft_margin_loss, [mk(a, True), mk(np.sign(b))], {}),
        "binary_cross_entropy": (FF.binary_cross_entropy,
                                 [mk(1 / (1 + np.exp(-a)), True), mk(sig, True)], {}),
        "binary_cross_entropy_with_logits": (FF.binary_cross_entropy_with_logits,
                                             [mk(a, True), mk(sig, True)],
                                             {"pos_weight": mk(w + 0.4)}),
        "cross_entropy": (FF.cross_entropy, [mk(a, True), idx(_cls(n, c))], {}),
        "cross_entropy_w": (FF.cross_entropy, [mk(a, True), idx(_cls(n, c))],
                            {"weight": mk(w), "ignore_index": 1}),
        "cross_entropy_ls": (FF.cross_entropy, [mk(a, True), idx(_cls(n, c))],
                             {"label_smoothing": 0.25, "weight": mk(w)}),
        "cross_entropy_prob": (FF.cross_entropy, [mk(a, True), mk(sig / sig.sum(-1,
                                                                                keepdims=True))],
                               {"label_smoothing": 0.1}),
        "nll_loss": (FF.nll_loss, [mk(a, True), idx(_cls(n, c))],
                     {"weight": mk(w)}),
        "multi_margin_loss": (FF.multi_margin_loss, [mk(a, True), idx(_cls(n, c))],
                              {"p": 2, "margin": 0.7, "weight": mk(w)}),
        "multilabel_margin_loss": (FF.multilabel_margin_loss,
                                   [mk(a, True), idx(np.where(np.arange(c) < 2, _cls((n, c), c),
                                                              -1).reshape(n, c))], {}),
        "multilabel_soft_margin_loss": (FF.multilabel_soft_margin_loss, [mk(a, True), mk(sig)],
                                        {}),
        "kl_div": (FF.kl_div, [mk(a, True), mk(sig, True)], {}),
        "poisson_nll_loss": (FF.poisson_nll_loss, [mk(a, True), mk(np.abs(b) * 3, True)],
                             {"full": True}),
        "gaussian_nll_loss": (FF.gaussian_nll_loss, [mk(a, True), mk(b, True),
                                                     mk(sig + 0.1, True)], {}),
        "hinge_embedding_loss": (FF.hinge_embedding_loss, [mk(a, True), mk(np.sign(b))], {}),
        "margin_ranking_loss": (FF.margin_ranking_loss, [mk(a, True), mk(b, True),
                                                         mk(np.sign(a * b))], {"margin": 0.2}),
        "cosine_embedding_loss": (FF.cosine_embedding_loss,
                                  [mk(a, True), mk(b, True), mk(np.sign(b[:, 0]))],
                                  {"margin": 0.1}),
        "triplet_margin_loss": (FF.triplet_margin_loss, [mk(a, True), mk(b, True),
                                                         mk(a[::-1].copy(), True)],
                                {"swap": True}),
        "cosine_similarity": (FF.cosine_similarity, [mk(a, True), mk(b, True)], {}),
        "pairwise_distance": (FF.pairwise_distance, [mk(a, True), mk(b, True)], {"p": 3.0}),
        "normalize": (FF.normalize, [mk(a, True)], {}),
    }
    return cases[name]


NO_REDUCTION = {"gaussian_nll_loss", "cosine_similarity", "pairwise_distance", "normalize"}
CASES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
         "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
         "cross_entropy_w", "cross_entropy_ls", "cross_entropy_prob", "nll_loss",
         "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "kl_div",
         "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
         "cosine_embedding_loss", "triplet_margin_loss", "cosine_similarity",
         "pairwise_distance", "normalize"]


def _compare(name, a, b, reduction, tol):
    out = {}
    for lib in ("torch", "pytensor"):
        fn, args, kw = _case_args(name, a, b, lib)
        if name not in NO_REDUCTION:
            kw = dict(kw, reduction=reduction)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*args, **kw)
        grads = []
        if r.numel() and r.dtype in (torch.float32, torch.float64, pt.float32, pt.float64):
            r.sum().backward()
            grads = [x.grad for x in args if getattr(x, "requires_grad", False)]
        out[lib] = (r, grads)
    (tr, tg), (pr, pg) = out["torch"], out["pytensor"]
    assert tuple(pr.shape) == tuple(tr.shape), (pr.shape, tr.shape)
    assert str(pr.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1]
    np.testing.assert_allclose(N(pr), tr.detach().numpy(), rtol=tol, atol=tol)
    assert len(pg) == len(tg)
    for g1, g2 in zip(pg, tg):
        np.testing.assert_allclose(N(g1), g2.numpy(), rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, reduction, dtype):
    if name in NO_REDUCTION and reduction != "mean":
        pytest.skip("no reduction argument")
    a, b = _pair(dtype)
    _compare(name, a, b, reduction, 2e-5 if dtype == "float32" else 1e-10)


@requires_torch
@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
                                  "binary_cross_entropy", "cross_entropy", "nll_loss",
                                  "multi_margin_loss", "cosine_similarity", "kl_div"])
def test_strided_inputs_match_torch(name):
    a, b = _pair("float64", shape=(10, 6), seed=5)
    a, b = a.T.copy().T[::2], b[1::2]  # a non-contiguous view's values, b a strided slice
    fn_t, args_t, kw_t = _case_args(name, a, b, "torch")
    fn_p, args_p, kw_p = _case_args(name, a, b, "pytensor")
    # the same values seen through transposed storage
    args_p = [x.detach().t().contiguous().t().requires_grad_(x.requires_grad)
              if isinstance(x, pt.Tensor) and x.dim() == 2 and x.is_floating_point() else x
              for x in args_p]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt, rp = fn_t(*args_t, **kw_t), fn_p(*args_p, **kw_p)
    np.testing.assert_allclose(N(rp), rt.detach().numpy(), rtol=1e-10, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                  "soft_margin_loss", "binary_cross_entropy_with_logits",
                                  "cross_entropy", "nll_loss", "multi_margin_loss",
                                  "kl_div", "hinge_embedding_loss", "poisson_nll_loss"])
@pytest.mark.parametrize("reduction", RED)
def test_empty_batch_matches_torch(name, reduction):
    a, b = _pair("float64", shape=(0, 5))
    if name == "multi_margin_loss" and reduction != "none":
        # torch's reduced result over an empty batch is memory it never wrote (0 mostly, once
        # -1.8e-06, once a nan); the exact values are 0 for the sum and nan for the mean
        fn, args, kw = _case_args(name, a, b, "pytensor")
        got = float(fn(*args, **kw, reduction=reduction))
        assert got == 0.0 if reduction == "sum" else math.isnan(got)
        return
    _compare(name, a, b, reduction, 1e-12)


@requires_torch
@pytest.mark.parametrize("reduction", RED)
def test_cross_entropy_k_dim_matches_torch(reduction):
    for shape in [(3, 4, 5), (2, 3, 4, 5), (2, 3, 2, 2, 3), (5,)]:
        g = np.random.default_rng(len(shape))
        x = g.standard_normal(shape)
        t = g.integers(0, shape[1] if len(shape) > 1 else shape[0],
                       (shape[0],) + shape[2:] if len(shape) > 1 else ())
        if t.ndim:
            t[..., 0] = -100  # ignored positions
        tx, px = T(x, True), P(x, grad=True)
        want = torch.nn.functional.cross_entropy(tx, torch.from_numpy(np.asarray(t)),
                                                 reduction=reduction)
        got = F.cross_entropy(px, pt.tensor(np.asarray(t).tolist()), reduction=reduction)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(N(got), want.detach().numpy(), rtol=1e-10, atol=1e-12)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(N(px.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        assert got.grad_fn.name() == want.grad_fn.name()


def _node_chain(t, depth=2):
    names, fn = [], t.grad_fn
    for _ in range(depth):
        if fn is None:
            break
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return names


@requires_torch
@pytest.mark.parametrize("name", CASES)
def test_node_names_match_torch(name):
    a, b = _pair("float64")
    got = []
    for lib in ("torch", "pytensor"):
        fn, args, kw = _case_args(name, a, b, lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*args, **kw)
        got.append(_node_chain(r))
    if name in NODE_DIFFS:  # pytensor's norm records its linalg_vector_norm node
        got[0] = [NODE_DIFFS[name].get(n, n) for n in got[0]]
    assert got[1] == got[0]


NODE_DIFFS = {"pairwise_distance": {"NormBackward1": "LinalgVectorNormBackward0"}}


# ---------------------------------------------------------------- threads, dtypes, shapes
def test_reduction_is_the_same_on_any_thread_count():
    g = np.random.default_rng(9)
    a, b = g.standard_normal(300_001), g.standard_normal(300_001)
    old = pt.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            pt.set_num_threads(n)
            x = P(a, "float32", grad=True)
            loss = F.mse_loss(x, P(b, "float32"), reduction="sum")
            loss.backward()
            results.append((loss.item(), N(x.grad), N(F.smooth_l1_loss(P(a), P(b),
                                                                        reduction="none"))))
    finally:
        pt.set_num_threads(old)
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_allclose(results[0][0], ((a32 - b32).astype(np.float64) ** 2).sum(),
                               rtol=1e-6)


def test_result_dtypes_follow_torch():
    x32, x64 = P(X, "float32"), P(Y, "float64")
    assert F.mse_loss(x32, x64).dtype == pt.float64  # promoted, as torch's TensorIterator
    assert F.smooth_l1_loss(x32, x64).dtype == pt.float64
    assert F.huber_loss(x32, x64).dtype == pt.float32  # the input's dtype
    assert F.soft_margin_loss(x32, x64).dtype == pt.float32
    assert F.cross_entropy(x32, _t()).dtype == pt.float32
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(P(np.full(3, 0.5), "float32"), P(np.full(3, 0.5)))


def test_unbatched_inputs():
    v, w = X[0], Y[0]
    close(F.multi_margin_loss(P(v), pt.tensor(3), reduction="none"),
          np.maximum(0, 1 - v[3] + np.delete(v, 3)).sum() / 5)
    lab = pt.tensor([2, 0, -1, 0, 0])
    want = sum(max(0, 1 - v[t] + v[d]) for t in (2, 0) for d in (1, 3, 4)) / 5
    close(F.multilabel_margin_loss(P(v), lab, reduction="none"), want)
    cos = (v * w).sum() / np.sqrt(((v * v).sum() + 1e-12) * ((w * w).sum() + 1e-12))
    close(F.cosine_embedding_loss(P(v), P(w), P(1.0), reduction="none"), 1 - cos)
    close(F.nll_loss(P(v), pt.tensor(2)), -v[2])


def test_nll_loss2d_operator():
    x = RNG.standard_normal((2, 3, 2, 4))
    t = RNG.integers(0, 3, (2, 2, 4))
    out, total = pt._C._nn.nll_loss2d_forward(P(x), pt.tensor(t.tolist()), None, 2, -100)
    close(out, -np.take_along_axis(x, t[:, None], 1).sum())
    close(total, 16.0)
    with pytest.raises(RuntimeError, match="only batches of spatial targets supported"):
        pt._C._nn.nll_loss2d_forward(P(x), pt.tensor(t[0].tolist()), None, 1, -100)
