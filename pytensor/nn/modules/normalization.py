"""Normalization layers over features: ``LayerNorm``, ``GroupNorm``, ``RMSNorm``,
``LocalResponseNorm`` and the legacy ``CrossMapLRN2d``.

>>> import pytensor
>>> ln = pytensor.nn.LayerNorm(2)
>>> [round(v, 4) for v in ln(pytensor.tensor([[1.0, 3.0]])).flatten().tolist()]
[-1.0, 1.0]
"""

from __future__ import annotations

import numbers

from ... import _factory
import pytensor as _pt
from .. import functional as F, init
from ...autograd import Function
from ..parameter import Parameter
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


class LocalResponseNorm(Module):
    """Normalizes each element by the sum of squares of its neighbours across channels."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _channel_window_sum(values, lo: list, hi: list):
    """Per channel c, the sum of ``values[:, lo[c]:hi[c]]`` (prefix sums over channels)."""
    prefix = _pt.cat([_pt.zeros_like(values[:, :1]), values.cumsum(1)], 1)
    index = (lambda v: _factory.tensor(v, dtype=_pt.int64, device=values.device))
    return prefix.index_select(1, index(hi)) - prefix.index_select(1, index(lo))


class _CrossMapLRN2dFunction(Function):
    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise ValueError(
                f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        pre = int((size - 1) / 2 + 1)
        squares = input * input
        hi = [min(c + pre - 1, channels - 1) + 1 for c in range(channels)]
        lo = [0 if c <= pre else c - pre + 1 for c in range(channels)]
        window = _channel_window_sum(squares, lo, hi)
        if channels > pre + 1:  # channel 0 stays in the running sum of the original
            keep_first = _factory.tensor([float(c > pre) for c in range(channels)],
                                         dtype=input.dtype, device=input.device)
            window = window + squares[:, :1] * keep_first.view(1, channels, 1, 1)
        scale = window * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.size(1)
        shift = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        lo = [min(max(c - shift, 0), channels) for c in range(channels)]
        hi = [min(max(c + size - shift, 0), channels) for c in range(channels)]
        accum = _channel_window_sum(ratio, lo, hi)
        grad = (scale.pow(-ctx.beta) * grad_output
                - input * accum * (2 * ctx.alpha * ctx.beta / size))
        return grad, None, None, None, None


class CrossMapLRN2d(Module):
    """The legacy (Lua torch) cross-channel LRN over a 4D input.

    Its channel window is torch's, which the original's running-sum recurrence fixes: with
    ``p = int((size - 1) / 2 + 1)`` and ``hi = min(c + p - 1, C - 1)``, channel c sums the
    squares of channels ``0..hi`` while ``c <= p``, and of channel 0 plus ``c - p + 1..hi`` after
    (channel 0 never leaves the sum); the result is
    ``input * (k + alpha / size * window_sum) ** -beta``. Its gradient is torch's formula for
    this layer, which sums over the symmetric window of ``size`` channels (not the derivative of
    the quirky forward window).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _shape_tuple(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dimensions of each sample."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            shape = self.normalized_shape
            self.weight = Parameter(_factory.empty(shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_factory.empty(shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    """Normalizes each group of ``num_channels // num_groups`` channels of each sample."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(_factory.empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_factory.empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """Divides by the root mean square over the trailing ``normalized_shape`` dimensions."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factory.empty(self.normalized_shape, device=device,
                                                   dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, "
                "elementwise_affine={elementwise_affine}".format(**self.__dict__))
