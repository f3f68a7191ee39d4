"""Devices, layouts, memory formats and ``pytensor.Size``.

``device`` is the Python face of the C ``pt_device`` (a type and an index): strings are parsed by
``pt_device_parse`` so that C and Python accept exactly the same spellings. ``_to_cdevice`` is on
every factory call, so it keeps the resolved C value per argument; an argument that means "the
current CUDA device" is resolved again on each call because the current device is per thread and
may change. Layouts and memory formats are one object per C enum value, named from the enum
constants that the cffi module exposes, so the list exists once, in the header.
"""

from __future__ import annotations

import operator

from . import _C
from ._C import ffi, lib


def _type_names() -> dict:
    names = {}
    for t in range(lib.PT_DEV_TYPE_COUNT):
        cname = lib.pt_device_type_name(t)
        if cname != ffi.NULL:
            names[t] = ffi.string(cname).decode()
    return names


_TYPE_NAMES: dict = {}
_parsed: dict = {}  # text -> (type, index) as pt_device_parse read it


def _parse(text: str) -> tuple:
    got = _parsed.get(text)
    if got is None:
        out = ffi.new("pt_device *")
        st = lib.pt_device_parse(text.encode(), out) if text.isascii() else -1
        if st:
            if st < 0:
                raise RuntimeError(f"device: expected a device string like 'cuda:0', got {text!r}")
            _C._raise(st)
        got = (out.type, out.index)
        _parsed[text] = got
    return got


class device:
    """Where a tensor lives: ``device("cuda:1")``, ``device("cuda", 1)``, ``device("cpu")``.

    >>> import pytensor
    >>> d = pytensor.device("cuda", 1)
    >>> d.type, d.index, str(d)
    ('cuda', 1, 'cuda:1')
    """

    __slots__ = ("_type_id", "_index")

    def __init__(self, type, index: int | None = None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device: index must not be given with a device object")
            self._type_id, self._index = type._type_id, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device: expected a device string, a device or an int as type, got "
                            f"{type.__class__.__name__}")
        type_id, parsed_index = _parse(type)
        if index is not None:
            if parsed_index >= 0:
                raise RuntimeError(f"device: type (string) must not include an index because "
                                   f"index was passed explicitly: {type}")
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device: index must be an int, got {index.__class__.__name__}")
            if index < 0:
                raise RuntimeError(f"device: index must not be negative, got {index}")
            parsed_index = index
        self._type_id, self._index = type_id, parsed_index

    @property
    def type(self) -> str:
        return _TYPE_NAMES[self._type_id]

    @property
    def index(self) -> int | None:
        return None if self._index < 0 else self._index

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self._type_id == other._type_id and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type_id, self._index))

    def __repr__(self) -> str:
        if self._index < 0:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self._index})"

    def __str__(self) -> str:
        return self.type if self._index < 0 else f"{self.type}:{self._index}"

    def __reduce__(self):
        return (device, (self.type, self.index))


device.__module__ = "pytensor"

_resolved: dict = {}      # argument -> (resolved pt_device value, the cdata owning it)
_resolved_int: dict = {}
_from_c: dict = {}        # (type, index) -> device object
_CPU = None


def _c_value(type_id: int, index: int):
    p = ffi.new("pt_device *")
    p.type, p.index = type_id, index
    out = ffi.new("pt_device *")
    st = lib.pt_device_resolve(p[0], out)
    if st:
        _C._raise(st)
    return out


def _to_cdevice(obj=None, argname: str = "device"):
    """A resolved ``pt_device`` value for a device argument (str, device, int, or None for cpu).

    >>> _to_cdevice("cpu").type == lib.PT_DEV_CPU
    True
    """
    # Keyed by the argument itself; ints have their own table so that 1.0 or True never hit
    # the entry of cuda:1.
    cache = _resolved_int if type(obj) is int else _resolved
    try:
        return cache[obj][0]
    except KeyError:
        pass
    except TypeError:
        raise TypeError(f"{argname}: expected a device string, a device or an int, got "
                        f"{type(obj).__name__}") from None
    if type(obj) is not int and isinstance(obj, (int, float, complex)):
        raise TypeError(f"{argname}: expected a device string, a device or an int, got "
                        f"{type(obj).__name__}")
    if obj is None:
        type_id, index = lib.PT_DEV_CPU, -1
    elif isinstance(obj, device):
        type_id, index = obj._type_id, obj._index
    elif isinstance(obj, str):
        type_id, index = _parse(obj)
    elif type(obj) is int:
        if obj < 0:
            raise RuntimeError(f"{argname}: device index must not be negative, got {obj}")
        type_id, index = lib.PT_DEV_CUDA, obj
    else:
        raise TypeError(f"{argname}: expected a device string, a device or an int, got "
                        f"{type(obj).__name__}")
    owner = _c_value(type_id, index)
    if index >= 0 or type_id != lib.PT_DEV_CUDA:
        cache[obj] = (owner[0], owner)
    return owner[0]


def _from_cdevice(cdev) -> device:
    """The ``device`` object of a C ``pt_device`` value (one object per distinct value)."""
    return _from_pair(cdev.type, cdev.index)


def _from_pair(type_id: int, index: int) -> device:
    """The ``device`` object of a (device type id, index) pair; Tensor.device reads it in C."""
    key = (type_id, index)
    d = _from_c.get(key)
    if d is None:
        d = object.__new__(device)
        # Only CUDA numbers its devices; the others report no index, as torch's CPU tensors do,
        # so that a tensor's device equals device("cpu").
        d._type_id, d._index = type_id, index if type_id == lib.PT_DEV_CUDA else -1
        _from_c[key] = d
    return d


def _to_device(obj=None, argname: str = "device") -> device:
    """The resolved ``device`` object of a device argument."""
    return _from_cdevice(_to_cdevice(obj, argname))


class layout:
    """How a tensor's elements are stored (``pytensor.strided``, ``pytensor.sparse_coo``)."""

    __slots__ = ("_id", "_name")

    def __repr__(self) -> str:
        return f"pytensor.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class memory_format:
    """The order of a dense tensor's dimensions in memory (``pytensor.channels_last``, ...)."""

    __slots__ = ("_id", "_name")

    def __repr__(self) -> str:
        return f"pytensor.{self._name}"

    def __reduce__(self) -> str:
        return self._name


layout.__module__ = memory_format.__module__ = "pytensor"

_layouts: list = []
_memory_formats: list = []


def _enum_objects(cls, prefix: str, count: int, name_of) -> list:
    """One ``cls`` object per ``lib.<prefix>*`` constant below ``count``, by value."""
    objs = [None] * count
    for attr in dir(lib):
        if attr.startswith(prefix):
            value = getattr(lib, attr)
            if isinstance(value, int) and 0 <= value < count:
                obj = object.__new__(cls)
                obj._id, obj._name = value, name_of(attr[len(prefix):].lower())
                objs[value] = obj
    return objs


def _memory_format_name(name: str) -> str:
    # PyTorch's spelling: the formats that are not a dimension order carry a "_format" suffix.
    return name if name.startswith("channels_last") else f"{name}_format"


class Size(tuple):
    """A tensor's shape: a tuple of ints.

    >>> pytensor.Size([2, 3]).numel()
    6
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        try:
            return tuple.__new__(cls, [operator.index(s) for s in sizes])
        except TypeError:
            raise TypeError(f"Size: expected a sequence of ints, got {sizes!r}") from None

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return Size(got) if isinstance(key, slice) else got

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __repr__(self) -> str:
        return f"pytensor.Size({list(self)})"

    def __reduce__(self):
        return (Size, (tuple(self),))


Size.__module__ = "pytensor"


def _build(module) -> None:
    global _CPU
    _TYPE_NAMES.update(_type_names())
    _CPU = _to_device("cpu")
    _layouts[:] = _enum_objects(layout, "PT_LAYOUT_", lib.PT_LAYOUT_COUNT, str)
    _memory_formats[:] = _enum_objects(memory_format, "PT_MEMORY_FORMAT_",
                                       lib.PT_MEMORY_FORMAT_COUNT, _memory_format_name)
    for obj in _layouts + _memory_formats:
        setattr(module, obj._name, obj)
    module.device = device
    module.layout = layout
    module.memory_format = memory_format
    module.Size = Size
