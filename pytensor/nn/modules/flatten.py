"""``Flatten`` (dims ``start_dim..end_dim`` into one) and ``Unflatten`` (one dim into
``unflattened_size``), as torch's nn/modules/flatten.py.

>>> import pytensor
>>> from pytensor import nn
>>> tuple(nn.Unflatten(1, (2, 3))(pytensor.zeros(4, 6)).shape)
(4, 2, 3)
"""

from __future__ import annotations

import math

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """``Flatten(start_dim=1, end_dim=-1)``."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _unflatten(input, dim: int, sizes):
    """``Tensor.unflatten(dim, sizes)``: a view where the strides allow, else a copy."""
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    dim %= ndim
    shape = list(input.shape) or [1]
    n = shape[dim]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known != 0 and n % known == 0:
        sizes[sizes.index(-1)] = n // known
    if -1 in sizes or math.prod(sizes) != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size "
                           f"of dim {dim} ({n}) in the input tensor")
    return input.reshape(shape[:dim] + sizes + shape[dim + 1:])


class Unflatten(Module):
    """``Unflatten(dim, unflattened_size)``: ``unflattened_size`` a tuple or list of ints (or
    a Size)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element "
                                    f"of type {type(elem).__name__} at pos {idx}")
            return
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(input).__name__}")

    def forward(self, input):
        unflatten = getattr(type(input), "unflatten", None)
        if unflatten is not None:
            return unflatten(input, self.dim, self.unflattened_size)
        return _unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
