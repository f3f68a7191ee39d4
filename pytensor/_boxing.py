"""Boxed values between Python and the dispatcher's stacks (Note [boxed values] in pytensor.h).

A ``pt_ivalue`` is one tagged value. Python reads one with ``to_python`` (tensors and generators
are retained, so the Python object owns a reference of its own whatever the stack's ownership),
and writes one with ``push_argument`` (a borrowed argument: the C arrays it points to are kept
alive by the caller's ``keep`` list until the call returns) or ``push_result`` (an owned result,
Note [stack ownership]: tensors and generators are new references, arrays and strings come from
the C allocator and are marked ``owned`` so that ``pt_stack_clear`` frees them).

Values arrive here already checked and canonical (see _ops.convert): a Tensor object, an int, a
list of ints, a ``dtype`` object, a resolved ``pt_device`` value, and so on; the schema parameter
says which tag a value takes.
"""

from __future__ import annotations

from . import _device, _dtype
from ._C import ffi, lib

_NULL = ffi.NULL
_dtypes_by_id = _dtype._dtypes_by_id

# Filled on first use: these modules import this one.
_Tensor = None
_wrap = None
_Generator = None


def _late():
    global _Tensor, _wrap, _Generator
    from ._generator import Generator
    from ._tensor import Tensor, _wrap as wrap

    _Tensor, _wrap, _Generator = Tensor, wrap, Generator


def _tensor(h):
    if h == _NULL:
        return None
    if _wrap is None:
        _late()
    lib.pt_tensor_retain(h)
    return _wrap(h)


def _string(p) -> str:
    return ffi.string(p).decode("utf-8", "replace") if p != _NULL else ""


def to_python(iv):
    """The Python value of one stack item (tensors and generators get their own reference)."""
    tag = iv.tag
    if tag == lib.PT_IV_TENSOR:
        return _tensor(iv.t)
    if tag == lib.PT_IV_INT:
        return iv.i
    if tag == lib.PT_IV_DOUBLE:
        return iv.d
    if tag == lib.PT_IV_NONE:
        return None
    if tag == lib.PT_IV_BOOL:
        return bool(iv.i)
    if tag == lib.PT_IV_COMPLEX:
        return complex(iv.d, iv.im)
    if tag == lib.PT_IV_STRING:
        return _string(iv.s)
    n = iv.len
    if tag == lib.PT_IV_INT_LIST:
        return list(ffi.unpack(iv.ints, n)) if n > 0 else []
    if tag == lib.PT_IV_DOUBLE_LIST:
        return list(ffi.unpack(iv.doubles, n)) if n > 0 else []
    if tag == lib.PT_IV_BOOL_LIST:
        return [bool(x) for x in ffi.unpack(iv.ints, n)] if n > 0 else []
    if tag == lib.PT_IV_TENSOR_LIST or tag == lib.PT_IV_OPT_TENSOR_LIST:
        return [_tensor(iv.tensors[i]) for i in range(n)]
    if tag == lib.PT_IV_STRING_LIST:
        return [_string(iv.strings[i]) for i in range(n)]
    if tag == lib.PT_IV_DTYPE:
        return _dtypes_by_id[iv.i]
    if tag == lib.PT_IV_DEVICE:
        return _device._from_cdevice(iv.device)
    if tag == lib.PT_IV_LAYOUT:
        return _device._layouts[iv.i]
    if tag == lib.PT_IV_MEMORY_FORMAT:
        return _device._memory_formats[iv.i]
    if tag == lib.PT_IV_GENERATOR:
        if iv.g == _NULL:
            return None
        if _Generator is None:
            _late()
        lib.pt_generator_retain(iv.g)
        return _Generator._new_wrapping(iv.g)
    raise RuntimeError(f"a stack value has the unknown tag {tag}")


# ---------------------------------------------------------------- Python -> stack
def _scalar_into(iv, v) -> None:
    t = type(v)
    if t is bool:
        iv.tag, iv.i = lib.PT_IV_BOOL, v
    elif t is int:
        if -(1 << 63) <= v < (1 << 63):
            iv.tag, iv.i = lib.PT_IV_INT, v
        else:  # too wide for int64: through double, as torch does
            iv.tag, iv.d = lib.PT_IV_DOUBLE, float(v)
    elif t is float:
        iv.tag, iv.d = lib.PT_IV_DOUBLE, v
    else:
        iv.tag, iv.d, iv.im = lib.PT_IV_COMPLEX, v.real, v.imag


_LIST_TAGS = {"int": "PT_IV_INT_LIST", "float": "PT_IV_DOUBLE_LIST", "bool": "PT_IV_BOOL_LIST",
              "Tensor": "PT_IV_TENSOR_LIST", "str": "PT_IV_STRING_LIST"}
_LIST_CTYPES = {"int": "int64_t", "float": "double", "bool": "int64_t", "Tensor": "pt_tensor *",
                "str": "char *"}
_LIST_FIELDS = {"int": "ints", "float": "doubles", "bool": "ints", "Tensor": "tensors",
                "str": "strings"}


def _fill(iv, code: str, v, alloc_array, alloc_string, retain: bool) -> None:
    """Writes the canonical value v of a parameter of kind ``code`` into iv."""
    if v is None:
        iv.tag = lib.PT_IV_NONE
        return
    if code == "Tensor":
        if retain:
            lib.pt_tensor_retain(v._h)
        iv.tag, iv.t = lib.PT_IV_TENSOR, v._h
    elif code == "int":
        iv.tag, iv.i = lib.PT_IV_INT, v
    elif code == "float":
        iv.tag, iv.d = lib.PT_IV_DOUBLE, v
    elif code == "bool":
        iv.tag, iv.i = lib.PT_IV_BOOL, v
    elif code == "Scalar" or code == "complex":
        _scalar_into(iv, v)
    elif code == "dtype":
        iv.tag, iv.i = lib.PT_IV_DTYPE, v._id
    elif code == "layout":
        iv.tag, iv.i = lib.PT_IV_LAYOUT, v._id
    elif code == "memory_format":
        iv.tag, iv.i = lib.PT_IV_MEMORY_FORMAT, v._id
    elif code == "device":
        iv.tag, iv.device = lib.PT_IV_DEVICE, v
    elif code == "Generator":
        if retain:
            lib.pt_generator_retain(v._h)
        iv.tag, iv.g = lib.PT_IV_GENERATOR, v._h
    elif code == "str":
        iv.tag, iv.s = lib.PT_IV_STRING, alloc_string(v)
    else:
        raise TypeError(f"values of type {code} cannot be passed through the dispatcher yet")


def _fill_list(iv, code: str, optional_elems: bool, v, alloc_array, alloc_string,
               retain: bool) -> None:
    if v is None:
        iv.tag = lib.PT_IV_NONE
        return
    ctype = _LIST_CTYPES.get(code)
    if ctype is None:
        raise TypeError(f"lists of {code} cannot be passed through the dispatcher yet")
    if code == "Tensor":
        items = [_NULL if t is None else t._h for t in v]
        if retain:
            for h in items:
                if h != _NULL:
                    lib.pt_tensor_retain(h)
        tag = lib.PT_IV_OPT_TENSOR_LIST if optional_elems else lib.PT_IV_TENSOR_LIST
    elif code == "str":
        items = [alloc_string(s) for s in v]
        tag = lib.PT_IV_STRING_LIST
    else:
        items = [int(x) for x in v] if code == "bool" else v
        tag = getattr(lib, _LIST_TAGS[code])
    iv.tag, iv.len = tag, len(items)
    setattr(iv, _LIST_FIELDS[code], alloc_array(ctype, items))


def push_argument(iv, param, v, keep: list) -> None:
    """Writes an argument (borrowed: C arrays and strings stay alive in ``keep``)."""
    def array(ctype, items):
        a = ffi.new(ctype + "[]", items) if items else _NULL
        keep.append(a)
        return a

    def string(s):
        b = ffi.new("char[]", s.encode())
        keep.append(b)
        return b

    if param.list:
        _fill_list(iv, param.code, param.optional_elems, v, array, string, False)
    else:
        _fill(iv, param.code, v, array, string, False)


# Results a Python kernel hands back are freed by C (pt_stack_clear calls free()), so their arrays
# must come from the C allocator: a tiny ABI-mode handle on the process's own malloc, made on the
# first list or string result.
_libc = None


def _malloc(nbytes: int):
    global _libc
    if _libc is None:
        import cffi

        abi = cffi.FFI()
        abi.cdef("void *malloc(size_t size);")
        _libc = (abi, abi.dlopen(None))
    abi, c = _libc
    p = c.malloc(max(nbytes, 1))
    if p == abi.NULL:
        raise MemoryError(f"could not allocate {nbytes} bytes for a kernel result")
    return int(abi.cast("uintptr_t", p))


def _owned_array(ctype, items):
    p = ffi.cast(ctype + " *", _malloc(ffi.sizeof(ctype) * len(items)))
    for i, x in enumerate(items):
        p[i] = x
    return p


def _owned_string(s: str):
    b = s.encode()
    p = ffi.cast("char *", _malloc(len(b) + 1))
    ffi.memmove(p, b, len(b))
    p[len(b)] = b"\0"
    return p


def push_result(iv, param, v) -> None:
    """Writes a kernel's result as the receiver's own (new references, C-allocated arrays)."""
    if param.list:
        _fill_list(iv, param.code, param.optional_elems, v, _owned_array, _owned_string, True)
        if v is not None:
            iv.owned = 1
    else:
        _fill(iv, param.code, v, _owned_array, _owned_string, True)
    if param.code == "str" and v is not None:
        iv.owned = 1
