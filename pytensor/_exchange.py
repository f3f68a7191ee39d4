"""Zero-copy exchange with NumPy (the array interface) and with any DLPack producer or consumer.

Import: an object's memory becomes an external storage whose deleter drops a cffi handle that
keeps the object alive, so the memory lives as long as any tensor over it. The storage spans the
array's whole extent (from its lowest to its highest byte) and the tensor's offset points at the
first element, so negative and zero strides come through as they are. A read-only source gives a
non-writable storage, on which writes fail.

Python lists: ``tolist`` makes one contiguous copy when needed and lets memoryview read the whole
buffer into nested lists in C; float16 goes through struct, bfloat16 through float32 and complex
numbers through pairs of their parts.

Export: ``__array_interface__`` describes a CPU tensor in place (NumPy keeps the tensor as the
array's base), and ``__dlpack__`` wraps the C core's managed tensor in a PyCapsule built with
ctypes (imported only when DLPack is used) and the capsule destructor the compiled module exports.
NumPy is never imported here: an ndarray is recognized through ``sys.modules``.
"""

from __future__ import annotations

import struct
import sys
from typing import Optional, Sequence, Tuple

from . import _C, _device, _dtype
from ._C import ffi, lib
from ._args import _dtype_info, _int64s
from ._tensor import Tensor, _call

_raise = _C._raise
_NATIVE = "<" if sys.byteorder == "little" else ">"


def _supported_names() -> str:
    names = [d._name for d in sorted(_dtype._by_typestr.values(), key=lambda d: d._id)]
    return ", ".join(names[:-1]) + ", and " + names[-1]


def _from_interface(obj, fname: str, dtype_name: Optional[str] = None) -> Tensor:
    """A CPU tensor over the memory that ``obj.__array_interface__`` describes."""
    ai = obj.__array_interface__
    shape = tuple(ai["shape"])
    typestr = ai["typestr"]
    data = ai.get("data")
    if not isinstance(data, tuple):
        raise TypeError(
            f"{fname}(): objects exposing memory through a buffer in __array_interface__ "
            "['data'] are not supported"
        )
    ptr, readonly = data
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
    dt = _dtype._by_typestr.get(typestr[1:])
    if dt is None:
        what = f"np.ndarray of type numpy.{dtype_name}" if dtype_name else \
            f"an array of type string {typestr!r}"
        raise TypeError(
            f"{fname}(): can't convert {what}. The only supported types are: "
            f"{_supported_names()}."
        )
    dt_id = dt._id
    if typestr[0] not in (_NATIVE, "|", "="):
        raise ValueError(
            f"{fname}(): the array's byte order is not native (dtype {dtype_name or typestr}); "
            "convert it first, e.g. with a.astype(a.dtype.newbyteorder('='))"
        )
    strides = ai.get("strides")
    ndim = len(shape)
    if strides is None:
        strides, acc = [0] * ndim, itemsize
        for d in range(ndim - 1, -1, -1):
            strides[d] = acc
            acc *= shape[d]
    if any(s % itemsize for s in strides):
        raise ValueError(
            f"{fname}(): given numpy array strides not a multiple of the element byte size. "
            "Copy the numpy array to reallocate the memory."
        )
    if ptr % _dtype_info(dt_id).alignment:
        raise ValueError(
            f"{fname}(): the array's data is not aligned to its element size; copy it first "
            "(e.g. numpy.ascontiguousarray)"
        )
    if 0 in shape:
        lo = nbytes = 0
    else:
        lo = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0) + itemsize
        nbytes = hi - lo
    ctx = _C._keep(obj)
    sp = ffi.new("pt_storage **")
    st = lib.pt_storage_from_external(
        ffi.cast("void *", ptr + lo), nbytes, dt_id, _device._to_cdevice("cpu"),
        lib.pt_py_release_handle, ctx, 0 if readonly else 1, sp,
    )
    if st:
        _C._keepalive.pop(int(ffi.cast("uintptr_t", ctx)), None)
        _raise(st)
    try:
        return _call(
            lib.pt_tensor_from_storage, sp[0], dt_id, ndim, _int64s(list(shape)),
            _int64s([s // itemsize for s in strides]), -lo // itemsize,
        )
    finally:
        lib.pt_storage_release(sp[0])


def _is_ndarray(a) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(a, np.ndarray)


def from_numpy(ndarray) -> Tensor:
    """A tensor sharing the memory of a NumPy array (writes show through both ways).

    >>> import numpy as np
    >>> a = np.arange(3)
    >>> t = pytensor.from_numpy(a)
    >>> t[0] = 7
    >>> int(a[0])
    7
    """
    if not _is_ndarray(ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray (got {type(ndarray).__name__})")
    dt = ndarray.dtype
    if dt.hasobject or dt.kind in "OUSVMm" or dt.fields is not None:
        raise TypeError(
            f"from_numpy(): can't convert np.ndarray of type numpy.{dt.type.__name__}. "
            f"The only supported types are: {_supported_names()}."
        )
    return _from_interface(ndarray, "from_numpy", dt.type.__name__)


def from_array_like(obj, fname: str) -> Tensor:
    """A tensor sharing memory with an array-interface object; unsupported layouts are copied
    by NumPy first (byte-swapped or unaligned arrays)."""
    if _is_ndarray(obj) and (not obj.dtype.isnative or not obj.flags.aligned):
        np = sys.modules["numpy"]
        obj = np.array(obj, dtype=obj.dtype.newbyteorder("="), order="C")
    name = obj.dtype.type.__name__ if _is_ndarray(obj) else None
    return _from_interface(obj, fname, name)


# ---------------------------------------------------------------- Python lists
def _nest(flat: list, shape: Sequence[int]):
    """Groups a flat row-major list into nested lists of the given shape."""
    if not shape:
        return flat[0]
    if 0 in shape:
        return _empty_nest(list(shape))
    for n in reversed(shape[1:]):
        flat = [flat[i : i + n] for i in range(0, len(flat), n)]
    return flat


def _empty_nest(shape: list):
    return [] if shape[0] == 0 else [_empty_nest(shape[1:]) for _ in range(shape[0])]


_formats: dict = {}  # dtype id -> memoryview format of the element (of its real part: complex)


def _format_of(dt) -> Optional[str]:
    if dt._id == lib.PT_BOOL:
        return "?"
    if dt.is_floating_point or dt.is_complex:
        return {4: "f", 8: "d"}.get(dt.itemsize // 2 if dt.is_complex else dt.itemsize)
    if dt._kind & lib.PT_KIND_OPAQUE or not dt._kind & lib.PT_KIND_INTEGER:
        return None
    codes = "bhiq" if dt.is_signed else "BHIQ"
    return next((c for c in codes if struct.calcsize(c) == dt.itemsize), None)


def tolist(t: Tensor):
    """Nested Python lists (a number for a 0-d tensor)."""
    t = _resolved(t)
    h = t._h
    if lib.pt_tensor_device(h).type != lib.PT_DEV_CPU:
        return tolist(t.cpu())
    dt_id = lib.pt_tensor_dtype(h)
    if dt_id == lib.PT_BFLOAT16:
        return tolist(t.float())
    dt = _dtype._dtypes_by_id[dt_id]
    c = _call(lib.pt_tensor_contiguous, h)
    ch = c._h
    ndim = lib.pt_tensor_ndim(ch)
    shape = ffi.unpack(lib.pt_tensor_sizes(ch), ndim) if ndim else []
    numel = lib.pt_tensor_numel(ch)
    if numel == 0:
        return _nest([], shape)
    buf = ffi.buffer(lib.pt_tensor_data(ch), numel * dt.itemsize)
    fmt = _formats.get(dt_id)
    if fmt is None and dt_id not in _formats:
        fmt = _formats[dt_id] = _format_of(dt)
    if dt_id == lib.PT_FLOAT16:
        flat = list(struct.unpack(f"={numel}e", buf))
    elif fmt is None:
        raise TypeError(f"tolist(): {dt} elements have no Python scalar type")
    elif not dt.is_complex:
        return memoryview(buf).cast("B").cast(fmt, shape).tolist()
    else:
        it = iter(memoryview(buf).cast("B").cast(fmt).tolist())
        flat = [complex(re, im) for re, im in zip(it, it)]
    return _nest(flat, shape)


# ---------------------------------------------------------------- export to NumPy
def _check_math_bits(t: Tensor) -> None:
    """torch's refusal to export a tensor whose values are not its stored elements."""
    bits = lib.pt_tensor_math_bits(t._h)
    if bits & lib.PT_MATH_BIT_CONJ:
        raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                           "tensor.resolve_conj().numpy() instead.")
    if bits & lib.PT_MATH_BIT_NEG:
        raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use "
                           "tensor.resolve_neg().numpy() instead.")


def _resolved(t: Tensor) -> Tensor:
    """t, or a copy with its math bits applied (what tolist reads)."""
    if lib.pt_tensor_math_bits(t._h):
        return t.resolve_conj().resolve_neg()
    return t


def _check_numpy_exportable(t: Tensor) -> None:
    h = t._h
    if lib.pt_tensor_device(h).type != lib.PT_DEV_CPU:
        raise TypeError(
            f"can't convert {t.device} device type tensor to numpy. Use Tensor.cpu() to copy "
            "the tensor to host memory first."
        )
    if not _dtype._dtypes_by_id[lib.pt_tensor_dtype(h)]._typestr:
        legacy = ffi.string(_dtype_info(lib.pt_tensor_dtype(h)).legacy_name).decode()
        raise TypeError(f"Got unsupported ScalarType {legacy or t.dtype}")
    _check_math_bits(t)


def array_interface(t: Tensor) -> dict:
    _check_numpy_exportable(t)
    h = t._h
    ndim = lib.pt_tensor_ndim(h)
    dt = _dtype._dtypes_by_id[lib.pt_tensor_dtype(h)]
    shape = tuple(ffi.unpack(lib.pt_tensor_sizes(h), ndim)) if ndim else ()
    item = dt.itemsize
    strides = tuple(s * item for s in ffi.unpack(lib.pt_tensor_strides(h), ndim)) if ndim else ()
    # NumPy reads these bytes for as long as the array lives: never free or move them.
    lib.pt_storage_lend(lib.pt_tensor_storage(h))
    return {
        "version": 3,
        "shape": shape,
        "typestr": dt._typestr,
        "descr": [("", dt._typestr)],
        "data": (
            int(ffi.cast("uintptr_t", lib.pt_tensor_data(h))),
            not lib.pt_storage_writable(lib.pt_tensor_storage(h)),
        ),
        "strides": strides,
    }


def to_numpy(t: Tensor, force: bool):
    import numpy as np

    if force:
        t = _resolved(t.cpu())
    _check_numpy_exportable(t)
    return np.asarray(t)


def to_array(t: Tensor, dtype, copy):
    import numpy as np

    _check_math_bits(t)
    moved = lib.pt_tensor_device(t._h).type != lib.PT_DEV_CPU
    if moved:
        if copy is False:
            raise ValueError(
                f"__array__(): a {t.device} tensor cannot become an array without a copy "
                "(copy=False)"
            )
        t = t.cpu()
    a = np.asarray(t)
    if dtype is not None and np.dtype(dtype) != a.dtype:
        if copy is False:
            raise ValueError(
                f"__array__(): converting {t.dtype} to numpy {np.dtype(dtype)} needs a copy "
                "(copy=False)"
            )
        return a.astype(dtype)
    return a.copy() if copy and not moved else a


# ---------------------------------------------------------------- DLPack
class _CapsuleAPI:
    """The CPython capsule functions, through ctypes (loaded on first DLPack use)."""

    def __init__(self):
        import ctypes

        api = ctypes.pythonapi
        self.new = api.PyCapsule_New
        self.new.restype = ctypes.py_object
        self.new.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        self.is_valid = api.PyCapsule_IsValid
        self.is_valid.restype = ctypes.c_int
        self.is_valid.argtypes = (ctypes.py_object, ctypes.c_char_p)
        self.get_pointer = api.PyCapsule_GetPointer
        self.get_pointer.restype = ctypes.c_void_p
        self.get_pointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
        self.set_name = api.PyCapsule_SetName
        self.set_name.restype = ctypes.c_int
        self.set_name.argtypes = (ctypes.py_object, ctypes.c_void_p)


_capsule_api: Optional[_CapsuleAPI] = None


def _capi() -> _CapsuleAPI:
    global _capsule_api
    if _capsule_api is None:
        _capsule_api = _CapsuleAPI()
    return _capsule_api


def _addr(cdata) -> int:
    return int(ffi.cast("uintptr_t", cdata))


def dlpack_device(t: Tensor) -> Tuple[int, int]:
    d = lib.pt_tensor_device(t._h)
    if d.type == lib.PT_DEV_CPU:
        return (lib.PT_DL_CPU, 0)
    if d.type == lib.PT_DEV_CUDA:
        return (lib.PT_DL_CUDA, d.index)
    raise BufferError(f"__dlpack_device__(): {t.device} tensors have no DLPack device")


def _to_dl_device(t: Tensor, dl_device) -> Tensor:
    kind, index = int(dl_device[0]), int(dl_device[1])
    if kind == lib.PT_DL_CPU:
        return t.to("cpu", copy=True)
    if kind == lib.PT_DL_CUDA:
        return t.to(f"cuda:{index}", copy=True)
    raise BufferError(f"__dlpack__(): dl_device: unsupported DLPack device {tuple(dl_device)}")


def to_dlpack(t: Tensor, stream, max_version, dl_device, copy):
    bits = lib.pt_tensor_math_bits(t._h)
    if bits:
        what = "conjugate" if bits & lib.PT_MATH_BIT_CONJ else "negative"
        raise BufferError(f"Can't export tensors with the {what} bit set")
    flags = 0
    src = t
    if dl_device is not None and tuple(int(x) for x in dl_device) != dlpack_device(t):
        if copy is False:
            raise BufferError(
                f"__dlpack__(): dl_device {tuple(dl_device)} differs from the tensor's device "
                f"{dlpack_device(t)} and copy=False forbids the copy"
            )
        src = _to_dl_device(t, dl_device)
        flags |= lib.PT_DL_FLAG_IS_COPIED
    elif copy:
        src = t.clone()
        flags |= lib.PT_DL_FLAG_IS_COPIED
    d = lib.pt_tensor_device(src._h)
    if d.type == lib.PT_DEV_CUDA and stream != -1:
        # The consumer reads on its own stream: finish our work on the device first.
        st = lib.pt_device_synchronize(d.type, d.index)
        if st:
            _raise(st)
    versioned = max_version is not None and int(max_version[0]) >= 1
    read_only = not lib.pt_storage_writable(lib.pt_tensor_storage(src._h))
    if versioned:
        if read_only:
            flags |= lib.PT_DL_FLAG_READ_ONLY
        mp = ffi.new("pt_dl_managed_tensor_versioned **")
        st = lib.pt_dlpack_export_versioned(src._h, flags, mp)
    else:
        if read_only:
            raise BufferError(
                "__dlpack__(): cannot export a read-only tensor through an unversioned DLPack "
                "capsule, which cannot mark it read-only; ask for max_version=(1, 0) or later"
            )
        mp = ffi.new("pt_dl_managed_tensor **")
        st = lib.pt_dlpack_export(src._h, mp)
    if st:
        _raise(st)
    m = mp[0]
    try:
        return _capi().new(
            _addr(m), _addr(lib.pt_py_capsule_name(int(versioned), 0)),
            _addr(lib.pt_py_capsule_destructor(int(versioned))),
        )
    except BaseException:
        m.deleter(m)
        raise


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing the memory of any DLPack producer (or a raw DLPack capsule).

    >>> import numpy as np
    >>> pytensor.from_dlpack(np.arange(3)).tolist()
    [0, 1, 2]
    """
    if type(ext_tensor).__name__ == "PyCapsule":
        capsule = ext_tensor
    elif hasattr(ext_tensor, "__dlpack__"):
        try:
            capsule = ext_tensor.__dlpack__(max_version=(lib.PT_DLPACK_MAJOR, lib.PT_DLPACK_MINOR))
        except TypeError:
            capsule = ext_tensor.__dlpack__()
    else:
        raise TypeError(
            "from_dlpack(): ext_tensor: expected an object with __dlpack__ or a DLPack capsule, "
            f"got {type(ext_tensor).__name__}"
        )
    return _import_capsule(capsule)


def _import_capsule(capsule) -> Tensor:
    api = _capi()
    if api.is_valid(capsule, b"dltensor_versioned"):
        versioned = 1
        m = ffi.cast(
            "pt_dl_managed_tensor_versioned *", api.get_pointer(capsule, b"dltensor_versioned")
        )
        if m.version.major > lib.PT_DLPACK_MAJOR:
            raise BufferError(
                f"from_dlpack(): the producer's DLPack version {m.version.major}."
                f"{m.version.minor} is newer than the {lib.PT_DLPACK_MAJOR}.x this library reads"
            )
        importer = lib.pt_dlpack_import_versioned
    elif api.is_valid(capsule, b"dltensor"):
        versioned = 0
        m = ffi.cast("pt_dl_managed_tensor *", api.get_pointer(capsule, b"dltensor"))
        importer = lib.pt_dlpack_import
    else:
        raise ValueError(
            "from_dlpack(): received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once."
        )
    t = _call(importer, m)
    # From here the tensor owns the managed tensor: renaming stops the capsule from deleting it.
    api.set_name(capsule, _addr(lib.pt_py_capsule_name(versioned, 1)))
    return t
