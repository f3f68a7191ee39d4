"""Activation layers: one class per activation function of ``pytensor.nn.functional`` (all of
torch's but ``MultiheadAttention``, which lives with the attention layers), with torch's
arguments, ``inplace`` flags, ``extra_repr`` text and, for ``PReLU``, its learnable slope.

>>> import pytensor
>>> pytensor.nn.ReLU()(pytensor.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

import warnings

import pytensor as _pt
from ... import _factory
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU",
    "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU",
    "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin",
    "Softmax", "Softmax2d", "LogSoftmax",
]


def _inplace_tail(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only argument is ``inplace``; its repr shows ``inplace=True`` or
    nothing (classes without an ``extra_repr`` of their own in torch set ``_shows``)."""

    __constants__ = ["inplace"]
    _fn = None
    _shows = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace and self._shows else ""


class _Plain(Module):
    """An activation without arguments."""

    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class Threshold(Module):
    """``y = x if x > threshold else value``."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_tail(self.inplace)}"


class ReLU(_Inplace):
    """``max(0, x)``."""
    _fn = staticmethod(F.relu)


class RReLU(Module):
    """Leaky ReLU with a random slope in ``[lower, upper]`` while training, their mean in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_tail(self.inplace)}"


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value=None, max_value=None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_tail(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(_Plain):
    """``1 / (1 + exp(-x))``."""
    _fn = staticmethod(_pt.sigmoid)


class Hardsigmoid(_Inplace):
    """``clamp(x / 6 + 1 / 2, 0, 1)``."""
    _fn = staticmethod(F.hardsigmoid)
    _shows = False


class Tanh(_Plain):
    """``tanh(x)``."""
    _fn = staticmethod(_pt.tanh)


class SiLU(_Inplace):
    """``x * sigmoid(x)``."""
    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""
    _fn = staticmethod(F.mish)


class Hardswish(_Inplace):
    """``x * hardsigmoid(x)``."""
    _fn = staticmethod(F.hardswish)
    _shows = False


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with the self-normalizing constants."""
    _fn = staticmethod(F.selu)


class _Alpha(Module):
    __constants__ = ["alpha", "inplace"]
    _fn = None

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_tail(self.inplace)}"


class ELU(_Alpha):
    """``x if x > 0 else alpha * (exp(x) - 1)``."""
    _fn = staticmethod(F.elu)


class CELU(_Alpha):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    _fn = staticmethod(F.celu)


class GLU(Module):
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """``x * Phi(x)`` (``approximate='tanh'``: its tanh approximation)."""

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class _Lambd(Module):
    __constants__ = ["lambd"]
    _fn = None

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(_Lambd):
    """``x if |x| > lambd else 0``."""
    _fn = staticmethod(F.hardshrink)


class Softshrink(_Lambd):
    """``x - sign(x) * lambd if |x| > lambd else 0``."""
    _fn = staticmethod(F.softshrink)


class LeakyReLU(Module):
    """``x if x >= 0 else negative_slope * x``."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_tail(self.inplace)}"


class LogSigmoid(_Plain):
    """``log(sigmoid(x))``."""
    _fn = staticmethod(F.logsigmoid)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Leaky ReLU with a learnable slope, one per channel or one shared."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_factory.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(_Plain):
    """``x / (1 + |x|)``."""
    _fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    """``x - tanh(x)``."""
    _fn = staticmethod(F.tanhshrink)


class _SoftmaxBase(Module):
    __constants__ = ["dim"]
    _fn = None

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """``softmax(-x)`` along ``dim``."""
    _fn = staticmethod(F.softmin)


class Softmax(_SoftmaxBase):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    _fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x))`` along ``dim``."""
    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channels at each spatial location of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)
