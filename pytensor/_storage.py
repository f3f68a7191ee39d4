"""Storages: the Python wrappers of ``pt_storage``, a reference-counted block of bytes on a device.

``UntypedStorage`` sees the bytes; ``TypedStorage`` sees the same C storage as elements of a
dtype, and the legacy classes (``FloatStorage``, ``LongStorage``, ...) are ``TypedStorage``
subclasses with a fixed dtype, generated at start-up from the dtype table's legacy names. Each
wrapper holds exactly one C reference in ``_h`` and releases it in ``__del__``. Element access,
``fill_``, ``copy_`` and ``tolist`` view the storage as a 1-D (or 0-d) tensor over it and let the
tensor kernels do the casting, so the storage code holds no per-dtype logic.
"""

from __future__ import annotations

import os
import sys

from . import _C, _device, _dtype
from ._C import ffi, lib

_typed_classes: dict = {}  # dtype id -> legacy class (FloatStorage, ...)


def _scalar(value, out, argname: str = "value"):
    """Fills the ``pt_scalar`` ``out`` from a Python number."""
    if isinstance(value, bool):
        out.kind, out.i = lib.PT_SCALAR_BOOL, value
    elif isinstance(value, int):
        if not -(1 << 63) <= value < (1 << 63):
            raise RuntimeError(f"{argname}: {value} cannot be converted to int64 without overflow")
        out.kind, out.i = lib.PT_SCALAR_INT, value
    elif isinstance(value, float):
        out.kind, out.re = lib.PT_SCALAR_FLOAT, value
    elif isinstance(value, complex):
        out.kind, out.re, out.im = lib.PT_SCALAR_COMPLEX, value.real, value.imag
    elif hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return _scalar(value.item(), out, argname)  # NumPy scalars, one-element tensors
    else:
        raise TypeError(f"{argname}: expected a number, got {type(value).__name__}")
    return out


def _from_scalar(s):
    kind = s.kind
    if kind == lib.PT_SCALAR_BOOL:
        return bool(s.i)
    if kind == lib.PT_SCALAR_INT:
        return s.i
    if kind == lib.PT_SCALAR_FLOAT:
        return s.re
    return complex(s.re, s.im)


def _numbers(values: list, argname: str = "sequence") -> list:
    """The elements as Python numbers (NumPy scalars and one-element tensors through .item())."""
    out = []
    for v in values:
        if not isinstance(v, (bool, int, float, complex)):
            if hasattr(v, "item") and not isinstance(v, (str, bytes)):
                v = v.item()
            if not isinstance(v, (bool, int, float, complex)):
                raise TypeError(f"{argname}: expected numbers, got an element of type "
                                f"{type(v).__name__}")
        out.append(v)
    return out


def _sequence_dtype(values: list) -> int:
    """The C dtype that holds every element of ``values`` exactly (the copy then casts it)."""
    if all(isinstance(v, bool) for v in values):
        return lib.PT_BOOL
    if all(isinstance(v, int) for v in values):
        return lib.PT_INT64
    if any(isinstance(v, complex) for v in values):
        return lib.PT_COMPLEX128
    return lib.PT_FLOAT64


# The cffi element type of each dtype _sequence_dtype picks (complex as pairs of doubles).
_CTYPE_OF = {lib.PT_BOOL: "_Bool", lib.PT_INT64: "int64_t", lib.PT_FLOAT64: "double",
             lib.PT_COMPLEX128: "double"}


class _StorageBase:
    """What UntypedStorage and TypedStorage share; ``_h`` holds one reference to the C storage."""

    __slots__ = ("_h", "_dtype", "__weakref__")
    _fixed_dtype = None

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            self._h = None
            lib.pt_storage_release(h)

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def _new_wrapping(cls, handle, dtype=None):
        """Wraps a new reference to a ``pt_storage`` (the wrapper takes it over, no retain)."""
        self = object.__new__(cls)
        self._h = handle
        if issubclass(cls, UntypedStorage):
            self._dtype = _dtype._from_id(lib.PT_UINT8)
        else:
            d = cls._fixed_dtype or dtype
            self._dtype = _dtype._from_id(lib.pt_storage_dtype(handle)) if d is None else \
                _dtype._to_dtype(d)
        return self

    def _init_new(self, args, d, device) -> None:
        """The shared part of the constructors: ``()``, ``(size)`` or ``(sequence)``."""
        self._dtype = d
        cdev = _device._to_cdevice(device)
        if len(args) > 1:
            raise TypeError(f"{type(self).__name__}: expected at most one positional argument "
                            f"(a size or a sequence), got {len(args)}")
        arg = args[0] if args else 0
        values = None
        if isinstance(arg, int) and not isinstance(arg, bool):
            n = arg
            if n < 0:
                raise ValueError(f"size: expected a non-negative number of elements, got {n}")
        else:
            try:
                values = list(arg)
            except TypeError:
                raise TypeError(f"{type(self).__name__}: expected a size (int) or a sequence, "
                                f"got {type(arg).__name__}") from None
            n = len(values)
        out = ffi.new("pt_storage **")
        st = lib.pt_storage_new(n * d.itemsize, d._id, cdev, 1, out)
        if st:
            _C._raise(st)
        self._h = out[0]
        if values:
            self._assign(values)

    def _assign(self, values: list) -> None:
        values = _numbers(values)
        src_id = _sequence_dtype(values)
        try:
            if src_id == lib.PT_COMPLEX128:
                flat = [part for v in values for part in (complex(v).real, complex(v).imag)]
            elif src_id == lib.PT_FLOAT64:
                flat = [float(v) for v in values]
            else:
                flat = values
            buf = ffi.new(f"{_CTYPE_OF[src_id]}[]", flat)
        except OverflowError:
            raise RuntimeError(f"sequence: an element cannot be converted to "
                               f"{_dtype._from_id(src_id)} without overflow") from None
        src_storage = _cpu_storage(ffi.buffer(buf), src_id, True)
        src = _tensor_over(src_storage, src_id, len(values))
        lib.pt_storage_release(src_storage)
        dst = self._tensor1d()
        try:
            st = lib.pt_tensor_copy_(dst, src)
        finally:
            lib.pt_tensor_release(src)
            lib.pt_tensor_release(dst)
        if st:
            _C._raise(st)

    # ------------------------------------------------------------------ queries
    def size(self) -> int:
        """Number of elements (bytes for an UntypedStorage).

        >>> pytensor.FloatStorage(3).size()
        3
        """
        return lib.pt_storage_nbytes(self._h) // self._dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self._dtype.itemsize

    def nbytes(self) -> int:
        return lib.pt_storage_nbytes(self._h)

    def data_ptr(self) -> int:
        return int(ffi.cast("uintptr_t", lib.pt_storage_data(self._h)))

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return _device._from_cdevice(lib.pt_storage_device(self._h))

    @property
    def is_cuda(self) -> bool:
        return lib.pt_storage_device(self._h).type == lib.PT_DEV_CUDA

    def is_shared(self) -> bool:
        return bool(lib.pt_storage_is_shared(self._h))

    def resizable(self) -> bool:
        return bool(lib.pt_storage_resizable(self._h))

    # ------------------------------------------------------------------ tensors over the storage
    def _tensor1d(self):
        """A new ``pt_tensor *`` seeing the whole storage as 1-D elements (caller releases)."""
        return _tensor_over(self._h, self._dtype._id, self.size())

    def _element(self, index, argname: str = "index"):
        """A new 0-d ``pt_tensor *`` at element ``index`` (negative counts from the end)."""
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError(f"{argname}: storages are indexed by ints, got "
                            f"{type(index).__name__}")
        n = self.size()
        i = index.__index__()
        if not -n <= i < n:
            raise IndexError(f"{argname}: index {i} is out of range for a storage of size {n}")
        out = ffi.new("pt_tensor **")
        st = lib.pt_tensor_from_storage(self._h, self._dtype._id, 0, ffi.NULL, ffi.NULL,
                                        i % n, out)
        if st:
            _C._raise(st)
        return out[0]

    def __getitem__(self, index):
        t = self._element(index)
        s = ffi.new("pt_scalar *")
        try:
            st = lib.pt_tensor_item(t, s)
        finally:
            lib.pt_tensor_release(t)
        if st:
            _C._raise(st)
        return _from_scalar(s)

    def __setitem__(self, index, value) -> None:
        s = _scalar(value, ffi.new("pt_scalar *"))
        t = self._element(index)
        try:
            st = lib.pt_tensor_fill_(t, s)
        finally:
            lib.pt_tensor_release(t)
        if st:
            _C._raise(st)

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        """Sets every element to ``value`` (cast to the dtype); returns self.

        >>> pytensor.IntStorage(2).fill_(7).tolist()
        [7, 7]
        """
        s = _scalar(value, ffi.new("pt_scalar *"))
        t = self._tensor1d()
        try:
            st = lib.pt_tensor_fill_(t, s)
        finally:
            lib.pt_tensor_release(t)
        if st:
            _C._raise(st)
        return self

    def copy_(self, source, non_blocking: bool = False):
        """Copies ``source`` (a storage of the same size) into self; returns self.

        Typed storages convert between dtypes; when either side is untyped the bytes are copied.

        >>> pytensor.FloatStorage(2).copy_(pytensor.LongStorage([1, 2])).tolist()
        [1.0, 2.0]
        """
        if not isinstance(source, _StorageBase):
            raise TypeError(f"copy_: source must be a storage, got {type(source).__name__}")
        if isinstance(self, UntypedStorage) or isinstance(source, UntypedStorage):
            n, m = self.nbytes(), source.nbytes()
            dst = _tensor_over(self._h, lib.PT_UINT8, n)
            src = _tensor_over(source._h, lib.PT_UINT8, m)
            what = "bytes"
        else:
            n, m = self.size(), source.size()
            dst, src = self._tensor1d(), source._tensor1d()
            what = "elements"
        try:
            if n != m:
                raise RuntimeError(f"copy_: source has {m} {what} but this storage has {n}")
            st = lib.pt_tensor_copy_(dst, src)
        finally:
            lib.pt_tensor_release(src)
            lib.pt_tensor_release(dst)
        if st:
            _C._raise(st)
        return self

    def tolist(self) -> list:
        """The elements as Python numbers.

        >>> pytensor.BoolStorage([1, 0]).tolist()
        [True, False]
        """
        from . import _tensor
        return _tensor._wrap(self._tensor1d()).tolist()

    def resize_(self, size: int):
        """Grows or shrinks the storage to ``size`` elements (new bytes are zero); returns self.

        Storages made over memory owned elsewhere (``from_buffer``, ``from_file``) cannot resize.
        """
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"resize_: size must be an int, got {type(size).__name__}")
        if size < 0:
            raise ValueError(f"resize_: size must be non-negative, got {size}")
        st = lib.pt_storage_resize(self._h, size * self._dtype.itemsize)
        if st:
            _C._raise(st)
        return self

    def clone(self):
        """A new storage with a copy of the elements, on the same device."""
        out = ffi.new("pt_storage **")
        st = lib.pt_storage_new(self.nbytes(), lib.pt_storage_dtype(self._h),
                                lib.pt_storage_device(self._h), 1, out)
        if st:
            _C._raise(st)
        return type(self)._new_wrapping(out[0], self._dtype).copy_(self)

    def __copy__(self):
        return self.clone()

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self.tolist())
        return (f"{body}[pytensor.{type(self).__name__}(dtype={self._dtype}, device={self.device}) "
                f"of size {self.size()}]")

    def __reduce__(self):
        if lib.pt_storage_device(self._h).type != lib.PT_DEV_CPU:
            raise RuntimeError("pickle: only CPU storages can be pickled")
        data = bytes(ffi.buffer(lib.pt_storage_data(self._h), self.nbytes())) if self.nbytes() \
            else b""
        return (_rebuild, (type(self), data, self._dtype._name))

    # ------------------------------------------------------------------ other constructors
    @classmethod
    def _class_dtype(cls, dtype, what: str):
        if issubclass(cls, UntypedStorage):
            return _dtype._from_id(lib.PT_UINT8)
        if cls._fixed_dtype is not None:
            if dtype is not None and _dtype._to_dtype(dtype) is not cls._fixed_dtype:
                raise RuntimeError(f"{what}: dtype cannot be given for {cls.__name__}")
            return cls._fixed_dtype
        if dtype is None:
            raise TypeError(f"{what}: TypedStorage needs a dtype argument")
        return _dtype._to_dtype(dtype)

    @classmethod
    def from_buffer(cls, buffer, byte_order: str = "native", count: int = -1, offset: int = 0,
                    dtype=None):
        """A new CPU storage holding a copy of ``count`` elements of ``buffer`` from byte
        ``offset``, decoded in ``byte_order`` ("native", "little" or "big"). Not resizable.

        >>> pytensor.ShortStorage.from_buffer(b"\\x00\\x01", byte_order="big").tolist()
        [1]
        """
        d = cls._class_dtype(dtype, "from_buffer")
        if byte_order not in ("native", "little", "big"):
            raise ValueError(f"byte_order: expected 'native', 'little' or 'big', "
                             f"got {byte_order!r}")
        try:
            mv = memoryview(buffer)
        except TypeError:
            raise TypeError(f"buffer: expected an object with the buffer protocol, got "
                            f"{type(buffer).__name__}") from None
        if not mv.c_contiguous:
            raise ValueError("buffer: expected a C-contiguous buffer")
        mv = mv.cast("B")
        total, size = mv.nbytes, d.itemsize
        if not 0 <= offset <= total:
            raise ValueError(f"offset: must be in [0, {total}] for a buffer of {total} bytes, "
                             f"got {offset}")
        if count < 0:
            if count != -1:
                raise ValueError(f"count: must be -1 or non-negative, got {count}")
            if (total - offset) % size:
                raise ValueError(f"buffer: size after offset ({total - offset} bytes) must be a "
                                 f"multiple of the element size ({size})")
            count = (total - offset) // size
        elif count * size > total - offset:
            raise ValueError(f"count: buffer has only {(total - offset) // size} elements after "
                             f"offset {offset}, but count is {count}")
        data = mv[offset:offset + count * size]
        if byte_order != "native" and byte_order != sys.byteorder and size > 1:
            data = _byteswapped(data, size // 2 if d.is_complex else size)
        return cls._new_wrapping(_cpu_storage(data, d._id, False), d)

    @classmethod
    def from_file(cls, filename, shared: bool = False, size: int = 0, dtype=None):
        """A CPU storage of ``size`` elements mapped from ``filename``. With ``shared=True`` writes
        reach the file (which grows to fit); otherwise they stay private to the storage.

        >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), "x.bin")
        >>> pytensor.FloatStorage.from_file(path, shared=True, size=2).fill_(1.5).tolist()
        [1.5, 1.5]
        """
        d = cls._class_dtype(dtype, "from_file")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError(f"size: expected a non-negative number of elements, got {size!r}")
        out = ffi.new("pt_storage **")
        st = lib.pt_storage_from_file(os.fsencode(filename), 1 if shared else 0,
                                      size * d.itemsize, d._id, out)
        if st:
            _C._raise(st)
        return cls._new_wrapping(out[0], d)


def _tensor_over(handle, dtype_id: int, n: int):
    """A new 1-D ``pt_tensor *`` of ``n`` elements over a storage (caller releases)."""
    out = ffi.new("pt_tensor **")
    st = lib.pt_tensor_from_storage(handle, dtype_id, 1, ffi.new("int64_t[1]", [n]),
                                    ffi.new("int64_t[1]", [1]), 0, out)
    if st:
        _C._raise(st)
    return out[0]


def _cpu_storage(data, dtype_id: int, resizable: bool):
    """A new ``pt_storage *`` on the CPU holding a copy of the bytes of ``data``."""
    nbytes = len(data)
    out = ffi.new("pt_storage **")
    st = lib.pt_storage_new(nbytes, dtype_id, _device._to_cdevice("cpu"), int(resizable), out)
    if st:
        _C._raise(st)
    if nbytes:
        ffi.memmove(lib.pt_storage_data(out[0]), data, nbytes)
    return out[0]


def _byteswapped(data: memoryview, unit: int) -> bytes:
    import array  # only for foreign byte orders
    code = next(c for c in "HILQ" if array.array(c).itemsize == unit)
    arr = array.array(code, bytes(data))
    arr.byteswap()
    return arr.tobytes()


def _rebuild(cls, data: bytes, dtype_name: str):
    d = _dtype._to_dtype(dtype_name)
    return cls._new_wrapping(_cpu_storage(data, d._id, True), d)


class UntypedStorage(_StorageBase):
    """Bytes on a device: ``UntypedStorage(nbytes, device=None)`` or ``UntypedStorage(bytes_seq)``.

    >>> pytensor.UntypedStorage([1, 2, 255]).tolist()
    [1, 2, 255]
    """

    __slots__ = ()

    def __init__(self, *args, device=None):
        self._init_new(args, _dtype._from_id(lib.PT_UINT8), device)

    def untyped(self) -> "UntypedStorage":
        return self

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self.tolist())
        return f"{body}[pytensor.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


class TypedStorage(_StorageBase):
    """Elements of one dtype: ``TypedStorage(size_or_sequence, dtype=..., device=None)`` or
    ``TypedStorage(wrap_storage=untyped, dtype=...)``; the legacy classes fix the dtype.

    >>> pytensor.TypedStorage([1, 2], dtype=pytensor.float64).tolist()
    [1.0, 2.0]
    """

    __slots__ = ()

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        d = type(self)._class_dtype(dtype, type(self).__name__)
        if wrap_storage is None:
            self._init_new(args, d, device)
            return
        if args or device is not None:
            raise RuntimeError(f"{type(self).__name__}: no positional arguments or device may be "
                               "given with wrap_storage")
        if not isinstance(wrap_storage, UntypedStorage):
            raise TypeError(f"wrap_storage: expected an UntypedStorage, got "
                            f"{type(wrap_storage).__name__}")
        if wrap_storage.nbytes() % d.itemsize:
            raise RuntimeError(f"wrap_storage: {wrap_storage.nbytes()} bytes are not a whole "
                               f"number of {d} elements")
        lib.pt_storage_retain(wrap_storage._h)
        self._h, self._dtype = wrap_storage._h, d

    def untyped(self) -> UntypedStorage:
        """The same C storage seen as bytes."""
        lib.pt_storage_retain(self._h)
        return UntypedStorage._new_wrapping(self._h)

    @property
    def _untyped_storage(self) -> UntypedStorage:
        return self.untyped()


TypedStorage.__module__ = UntypedStorage.__module__ = "pytensor"


def _build(module) -> None:
    for i in range(lib.pt_dtype_count()):
        d = _dtype._from_id(i)
        if not d._legacy_name:
            continue
        name = f"{d._legacy_name}Storage"
        cls = type(name, (TypedStorage,), {"__slots__": (), "_fixed_dtype": d,
                                           "__module__": "pytensor",
                                           "__doc__": f"A TypedStorage of {d} elements."})
        _typed_classes[d._id] = cls
        setattr(module, name, cls)
    module.UntypedStorage = UntypedStorage
    module.TypedStorage = TypedStorage


# ---------------------------------------------------------------- shared memory
# share_memory_ and the hooks of pytensor.multiprocessing's reductions (csrc/core/shm.c). Sizes
# are in bytes for UntypedStorage and in elements for the typed classes, as torch's are.
def _sharing_strategy() -> str:
    # The module is only consulted once imported: before that the strategy is its default.
    mp = sys.modules.get("pytensor.multiprocessing")
    return mp.get_sharing_strategy() if mp is not None else "file_descriptor"


def _share_memory_(self):
    """Moves the bytes into shared memory (in place: tensors over the storage follow); a no-op
    for CUDA storages and for storages already shared this way. Returns self."""
    if lib.pt_storage_device(self._h).type == lib.PT_DEV_CUDA:
        return self
    if _sharing_strategy() == "file_system":
        self._share_filename_cpu_()
    else:
        self._share_fd_cpu_()
    return self


def _is_shared(self) -> bool:
    """Whether the bytes are in shared memory (or a file mapped shared); CUDA memory always is."""
    return lib.pt_storage_device(self._h).type == lib.PT_DEV_CUDA or \
        bool(lib.pt_storage_is_shared(self._h))


def _share_fd_cpu_(self):
    """(fd, size): moves the bytes into a memfd (kept open by the storage) and returns it."""
    _C._check(lib.pt_storage_share(self._h, lib.PT_SHM_FD))
    return lib.pt_storage_shm_fd(self._h), self.size()


def _share_filename_cpu_(self):
    """(manager_handle, segment_name, size): moves the bytes into a named segment registered with
    the sharing manager (pytensor.multiprocessing._manager)."""
    _C._check(lib.pt_storage_share(self._h, lib.PT_SHM_FILENAME))
    from .multiprocessing import _client
    name = ffi.string(lib.pt_storage_shm_name(self._h))
    handle = _client.manager_handle()
    _client.register(handle, name)
    return handle, name, self.size()


def _wrap_new(cls, status, out, dtype):
    _C._check(status)
    return cls._new_wrapping(out[0], dtype)


@classmethod
def _new_shared_fd_cpu(cls, fd, size, *, dtype=None):
    """A storage over the shared memory of ``fd`` (duplicated; the caller keeps ``fd``)."""
    d = cls._class_dtype(dtype, "_new_shared_fd")
    out = ffi.new("pt_storage **")
    return _wrap_new(cls, lib.pt_storage_new_shared_fd(fd, size * d.itemsize, d._id, out), out, d)


@classmethod
def _new_shared_filename_cpu(cls, manager, name, size, *, dtype=None):
    """A storage over the named segment ``name`` that another process shared (one reference
    taken, registered with the manager ``manager``)."""
    d = cls._class_dtype(dtype, "_new_shared_filename")
    out = ffi.new("pt_storage **")
    bname = os.fsencode(name)
    s = _wrap_new(cls, lib.pt_storage_new_shared_filename(bname, size * d.itemsize, d._id, out),
                  out, d)
    from .multiprocessing import _client
    _client.register(os.fsencode(manager), bname)
    return s


@classmethod
def _new_shared(cls, size, *, device=None, dtype=None):
    """A new zeroed storage of ``size`` in shared memory (the current sharing strategy)."""
    if device is not None and _device._to_device(device).type != "cpu":
        return cls(size, device=device) if dtype is None else cls(size, device=device, dtype=dtype)
    d = cls._class_dtype(dtype, "_new_shared")
    kind = lib.PT_SHM_FILENAME if _sharing_strategy() == "file_system" else lib.PT_SHM_FD
    out = ffi.new("pt_storage **")
    s = _wrap_new(cls, lib.pt_storage_new_shared(kind, size * d.itemsize, d._id, out), out, d)
    if kind == lib.PT_SHM_FILENAME:
        from .multiprocessing import _client
        _client.register(_client.manager_handle(), ffi.string(lib.pt_storage_shm_name(s._h)))
    return s


def _shared_incref(self):
    """Takes one more reference on the named segment (for a copy of it in transit)."""
    _C._check(lib.pt_storage_shared_incref(self._h))


def _shared_decref(self, pid=None):
    """Drops one reference on the named segment (that process ``pid`` took, by default this
    one); returns self."""
    if pid is None:
        _C._check(lib.pt_storage_shared_decref(self._h))
    else:
        _C._check(lib.pt_storage_shared_decref_pid(self._h, pid))
    return self


def _weak_ref(self) -> int:
    """A weak reference to the C storage as an int (0 for storages not in shared memory); free
    it with ``_free_weak_ref``."""
    return int(ffi.cast("uintptr_t", lib.pt_storage_weak_ref(self._h)))


@staticmethod
def _free_weak_ref(ref: int) -> None:
    lib.pt_storage_weak_free(ffi.cast("void *", ref))


@staticmethod
def _expired(ref: int) -> bool:
    return bool(lib.pt_storage_weak_expired(ffi.cast("void *", ref)))


@classmethod
def _new_with_weak_ptr(cls, ref: int):
    """The storage a weak reference names, or None once it is gone."""
    h = lib.pt_storage_weak_lock(ffi.cast("void *", ref))
    return None if h == ffi.NULL else cls._new_wrapping(h)


for _name, _fn in [("share_memory_", _share_memory_), ("is_shared", _is_shared), ("_share_fd_cpu_", _share_fd_cpu_),
                   ("_share_fd_", _share_fd_cpu_), ("_share_filename_cpu_", _share_filename_cpu_),
                   ("_share_filename_", _share_filename_cpu_),
                   ("_new_shared_fd_cpu", _new_shared_fd_cpu), ("_new_shared_fd", _new_shared_fd_cpu),
                   ("_new_shared_filename_cpu", _new_shared_filename_cpu),
                   ("_new_shared_filename", _new_shared_filename_cpu), ("_new_shared", _new_shared),
                   ("_shared_incref", _shared_incref), ("_shared_decref", _shared_decref),
                   ("_weak_ref", _weak_ref), ("_free_weak_ref", _free_weak_ref),
                   ("_expired", _expired), ("_new_with_weak_ptr", _new_with_weak_ptr)]:
    setattr(_StorageBase, _name, _fn)
del _name, _fn
