"""Loss reductions: torch's enum values (``torch.nn._reduction``) and the legacy
``size_average``/``reduce`` arguments.

>>> from pytensor.nn import _reduction
>>> _reduction.get_enum("mean")
1
"""

from __future__ import annotations

import warnings

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The reduction's enum (what the loss operators take): none 0, mean 1, sum 2."""
    try:
        return _ENUM[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction string that the deprecated size_average/reduce pair stands for."""
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=3)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
