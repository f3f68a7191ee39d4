"""Indexing: ``t[idx]`` and ``t[idx] = value`` with ints, slices, None, Ellipsis, tensors, lists and
bools, and tuples of them, as in torch.

Every basic index is a view, so ``getitem`` is a walk over the index tuple that applies one C view
function per entry: an int selects (removing the dimension), a slice narrows with a step (keeping
it), None inserts a dimension of size 1 and the Ellipsis skips the dimensions that the other
entries do not name. ``setitem`` takes that view and writes into it with ``copy_`` (tensors, nested
lists: broadcast and cast) or ``fill_`` (numbers).

Advanced indices (tensors, lists and NumPy arrays, Python bools) take torch's route
(applySlicing): the same walk applies the basic entries as views and records each advanced one
with the dimension of the view it indexes - a bool or byte mask covers as many dimensions as it
has, a Python bool (or 0-d bool tensor) inserts a dimension of size 1 and indexes it with [0] for
True or [] for False, and a 0-d integer tensor selects like an int. The view and the recorded
indices (None for the dimensions between them) then go to ``aten::index`` for reading and to
``aten::index_put_`` for writing, which place the indexed dimensions as NumPy does (kept in place
when adjacent, moved to the front otherwise).
"""

from __future__ import annotations

import operator

from ._C import ffi, lib
from ._tensor import Tensor, _call, _ret

_NULL = ffi.NULL
_INT64_MAX = (1 << 63) - 1


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


def _is_advanced(x) -> bool:
    return isinstance(x, (bool, Tensor, list)) or hasattr(x, "__array_interface__")


def _has_advanced(entries: tuple) -> bool:
    for x in entries:
        if x is None or x is Ellipsis or type(x) is slice or _as_int(x) is not None:
            continue
        _check_entry(x)
        return True
    return False


def _check_entry(x) -> None:
    if not _is_advanced(x):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            f"valid indices (got {type(x).__name__})"
        )


def _select(t: Tensor, dim: int, index: int, orig_dim: int) -> Tensor:
    n = lib.pt_tensor_sizes(t._h)[dim]
    if index < -n or index >= n:
        raise IndexError(f"index {index} is out of bounds for dimension {orig_dim} with size {n}")
    if lib.pt_autograd_requires_grad(t._h):  # the operator, so that autograd records it
        return _ret(lib.pt_call_select_int(t._h, dim, index))
    return _call(lib.pt_tensor_select, t._h, dim, index)


def _unsqueeze(t: Tensor, dim: int) -> Tensor:
    if lib.pt_autograd_requires_grad(t._h):
        return _ret(lib.pt_call_unsqueeze(t._h, dim))
    return _call(lib.pt_tensor_unsqueeze, t._h, dim)


def _slice(t: Tensor, dim: int, s: slice) -> Tensor:
    step = 1 if s.step is None else operator.index(s.step)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start = 0 if s.start is None else operator.index(s.start)
    stop = _INT64_MAX if s.stop is None else operator.index(s.stop)
    # Python ints past int64 clamp like any out-of-range bound.
    start = max(min(start, _INT64_MAX), -_INT64_MAX)
    stop = max(min(stop, _INT64_MAX), -_INT64_MAX)
    if lib.pt_autograd_requires_grad(t._h):
        return _ret(lib.pt_call_slice_Tensor(t._h, dim, ffi.new("int64_t *", start),
                                             ffi.new("int64_t *", stop), step))
    return _call(lib.pt_tensor_slice, t._h, dim, start, stop, step)


def _select_many(t: Tensor, index: tuple) -> Tensor:
    """``t[i, j, ...]`` with ints only: one view over the remaining dims (one C call instead of one
    per index)."""
    h = t._h
    if lib.pt_autograd_requires_grad(h):
        for d, i in enumerate(index):
            t = _select(t, 0, i, d)
        return t
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
                return _advanced_get(t, index)
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
            cur = _unsqueeze(cur, dim)
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


def _mask_fill(t: Tensor, mask: Tensor, value) -> bool:
    """``t[mask] = number`` for a float tensor and a bool mask of its own shape (a training step's
    ``grad_h[h < 0] = 0``) as one ``masked_fill_``, which writes what ``index_put_`` with that mask
    writes (Note [mask put] in csrc/kernels/index_adv.c). False: not that form."""
    th, mh = t._h, mask._h
    if lib.pt_tensor_dtype(mh) != lib.PT_BOOL:
        return False
    dt = lib.pt_tensor_dtype(th)
    # Numbers the dtype holds; the general path rounds the rest to inf as torch does.
    bound = 3.4e38 if dt == lib.PT_FLOAT32 else 1.7e308 if dt == lib.PT_FLOAT64 else None
    if bound is None or not -bound <= value <= bound:
        return False
    nd = lib.pt_tensor_ndim(th)
    if nd == 0 or lib.pt_tensor_ndim(mh) != nd or \
            ffi.unpack(lib.pt_tensor_sizes(th), nd) != ffi.unpack(lib.pt_tensor_sizes(mh), nd):
        return False
    s = ffi.new("pt_scalar *")
    s.kind = lib.PT_SCALAR_FLOAT
    s.re = value
    r = lib.pt_call_masked_fill__Scalar(th, mh, s)
    if r == _NULL:
        from ._tensor import _fail

        _fail()
    lib.pt_tensor_release(r)
    return True


def setitem(t: Tensor, index, value) -> None:
    """``t[index] = value``: numbers fill, tensors and nested lists are broadcast and cast."""
    # the masked_fill_ shortcut would record MaskedFillBackward0 where torch records index_put_
    if isinstance(index, Tensor) and type(value) in (int, float) and \
            not lib.pt_autograd_requires_grad(t._h) and _mask_fill(t, index, value):
        return
    entries = index if isinstance(index, tuple) else (index,)
    if _has_advanced(entries):
        return _advanced_set(t, entries, value)
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
        src = _select(src, 0, 0, 0)
    view.copy_(src)


# ---------------------------------------------------------------- advanced indexing
def _index_tensor(x) -> Tensor:
    """An advanced index entry as a tensor (lists and arrays through pytensor.tensor)."""
    if isinstance(x, Tensor):
        return x
    from ._factory import tensor

    if isinstance(x, list) and not x:
        return tensor([], dtype=_long())
    return tensor(x)


def _long():
    from . import int64

    return int64


def _bool_index(value: bool, device) -> Tensor:
    """torch's boolToIndexingTensor: [0] for True, [] for False."""
    from ._factory import zeros

    return zeros(1 if value else 0, dtype=_long(), device=device)


def _walk(t: Tensor, entries: tuple):
    """torch's applySlicing: the view left by the basic entries and the advanced indices as
    (dim of that view, index tensor, dims it covers)."""
    ndim = lib.pt_tensor_ndim(t._h)
    plan, consumed, ellipses = [], 0, 0
    for x in entries:
        if x is None or type(x) is bool:
            plan.append(x)
        elif x is Ellipsis:
            ellipses += 1
            plan.append(x)
        elif type(x) is slice:
            consumed += 1
            plan.append(x)
        else:
            i = _as_int(x)
            if i is None:
                _check_entry(x)
                x = _index_tensor(x)
                if x.dim() == 0 and not x.is_floating_point() and not x.is_complex() and \
                        x.dtype not in _mask_dtypes():
                    i = int(x.item())
            if i is not None:
                consumed += 1
                plan.append(i)
                continue
            if x.dim() == 0 and x.dtype in _mask_dtypes():
                plan.append(bool(x.item()))
                continue
            consumed += x.dim() if x.dtype in _mask_dtypes() else 1
            plan.append(x)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    cur, dim, orig_dim, recs = t, 0, 0, []
    for k in plan:
        if k is None:
            cur = _unsqueeze(cur, dim)
            dim += 1
        elif type(k) is bool:
            cur = _unsqueeze(cur, dim)
            recs.append((dim, _bool_index(k, cur.device), 1))
            dim += 1
        elif k is Ellipsis:
            dim += ndim - consumed
            orig_dim += ndim - consumed
        elif type(k) is slice:
            if not (k.start is None and k.stop is None and k.step is None):
                cur = _slice(cur, dim, k)
            dim += 1
            orig_dim += 1
        elif type(k) is int:
            cur = _select(cur, dim, k, orig_dim)
            orig_dim += 1
        else:
            span = k.dim() if k.dtype in _mask_dtypes() else 1
            recs.append((dim, k, span))
            dim += span
            orig_dim += span
    return cur, recs


_MASKS = None


def _mask_dtypes():
    global _MASKS
    if _MASKS is None:
        from . import bool as bool_, uint8

        _MASKS = (bool_, uint8)
    return _MASKS


def _index_list(recs) -> list:
    """The indices of aten::index: one entry per dim, None where no tensor indexes it (a mask
    stands for the dims it covers)."""
    out, pos = [], 0
    for dim, tensor, span in recs:
        out.extend([None] * (dim - pos))
        out.append(tensor)
        pos = dim + span
    return out


def _handles(indices: list):
    return len(indices), ffi.new("pt_tensor *[]", [_NULL if x is None else x._h for x in indices])


def _advanced_get(t: Tensor, entries: tuple) -> Tensor:
    cur, recs = _walk(t, entries)
    if not recs:
        return cur._alias() if cur is t else cur
    n, arr = _handles(_index_list(recs))
    return _ret(lib.pt_call_index_Tensor(cur._h, n, arr))


def _advanced_set(t: Tensor, entries: tuple, value) -> None:
    cur, recs = _walk(t, entries)
    if isinstance(value, Tensor):
        src = value
    else:
        from ._factory import tensor

        src = tensor(value, dtype=cur.dtype, device=cur.device)
    # torch drops every leading size-1 dim of the value (slicePrefix1sSize).
    while lib.pt_tensor_ndim(src._h) > 0 and lib.pt_tensor_sizes(src._h)[0] == 1:
        src = _select(src, 0, 0, 0)
    if not recs:
        cur.copy_(src)
        return
    n, arr = _handles(_index_list(recs))
    r = lib.pt_call_index_put_(cur._h, n, arr, src._h, 0)
    if r == _NULL:
        from ._tensor import _fail

        _fail()
    lib.pt_tensor_release(r)
