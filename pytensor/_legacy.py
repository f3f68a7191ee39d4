"""The legacy typed tensor classes (``pytensor.FloatTensor``, ``pytensor.cuda.LongTensor``, ...) and
the legacy constructor that they and ``pytensor.Tensor(...)`` share.

One class per real dtype of the C table that has a legacy name, for each of the CPU and CUDA
device types, made at start-up. They are never instantiated: their metaclass turns a call into a
plain Tensor of that dtype and device, and ``isinstance`` into a check of a Tensor's dtype and
device type, which is what torch's tensor-type objects do.
"""

from __future__ import annotations

from . import _dtype
from ._C import lib
from ._args import _int64s, _size_args
from ._tensor import Tensor, _call

_by_key: dict = {}  # (device type, dtype id) -> class


class _LegacyTensorType(type):
    """Metaclass of FloatTensor & co.: instances are plain Tensors of that dtype and device."""

    def __instancecheck__(cls, obj) -> bool:
        if not isinstance(obj, Tensor):
            return False
        h = obj._h
        return (lib.pt_tensor_dtype(h) == cls._dtype_id
                and lib.pt_tensor_device(h).type == cls._device_type)

    def __call__(cls, *args, device=None):
        if device is None and cls._device_type == lib.PT_DEV_CUDA:
            device = "cuda"
        return legacy_new(cls._dtype_id, args, device, cls.__name__)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def is_legacy_class(obj) -> bool:
    return isinstance(obj, _LegacyTensorType)


def from_name(name: str) -> _LegacyTensorType:
    """The class named by a type string: "pytensor.FloatTensor", "torch.cuda.LongTensor", ..."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[0] in ("pytensor", "torch"):
        parts = parts[1:]
    device_type = lib.PT_DEV_CPU
    if len(parts) == 2 and parts[0] == "cuda":
        device_type, parts = lib.PT_DEV_CUDA, parts[1:]
    if len(parts) == 1:
        for (dev, _), cls in _by_key.items():
            if dev == device_type and cls.__name__ == parts[0]:
                return cls
    raise ValueError(f"invalid type: '{name}'")


def type_name(dtype_id: int, device_type: int) -> str:
    prefix = "pytensor.cuda." if device_type == lib.PT_DEV_CUDA else "pytensor."
    return f"{prefix}{_dtype._dtypes_by_id[dtype_id]._legacy_name}Tensor"


def legacy_new(dtype_id: int, args, device, fname: str) -> Tensor:
    """torch's legacy constructor: (), (*sizes), (Size), (data), (tensor) or (storage)."""
    from . import _factory, _storage

    dt = _dtype._dtypes_by_id[dtype_id]
    if len(args) == 1 and not isinstance(args[0], int):
        a = args[0]
        if isinstance(a, Tensor):
            if lib.pt_tensor_dtype(a._h) != dtype_id:
                raise TypeError(
                    f"{fname}(): expected {dt._legacy_name} but got {a.dtype._legacy_name}"
                )
            return a._alias()
        if isinstance(a, _storage._StorageBase):
            n = lib.pt_storage_nbytes(a._h) // dt.itemsize
            return _call(lib.pt_tensor_from_storage, a._h, dtype_id, 1, _int64s([n]),
                         _int64s([1]), 0)
        if type(a) in (list, tuple) or hasattr(a, "__array_interface__"):
            return _factory.tensor(a, dtype=dt, device=device)
    sizes = _size_args(args, fname) if args else [0]
    return _factory.empty(sizes, dtype=dt, device=device)


def _build(module) -> None:
    cuda = getattr(module, "cuda", None)
    for dt in _dtype._dtypes_by_id:
        if dt is None or dt.is_complex or not dt._legacy_name:
            continue
        name = dt._legacy_name + "Tensor"
        for device_type, target in ((lib.PT_DEV_CPU, module), (lib.PT_DEV_CUDA, cuda)):
            cls = _LegacyTensorType(name, (Tensor,), {
                "__slots__": (), "_dtype_id": dt._id, "_device_type": device_type,
                "__module__": module.__name__ + (".cuda" if device_type == lib.PT_DEV_CUDA else ""),
            })
            _by_key[(device_type, dt._id)] = cls
            if target is not None:
                setattr(target, name, cls)
