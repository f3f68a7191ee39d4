"""pytensor.nn.functional: losses (cross_entropy, nll_loss, mse_loss, ...) and distances
(cosine_similarity, pairwise_distance, normalize).

Each function checks its arguments as torch.nn.functional does (the same warnings and
messages), turns ``reduction`` (or the legacy ``size_average``/``reduce`` pair) into torch's enum
and calls the operator of the same name (csrc/ops/nn_loss.yaml): its kernels compute forward and
backward in C (csrc/kernels/nn/loss*.c). The few functions torch writes in Python as a sequence
of operators (gaussian_nll_loss, multilabel_soft_margin_loss, triplet_margin_with_distance_loss,
normalize, the weighted forms of mse_loss, l1_loss and huber_loss) call the same operators here.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.mse_loss(pytensor.tensor([1.0, 2.0]), pytensor.tensor([1.0, 4.0])).item()
2.0
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Optional

import pytensor

from . import _reduction as _Reduction

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "cosine_similarity", "cross_entropy", "gaussian_nll_loss", "hinge_embedding_loss",
    "huber_loss", "kl_div", "l1_loss", "margin_ranking_loss", "mse_loss", "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss", "normalize",
    "pairwise_distance", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss",
    "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


def _nn():
    return pytensor._C._nn


def _enum(size_average, reduce, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


def _string(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _warn_sizes(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _broadcast_shape(*sizes) -> tuple:
    """torch.broadcast_shapes of the given sizes (torch's message when they disagree)."""
    nd = max(len(s) for s in sizes)
    out = [1] * nd
    for s in sizes:
        for i, n in enumerate(s, nd - len(s)):
            if n != 1 and out[i] != 1 and n != out[i]:
                raise RuntimeError(f"The size of tensor a ({out[i]}) must match the size of "
                                   f"tensor b ({n}) at non-singleton dimension {i}")
            if n != 1:
                out[i] = n
    return tuple(out)


def _broadcast_tensors(a, b):
    """a and b expanded to their broadcast shape (no view where a shape already is it)."""
    shape = _broadcast_shape(tuple(a.size()), tuple(b.size()))
    return (a if tuple(a.size()) == shape else a.expand(shape),
            b if tuple(b.size()) == shape else b.expand(shape))


def _weighted(loss, weight, input, reduction: str, mean_by_weight: bool):
    """torch's weighted mse/l1/huber: loss * weight, then the reduction."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return pytensor.sum(weighted)
    if reduction == "mean":
        return pytensor.sum(weighted) / pytensor.sum(weight) if mean_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---------------------------------------------------------------- class scores
def nll_loss(input, target, weight=None, size_average: Optional[bool] = None,
             ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean"):
    """The negative log likelihood of the target classes under log-probabilities ``input``
    ((C,), (N, C) or (N, C, d1, ..., dk)).

    >>> import pytensor
    >>> x = pytensor.tensor([[-1.0, -2.0], [-3.0, -0.5]])
    >>> pytensor.nn.functional.nll_loss(x, pytensor.tensor([0, 1])).item()
    0.75
    """
    reduction = _string(size_average, reduce, reduction)
    return _nn().nll_loss_nd(input, target, weight, _Reduction.get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average: Optional[bool] = None,
                  ignore_index: int = -100, reduce: Optional[bool] = None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    """Cross entropy between the logits ``input`` and class indices or class probabilities.

    >>> import pytensor
    >>> x = pytensor.tensor([[0.0, 0.0]])
    >>> round(pytensor.nn.functional.cross_entropy(x, pytensor.tensor([1])).item(), 4)
    0.6931
    """
    reduction = _string(size_average, reduce, reduction)
    return _nn().cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction),
                                    ignore_index, label_smoothing)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                      reduction: str = "mean"):
    """The multi-class hinge loss of scores ``input`` ((C,) or (N, C)) and class indices."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn().multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def multilabel_margin_loss(input, target, size_average: Optional[bool] = None,
                           reduce: Optional[bool] = None, reduction: str = "mean"):
    """The multi-label hinge loss; each row of ``target`` lists classes, ended by -1."""
    return _nn().multilabel_margin_loss(input, target, _enum(size_average, reduce, reduction))


def _log_sigmoid(x):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for every x
    return pytensor.clamp_max(x, 0) - pytensor.log1p(pytensor.exp(-pytensor.abs(x)))


def multilabel_soft_margin_loss(input, target, weight=None, size_average: Optional[bool] = None,
                                reduce: Optional[bool] = None, reduction: str = "mean"):
    """One-versus-all logistic loss over the classes (the last dim), averaged over classes."""
    reduction = _string(size_average, reduce, reduction)
    loss = -(target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


# ---------------------------------------------------------------- regression
def mse_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
             reduction: str = "mean", weight=None):
    """The mean squared error; ``weight`` (input's shape) weighs each element."""
    _warn_sizes(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast_tensors(input, target)
    if weight is not None:
        return _weighted(pytensor.pow(x - y, 2), weight, input, reduction, True)
    return _nn().mse_loss(x, y, _Reduction.get_enum(reduction))


def l1_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
            reduction: str = "mean", weight=None):
    """The mean absolute error; ``weight`` (input's shape) weighs each element."""
    _warn_sizes(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast_tensors(input, target)
    if weight is not None:
        return _weighted(pytensor.abs(x - y), weight, input, reduction, True)
    return _nn().l1_loss(x, y, _Reduction.get_enum(reduction))


def smooth_l1_loss(input, target, size_average: Optional[bool] = None,
                   reduce: Optional[bool] = None, reduction: str = "mean", beta: float = 1.0):
    """Squared error below ``beta`` (divided by it), absolute error above; l1_loss at beta 0."""
    _warn_sizes(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn().l1_loss(x, y, _Reduction.get_enum(reduction))
    return _nn().smooth_l1_loss(x, y, _Reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Half the squared error below ``delta``, delta times (error - delta / 2) above."""
    _warn_sizes(input, target)
    x, y = _broadcast_tensors(input, target)
    if weight is None:
        return _nn().huber_loss(x, y, _Reduction.get_enum(reduction), delta)
    return _weighted(_nn().huber_loss(x, y, _Reduction.get_enum("none"), delta), weight, input,
                     reduction, False)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average: Optional[bool] = None, eps: float = 1e-8,
                     reduce: Optional[bool] = None, reduction: str = "mean"):
    """The negative log likelihood of ``target`` under a Poisson distribution of rate input
    (exp(input) when ``log_input``); ``full`` adds Stirling's term."""
    reduction = _string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return pytensor.poisson_nll_loss(input, target, log_input, full, eps,
                                     _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """The negative log likelihood of ``target`` under Gaussians of mean ``input`` and variance
    ``var`` (clamped at eps, outside autograd)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * pytensor.ones_like(input)
    elif bool(pytensor.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = pytensor.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass  # heteroscedastic: one dim of var is 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with pytensor.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (pytensor.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ---------------------------------------------------------------- binary targets
def binary_cross_entropy(input, target, weight=None, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    """The binary cross entropy of probabilities ``input`` (in [0, 1]) and ``target``."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_broadcast_shape(tuple(target.size()), tuple(weight.size())))
    return _nn().binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None,
                                     size_average: Optional[bool] = None,
                                     reduce: Optional[bool] = None, reduction: str = "mean",
                                     pos_weight=None):
    """binary_cross_entropy of sigmoid(input), computed stably from the logits; ``pos_weight``
    weighs the positive term (broadcast along the last dim)."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if not (target.size() == input.size()):
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return pytensor.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                     reduction_enum)


def soft_margin_loss(input, target, size_average: Optional[bool] = None,
                     reduce: Optional[bool] = None, reduction: str = "mean"):
    """The two-class logistic loss log(1 + exp(-target * input)), target in {-1, 1}."""
    return _nn().soft_margin_loss(input, target, _enum(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    return pytensor.hinge_embedding_loss(input, target, margin,
                                         _enum(size_average, reduce, reduction))


def kl_div(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
           reduction: str = "mean", log_target: bool = False):
    """The Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``;
    'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.", stacklevel=2)
        reduction_enum = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = pytensor.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


# ---------------------------------------------------------------- pairs and triplets
def margin_ranking_loss(input1, input2, target, margin: float = 0,
                        size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return pytensor.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def cosine_embedding_loss(input1, input2, target, margin: float = 0,
                          size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                          reduction: str = "mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    return pytensor.cosine_embedding_loss(input1, input2, target, margin,
                                          _enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False,
                        size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm distance."""
    return pytensor.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                        _enum(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor, positive, negative, *,
                                      distance_function: Optional[Callable] = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """triplet_margin_loss with any distance (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D "
            "inputs")
    if distance_function is None:
        distance_function = pytensor.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = pytensor.minimum(dist_neg, distance_function(positive, negative))
    loss = pytensor.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return pytensor.sum(loss)
    if reduction == "mean":
        return pytensor.mean(loss)
    return loss


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """The cosine of the angle between x1 and x2 along ``dim`` (broadcast first)."""
    return pytensor.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    return pytensor.pairwise_distance(x1, x2, p, eps, keepdim)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """input divided by its p-norm along ``dim`` (at least eps)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return pytensor.div(input, denom, out=out)
