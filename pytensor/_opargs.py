"""Checking Python arguments against a schema, as PyTorch's PythonArgParser does.

``convert(param, value)`` accepts what PyTorch accepts for a parameter's type (ints from
``__index__`` objects and integer 0-dim tensors, floats from ints, Numbers from NumPy scalars,
int lists from any sequence, a single int for a fixed-size list, ...) and returns the canonical
value the calling code in _ops expects: a Tensor, an int, a list of ints, a ``dtype`` object, a
``device`` object, and so on. ``bind`` matches the positional and keyword arguments of one call
to one overload's parameters (defaults, keyword-only parameters, the int-list varargs sugar, an
``out=`` tuple for several outputs) and
``resolve`` tries the overloads of a name in order. Their errors are PyTorch's: one overload
that could fit names the argument that did not ("add(): argument 'other' (position 2) must be
Tensor, not str"); otherwise every signature is listed with the arguments that did not fit
marked ("add() received an invalid combination of arguments - got (Tensor, str), but expected
one of: ...").
"""

from __future__ import annotations

import operator

from . import _device, _dtype
from ._C import _core, ffi

_NULL = ffi.NULL
_index = operator.index
_dtype_cls = _dtype.dtype

# Filled by _late(): _tensor imports the modules that import this one.
Tensor = None
_wrap = None
_Generator = None


def _late():
    global Tensor, _wrap, _Generator
    from ._generator import Generator
    from ._tensor import Tensor as T, _wrap as w

    Tensor, _wrap, _Generator = T, w, Generator


class _Bad(Exception):
    """A value does not fit a parameter (the message, when given, replaces the standard one)."""


def _is_number(v) -> bool:
    t = type(v)
    if t is int or t is float or t is bool or t is complex:
        return True
    return t.__module__ == "numpy" and getattr(v, "shape", None) == () and \
        hasattr(v, "dtype") and v.dtype.kind in "biufc"


def _plain_number(v):
    t = type(v)
    if t is int or t is float or t is bool or t is complex:
        return v
    return v.item()


def wrapped_number(v):
    """A 0-dim CPU tensor holding a Python number, marked as a wrapped number (PyTorch's
    scalar_to_tensor: bool, int64, float64 or complex128; made in C, as the Tensor operators
    make theirs)."""
    w = _core._wrapped_number(_plain_number(v))
    if w is None:
        raise _Bad
    return w


def _c_tensor(v, numbers):
    if isinstance(v, Tensor):
        return v
    if numbers and _is_number(v):
        return wrapped_number(v)
    raise _Bad


def _c_int(v, numbers=False):
    t = type(v)
    if t is int:
        return v
    if t is bool or t is float or t is complex or t is str:
        raise _Bad
    if isinstance(v, Tensor):
        # torch: a 0-dim tensor of an integer dtype, bool excluded
        if v.dim() != 0 or v.is_floating_point() or v.is_complex() or \
                type(v.item()) is bool:
            raise _Bad
        return int(v.item())
    try:
        return _index(v)
    except TypeError:
        raise _Bad from None


def _c_float(v, numbers=False):
    t = type(v)
    if t is float:
        return v
    if t is int or t is bool:
        return float(v)
    if t is complex or t is str:
        raise _Bad
    if isinstance(v, Tensor):
        if v.dim() != 0 or v.is_complex():
            raise _Bad
        return float(v.item())
    if _is_number(v) and not isinstance(_plain_number(v), complex):
        return float(v)
    raise _Bad


def _c_complex(v, numbers=False):
    if _is_number(v):
        return complex(_plain_number(v))
    raise _Bad


def _c_bool(v, numbers=False):
    if type(v) is bool:
        return v
    if type(v).__module__ == "numpy" and type(v).__name__ in ("bool_", "bool"):
        return bool(v)
    raise _Bad


def _c_scalar(v, numbers=False):
    t = type(v)
    if t is int or t is float or t is bool or t is complex:
        return v
    if isinstance(v, Tensor):
        if v.dim() != 0:
            raise _Bad
        return v.item()
    if _is_number(v):
        return _plain_number(v)
    raise _Bad


def _c_dtype(v, numbers=False):
    if type(v) is _dtype_cls:
        return v
    if v in (float, int, bool, complex):
        return _dtype._to_dtype(v)
    raise _Bad


def _c_layout(v, numbers=False):
    if type(v) is _device.layout:
        return v
    raise _Bad


def _c_memory_format(v, numbers=False):
    if type(v) is _device.memory_format:
        return v
    raise _Bad


def _c_device(v, numbers=False):
    if isinstance(v, bool) or not isinstance(v, (_device.device, str, int)):
        raise _Bad
    try:
        return _device._to_device(v)
    except TypeError:
        raise _Bad from None


def _c_generator(v, numbers=False):
    if isinstance(v, _Generator):
        return v
    raise _Bad


def _c_str(v, numbers=False):
    if isinstance(v, str):
        return v
    raise _Bad


def _c_other(v, numbers=False):
    raise _Bad("arguments of this type cannot be passed from Python yet")


_ACCEPT = {"Tensor": _c_tensor, "int": _c_int, "float": _c_float, "complex": _c_complex,
           "bool": _c_bool, "Scalar": _c_scalar, "dtype": _c_dtype, "layout": _c_layout,
           "memory_format": _c_memory_format, "device": _c_device, "Generator": _c_generator,
           "str": _c_str, "other": _c_other}


class _BadElement(_Bad):
    def __init__(self, pos: int, value):
        super().__init__()
        self.pos, self.value = pos, value


def convert(p: Param, v, numbers: bool = False):
    """The canonical value of v for parameter p, or _Bad."""
    if v is None:
        if p.optional:
            return None
        raise _Bad
    if not p.list:
        try:
            return _ACCEPT[p.code](v, numbers)
        except OverflowError:
            raise OverflowError(f"argument '{p.name}' = {v} does not fit in 64 bits: int too "
                                "big to convert") from None
    if p.N is not None and p.code in ("int", "bool") and not isinstance(v, (list, tuple)):
        return [_ACCEPT[p.code](v)] * p.N
    if not isinstance(v, (list, tuple)):
        raise _Bad
    accept = _ACCEPT[p.code]
    out = []
    for i, x in enumerate(v):
        if x is None and p.optional_elems:
            out.append(None)
            continue
        try:
            out.append(accept(x, False))
        except _Bad:
            raise _BadElement(i, x) from None
    return out


# ---------------------------------------------------------------- resolution and errors
class Mismatch(Exception):
    """Why one overload did not take the arguments: a finished message for that overload."""


def _typename(v) -> str:
    if Tensor is not None and isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)) and not isinstance(v, _device.Size):
        kind = "tuple" if isinstance(v, tuple) else "list"
        inner = ", ".join(_typename(x) for x in v)
        return f"{kind} of ({inner})" if kind == "tuple" else f"list of [{inner}]"
    return type(v).__name__


def bind(view: View, fname: str, numbers: bool, self_obj, args, kwargs) -> list:
    """The canonical values of every schema argument, or Mismatch with PyTorch's message."""
    sig = view.sig
    values = [None] * sig.nargs
    if view.kind == 2:
        values[sig.self_index] = self_obj
    nargs = len(args)
    sugar = False
    if view.varargs_list and nargs and not isinstance(args[0], (list, tuple)) and \
            _is_index(args[0]):
        args, nargs, sugar = (args,), 1, True
    if nargs > view.npos:
        raise Mismatch(f"{fname}() takes {view.npos} positional argument"
                       f"{'' if view.npos == 1 else 's'} but {nargs} were given")
    used = 0
    missing = []
    pos = 0
    outs = skip = None
    if view.out_targets is not None and kwargs and "out" in kwargs:
        outs, skip, used = kwargs["out"], view.out_targets, 1
    # torch's functions and methods take several outputs only as out=(...); the schema's names
    # for them (values=, indices=) are the op overloads' (pytensor.ops.aten.sort.values).
    public_outs = view.kind != 0 and view.out_targets is not None and len(view.out_targets) > 1
    for p in view.params:
        if skip is not None and p.index in skip:
            if p.pyname in kwargs:
                raise Mismatch(f"{fname}() got multiple values for argument 'out'")
            continue
        if public_outs and p.index in view.out_targets:
            if kwargs and p.pyname in kwargs:
                raise Mismatch(f"{fname}() got an unexpected keyword argument '{p.pyname}'")
            if "out" not in missing:
                missing.append("out")
            continue
        if not p.kwarg_only and pos < nargs:
            v = args[pos]
            pos += 1
            where = pos
            if kwargs and p.pyname in kwargs:
                raise Mismatch(f"{fname}() got multiple values for argument '{p.pyname}'")
        elif kwargs and p.pyname in kwargs:
            v = kwargs[p.pyname]
            used += 1
            where = None
        elif p.has_default:
            values[p.index] = p.default
            continue
        else:
            missing.append(p.pyname)
            continue
        try:
            values[p.index] = convert(p, v, numbers)
        except _BadElement as e:
            if sugar:
                raise Mismatch(f"{fname}(): argument '{p.pyname}' failed to unpack the object at "
                               f"pos {e.pos + 1} with error \"type must be {p.type_name()},but "
                               f"got {_typename(e.value)}\"") from None
            raise Mismatch(f"{fname}(): argument '{p.pyname}'{_position(where)} must be "
                           f"{p.type_name()}, but found element of type {_typename(e.value)} at "
                           f"pos {e.pos}") from None
        except _Bad as e:
            detail = f" ({e.args[0]})" if e.args else ""
            raise Mismatch(f"{fname}(): argument '{p.pyname}'{_position(where)} must be "
                           f"{p.type_name()}, not {_typename(v)}{detail}") from None
    if missing:
        names = ", ".join(f'"{m}"' for m in missing)
        raise Mismatch(f"{fname}() missing {len(missing)} required positional argument"
                       f"{'' if len(missing) == 1 else 's'}: {names}")
    if kwargs and used != len(kwargs):
        known = {p.pyname for p in view.params}
        extra = next(k for k in kwargs if k not in known)
        raise Mismatch(f"{fname}() got an unexpected keyword argument '{extra}'")
    if outs is not None:
        _bind_outs(view, fname, outs, values)
    return values


def _bind_outs(view: View, fname: str, outs, values: list) -> None:
    """Puts the tensors of an ``out=`` tuple in the output arguments (Note [out= tuples] in
    _ops). Only the form is an overload mismatch; a tuple of the wrong length or with something
    other than a Tensor is an error of the overload the other arguments chose, as in torch."""
    if not isinstance(outs, (tuple, list)):
        raise Mismatch(f"{fname}(): argument 'out' must be tuple of Tensors, not "
                       f"{_typename(outs)}")
    n = len(view.out_targets)
    if len(outs) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(outs)}")
    for i, (index, t) in enumerate(zip(view.out_targets, outs)):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {view.out_position}, "
                            f"but got {type(t).__name__}")
        values[index] = t


def _position(where) -> str:
    return f" (position {where})" if where is not None else ""


def _is_index(v) -> bool:
    if type(v) is int:
        return True
    if isinstance(v, (bool, float, complex, str)) or v is None:
        return False
    return hasattr(type(v), "__index__")


# NumPy's names for torch's arguments, which torch's parser accepts too (so that np.sum(t) and
# friends, which call t.sum(axis=..., keepdims=..., out=None), work on tensors).
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def _numpy_kwargs(kwargs: dict) -> dict:
    """kwargs with NumPy's argument names turned into torch's and `out=None` dropped."""
    out = {}
    for k, v in kwargs.items():
        name = _NUMPY_NAMES.get(k, k)
        if name in out or (name != k and name in kwargs):
            raise TypeError(f"got multiple values for argument '{name}' ('{k}' is NumPy's name "
                            f"for it)")
        out[name] = v
    if "out" in out and out["out"] is None:
        del out["out"]
    return out


def resolve(g: Group, views: list, self_obj, args, kwargs):
    """(view, values) of the first overload that takes the arguments; TypeError otherwise."""
    if kwargs and ("out" in kwargs or any(k in _NUMPY_NAMES for k in kwargs)):
        kwargs = _numpy_kwargs(kwargs)
    errors = []
    for view in views:
        try:
            return view, bind(view, g.fname, g.numbers, self_obj, args, kwargs)
        except Mismatch as e:
            errors.append(e)
    if len(views) == 1:
        raise TypeError(str(errors[0])) from None
    n = len(args) + (len(kwargs) if kwargs else 0)
    # torch's signature of an operator's function merges an out= overload into the overload it
    # writes the result of: without an output given, the out= overloads are not candidates.
    candidates = [i for i, v in enumerate(views) if not v.sig.has_out or
                  _names_output(v, kwargs)] or range(len(views))
    if len(candidates) == 1:
        raise TypeError(str(errors[candidates[0]])) from None
    plausible = [i for i in candidates if views[i].min_args <= n <= views[i].max_args]
    if len(plausible) == 1:
        raise TypeError(str(errors[plausible[0]])) from None
    raise TypeError(invalid_combination(g.fname, views, args, kwargs)) from None


def _names_output(view: View, kwargs) -> bool:
    if not kwargs:
        return False
    return "out" in kwargs or any(p.kwarg_only and p.is_write and p.pyname in kwargs
                                  for p in view.params)


def invalid_combination(fname: str, views: list, args, kwargs) -> str:
    got = [_typename(a) for a in args] + [f"{k}={_typename(v)}" for k, v in (kwargs or {}).items()]
    lines = [f"{fname}() received an invalid combination of arguments - got ({', '.join(got)}), "
             "but expected one of:"]
    for view in views:
        lines.append(f" * {view.describe()}")
        marks = _marks(view, args, kwargs)
        if marks is not None:
            lines.append("      didn't match because some of the arguments have invalid types: "
                         f"({marks})")
    return "\n".join(lines) + "\n"


def _marks(view: View, args, kwargs):
    """``(Tensor, !str!)``: the arguments marked that do not fit, when the count fits."""
    positional = [p for p in view.params if not p.kwarg_only]
    if len(args) > len(positional):
        return None
    by_name = {p.pyname: p for p in view.params}
    if kwargs and any(k not in by_name for k in kwargs):
        return None
    out, bad = [], False
    for p, v in list(zip(positional, args)) + [(by_name[k], v) for k, v in (kwargs or {}).items()]:
        label = _typename(v) if p.pyname not in (kwargs or {}) or v is not kwargs[p.pyname] \
            else f"{p.pyname}={_typename(v)}"
        try:
            convert(p, v, False)
            out.append(label)
        except _Bad:
            out.append(f"!{label}!")
            bad = True
    return ", ".join(out) if bad else None



# Imported on first use of an operator, after the package has built Tensor.
_late()
