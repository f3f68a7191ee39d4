"""Pickling of tensors in PyTorch's scheme: a tensor is its storage plus a rebuild function.

``Tensor.__reduce_ex__`` returns ``(_rebuild_tensor_v2, (storage, offset, size, stride,
requires_grad, hooks))`` where ``storage`` is a TypedStorage over the tensor's C storage. The
same Python storage object stands for one C storage while any of them is alive (a weak cache keyed
by the C address and dtype), so pickle's memo writes a storage that several tensors share once
and the loaded tensors share one storage again; a view stays a view (its offset and strides).
``pytensor.save`` catches those storages with ``persistent_id`` and writes their bytes as zip
records instead (pytensor/serialization.py).

The functions keep the names torch's pickles reference (``torch._utils._rebuild_tensor_v2``,
``_rebuild_parameter``, ``torch._tensor._rebuild_from_type_v2``), so files move both ways.

>>> import pickle, pytensor
>>> a = pytensor.arange(4.)
>>> b, c = pickle.loads(pickle.dumps([a, a[1:]]))
>>> c.storage_offset(), b.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
(1, True)
"""

from __future__ import annotations

import weakref
from collections import OrderedDict

from . import _dtype, _storage
from ._C import ffi, lib

# (C storage address, dtype id) -> the TypedStorage standing for it while it lives. A live entry
# holds a reference to its C storage, so its address cannot be reused by another storage.
_storage_objects: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _typed_storage(t):
    """The TypedStorage of ``t``'s dtype over ``t``'s C storage (one object per pair)."""
    h = lib.pt_tensor_storage(t._h)
    d = t.dtype
    key = (int(ffi.cast("uintptr_t", h)), d._id)
    s = _storage_objects.get(key)
    if s is None:
        lib.pt_storage_retain(h)
        s = _storage._typed_classes[d._id]._new_wrapping(h, d)
        _storage_objects[key] = s
    return s


def _obj_state(obj):
    """The attributes a tensor carries in its ``__dict__`` (None when there are none)."""
    state = getattr(obj, "__dict__", None)
    return dict(state) if state else None


def _resolved(t):
    """``t`` itself, or a copy with its conjugate/negative bits applied (those views have no
    storage layout torch can rebuild)."""
    if lib.pt_tensor_math_bits(t._h):
        return t.resolve_conj().resolve_neg()
    return t


def reduce_tensor(t):
    """``Tensor.__reduce_ex__``: torch's storage + rebuild-function scheme."""
    from ._tensor import Tensor
    h = t._h
    if lib.pt_tensor_layout(h) != lib.PT_LAYOUT_STRIDED:
        raise RuntimeError("pickle: sparse tensors cannot be pickled yet")
    if lib.pt_tensor_device(h).type == lib.PT_DEV_META:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    src = _resolved(t)
    args = (_typed_storage(src), lib.pt_tensor_offset(src._h), tuple(src.shape), src.stride(),
            t.requires_grad, OrderedDict())
    state = t.__dict__ if type(t) is Tensor else _obj_state(t)
    if not state and type(t) is Tensor:
        return (_rebuild_tensor_v2, args)
    state = dict(state) if state else None
    return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(t), args, state))


def reduce_parameter(p):
    """``Parameter.__reduce_ex__``: the data as a plain tensor plus requires_grad (and the
    instance's attributes when it has any)."""
    state = _obj_state(p)
    data = p.detach()
    if not state:
        return (_rebuild_parameter, (data, p.requires_grad, OrderedDict()))
    return (_rebuild_parameter_with_state, (data, p.requires_grad, OrderedDict(), state))


def deepcopy_tensor(t, memo):
    """``Tensor.__deepcopy__``: a new tensor over a copy of the storage; tensors of one storage
    copied through one ``memo`` share the copy, so views stay views of it."""
    from ._tensor import Tensor
    if id(t) in memo:
        return memo[id(t)]
    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment.  If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils."
                           "weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    if t.is_sparse or t.is_meta or lib.pt_tensor_math_bits(t._h):
        new = t.detach().clone()
    else:
        h = lib.pt_tensor_storage(t._h)
        key = ("pytensor.storage", int(ffi.cast("uintptr_t", h)))
        copied = memo.get(key)
        if copied is None:
            src = _typed_storage(t).untyped()
            copied = memo[key] = src.clone()
            memo.setdefault(id(memo), []).append(src)  # keeps the address in use meanwhile
        new = _tensor_over(copied, t.dtype, t.storage_offset(), tuple(t.shape), t.stride())
    if type(t) is not Tensor:
        new = new.as_subclass(type(t))
    if t.requires_grad:
        new.requires_grad_(True)
    state = _obj_state(t)
    if state:
        import copy
        for k, v in state.items():
            setattr(new, k, copy.deepcopy(v, memo))
    memo[id(t)] = new
    return new


def _tensor_over(storage, dtype, offset: int, size, stride):
    """A tensor of ``dtype`` over ``storage`` (any storage class) with that layout."""
    from ._tensor import _call
    from ._args import _int64s
    d = _dtype._to_dtype(dtype)
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"rebuild: size has {len(size)} dimensions but stride has "
                           f"{len(stride)}")
    return _call(lib.pt_tensor_from_storage, storage._h, d._id, len(size), _int64s(size),
                 _int64s(stride), offset)


# ---------------------------------------------------------------- rebuild functions (torch's names)
def _rebuild_tensor(storage, storage_offset, size, stride):
    dtype = storage.dtype if isinstance(storage, _storage.TypedStorage) else _dtype.uint8
    return _tensor_over(storage, dtype, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    t = _tensor_over(storage, dtype, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _set_obj_state(obj, state):
    if isinstance(state, tuple):  # (dict state, slots state)
        dict_state, slots_state = state if len(state) == 2 else (state[0], None)
        state = dict(dict_state or {})
        state.update(slots_state or {})
    for k, v in (state or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    from ._tensor import Tensor
    ret = func(*args)
    if type(ret) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise RuntimeError(f"rebuild: {new_type!r} is not a Tensor class")
        ret = ret.as_subclass(new_type)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        ret.__setstate__(state)
    else:
        _set_obj_state(ret, state)
    return ret

