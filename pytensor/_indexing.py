"""Basic indexing: ``t[idx]`` and ``t[idx] = value`` with ints, slices, None, Ellipsis and tuples
of them, as in torch.

Every basic index is a view, so ``getitem`` is a walk over the index tuple that applies one C view
function per entry: an int selects (removing the dimension), a slice narrows with a step (keeping
it), None inserts a dimension of size 1 and the Ellipsis skips the dimensions that the other
entries do not name. ``setitem`` takes that view and writes into it with ``copy_`` (tensors, nested
lists: broadcast and cast) or ``fill_`` (numbers). Advanced indexing (tensors, lists, bools as
indices) is not implemented yet and says so.
"""

from __future__ import annotations

import operator

from ._C import lib
from ._tensor import Tensor, _call

_INT64_MAX = (1 << 63) - 1
_ADVANCED = "indexing with tensors, lists or booleans (advanced indexing) is not implemented yet"


def _as_int(x):
    """The int value of an index entry, or None when it is not an integer."""
    if type(x) is int:
        return x
    if isinstance(x, (bool, Tensor)) or not hasattr(type(x), "__index__"):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _check_entry(x) -> None:
    if isinstance(x, (bool, Tensor, list)) or hasattr(x, "__array_interface__"):
        raise NotImplementedError(f"{_ADVANCED} (got {type(x).__name__})")
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(x).__name__})"
    )


def _select(t: Tensor, dim: int, index: int, orig_dim: int) -> Tensor:
    n = lib.pt_tensor_sizes(t._h)[dim]
    if index < -n or index >= n:
        raise IndexError(f"index {index} is out of bounds for dimension {orig_dim} with size {n}")
    return _call(lib.pt_tensor_select, t._h, dim, index)


def _slice(t: Tensor, dim: int, s: slice) -> Tensor:
    step = 1 if s.step is None else operator.index(s.step)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start = 0 if s.start is None else operator.index(s.start)
    stop = _INT64_MAX if s.stop is None else operator.index(s.stop)
    # Python ints past int64 clamp like any out-of-range bound.
    start = max(min(start, _INT64_MAX), -_INT64_MAX)
    stop = max(min(stop, _INT64_MAX), -_INT64_MAX)
    return _call(lib.pt_tensor_slice, t._h, dim, start, stop, step)


def _select_many(t: Tensor, index: tuple) -> Tensor:
    """``t[i, j, ...]`` with ints only: one view over the remaining dims (one C call instead of one
    per index)."""
    h = t._h
    ndim = lib.pt_tensor_ndim(h)
    sizes = lib.pt_tensor_sizes(h)
    strides = lib.pt_tensor_strides(h)
    offset = lib.pt_tensor_offset(h)
    for d, i in enumerate(index):
        n = sizes[d]
        if i < -n or i >= n:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
        offset += (i + n if i < 0 else i) * strides[d]
    k = len(index)
    return _call(lib.pt_tensor_as_strided, h, ndim - k, sizes + k, strides + k, offset)


def getitem(t: Tensor, index) -> Tensor:
    """``t[index]`` for basic indices (always a view)."""
    ndim = lib.pt_tensor_ndim(t._h)
    if type(index) is int and ndim:
        return _select(t, 0, index, 0)
    if not isinstance(index, tuple):
        index = (index,)
    elif 0 < len(index) <= ndim and all(type(x) is int for x in index):
        return _select_many(t, index)
    kinds = []
    consumed = 0
    ellipses = 0
    for x in index:
        if x is None:
            kinds.append(None)
        elif x is Ellipsis:
            ellipses += 1
            kinds.append(Ellipsis)
        elif type(x) is slice:
            consumed += 1
            kinds.append(x)
        else:
            i = _as_int(x)
            if i is None:
                _check_entry(x)
            consumed += 1
            kinds.append(i)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        if ndim == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python to convert a "
                "0-dim tensor to a number"
            )
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    cur = t
    dim = 0
    orig_dim = 0
    for k in kinds:
        if k is None:
            cur = _call(lib.pt_tensor_unsqueeze, cur._h, dim)
            dim += 1
        elif k is Ellipsis:
            dim += ndim - consumed
            orig_dim += ndim - consumed
        elif type(k) is slice:
            if not (k.start is None and k.stop is None and k.step is None):
                cur = _slice(cur, dim, k)
            dim += 1
            orig_dim += 1
        else:
            cur = _select(cur, dim, k, orig_dim)
            orig_dim += 1
    return cur._alias() if cur is t else cur


def setitem(t: Tensor, index, value) -> None:
    """``t[index] = value``: numbers fill, tensors and nested lists are broadcast and cast."""
    view = getitem(t, index)
    if isinstance(value, Tensor):
        src = value
    elif isinstance(value, (list, tuple)) or hasattr(value, "__array_interface__"):
        from ._factory import tensor

        src = tensor(value, dtype=view.dtype, device=view.device)
    else:
        view.fill_(value)
        return
    # torch drops leading size-1 dims of the value that the destination does not have.
    dst_ndim = lib.pt_tensor_ndim(view._h)
    while lib.pt_tensor_ndim(src._h) > dst_ndim and lib.pt_tensor_sizes(src._h)[0] == 1:
        src = _call(lib.pt_tensor_select, src._h, 0, 0)
    view.copy_(src)
