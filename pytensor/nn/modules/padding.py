"""Padding layers: constant, zero, reflection, replication and circular padding in 1, 2 and 3
dimensions, each a ``F.pad`` call with torch's padding tuple (left, right[, top, bottom[, front,
back]]) and ``extra_repr``.

>>> import pytensor
>>> pytensor.nn.ZeroPad1d(1)(pytensor.tensor([[1.0, 2.0]])).tolist()
[[0.0, 1.0, 2.0, 0.0]]
"""

from __future__ import annotations

from .. import functional as F
from .batchnorm import _dims_check
from .conv import _ntuple
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]


class _PadNd(Module):
    """Padding by ``mode``; ``_sides`` is the padding tuple's length (2 per padded dimension)."""

    __constants__ = ["padding"]
    _mode = ""
    _sides = 0

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(self._sides)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dimension by wrapping around."""
    _sides = 2
    _check_input_dim = _dims_check((2, 3))


class CircularPad2d(_CircularPadNd):
    """Pads the last two dimensions by wrapping around."""
    _sides = 4
    _check_input_dim = _dims_check((3, 4))


class CircularPad3d(_CircularPadNd):
    """Pads the last three dimensions by wrapping around."""
    _sides = 6
    _check_input_dim = _dims_check((4, 5))


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _sides = 0

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _ntuple(self._sides)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with ``value``."""
    _sides = 2


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with ``value``."""
    _sides = 4


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with ``value``."""
    _sides = 6


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dimension with its reflection about the edge (edge not repeated)."""
    _sides = 2


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dimensions with their reflection about the edges."""
    _sides = 4


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last three dimensions with their reflection about the edges."""
    _sides = 6


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dimension by repeating its edge values."""
    _sides = 2


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dimensions by repeating their edge values."""
    _sides = 4


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last three dimensions by repeating their edge values."""
    _sides = 6


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
