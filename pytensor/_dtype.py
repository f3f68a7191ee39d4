"""Data types: ``pytensor.dtype`` objects made from the C dtype table, and the helpers around them.

One ``dtype`` object exists per C dtype id; ``_build`` creates them from ``pt_dtype_get`` at
start-up and sets them on the ``pytensor`` module under their names (``pytensor.float32``) and
under the legacy aliases (``pytensor.float``), which C resolves through ``pt_dtype_from_name``.
``_to_dtype`` is the one converter every ``dtype=`` argument goes through: it accepts dtypes,
names, Python types and NumPy dtypes/types (NumPy is only looked at when the caller already
imported it). Promotion and casting rules live in C; ``iinfo``/``finfo`` read the limits stored
in the same table.
"""

from __future__ import annotations

import sys

from . import _C
from ._C import ffi, lib

# Aliases PyTorch keeps for C-era type names. C has no notion of an alias list, so only the names
# live here; which dtype each one means is asked of pt_dtype_from_name.
_ALIASES = ("float", "double", "half", "long", "int", "short", "cfloat", "cdouble")

_dtypes_by_id: list = []
_by_name: dict = {}     # str / NumPy object -> dtype, filled lazily by _to_dtype
_by_typestr: dict = {}  # NumPy typestr without its byte-order character -> dtype
_default_dtype = None
_default_complex = None
_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"


class dtype:
    """A tensor element type (made only from the C table; compare with ``is`` or ``==``).

    >>> import pytensor
    >>> pytensor.float32.itemsize, pytensor.float32.is_floating_point
    (4, True)
    """

    __slots__ = ("_id", "itemsize", "is_floating_point", "is_complex", "is_signed", "_name",
                 "_typestr", "_legacy_name", "_kind")

    def __init__(self, *args, **kwargs):
        raise TypeError("dtype: cannot be constructed; use pytensor.float32 and friends")

    @classmethod
    def _from_info(cls, info) -> "dtype":
        self = object.__new__(cls)
        kind = info.kind
        self._id = info.id
        self.itemsize = info.itemsize
        self._kind = kind
        self.is_floating_point = bool(kind & lib.PT_KIND_FLOAT)
        self.is_complex = bool(kind & lib.PT_KIND_COMPLEX)
        self.is_signed = bool(kind & lib.PT_KIND_SIGNED)
        self._name = _C._str(info.name)
        self._legacy_name = _C._str(info.legacy_name)
        self._typestr = _C._str(info.numpy_typestr)
        return self

    def __repr__(self) -> str:
        return f"pytensor.{self._name}"

    __str__ = __repr__

    def __reduce__(self) -> str:
        # A string tells pickle "the global of this name in __module__", which keeps dtypes
        # singletons across pickling and copying.
        return self._name

    def to_real(self) -> "dtype":
        """The real counterpart of a complex dtype; other dtypes return themselves.

        >>> pytensor.complex64.to_real()
        pytensor.float32
        """
        if not self.is_complex:
            return self
        return _find(lambda d: d.is_floating_point and d.itemsize * 2 == self.itemsize, self,
                     "to_real")

    def to_complex(self) -> "dtype":
        """The complex dtype whose parts have this floating dtype; complex dtypes return themselves.

        >>> pytensor.float64.to_complex()
        pytensor.complex128
        """
        if self.is_complex:
            return self
        if not self.is_floating_point:
            raise RuntimeError(f"to_complex: {self} is not a floating-point dtype")
        return _find(lambda d: d.is_complex and d.itemsize == self.itemsize * 2, self,
                     "to_complex")


dtype.__module__ = "pytensor"


def _find(pred, d: dtype, what: str) -> dtype:
    for other in _dtypes_by_id:
        if other is not None and pred(other):
            return other
    raise RuntimeError(f"{what}: {d} has no counterpart among the dtypes")


def _from_id(dtype_id: int) -> dtype:
    """The dtype object of a C id (ids registered after start-up get their object on first use)."""
    if dtype_id < len(_dtypes_by_id):
        d = _dtypes_by_id[dtype_id]
        if d is not None:
            return d
    out = ffi.new("const pt_dtype_info **")
    _C._check(lib.pt_dtype_get(dtype_id, out))
    d = dtype._from_info(out[0])
    _register(d)
    return d


def _register(d: dtype) -> None:
    while len(_dtypes_by_id) <= d._id:
        _dtypes_by_id.append(None)
    _dtypes_by_id[d._id] = d
    if d._typestr:
        _by_typestr.setdefault(d._typestr[1:], d)


def _lookup_name(name: str, argname: str) -> dtype:
    text = name
    for prefix in ("pytensor.", "torch."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    out = ffi.new("int32_t *")
    if not text.isascii() or lib.pt_dtype_from_name(text.encode(), out):
        lib.pt_error_clear()
        raise TypeError(f"{argname}: unknown dtype name {name!r}")
    return _from_id(out[0])


def _lookup_numpy(obj, argname: str):
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if isinstance(obj, type):
        if not issubclass(obj, np.generic):
            return None
        obj = np.dtype(obj)
    elif not isinstance(obj, np.dtype):
        return None
    typestr = obj.str
    d = _by_typestr.get(typestr[1:])
    if d is None or typestr[0] not in ("|", "=", _NATIVE_ORDER):
        raise TypeError(f"{argname}: NumPy dtype {obj} ({typestr!r}) has no pytensor counterpart")
    return d


def _to_dtype(obj, argname: str = "dtype") -> dtype:
    """Converts a dtype-like object to a ``dtype``, raising TypeError naming ``argname``.

    >>> _to_dtype("torch.float64"), _to_dtype(int)
    (pytensor.float64, pytensor.int64)
    """
    if type(obj) is dtype:
        return obj
    if obj is float:
        return _default_dtype
    if obj is complex:
        return _default_complex
    try:
        d = _by_name.get(obj)
    except TypeError:  # unhashable
        d = None
    if d is not None:
        return d
    if isinstance(obj, str):
        d = _lookup_name(obj, argname)
    elif obj is bool or obj is int:
        d = _lookup_name("bool" if obj is bool else "int64", argname)
    else:
        d = _lookup_numpy(obj, argname)
        if d is None:
            raise TypeError(f"{argname}: expected a pytensor.dtype, a dtype name or a Python/NumPy "
                            f"type, got {type(obj).__name__} {obj!r}")
    _by_name[obj] = d
    return d


def get_default_dtype() -> dtype:
    """The dtype that Python floats become (float32 unless changed).

    >>> pytensor.get_default_dtype()
    pytensor.float32
    """
    return _default_dtype


def set_default_dtype(d) -> None:
    """Sets the dtype that Python floats become; floating dtypes only.

    >>> pytensor.set_default_dtype(pytensor.float64); pytensor.set_default_dtype(pytensor.float32)
    """
    global _default_dtype, _default_complex
    d = _to_dtype(d, "d")
    if not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point dtypes can be the default, "
                        f"got {d}")
    try:
        complex_d = d.to_complex()
    except RuntimeError:  # no complex type of half width: the nearest wider one serves
        complex_d = _lookup_name("complex64", "d")
    _default_dtype, _default_complex = d, complex_d
    lib.pt_dtype_set_default(d._id)  # C promotes wrapped Python floats to the default dtype


def _default_complex_dtype() -> dtype:
    """The dtype Python complex numbers become: the complex one of the default dtype's width, or
    complex64 for float16 and bfloat16 (pytensor has no complex32)."""
    return _default_complex


def promote_types(type1, type2) -> dtype:
    """The smallest dtype both arguments can be cast to, by PyTorch's rules.

    >>> pytensor.promote_types(pytensor.int32, pytensor.float16)
    pytensor.float16
    """
    a, b = _to_dtype(type1, "type1"), _to_dtype(type2, "type2")
    out = ffi.new("int32_t *")
    st = lib.pt_dtype_promote(a._id, b._id, out)
    if st:
        _C._raise(st)
    return _dtypes_by_id[out[0]]


def can_cast(from_, to) -> bool:
    """Whether a cast from ``from_`` to ``to`` is allowed by PyTorch's same-kind rules.

    >>> pytensor.can_cast(pytensor.float64, pytensor.int32)
    False
    """
    return bool(lib.pt_dtype_can_cast(_to_dtype(from_, "from_")._id, _to_dtype(to, "to")._id))


def _info(d: dtype):
    out = ffi.new("const pt_dtype_info **")
    _C._check(lib.pt_dtype_get(d._id, out))
    return out[0]


class iinfo:
    """Limits of an integer dtype.

    >>> pytensor.iinfo(pytensor.int8).max
    127
    """

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type):
        d = _to_dtype(type, "type")
        if d.is_floating_point or d.is_complex or not d._kind & lib.PT_KIND_INTEGER:
            raise TypeError(f"iinfo: {d} is not an integer dtype; use pytensor.finfo for "
                            "floating-point dtypes")
        info = _info(d)
        self.bits = info.bits
        self.min = info.imin
        self.max = info.imax
        self.dtype = d._name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class finfo:
    """Limits of a floating dtype (of the real part for complex dtypes).

    >>> pytensor.finfo(pytensor.float16).eps
    0.0009765625
    """

    __slots__ = ("bits", "min", "max", "eps", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        d = _default_dtype if type is None else _to_dtype(type, "type")
        if not (d.is_floating_point or d.is_complex):
            raise TypeError(f"finfo: {d} is not a floating-point or complex dtype; use "
                            "pytensor.iinfo for integer dtypes")
        d = d.to_real()
        info = _info(d)
        self.bits = info.bits
        self.min = info.fmin
        self.max = info.fmax
        self.eps = info.eps
        self.tiny = self.smallest_normal = info.tiny
        self.resolution = info.resolution
        self.dtype = d._name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


def _build(module) -> None:
    global _default_dtype, _default_complex
    for i in range(lib.pt_dtype_count()):
        d = _from_id(i)
        setattr(module, d._name, d)
    out = ffi.new("int32_t *")
    for alias in _ALIASES:
        if lib.pt_dtype_from_name(alias.encode(), out) == 0:
            setattr(module, alias, _dtypes_by_id[out[0]])
    lib.pt_error_clear()
    _default_dtype = _lookup_name("float32", "dtype")
    _default_complex = _default_dtype.to_complex()
    for name in ("dtype", "get_default_dtype", "set_default_dtype", "promote_types", "can_cast",
                 "iinfo", "finfo"):
        setattr(module, name, globals()[name])
