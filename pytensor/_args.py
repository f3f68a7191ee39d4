"""Argument conversion shared by the Tensor methods and the factories: int lists with torch's
sugar, dims, dtypes, memory formats, numbers as C scalars, generators. Every error names the
function and the argument, in torch's wording where torch has one.
"""

from __future__ import annotations

import operator
from typing import Tuple

from . import _device, _dtype
from ._C import _raise, ffi, lib

_index = operator.index
_dtype_cls = _dtype.dtype
_I64 = 1 << 63


def _int64s(values):
    return ffi.new("int64_t[]", values)


def _size_args(args, fname: str, argname: str = "size") -> list:
    """torch's int-list sugar: ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for pos, x in enumerate(args):
        if type(x) is not int:
            try:
                x = _index(x)
            except TypeError:
                raise TypeError(
                    f"{fname}(): argument '{argname}' must be tuple of ints, but found element "
                    f"of type {type(x).__name__} at pos {pos}"
                ) from None
        if not -_I64 <= x < _I64:
            raise TypeError(
                f"{fname}(): argument '{argname}' failed to unpack the object at pos {pos + 1} "
                'with error "Overflow when unpacking long long"'
            )
        out.append(x)
    return out


def _dim_arg(x, fname: str, argname: str = "dim") -> int:
    if type(x) is int and -_I64 <= x < _I64:
        return x
    try:
        if isinstance(x, bool):  # torch refuses bools where it wants an int
            raise TypeError
        x = _index(x)
    except TypeError:
        raise TypeError(
            f"{fname}(): argument '{argname}' must be int, not {type(x).__name__}"
        ) from None
    if not -_I64 <= x < _I64:
        raise ValueError(f"{fname}(): argument '{argname}' = {x}: Overflow when unpacking long "
                         "long")
    return x


def _wrap_dim(dim: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim < -ndim or dim >= ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return dim + ndim if dim < 0 else dim


def _dtype_id(obj, argname: str = "dtype") -> int:
    if type(obj) is _dtype_cls:
        return obj._id
    return _dtype._to_dtype(obj, argname)._id


def _memory_format_id(mf, argname: str = "memory_format") -> int:
    if type(mf) is not _device.memory_format:
        raise TypeError(f"{argname}: expected a pytensor.memory_format, got {type(mf).__name__}")
    return mf._id


def _scalar(value, argname: str = "value"):
    """A ``pt_scalar *`` for a Python number (or a one-element tensor)."""
    s = ffi.new("pt_scalar *")
    t = type(value)
    if t is bool:
        s.kind = lib.PT_SCALAR_BOOL
        s.i = value
    elif t is int:
        if -(1 << 63) <= value < (1 << 63):
            s.kind = lib.PT_SCALAR_INT
            s.i = value
        else:
            # Too wide for int64: torch converts such Python ints through double as well.
            s.kind = lib.PT_SCALAR_FLOAT
            s.re = float(value)
    elif t is float:
        s.kind = lib.PT_SCALAR_FLOAT
        s.re = value
    elif t is complex:
        s.kind = lib.PT_SCALAR_COMPLEX
        s.re = value.real
        s.im = value.imag
    elif isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{argname}: expected a number, got {type(value).__name__}")
    else:
        from ._tensor import Tensor

        if isinstance(value, Tensor):
            return _scalar(value.item(), argname)
        return _scalar(_number(value, argname), argname)
    return s


def _number(value, argname: str):
    """Converts number-like objects (NumPy scalars, ...) to bool/int/float/complex."""
    tname = type(value).__name__
    if tname in ("bool_", "bool") and type(value).__module__ == "numpy":
        return bool(value)
    for conv, attr in ((_index, "__index__"), (float, "__float__"), (complex, "__complex__")):
        if hasattr(value, attr):
            try:
                return conv(value)
            except (TypeError, ValueError):
                continue
    raise TypeError(f"{argname}: expected a number, got {tname}")


def _generator_ptr(generator):
    """The C pointer of a generator argument; None means NULL, the device's default generator."""
    if generator is None:
        return ffi.NULL
    from ._generator import Generator

    if isinstance(generator, Generator):
        return generator._h
    raise TypeError(
        f"generator: expected a pytensor.Generator, got {type(generator).__name__}"
    )


def _check_requires_grad(requires_grad) -> None:
    if not isinstance(requires_grad, bool):
        raise TypeError(f"requires_grad must be a bool, not {type(requires_grad).__name__}")


def _set_requires_grad(t, requires_grad: bool):
    """A factory's requires_grad=True on its result: torch's factory message for other dtypes."""
    if requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad_(True)
    return t


def _dtype_info(dt: int):
    """The C table's entry of a dtype id (borrowed; the table lives as long as the process)."""
    p = ffi.new("const pt_dtype_info **")
    st = lib.pt_dtype_get(dt, p)
    if st:
        _raise(st)
    return p[0]


def _random_bounds(t, args, kwargs) -> Tuple[int, int]:
    """random_'s [from, to) from its argument forms (t: the Tensor being filled)."""
    lo = kwargs.pop("from", kwargs.pop("from_", None))
    hi = kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_(): unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) > 2:
        raise TypeError(f"random_(): expected at most 2 positional arguments, got {len(args)}")
    if len(args) == 1 and lo is None and hi is None:
        hi = args[0]
    elif args:
        lo = args[0]
        if len(args) == 2:
            hi = args[1]
    lo = 0 if lo is None else _dim_arg(lo, "random_", "from")
    if hi is None:
        info = _dtype_info(lib.pt_tensor_dtype(t._h))
        if info.kind & (lib.PT_KIND_FLOAT | lib.PT_KIND_COMPLEX):
            hi = (1 << info.mantissa_bits) + 1
        elif info.kind & lib.PT_KIND_BOOL:
            hi = 2
        else:
            # [from, imax] inclusive is not expressible as [from, to) for int64; its top value is
            # the one left out.
            hi = min(info.imax + 1, (1 << 63) - 1)
    else:
        hi = _dim_arg(hi, "random_", "to")
    return lo, hi
