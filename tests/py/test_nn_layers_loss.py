"""Loss layers (pytensor.nn.*Loss): forward and backward against torch for every reduction,
class weights as buffers (state_dict keys), the deprecated size_average/reduce arguments mapped
as torch's (with its warning), reprs, and torch's constructor errors."""
import warnings

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import RNG, compare, np_of, rand, same_repr, same_state_keys, to_pt, \
    to_th

N, C = 4, 3


def _classes(*shape):
    return RNG.integers(0, C, shape).astype(np.int64)


def _signs(*shape):
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


def _probs(*shape):
    return RNG.uniform(0.05, 0.95, shape).astype(np.float32)


def _mlm_target():
    t = np.full((N, C), -1, dtype=np.int64)
    t[:, 0] = _classes(N)
    t[::2, 1] = (t[::2, 0] + 1) % C
    return t


WEIGHT = np.array([0.5, 1.0, 2.0], dtype=np.float32)

# name, constructor kwargs (tensors as NumPy arrays), inputs (float inputs get gradients)
LOSS_CASES = [
    ("L1Loss", {}, lambda: [rand(N, C), rand(N, C)]),
    ("MSELoss", {}, lambda: [rand(N, C), rand(N, C)]),
    ("NLLLoss", dict(weight=WEIGHT, ignore_index=1), lambda: [rand(N, C), _classes(N)]),
    ("NLLLoss", {}, lambda: [rand(N, C, 2, 2), _classes(N, 2, 2)]),
    ("CrossEntropyLoss", {}, lambda: [rand(N, C), _classes(N)]),
    ("CrossEntropyLoss", dict(weight=WEIGHT, label_smoothing=0.1),
     lambda: [rand(N, C, 2), _classes(N, 2)]),
    ("CrossEntropyLoss", {}, lambda: [rand(N, C), _probs(N, C)]),
    ("PoissonNLLLoss", {}, lambda: [rand(N, C), _probs(N, C) * 3]),
    ("PoissonNLLLoss", dict(log_input=False, full=True),
     lambda: [_probs(N, C) * 2, _probs(N, C) * 3]),
    ("GaussianNLLLoss", dict(full=True), lambda: [rand(N, C), rand(N, C), _probs(N, C)]),
    ("KLDivLoss", dict(reduction="batchmean"), lambda: [rand(N, C), _probs(N, C)]),
    ("KLDivLoss", dict(log_target=True), lambda: [rand(N, C), rand(N, C)]),
    ("BCELoss", {}, lambda: [_probs(N, C), _probs(N, C)]),
    ("BCELoss", dict(weight=np.full((C,), 2.0, np.float32)),
     lambda: [_probs(N, C), _probs(N, C)]),
    ("BCEWithLogitsLoss", dict(pos_weight=WEIGHT), lambda: [rand(N, C), _probs(N, C)]),
    ("BCEWithLogitsLoss", dict(weight=WEIGHT), lambda: [rand(N, C), _probs(N, C)]),
    ("HingeEmbeddingLoss", dict(margin=0.5), lambda: [rand(N, C), _signs(N, C)]),
    ("MultiLabelMarginLoss", {}, lambda: [rand(N, C), _mlm_target()]),
    ("SmoothL1Loss", dict(beta=0.5), lambda: [rand(N, C), rand(N, C)]),
    ("HuberLoss", dict(delta=0.3), lambda: [rand(N, C), rand(N, C)]),
    ("SoftMarginLoss", {}, lambda: [rand(N, C), _signs(N, C)]),
    ("MultiLabelSoftMarginLoss", dict(weight=WEIGHT),
     lambda: [rand(N, C), (RNG.random((N, C)) < 0.5).astype(np.float32)]),
    ("CosineEmbeddingLoss", dict(margin=0.2), lambda: [rand(N, C), rand(N, C), _signs(N)]),
    ("MarginRankingLoss", dict(margin=0.1), lambda: [rand(N), rand(N), _signs(N)]),
    ("MultiMarginLoss", dict(p=2, margin=0.5, weight=WEIGHT), lambda: [rand(N, C), _classes(N)]),
    ("MultiMarginLoss", {}, lambda: [rand(N, C), _classes(N)]),
    ("TripletMarginLoss", dict(margin=0.5, p=1.0, swap=True),
     lambda: [rand(N, C), rand(N, C), rand(N, C)]),
    ("TripletMarginWithDistanceLoss", dict(margin=0.5),
     lambda: [rand(N, C), rand(N, C), rand(N, C)]),
]


def _build(lib, name, kwargs, reduction):
    conv = to_th if lib is torch else to_pt
    kw = {k: conv(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    if reduction is not None:
        kw["reduction"] = reduction
    return getattr(lib.nn, name)(**kw)


@requires_torch
@pytest.mark.parametrize("reduction", [None, "sum", "none"])
@pytest.mark.parametrize("name,kwargs,inputs", LOSS_CASES)
def test_loss_layers_match_torch(name, kwargs, inputs, reduction):
    if reduction is not None and kwargs.get("reduction") == "batchmean":
        reduction = None
    tm = _build(torch, name, kwargs, reduction)
    pm = _build(pytensor, name, kwargs, reduction)
    same_repr(tm, pm)
    same_state_keys(tm, pm)
    assert pm.reduction == tm.reduction
    xs = inputs()
    # the targets (last input) take no gradient, except GaussianNLLLoss's (input, target, var)
    needs = [True] * (len(xs) - 1) + [name == "GaussianNLLLoss"]
    if name == "GaussianNLLLoss":
        needs[1] = False
    compare(tm, pm, xs, atol=1e-5, needs_grad=needs)


@requires_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss_matches_torch(reduction):
    T, B, K, S = 6, 2, 4, 3
    logp = np.log(_probs(T, B, K) / _probs(T, B, K).sum(-1, keepdims=True) + 1e-3)
    logp = logp.astype(np.float32)
    targets = RNG.integers(1, K, (B, S)).astype(np.int64)
    tm = torch.nn.CTCLoss(reduction=reduction, zero_infinity=True)
    pm = nn.CTCLoss(reduction=reduction, zero_infinity=True)
    same_repr(tm, pm)
    il, tl = np.array([6, 5], np.int64), np.array([3, 2], np.int64)
    compare(tm, pm, [logp, targets, il, tl], atol=1e-4)


@pytest.mark.parametrize("size_average,reduce,expected", [
    (None, False, "none"), (False, None, "sum"), (True, True, "mean"), (False, False, "none"),
    (True, False, "none"), (None, True, "mean"),
])
def test_legacy_reduction_arguments(size_average, reduce, expected):
    with pytest.warns(UserWarning, match=f"please use reduction='{expected}' instead"):
        m = nn.MSELoss(size_average=size_average, reduce=reduce)
    assert m.reduction == expected
    with pytest.warns(UserWarning):
        w = nn.NLLLoss(size_average=size_average, reduce=reduce, reduction="sum")
    assert w.reduction == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.L1Loss(reduction="sum").reduction == "sum"


def test_loss_values_without_torch():
    x, y = pytensor.tensor([1.0, 3.0]), pytensor.tensor([0.0, 0.0])
    assert nn.MSELoss()(x, y).item() == 5.0
    assert nn.L1Loss(reduction="sum")(x, y).item() == 4.0
    assert nn.MSELoss(reduction="none")(x, y).tolist() == [1.0, 9.0]
    logits = pytensor.tensor([[0.0, 0.0]])
    ce = nn.CrossEntropyLoss()(logits, pytensor.tensor([1]))
    assert abs(ce.item() - np.log(2)) < 1e-6


def test_loss_buffers_and_reprs():
    w = pytensor.tensor([1.0, 2.0])
    ce = nn.CrossEntropyLoss(weight=w)
    assert list(ce.state_dict()) == ["weight"] and ce.weight is not None
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert list(nn.BCEWithLogitsLoss(pos_weight=w).state_dict()) == ["pos_weight"]
    assert repr(ce) == "CrossEntropyLoss()"
    t = nn.TripletMarginWithDistanceLoss()
    assert repr(t) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    assert ce.ignore_index == -100 and ce.label_smoothing == 0.0


def test_nll_loss_2d_is_deprecated():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = nn.NLLLoss2d(ignore_index=2)
    assert isinstance(m, nn.NLLLoss) and m.ignore_index == 2


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: nn.MultiMarginLoss(p=3), ValueError, "only p == 1 and p == 2 supported"),
    (lambda: nn.MultiMarginLoss(weight=pytensor.ones(2, 2)), ValueError,
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
    (lambda: nn.TripletMarginLoss(margin=0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got 0 instead"),
    (lambda: nn.TripletMarginWithDistanceLoss(margin=-1.0), ValueError,
     "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got -1.0 instead"),
    (lambda: nn.HuberLoss(delta="1"), TypeError,
     "delta must be a float or int, got: <class 'str'>"),
])
def test_loss_constructor_errors(make, exc, msg):
    with pytest.raises(exc) as e:
        make()
    assert str(e.value) == msg


@requires_torch
def test_loss_bad_reduction_matches_torch():
    with pytest.raises(ValueError) as et:
        torch.nn.MSELoss(reduction="avg")(torch.zeros(2), torch.zeros(2))
    with pytest.raises(ValueError) as ep:
        nn.MSELoss(reduction="avg")(pytensor.zeros(2), pytensor.zeros(2))
    assert str(ep.value) == str(et.value)
