"""pytensor.nn.functional: activations (relu ... gelu, softmax, softmin, log_softmax,
gumbel_softmax) and dropout.

Each function checks what torch.nn.functional checks in Python and calls the operator torch calls
(``pytensor._C._nn.elu``, ``pytensor.rrelu``, ...); the arithmetic, forward and backward, is in
the operators' C kernels (csrc/kernels/nn/activation*.c). The few functions torch writes in
Python as compositions of operators (tanhshrink, softsign, softmin, gumbel_softmax, the dropout
rank rules) are the same compositions here.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.hardtanh(pytensor.tensor([-2.0, 0.5, 2.0])).tolist()
[-1.0, 0.5, 1.0]
"""

from __future__ import annotations

import warnings
from typing import Optional

import pytensor

from .._C import _nn

__all__ = [
    "threshold", "threshold_", "relu", "relu_", "hardtanh", "hardtanh_", "relu6", "elu", "elu_",
    "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_",
    "glu", "gelu", "logsigmoid", "hardshrink", "tanhshrink", "softsign", "softplus", "softmin",
    "softmax", "gumbel_softmax", "log_softmax", "softshrink", "tanh", "sigmoid", "hardsigmoid",
    "silu", "mish", "hardswish",
    "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
]

Tensor = pytensor.Tensor


# ---------------------------------------------------------------- thresholds and clamps
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """y = x if x > threshold else value.

    >>> threshold(pytensor.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
    [-1.0, 2.0]
    """
    if inplace:
        return pytensor.threshold_(input, threshold, value)
    return pytensor.threshold(input, threshold, value)


threshold_ = pytensor.threshold_


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0).

    >>> relu(pytensor.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return pytensor.relu_(input) if inplace else pytensor.relu(input)


relu_ = pytensor.relu_


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val].

    >>> hardtanh(pytensor.tensor([-3.0, 0.5]), -2.0, 2.0).tolist()
    [-2.0, 0.5]
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _nn.hardtanh_(input, min_val, max_val)
    return _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place hardtanh (torch._C._nn.hardtanh_)."""
    return _nn.hardtanh_(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6).

    >>> relu6(pytensor.tensor([-1.0, 7.0])).tolist()
    [0.0, 6.0]
    """
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


# ---------------------------------------------------------------- exponential units
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> elu(pytensor.tensor([1.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu (torch._C._nn.elu_)."""
    return _nn.elu_(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with SELU's constants.

    >>> selu(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return pytensor.selu_(input) if inplace else pytensor.selu(input)


selu_ = pytensor.selu_


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> celu(pytensor.tensor([2.0])).tolist()
    [2.0]
    """
    return pytensor.celu_(input, alpha) if inplace else pytensor.celu(input, alpha)


celu_ = pytensor.celu_


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x.

    >>> leaky_relu(pytensor.tensor([-2.0, 1.0]), 0.5).tolist()
    [-1.0, 1.0]
    """
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place leaky_relu (torch._C._nn.leaky_relu_)."""
    return _nn.leaky_relu_(input, negative_slope)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x if x > 0 else weight[c] * x, weight per channel (dim 1) or one for all.

    >>> prelu(pytensor.tensor([-2.0, 1.0]), pytensor.tensor([0.25])).tolist()
    [-0.5, 1.0]
    """
    return pytensor.prelu(input, weight)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: a slope drawn uniformly from [lower, upper] per negative element
    while training (through the default generator), their mean otherwise.

    >>> rrelu(pytensor.tensor([-1.0, 1.0]), 0.5, 0.5).tolist()
    [-0.5, 1.0]
    """
    if inplace:
        return pytensor.rrelu_(input, lower, upper, training)
    return pytensor.rrelu(input, lower, upper, training)


rrelu_ = pytensor.rrelu_


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of input along dim.

    >>> glu(pytensor.tensor([1.0, 0.0])).tolist()
    [0.5]
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nn.glu(input, dim)


# ---------------------------------------------------------------- smooth activations
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (approximate='tanh': the tanh approximation).

    >>> gelu(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return _nn.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x).

    >>> silu(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)).

    >>> mish(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return _nn.mish_(input) if inplace else _nn.mish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6.

    >>> hardsigmoid(pytensor.tensor([0.0])).tolist()
    [0.5]
    """
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6.

    >>> hardswish(pytensor.tensor([3.0])).tolist()
    [3.0]
    """
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold.

    >>> softplus(pytensor.tensor([30.0])).tolist()
    [30.0]
    """
    return _nn.softplus(input, beta, threshold)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed stably.

    >>> round(logsigmoid(pytensor.tensor([0.0])).item(), 4)
    -0.6931
    """
    return _nn.log_sigmoid(input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between.

    >>> softshrink(pytensor.tensor([1.0, 0.25])).tolist()
    [0.5, 0.0]
    """
    return _nn.softshrink(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x outside [-lambd, lambd], 0 inside.

    >>> hardshrink(pytensor.tensor([1.0, 0.25])).tolist()
    [1.0, 0.0]
    """
    return pytensor.hardshrink(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x).

    >>> tanhshrink(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|).

    >>> softsign(pytensor.tensor([1.0])).tolist()
    [0.5]
    """
    return input / (input.abs() + 1)


def tanh(input: Tensor) -> Tensor:
    """tanh(x) (the Tensor method).

    >>> tanh(pytensor.tensor([0.0])).tolist()
    [0.0]
    """
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    """sigmoid(x) (the Tensor method).

    >>> sigmoid(pytensor.tensor([0.0])).tolist()
    [0.5]
    """
    return input.sigmoid()


# ---------------------------------------------------------------- softmax family
def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim (dim=None: torch's legacy choice, with its warning).

    >>> softmax(pytensor.tensor([0.0, 0.0]), dim=0).tolist()
    [0.5, 0.5]
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """softmax(-x) along dim.

    >>> softmin(pytensor.tensor([0.0, 0.0]), dim=0).tolist()
    [0.5, 0.5]
    """
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """log(softmax(x)) along dim, computed stably.

    >>> round(log_softmax(pytensor.tensor([0.0, 0.0]), dim=0).tolist()[0], 4)
    -0.6931
    """
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution; hard=True gives one-hot samples whose
    gradient is the soft sample's (straight through).

    >>> pytensor.manual_seed(0) is not None
    True
    >>> y = gumbel_softmax(pytensor.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist()
    [1.0, 1.0]
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -pytensor.empty_like(logits, memory_format=pytensor.contiguous_format) \
        .exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = pytensor.zeros_like(logits, memory_format=pytensor.contiguous_format) \
        .scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------- dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p).

    >>> dropout(pytensor.ones(3), 0.5, training=False).tolist()
    [1.0, 1.0, 1.0]
    """
    _check_p(p)
    return pytensor.dropout_(input, p, training) if inplace else pytensor.dropout(input, p,
                                                                                    training)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout that keeps a SELU network's mean and variance.

    >>> alpha_dropout(pytensor.ones(2), 0.5).tolist()
    [1.0, 1.0]
    """
    _check_p(p)
    if inplace:
        return pytensor.alpha_dropout_(input, p, training)
    return pytensor.alpha_dropout(input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels (dim 1).

    >>> feature_alpha_dropout(pytensor.ones(1, 2), 0.5).tolist()
    [[1.0, 1.0]]
    """
    _check_p(p)
    if inplace:
        return pytensor.feature_alpha_dropout_(input, p, training)
    return pytensor.feature_alpha_dropout(input, p, training)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    if inplace:
        return pytensor.feature_dropout_(input, p, training)
    return pytensor.feature_dropout(input, p, training)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, L) or (C, L) input with probability p.

    >>> dropout1d(pytensor.ones(1, 2, 3), training=False).shape
    pytensor.Size([1, 2, 3])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    batched = ndim == 3
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, H, W) input with probability p (3-D input: torch's
    legacy reading as (N, C, L), with its warning).

    >>> dropout2d(pytensor.ones(1, 2, 3, 3), training=False).shape
    pytensor.Size([1, 2, 3, 3])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p.

    >>> dropout3d(pytensor.ones(1, 2, 1, 1, 1), training=False).shape
    pytensor.Size([1, 2, 1, 1, 1])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2)
    batched = ndim == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result
