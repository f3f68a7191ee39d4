"""``pytensor.unravel_index``: torch's own is Python (torch/functional.py), so this one is too.

The coordinates of flat indices in a shape: each index is divided by the row-major strides of
the shape (floor division, so that negative indices count from the end as torch's do) and taken
modulo each dimension's size, by the tensor operators; the result is one tensor per dimension.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of the flat (row-major) ``indices``, one tensor per dimension.

    >>> import pytensor
    >>> [t.tolist() for t in pytensor.unravel_index(pytensor.tensor([4, 7]), (3, 3))]
    [[1, 2], [1, 1]]
    """
    import pytensor

    if indices.is_complex() or indices.is_floating_point() or indices.dtype == pytensor.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
    shape = tuple(shape)
    if any(dim < 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = list(reversed(list(itertools.accumulate(reversed(shape[1:] + (1,)),
                                                      func=operator.mul))))
    coords = indices.unsqueeze(-1).floor_divide(
        pytensor.tensor(strides, device=indices.device, dtype=pytensor.int64)
    ) % pytensor.tensor(list(shape), device=indices.device, dtype=pytensor.int64)
    return coords.unbind(-1)
