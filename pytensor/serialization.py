"""``pytensor.save`` and ``pytensor.load``: PyTorch's checkpoint format, both ways.

A checkpoint is a zip archive (stored, not compressed) as ``torch.save`` writes it:
``<archive>/data.pkl`` is the pickled object, in which each storage is a persistent id
``('storage', <torch legacy storage class>, key, location, numel)``; ``<archive>/data/<key>`` holds
that storage's bytes, each record's data starting on a 64-byte boundary (an "FB" padding extra
field in the local header); then ``.format_version``, ``.storage_alignment``, ``byteorder``,
``version`` and ``.data/serialization_id``, with data descriptors and a zip64 end record as
torch's writer (miniz) leaves them. Tensors pickle as ``torch._utils._rebuild_tensor_v2`` of their
storage (pytensor/_utils.py), so storages that several tensors share are written once and views
come back as views.

Names: pytensor's globals are written under torch's names (``pytensor.X`` -> ``torch.X``) and
torch's names are read as pytensor's, so either library loads the other's files. The C pickler
writes the pickle and its GLOBAL opcodes are renamed after (Note [renaming GLOBAL opcodes]); where
that cannot be proved safe, or for protocols 4 and 5, the pure-Python pickler writes it with the
names mapped in its ``save_global``. Only the metadata is pickled: the storages' bytes go to the
file as they are (pytensor/_checkpoint_zip.py lays the records out). A path that holds a file is
written over in place and cut to length, which leaves the same bytes as truncating first.

Reading parses the zip's central directory (no zipfile object: a storage's bytes are read
straight into the new storage's memory, or with ``mmap=True`` the storages are windows of one
mapping of the file). Damaged files raise RuntimeError naming what is wrong.

>>> import io, pytensor
>>> buf = io.BytesIO()
>>> pytensor.save({"w": pytensor.arange(3.)}, buf); _ = buf.seek(0)
>>> pytensor.load(buf)["w"].tolist()
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import sys
import threading
import warnings
from collections import OrderedDict
from typing import Any

from . import _C, _device, _dtype, _storage
from . import _weights_only_unpickler
from ._checkpoint_zip import _ALIGNMENT, _ZipReader, _ZipWriter, _corrupt
from ._C import _raise, ffi, lib
from ._weights_only_unpickler import (_add_safe_globals, _clear_safe_globals, _get_safe_globals,
                                      _safe_globals)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "skip_data", "DEFAULT_PROTOCOL", "default_restore_location",
           "location_tag"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)


class _SerializationLocal(threading.local):
    def __init__(self):
        self.skip_data = False


_tls = _SerializationLocal()


# ---------------------------------------------------------------- safe globals (weights_only)
def add_safe_globals(safe_globals: list) -> None:
    """Marks globals (classes, functions, or ``(obj, "module.name")`` pairs) as safe for
    ``load(..., weights_only=True)``."""
    _add_safe_globals(safe_globals)


def get_safe_globals() -> list:
    """The globals added by ``add_safe_globals``."""
    return _get_safe_globals()


def clear_safe_globals() -> None:
    """Forgets every global added by ``add_safe_globals``."""
    _clear_safe_globals()


class safe_globals(_safe_globals):
    """Context manager: ``with safe_globals([cls]): load(f)`` allows ``cls`` inside the block."""


class skip_data:
    """Context manager: ``save`` writes the archive's layout without the storages' bytes (their
    records hold zeros), ``load`` makes storages without reading them."""

    def __init__(self, materialize_fake_tensors: bool = False):
        if materialize_fake_tensors:
            raise NotImplementedError("skip_data: materialize_fake_tensors needs fake tensors, "
                                      "which pytensor does not have")
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old = _tls.skip_data
        _tls.skip_data = True
        return self

    def __exit__(self, type, value, tb):
        _tls.skip_data = self._old


# ---------------------------------------------------------------- names between the libraries
_TO_TORCH = {
    ("pytensor", "UntypedStorage"): ("torch.storage", "UntypedStorage"),
    ("pytensor", "TypedStorage"): ("torch.storage", "TypedStorage"),
    ("pytensor._utils", "_rebuild_from_type_v2"): ("torch._tensor", "_rebuild_from_type_v2"),
}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items()}


def _torch_name(module: str, name: str):
    """The (module, name) torch knows a pytensor global by."""
    hit = _TO_TORCH.get((module, name))
    if hit is not None:
        return hit
    if module == "pytensor":
        return "torch", name
    if module.startswith("pytensor."):
        return "torch" + module[len("pytensor"):], name
    return module, name


def _pytensor_global(module: str, name: str):
    """The pytensor object behind torch's global ``module.name`` (None for other modules)."""
    import importlib
    module, name = _FROM_TORCH.get((module, name), (module, name))
    if module == "torch":
        mod = "pytensor"
    elif module.startswith("torch."):
        mod = "pytensor" + module[len("torch"):]
    elif module.startswith("pytensor"):
        mod = module
    else:
        return None
    try:
        obj = importlib.import_module(mod)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise AttributeError(f"pytensor has no counterpart of {module}.{name}") from None
    return obj


def _get_layout(name: str):
    """torch.serialization._get_layout: the layout object of that name ("torch.strided")."""
    import pytensor
    return getattr(pytensor, name.rsplit(".", 1)[-1])


def _reduce_layout(layout):
    # torch pickles a layout as _get_layout("torch.<name>"), which weights_only allows
    return (_get_layout, ("torch." + layout.__reduce__(),))


def _dispatch_table() -> dict:
    import copyreg
    import pytensor
    table = copyreg.dispatch_table.copy()
    table[type(pytensor.strided)] = _reduce_layout
    return table


# ---------------------------------------------------------------- file arguments
def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


class _opened:
    """``open(f, mode)`` for a path; a file object is used as it is (and not closed)."""

    def __init__(self, f, mode: str):
        self.f, self.mode, self.own = f, mode, _is_path(f)

    def __enter__(self):
        if not self.own:
            return self.f
        self.overwrite = False
        if self.mode == "overwrite":
            # An existing regular file is written over in place and cut to the new length at the
            # end: the same bytes as truncating first, without freeing its cached pages on open
            # and allocating them again (re-saving a checkpoint of the same size costs no page
            # allocation at all).
            if os.path.isfile(self.f):
                try:
                    self.fh = open(self.f, "r+b")
                    self.overwrite = True
                    return self.fh
                except OSError:
                    pass
            self.mode = "wb"
        self.fh = open(self.f, self.mode)
        return self.fh

    def __exit__(self, exc_type, *exc):
        if self.own:
            try:
                if self.overwrite and exc_type is None:
                    self.fh.truncate()
            finally:
                self.fh.close()


def _check_save_filelike(f) -> None:
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")


def location_tag(storage) -> str:
    """'cpu', or 'cuda:<index>': where a storage lives, as torch tags it."""
    cdev = lib.pt_storage_device(storage._h)
    if cdev.type == lib.PT_DEV_CPU:
        return "cpu"
    dev = _device._from_cdevice(cdev)
    return f"{dev.type}:{dev.index or 0}"


# ---------------------------------------------------------------- the pickler
class _Pickler(pickle._Pickler):
    """The pure-Python pickler with pytensor's globals written under torch's names."""

    def __init__(self, file, protocol, persistent_id):
        super().__init__(file, protocol)
        self._pid = persistent_id
        self.dispatch_table = _dispatch_table()

    def persistent_id(self, obj):
        return self._pid(obj)

    def save_global(self, obj, name=None):
        module = getattr(obj, "__module__", None)
        if name is None:
            name = getattr(obj, "__qualname__", None)
        if not (isinstance(module, str) and module.split(".")[0] == "pytensor") or name is None:
            return super().save_global(obj, name)
        module, name = _torch_name(module, name)
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            enc = "utf-8" if self.proto >= 3 else "ascii"
            self.write(pickle.GLOBAL + module.encode(enc) + b"\n" + name.encode(enc) + b"\n")
        self.memoize(obj)

    # the base class's table holds its own save_global for functions
    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[type(_get_layout)] = save_global


_GLOBAL_RE = None
_PLAIN_TYPES = frozenset({int, float, str, bytes, bool, tuple, list, dict, OrderedDict,
                          type(None), complex})
_STR_REDUCED: set = set()  # pytensor types whose objects pickle as a global name (dtype, layout)


def _c_dump(obj, protocol: int, persistent_id):
    """The pickle written by the C pickler, pytensor's GLOBAL opcodes then renamed to torch's;
    None when renaming could touch anything but those opcodes (the caller then uses _Pickler).

    Note [renaming GLOBAL opcodes]: up to protocol 3 a global is ``c<module>\\n<name>\\n`` and
    the pickler writes each global object once (then memo references). Every object passes
    through persistent_id, so the pytensor classes, functions and string-reduced objects (dtypes)
    met there are exactly the GLOBAL opcodes naming a pytensor module. When the bytes hold
    "pytensor" exactly that many times, each occurrence is one of those opcodes and replacing
    them is safe; a user string holding "pytensor" sends the object through _Pickler instead.
    The lengths change, which protocols <= 3 allow (no frames; memo ids are not offsets)."""
    global _GLOBAL_RE
    import re
    import types
    if _GLOBAL_RE is None:
        import pytensor
        _GLOBAL_RE = re.compile(rb"c(pytensor[^\n]*)\n([^\n]+)\n")
        _STR_REDUCED.update({_dtype.dtype, type(pytensor.contiguous_format)})
    named: set = set()
    seen: set = set()
    callables = (type, types.FunctionType, types.BuiltinFunctionType)

    plain = _PLAIN_TYPES
    storage_base = _storage._StorageBase

    class _CPickler(pickle.Pickler):
        def persistent_id(self, o):
            if type(o) in plain:
                return None
            if isinstance(o, storage_base):
                return persistent_id(o)
            if id(o) not in seen:
                seen.add(id(o))
                module = getattr(o, "__module__", None)
                if isinstance(module, str) and module.startswith("pytensor"):
                    if isinstance(o, callables):
                        named.add((module, o.__qualname__))
                    elif type(o) in _STR_REDUCED:
                        named.add((module, o.__reduce__()))
            return None

    buf = io.BytesIO()
    pickler = _CPickler(buf, protocol)
    pickler.dispatch_table = _dispatch_table()
    pickler.dump(obj)
    data = buf.getvalue()
    found = _GLOBAL_RE.findall(data)
    if data.count(b"pytensor") != len(found) or \
            {(m.decode(), n.decode()) for m, n in found} != named or len(found) != len(named):
        return None
    enc = "utf-8" if protocol >= 3 else "ascii"

    def rename(m):
        module, name = _torch_name(m.group(1).decode(), m.group(2).decode())
        return b"c" + module.encode(enc) + b"\n" + name.encode(enc) + b"\n"
    return _GLOBAL_RE.sub(rename, data)


def _dump(obj, pickle_module, protocol: int, persistent_id) -> bytes:
    if pickle_module is pickle and protocol <= 3:
        data = _c_dump(obj, protocol, persistent_id)
        if data is not None:
            return data
    buf = io.BytesIO()
    _pickler_for(pickle_module, buf, protocol, persistent_id).dump(obj)
    return buf.getvalue()


def _pickler_for(pickle_module, buf, protocol, persistent_id):
    if pickle_module is pickle:
        return _Pickler(buf, protocol, persistent_id)

    class _Foreign(pickle_module.Pickler):  # a user's pickle module: names stay pytensor's
        def persistent_id(self, obj):
            return persistent_id(obj)
    return _Foreign(buf, protocol=protocol)


def _storage_pids():
    """persistent_id for save: each C storage gets one key; returns (function, key -> storage)."""
    serialized: dict = {}
    id_map: dict = {}
    dtypes: dict = {}

    def persistent_id(obj):
        if not isinstance(obj, _storage._StorageBase):
            return None
        if isinstance(obj, _storage.TypedStorage):
            d = obj.dtype
            storage_type = _storage._typed_classes[d._id]
            numel = obj.size()
        else:
            d = _dtype._from_id(lib.PT_UINT8)
            storage_type = _storage.UntypedStorage
            numel = obj.nbytes()
        h = obj._h
        if obj.nbytes():
            ptr = int(ffi.cast("uintptr_t", lib.pt_storage_data(h)))
            if dtypes.setdefault(ptr, d) is not d:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                                   "data as different types")
        key = id_map.setdefault(int(ffi.cast("uintptr_t", h)), str(len(id_map)))
        serialized[key] = obj
        return ("storage", storage_type, key, location_tag(obj), numel)

    return persistent_id, serialized


def _cpu_bytes(storage):
    """A buffer over the storage's bytes on the CPU (copied there when it lives elsewhere)."""
    h, n = storage._h, storage.nbytes()
    if lib.pt_storage_device(h).type == lib.PT_DEV_CPU:
        return ffi.buffer(lib.pt_storage_data(h), n)
    out = ffi.new("char[]", n)
    st = lib.pt_copy_bytes(n, lib.pt_storage_data(h), lib.pt_storage_device(h), out,
                           _device._to_cdevice("cpu"), 0)
    if st:
        _raise(st)
    return ffi.buffer(out, n)


def save(obj: object, f, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Saves ``obj`` to ``f`` (a path or a binary file object) in torch.save's format.

    >>> import io; buf = io.BytesIO()
    >>> pytensor.save([pytensor.ones(2)], buf)
    >>> buf.getvalue()[:2]
    b'PK'
    """
    _check_save_filelike(f)
    if _is_path(f):
        f = os.fspath(f)
    if not _use_new_zipfile_serialization:
        if _tls.skip_data:
            raise RuntimeError("Cannot use skip_data=True with "
                               "_use_new_zipfile_serialization=False")
        with _opened(f, "wb") as fh:
            _legacy_save(obj, fh, pickle_module, pickle_protocol)
        return
    if _is_path(f):
        stem = os.path.basename(f)
        archive = stem[:stem.rfind(".")] if "." in stem else stem
    else:
        archive = "archive"
    with _opened(f, "wb" if _tls.skip_data else "overwrite") as fh:
        persistent_id, serialized = _storage_pids()
        data = _dump(obj, pickle_module, pickle_protocol, persistent_id)
        w = _ZipWriter(fh, archive)
        w.write_record("data.pkl", data, len(data))
        w.write_record(".format_version", b"1", 1)
        w.write_record(".storage_alignment", str(_ALIGNMENT).encode(), 2)
        if not _disable_byteorder_record:
            w.write_record("byteorder", sys.byteorder.encode(), len(sys.byteorder))
        for key, storage in serialized.items():
            n = storage.nbytes()
            w.write_record(f"data/{key}", _cpu_bytes(storage) if n else b"", n,
                           skip=_tls.skip_data)
        w.close()


# ---------------------------------------------------------------- storages on load
def _new_cpu_storage(nbytes: int):
    out = ffi.new("pt_storage **")
    st = lib.pt_storage_new(nbytes, lib.PT_UINT8, _device._to_cdevice("cpu"), 1, out)
    if st:
        _raise(st)
    return _storage.UntypedStorage._new_wrapping(out[0])


def _window(overall, offset: int, nbytes: int):
    """An UntypedStorage over bytes [offset, offset + nbytes) of ``overall`` (kept alive)."""
    ctx = _C._keep(overall)
    out = ffi.new("pt_storage **")
    st = lib.pt_storage_from_external(
        ffi.cast("char *", lib.pt_storage_data(overall._h)) + offset, nbytes, lib.PT_UINT8,
        _device._to_cdevice("cpu"), lib.pt_py_release_handle, ctx, 1, out)
    if st:
        _C._keepalive.pop(int(ffi.cast("uintptr_t", ctx)), None)
        _raise(st)
    return _storage.UntypedStorage._new_wrapping(out[0])


def _to_device(storage, device):
    """The storage on ``device`` (itself when it is there already)."""
    cdev = _device._to_cdevice(device)
    h = storage._h
    src = lib.pt_storage_device(h)
    if src.type == cdev.type and src.index == cdev.index:
        return storage
    out = ffi.new("pt_storage **")
    n = lib.pt_storage_nbytes(h)
    st = lib.pt_storage_new(n, lib.PT_UINT8, cdev, 1, out)
    if st:
        _raise(st)
    new = _storage.UntypedStorage._new_wrapping(out[0])
    if n:
        st = lib.pt_copy_bytes(n, lib.pt_storage_data(h), src, lib.pt_storage_data(out[0]),
                               cdev, 0)
        if st:
            _raise(st)
    return new


def default_restore_location(storage, location: str):
    """Moves a storage loaded on the CPU to the device its location tag names."""
    if location.startswith("cpu"):
        return storage
    if location.startswith("cuda"):
        import pytensor
        if not pytensor.cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU.")
        return _to_device(storage, location)
    raise RuntimeError(f"don't know how to restore data location of "
                       f"torch.storage.UntypedStorage (tagged with {location})")


def _get_restore_location(map_location):
    import pytensor
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(
            storage, map_location.get(location, location))
    if isinstance(map_location, (str, bytes)):
        loc = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: default_restore_location(storage, loc)
    if isinstance(map_location, pytensor.device):
        loc = str(map_location)
        return lambda storage, location: default_restore_location(storage, loc)

    def restore(storage, location):
        result = map_location(storage, location)
        return default_restore_location(storage, location) if result is None else result
    return restore


def _byteswap(storage, dtype) -> None:
    if dtype.itemsize == 1 or not storage.nbytes():
        return
    unit = dtype.itemsize // 2 if dtype.is_complex else dtype.itemsize
    buf = ffi.buffer(lib.pt_storage_data(storage._h), storage.nbytes())
    buf[:] = _storage._byteswapped(memoryview(buf), unit)


def _storage_dtype(storage_type):
    if storage_type is _storage.UntypedStorage:
        return _dtype._from_id(lib.PT_UINT8)
    d = getattr(storage_type, "_fixed_dtype", None)
    if d is None:
        raise RuntimeError(f"load: unknown storage type {storage_type!r} in a persistent id")
    return d


def _typed(storage, dtype):
    lib.pt_storage_retain(storage._h)
    return _storage.TypedStorage._new_wrapping(storage._h, dtype)


# ---------------------------------------------------------------- the unpicklers
class _MappedUnpickler(pickle.Unpickler):
    """Unrestricted loading: torch's globals become pytensor's, other globals load as usual."""

    def find_class(self, module, name):
        obj = _pytensor_global(module, name)
        return super().find_class(module, name) if obj is None else obj


def _unpickler(pickle_module, weights_only: bool):
    if weights_only:
        return _weights_only_unpickler.Unpickler
    if pickle_module is pickle:
        return _MappedUnpickler

    class _Foreign(pickle_module.Unpickler):
        def find_class(self, module, name):
            obj = _pytensor_global(module, name)
            return super().find_class(module, name) if obj is None else obj
    return _Foreign


def _load_zip(reader: _ZipReader, map_location, unpickler_cls, overall, pickle_load_args):
    restore_location = _get_restore_location(map_location)
    swap = False
    if reader.has_record("byteorder"):
        order = reader.read("byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode("utf-8", "replace"))
        swap = order.decode() != sys.byteorder
    loaded: dict = {}

    def load_storage(dtype, nbytes, key, location):
        name = f"data/{key}"
        if _tls.skip_data:
            storage = _new_cpu_storage(nbytes)
        elif overall is not None:
            start, size = reader.locate(name)
            if size != nbytes:
                raise RuntimeError(f"PytorchStreamReader: record {name} holds {size} bytes, but "
                                   f"the pickle describes a storage of {nbytes} bytes")
            storage = _window(overall, start, nbytes)
        else:
            storage = _new_cpu_storage(nbytes)
            if nbytes:
                reader.read_into(name, ffi.buffer(lib.pt_storage_data(storage._h), nbytes),
                                 nbytes)
            else:
                reader.locate(name)
        if swap:
            _byteswap(storage, dtype)
        return _typed(restore_location(storage, location), dtype)

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or not saved_id:
            raise pickle.UnpicklingError(f"load: malformed persistent id {saved_id!r}")
        typename = saved_id[0]
        if isinstance(typename, bytes):
            typename = typename.decode("ascii")
        if typename != "storage" or len(saved_id) != 5:
            raise RuntimeError("Unknown typename for persistent_load, expected 'storage' but got "
                               f"'{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        if isinstance(location, bytes):
            location = location.decode("ascii")
        dtype = _storage_dtype(storage_type)
        if key not in loaded:
            loaded[key] = load_storage(dtype, numel * dtype.itemsize, key, location)
        typed = loaded[key]
        if storage_type is _storage.UntypedStorage:
            return typed
        return typed if typed.dtype is dtype else _typed(typed, dtype)

    class _Unpickler(unpickler_cls):
        pass
    _Unpickler.persistent_load = staticmethod(persistent_load)
    data = reader.read("data.pkl")
    return _Unpickler(io.BytesIO(data), **pickle_load_args).load()


def _wo_message(message: str) -> str:
    import re
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
            "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                "message.\n\tWeightsUnpickler error: " + message + docs)
    out = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        out += ("Please file an issue with the following so that we can make `weights_only=True` "
                "compatible with your use case: WeightsUnpickler error: ")
    return out + "\n\n" + message + docs


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Loads an object saved by ``pytensor.save`` or ``torch.save`` from a path or a binary file.

    ``map_location``: a device (or its string), a dict from saved location tags to new ones, or
    a callable ``(storage, location) -> storage or None``. ``weights_only`` (the default) allows
    only tensors, containers and the globals ``add_safe_globals`` lists. ``mmap=True`` maps the
    file instead of reading the storages (f must be a path).
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
        pickle_load_args = {}
    pickle_load_args.setdefault("encoding", "utf-8")
    unpickler_cls = _unpickler(pickle_module, weights_only)
    with _opened(f, "rb") as fh:
        start = fh.tell() if hasattr(fh, "tell") else 0
        magic = fh.read(4)
        fh.seek(start)
        try:
            if magic == b"PK\x03\x04":
                reader = _ZipReader(fh)
                if reader.has_record("constants.pkl"):
                    raise RuntimeError("load: this is a TorchScript archive, which pytensor "
                                       "cannot load")
                overall = None
                if mmap:
                    if not _is_path(f):
                        raise ValueError("f must be a file path in order to use the mmap "
                                         "argument")
                    overall = _storage.UntypedStorage.from_file(os.fspath(f), False,
                                                                os.path.getsize(f))
                return _load_zip(reader, map_location, unpickler_cls, overall, pickle_load_args)
            if mmap:
                name = "" if not isinstance(f, str) else f"{f}, "
                raise RuntimeError("mmap can only be used with files saved with "
                                   f"`torch.save({name}_use_new_zipfile_serialization=True), "
                                   "please torch.save your checkpoint with this option in order "
                                   "to use mmap.")
            if not magic:
                raise RuntimeError("load: the file is empty")
            if magic[:2] == b"PK":
                raise _corrupt("not a ZIP archive")
            head = fh.read(512)
            fh.seek(start)
            if head[257:262] == b"ustar":
                raise RuntimeError("load: checkpoints in torch's legacy .tar format (before "
                                   "0.4) are not supported; load and save them again with torch")
            return _legacy_load(fh, map_location, unpickler_cls, pickle_load_args)
        except pickle.UnpicklingError as e:
            if weights_only:
                raise pickle.UnpicklingError(_wo_message(str(e))) from None
            raise


# ---------------------------------------------------------------- the legacy (pre-zip) format
def _legacy_save(obj, f, pickle_module, pickle_protocol) -> None:
    """torch's format before 1.6: magic number, protocol version, system info, the pickle, the
    storage keys, then each storage as its element count (int64) and its bytes."""
    persistent_id, serialized = _storage_pids()

    def legacy_id(o):
        pid = persistent_id(o)
        return None if pid is None else pid + (None,)

    sys_info = dict(protocol_version=PROTOCOL_VERSION, little_endian=sys.byteorder == "little",
                    type_sizes=dict(short=2, int=4, long=8))
    pickle_module.dump(MAGIC_NUMBER, f, protocol=pickle_protocol)
    pickle_module.dump(PROTOCOL_VERSION, f, protocol=pickle_protocol)
    pickle_module.dump(sys_info, f, protocol=pickle_protocol)
    _pickler_for(pickle_module, f, pickle_protocol, legacy_id).dump(obj)
    keys = sorted(serialized.keys())
    pickle_module.dump(keys, f, protocol=pickle_protocol)
    if hasattr(f, "flush"):
        f.flush()
    for key in keys:
        storage = serialized[key]
        itemsize = storage.element_size()
        f.write(struct.pack("<q", storage.nbytes() // itemsize))
        if storage.nbytes():
            f.write(_cpu_bytes(storage))


def _legacy_load(f, map_location, unpickler_cls, pickle_load_args):
    restore_location = _get_restore_location(map_location)

    def plain_load():
        return unpickler_cls(f, **pickle_load_args).load()

    try:
        magic_number = plain_load()
    except EOFError:
        raise RuntimeError("load: the file is truncated (no pickle in it)") from None
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = plain_load()
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    plain_load()  # system info: pytensor writes and reads little-endian native sizes only
    deserialized: dict = {}

    def persistent_load(saved_id):
        typename = saved_id[0]
        if isinstance(typename, bytes):
            typename = typename.decode("ascii")
        if typename != "storage" or len(saved_id) != 6:
            raise RuntimeError("Unknown saved id type: " + str(typename))
        storage_type, root_key, location, numel, view_metadata = saved_id[1:]
        dtype = _storage_dtype(storage_type)
        if root_key not in deserialized:
            storage = _new_cpu_storage(numel * dtype.itemsize)
            deserialized[root_key] = (storage, dtype, location)
        storage = deserialized[root_key][0]
        if view_metadata is not None:
            raise RuntimeError("load: legacy storage views are not supported")
        return _typed(storage, dtype)

    class _Unpickler(unpickler_cls):
        pass
    _Unpickler.persistent_load = staticmethod(persistent_load)
    result = _Unpickler(f, **pickle_load_args).load()
    keys = plain_load()
    for key in keys:
        if key not in deserialized:
            raise RuntimeError(f"load: storage {key} is listed but never used")
        storage, dtype, location = deserialized[key]
        head = f.read(8)
        if len(head) != 8:
            raise RuntimeError(f"load: the file is truncated (storage {key})")
        numel = struct.unpack("<q", head)[0]
        nbytes = numel * dtype.itemsize
        if nbytes != storage.nbytes():
            raise RuntimeError(f"load: storage {key} holds {nbytes} bytes, but the pickle "
                               f"describes {storage.nbytes()}")
        view, done = memoryview(ffi.buffer(lib.pt_storage_data(storage._h), nbytes)), 0
        while done < nbytes:
            got = f.readinto(view[done:])
            if not got:
                raise RuntimeError(f"load: the file is truncated (storage {key})")
            done += got
    if any(loc != "cpu" for _, _, loc in deserialized.values()) or map_location is not None:
        return _relocate(result, deserialized, restore_location)
    return result


def _relocate(result, deserialized, restore_location):
    """Legacy files: storages were filled on the CPU; moving them afterwards would break the
    tensors already built over them, so only placements that keep them on the CPU are taken."""
    for storage, _, location in deserialized.values():
        moved = restore_location(storage, location)
        if moved is not storage and moved._h != storage._h:
            raise RuntimeError("load: map_location that moves storages off the CPU is not "
                               "supported for files in the legacy format")
    return result
