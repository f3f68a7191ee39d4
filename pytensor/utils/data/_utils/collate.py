"""``default_collate`` and ``default_convert``: stack a list of samples into a batch (tensors gain
a leading batch dimension; NumPy arrays and scalars and Python numbers become tensors; strings
stay; Mappings, namedtuples and sequences are collated field by field) and convert one sample's
NumPy data into tensors. ``collate`` with a ``collate_fn_map`` is the extensible core, keyed by
element type (exact type first, then ``isinstance`` in insertion order), as in torch.

In a worker process a batch of tensors is stacked straight into a shared-memory file, so that the
main process maps it instead of receiving a copy (Note [DataLoader batches in shared memory] in
shm.py).
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import re
from typing import Callable, Dict, Optional, Tuple, Type, Union

import pytensor

# NumPy dtype strings of bytes, unicode and object arrays, which have no tensor counterpart.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)

_CollateMap = Optional[Dict[Union[Type, Tuple[Type, ...]], Callable]]


def default_convert(data):
    """Converts the NumPy arrays and scalars inside one sample into tensors, keeping the
    containers (a tuple becomes a list, as in torch); everything else is returned unchanged.

    >>> default_convert((1, [2]))
    [1, [2]]
    """
    elem_type = type(data)
    if isinstance(data, pytensor.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return pytensor.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _collate_mapping(batch, elem, elem_type, collate_fn_map):
    def field(key):
        return collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update({key: field(key) for key in elem})
            return clone
        return elem_type({key: field(key) for key in elem})
    except TypeError:
        return {key: field(key) for key in elem}


def _collate_sequence(batch, elem, elem_type, collate_fn_map):
    it = iter(batch)
    elem_size = len(next(it))
    if not all(len(e) == elem_size for e in it):
        raise RuntimeError("each element in list of batch should be of equal size")
    transposed = list(zip(*batch))
    if isinstance(elem, tuple):
        return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, samples in enumerate(transposed):
                clone[i] = collate(samples, collate_fn_map=collate_fn_map)
            return clone
        return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                          for samples in transposed])
    except TypeError:
        return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]


def collate(batch, *, collate_fn_map: _CollateMap = None):
    """Collates a batch whose elements share a type: a function of ``collate_fn_map`` handles the
    element type (exact match first, then the first key the element is an instance of); Mappings,
    namedtuples and sequences are collated field by field; any other type is a TypeError.

    >>> collate([1, 2], collate_fn_map={int: lambda b, *, collate_fn_map: sum(b)})
    3
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _collate_mapping(batch, elem, elem_type, collate_fn_map)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequence(batch, elem, elem_type, collate_fn_map)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map: _CollateMap = None):
    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    if elem.layout is not pytensor.strided:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    out = None
    from . import worker
    if worker._worker_info is not None and elem.device.type == "cpu":
        from . import shm
        out = shm.empty_shared(len(batch), elem)
    return pytensor.stack(batch, 0, out=out)


def collate_numpy_array_fn(batch, *, collate_fn_map: _CollateMap = None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([pytensor.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: _CollateMap = None):
    return pytensor.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map: _CollateMap = None):
    return pytensor.tensor(batch, dtype=pytensor.float64)


def collate_int_fn(batch, *, collate_fn_map: _CollateMap = None):
    return pytensor.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: _CollateMap = None):
    return batch


default_collate_fn_map: Dict[Union[Type, Tuple[Type, ...]], Callable] = {
    pytensor.Tensor: collate_tensor_fn}
with contextlib.suppress(ImportError):
    import numpy as np
    default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
    # np.bool_ is not a np.number; object scalars fail in as_tensor as they do in torch.
    default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Puts a batch of samples together: tensors (and NumPy arrays) are stacked along a new first
    dimension, floats become a float64 tensor, ints an int64 tensor, strings and bytes stay a
    list, and Mappings, namedtuples and sequences are collated per field.

    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    >>> default_collate([{"a": 1.0}, {"a": 2.0}])
    {'a': tensor([1., 2.], dtype=pytensor.float64)}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
