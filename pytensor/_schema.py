"""Operator schemas: ``parse_schema`` and the ``FunctionSchema`` view of a schema parsed in C.

The parsing, the type checks of defaults, the canonical printing and equality all live in C
(csrc/core/schema.c); this module only reads the parsed schema. A ``FunctionSchema`` holds one
reference to the C schema (released when the Python object goes) and builds its ``Argument``
objects on first access, so that wrapping every registered operator's schema stays cheap.
Defaults come back as Python values: numbers, strings and lists as themselves, dtype / layout /
memory format defaults as pytensor's objects for them, a device default as a ``pytensor.device``.

>>> s = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
>>> s.name, s.overload_name, [a.name for a in s.arguments], s.arguments[2].default_value
('aten::add', 'Tensor', ['self', 'other', 'alpha'], 1)
"""

from __future__ import annotations

from . import _C, _device, _dtype
from ._C import ffi, lib

__all__ = ["parse_schema", "FunctionSchema", "Argument", "AliasInfo"]

_NULL = ffi.NULL


class AliasInfo:
    """An alias annotation: ``Tensor(a!)`` is ``is_write`` with ``before_set`` and ``after_set``
    both ``{"a"}``; ``Tensor(a -> *)`` has ``after_set == {"*"}``; ``Tensor!`` is a fresh set
    (``{"$0"}``, as PyTorch names it). A list's elements' annotation is in ``contained_types``,
    as PyTorch's parser keeps it: ``Tensor(a!)[]`` is ``is_write`` with empty sets and
    ``contained_types == [AliasInfo(True, {"a"}, {"a"})]``; ``Tensor[](b)`` is the list's own
    annotation."""

    __slots__ = ("is_write", "before_set", "after_set", "contained_types")

    def __init__(self, is_write: bool, before_set: set, after_set: set,
                 contained_types: list = None):
        self.is_write = is_write
        self.before_set = before_set
        self.after_set = after_set
        self.contained_types = list(contained_types or ())

    def __eq__(self, other) -> bool:
        if not isinstance(other, AliasInfo):
            return NotImplemented
        return (self.is_write, self.before_set, self.after_set, self.contained_types) == \
            (other.is_write, other.before_set, other.after_set, other.contained_types)

    __hash__ = None  # mutable sets inside

    def __str__(self) -> str:
        """PyTorch's text: ``(a!)``, ``(a -> *)``; ``!`` for a fresh set."""
        if any(x.startswith("$") for x in self.before_set):
            return "!"
        text = "(" + "|".join(sorted(self.before_set)) + ("!" if self.is_write else "")
        if self.after_set != self.before_set:
            text += " -> " + "|".join(sorted(self.after_set))
        return text + ")"

    def __repr__(self) -> str:
        inner = f", contained_types={self.contained_types}" if self.contained_types else ""
        return (f"AliasInfo(is_write={self.is_write}, before_set={self.before_set}, "
                f"after_set={self.after_set}{inner})")


def _alias_set(cstr) -> set:
    text = _C._str(cstr)
    return set(text.split("|")) if text else set()


def _list_of(ptr, n: int, convert) -> list:
    return [convert(x) for x in ffi.unpack(ptr, n)] if n else []


def _default(v):
    """The Python value of a default pt_ivalue (Note [boxed values] in pytensor.h)."""
    tag = v.tag
    if tag == lib.PT_IV_NONE:
        return None
    if tag == lib.PT_IV_BOOL:
        return bool(v.i)
    if tag == lib.PT_IV_INT:
        return v.i
    if tag == lib.PT_IV_DOUBLE:
        return v.d
    if tag == lib.PT_IV_COMPLEX:
        return complex(v.d, v.im)
    if tag == lib.PT_IV_STRING:
        return ffi.string(v.s).decode("utf-8")
    if tag == lib.PT_IV_DTYPE:
        return _dtype._from_id(v.i)
    if tag == lib.PT_IV_LAYOUT:
        return _device._layouts[v.i]
    if tag == lib.PT_IV_MEMORY_FORMAT:
        return _device._memory_formats[v.i]
    if tag == lib.PT_IV_DEVICE:
        return _device._from_cdevice(v.device)
    if tag == lib.PT_IV_INT_LIST:
        return _list_of(v.ints, v.len, int)
    if tag == lib.PT_IV_BOOL_LIST:
        return _list_of(v.ints, v.len, bool)
    if tag == lib.PT_IV_DOUBLE_LIST:
        return _list_of(v.doubles, v.len, float)
    raise RuntimeError(f"schema: a default with value tag {tag} has no Python form")


class Argument:
    """One argument or return of a schema.

    ``type`` is the schema's type text without the alias annotation (``"Tensor?[]"``,
    ``"int[2]"``); ``N`` the fixed size of a list type (None otherwise); ``default_value`` the
    default as a Python value (None when there is none: ``has_default_value()`` tells it apart
    from a None default); ``alias_info`` None or an ``AliasInfo``.
    """

    __slots__ = ("name", "type", "N", "kwarg_only", "default_value", "alias_info",
                 "_has_default", "_default_text")

    @classmethod
    def _from_info(cls, info) -> "Argument":
        self = object.__new__(cls)
        self.name = _C._str(info.name)
        self.type = _C._str(info.type)
        self.N = info.N if info.N >= 0 else None
        self.kwarg_only = bool(info.kwarg_only)
        self._has_default = bool(info.has_default)
        self.default_value = _default(info.default_value) if info.has_default else None
        self._default_text = _C._str(info.default_text)
        self.alias_info = None
        if info.has_alias:
            contained = []
            if info.elem_has_alias:
                contained.append(AliasInfo(bool(info.elem_alias_is_write),
                                           _alias_set(info.elem_alias_before),
                                           _alias_set(info.elem_alias_after)))
            self.alias_info = AliasInfo(bool(info.alias_is_write), _alias_set(info.alias_before),
                                        _alias_set(info.alias_after), contained)
        return self

    @property
    def element_alias_info(self):
        """The alias annotation of a list's elements (``Tensor(a!)[]``), None when there is
        none: PyTorch's ``alias_info.containedTypes()[0]``."""
        a = self.alias_info
        return a.contained_types[0] if a is not None and a.contained_types else None

    def has_default_value(self) -> bool:
        return self._has_default

    @property
    def is_write(self) -> bool:
        """Whether the argument is written in place (``Tensor(a!)``)."""
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        """A keyword-only argument written in place: an ``out=`` argument."""
        return self.kwarg_only and self.is_write

    def __str__(self) -> str:
        # As the schema prints it (put_type in csrc/core/schema_print.c): a plain type's
        # annotation after the base name, a list's elements' after the element type, the list's
        # own (when it names a set) after the brackets.
        t, a = self.type, self.alias_info
        if "[" not in t:
            at = t.find("?") if "?" in t else len(t)
            text = t[:at] + (str(a) if a is not None else "") + t[at:]
        else:
            open_, close = t.index("["), t.index("]") + 1
            elem = self.element_alias_info
            text = t[:open_] + (str(elem) if elem is not None else "") + t[open_:close]
            if a is not None and a.before_set:
                text += str(a)
            text += t[close:]
        if self.name:
            text += " " + self.name
        if self._has_default:
            text += "=" + self._default_text
        return text

    def __repr__(self) -> str:
        return f"Argument({str(self)!r})"


class FunctionSchema:
    """A parsed operator schema (``pytensor._C.parse_schema``); compares and hashes by value.

    >>> s = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> "
    ...                  "(Tensor values, Tensor indices)")
    >>> [r.name for r in s.returns], s.arguments[2].default_value
    (['values', 'indices'], False)
    """

    __slots__ = ("_handle", "_arguments", "_returns", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("FunctionSchema: cannot be constructed; use pytensor._C.parse_schema")

    @classmethod
    def _wrap(cls, handle) -> "FunctionSchema":
        """Takes over one reference to ``handle`` (a ``pt_schema *``)."""
        self = object.__new__(cls)
        self._handle = ffi.gc(handle, lib.pt_schema_release)
        self._arguments = None
        self._returns = None
        return self

    @classmethod
    def _from_handle(cls, ptr) -> "FunctionSchema":
        """A view of a schema owned elsewhere (the dispatcher's): takes its own reference."""
        if ptr == _NULL:
            raise RuntimeError("FunctionSchema: the operator has no schema")
        handle = ffi.cast("pt_schema *", ptr)
        lib.pt_schema_retain(handle)
        return cls._wrap(handle)

    @property
    def name(self) -> str:
        """The operator name with its namespace when the schema gives one (``"aten::add"``)."""
        return _C._str(lib.pt_schema_name(self._handle))

    @property
    def overload_name(self) -> str:
        return _C._str(lib.pt_schema_overload(self._handle))

    def _read(self, count, getter) -> tuple:
        info = ffi.new("pt_schema_arg_info *")
        out = []
        for i in range(count(self._handle)):
            _C._check(getter(self._handle, i, info))
            out.append(Argument._from_info(info))
        return tuple(out)

    @property
    def arguments(self) -> list:
        if self._arguments is None:
            self._arguments = self._read(lib.pt_schema_num_arguments, lib.pt_schema_argument)
        return list(self._arguments)

    @property
    def returns(self) -> list:
        if self._returns is None:
            self._returns = self._read(lib.pt_schema_num_returns, lib.pt_schema_return)
        return list(self._returns)

    @property
    def is_vararg(self) -> bool:
        return bool(lib.pt_schema_is_vararg(self._handle))

    @property
    def is_varret(self) -> bool:
        return bool(lib.pt_schema_is_varret(self._handle))

    @property
    def is_mutable(self) -> bool:
        """Whether any argument is written in place."""
        return any(a.is_write for a in self.arguments)

    def __str__(self) -> str:
        return _C._str(lib.pt_schema_text(self._handle))

    def __repr__(self) -> str:
        return f"FunctionSchema({str(self)!r})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, FunctionSchema):
            return NotImplemented
        return bool(lib.pt_schema_equal(self._handle, other._handle))

    def __hash__(self) -> int:
        # Equal schemas print the same canonical text.
        return hash(str(self))

    def __reduce__(self):
        return parse_schema, (str(self),)


def parse_schema(schema: str) -> FunctionSchema:
    """Parses a schema in PyTorch's grammar; RuntimeError with the column on malformed text.

    >>> str(parse_schema("conv1d(Tensor input, SymInt[1] stride=1) -> Tensor"))
    'conv1d(Tensor input, SymInt[1] stride=[1]) -> Tensor'
    """
    if not isinstance(schema, str):
        raise TypeError("parse_schema(): argument 'schema' must be str, not "
                        f"{type(schema).__name__}")
    if "\0" in schema:
        raise ValueError("parse_schema(): the schema contains a NUL character")
    out = ffi.new("pt_schema **")
    _C._check(lib.pt_schema_parse(schema.encode("utf-8"), out))
    return FunctionSchema._wrap(out[0])
