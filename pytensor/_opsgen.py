"""The Python functions and Tensor methods of the registered operators, made on first use.

``pytensor.<name>`` comes from the module's ``__getattr__`` (PEP 562); ``Tensor.<name>`` from a
placeholder that _tensor puts on the class for every declared method (only names are read at
import; Note [no Tensor.__getattr__] in _tensor says why a placeholder). Either way the binding
is built once from the ``aten`` operators whose declarations ask for that variant and stored on
the module or the class, so that later lookups are plain attribute reads. ``pytensor.ops``
objects get their callers here too.

Note [generated fast paths]
A binding is Python source generated per operator name and compiled with exec: the common call of
its first overload (Note [overload order] in _ops) — every required argument given positionally
with its exact type (Tensor, int, float, bool) and every other argument left at its default —
costs a length check, one ``type(x) is T`` per argument and one call of the unboxed entry point
with the defaults as precomputed C constants (a default Scalar is a ``pt_scalar`` made once and
only read, so threads can share it). An operator without an entry point (defined from Python)
gets the same check followed by one boxed call with the defaults' values. Anything else
(keywords, int-list sugar, numbers for tensors, other overloads, errors) falls through to the
generic parser (_opargs), which gives the same result for the fast path's arguments. A later
overload gets a fast path of its own when no overload tried before it could take its common call
(narrow's int start after narrow.Tensor; _shadowed). The Tensor operators (``+``, ``-``, ``*`` and their reflected and in-place forms) are made the same way from
the ``.Tensor`` overloads, with Python numbers wrapped as 0-dim tensors and anything else answered
with NotImplemented.

When the generator also wrote C thunks for the name's overloads (tools/gen_pyfast.py), the
binding is wrapped in a C caller (``_core._fast_caller``, made by ``fast_caller`` from the same
Views that _opargs.bind reads) that walks the overloads as resolve does, keywords and int-list
sugar included, runs the thunk of the overload a call reaches, and hands every other call to the
Python binding (Note [overload chains] in csrc/python/pt_python_callers.c). ``wrap_written`` does
the same for the factories and Tensor methods written by hand. The Tensor operators reach their
thunks from _TensorBase's number slots, and their Python forms here serve what the slots hand
over (Note [Python fast paths] in csrc/python/pt_python.c).
"""

from __future__ import annotations

import sys

from . import _opargs, _ops
from ._C import _core, ffi, lib

_NULL = ffi.NULL


def _const_values(p):
    """The C argument(s) of parameter p at its default value, or None when not constant."""
    from . import _device
    from ._args import _scalar
    v, k = p.default, p.ckind
    if not p.has_default:
        return None
    if k == "T" or k == "G":
        return [_NULL] if v is None else None
    if k == "STR":
        return [_NULL if v is None else v.encode()]
    if k == "S":
        return [_NULL if v is None else _scalar(v, p.name)]
    if k == "I" or k == "F":
        return [v]
    if k == "B":
        return [1 if v else 0]
    if k == "B?":
        return [-1 if v is None else (1 if v else 0)]
    if k == "E" or k == "E?":
        return [-1 if v is None else v._id]
    if k == "I?":
        return [_NULL if v is None else ffi.new("int64_t *", v)]
    if k == "F?":
        return [_NULL if v is None else ffi.new("double *", v)]
    if k == "D":
        return [_device._to_cdevice(v)]
    if k == "D?":
        return [_NULL if v is None else ffi.new("pt_device *", _device._to_cdevice(v))]
    if k == "IL":
        if v is None:
            return [-1, _NULL]
        return [len(v), ffi.new("int64_t[]", v) if v else _NULL]
    if k in ("TL", "FL", "BL") and v == []:
        return [0, _NULL]
    return None


_CHECKS = {"Tensor": "_T", "int": "int", "float": "float", "bool": "bool"}


def _c_exprs(sig, given: dict, consts: dict):
    """The entry point's argument expressions: ``given`` maps an argument index to the Python
    expression of its object; the others are default constants added to ``consts``."""
    exprs = []
    for p in sig.params:
        if p.index in given:
            e = given[p.index]
            exprs.append(f"{e}._h" if p.code == "Tensor" else e)
            continue
        vals = _const_values(p)
        if vals is None:
            return None
        for val in vals:
            name = f"_k{len(consts)}"
            consts[name] = val
            exprs.append(name)
    return exprs


def _fast_path(view, consts: dict, tag: str = ""):
    """The body lines of the fast path of one overload (Note [generated fast paths]), or None:
    ``(n, [lines])`` where the lines run with the n required arguments in a0.. and self; ``tag``
    keeps the constants of several overloads' paths apart."""
    sig = view.sig
    required = [p for p in view.params if not p.has_default]
    positional = [p for p in view.params if not p.kwarg_only]
    if positional[:len(required)] != required:
        return None
    given, checks = {}, []
    if view.kind == 2:
        given[sig.self_index] = "self"
    for i, p in enumerate(required):
        if p.list or p.optional or p.code not in _CHECKS:
            return None
        given[p.index] = f"a{i}"
        checks.append(f"type(a{i}) is {_CHECKS[p.code]}")
    lines = []
    if sig.entry is None:
        # Boxed: the canonical values, defaults as the constants the parser would use.
        values = []
        for p in sig.params:
            if p.index in given:
                values.append(given[p.index])
            else:
                name = f"_k{len(consts)}"
                consts[name] = p.default
                values.append(name)
        consts["_sig" + tag] = sig
        call = f"_boxed(_sig{tag}, [{', '.join(values)}])"
        lines.append(f"return tuple({call})" if sig.list_ret and view.kind else f"return {call}")
    else:
        if not sig.ret_ptr:
            return None
        exprs = _c_exprs(sig, given, consts)
        if exprs is None:
            return None
        alias = sig.aliases[0]
        if alias is not None and alias not in given:
            return None
        consts["_e" + tag] = sig.entry
        lines.append(f"r = _e{tag}({', '.join(exprs)})")
        lines.append("if r:")
        if alias is not None:
            lines += ["    _rel(r)", f"    return {given[alias]}"]
        else:
            lines.append("    return _wrap(r)")
        lines.append("_fail()")
    if checks:
        lines = [f"if {' and '.join(checks)}:"] + ["    " + x for x in lines]
    n = len(required)
    if n:
        lines.insert(0, ", ".join(f"a{i}" for i in range(n)) + (", = args" if n == 1
                                                                 else " = args"))
    return n, lines


def _globals() -> dict:
    return {"_T": _ops.Tensor, "_wrap": _core._wrap, "_fail": _ops._fail,
            "_rel": lib.pt_tensor_release, "_operand": _operand, "_boxed": _ops.call_boxed,
            "NotImplemented": NotImplemented}


def _doc(views, fname: str) -> str:
    lines = [f"{fname}{v.describe()}" for v in views]
    lines.append("")
    lines.append("Schemas: " + "; ".join(v.sig.text() for v in views))
    return "\n".join(lines)


def _ident(sig):
    """The thunk ident of an overload (pt_call_<ident>), or None when it has no entry point."""
    if sig.entry is None or sig.ns != "aten":
        return None
    return f"{sig.name}_{sig.overload}" if sig.overload else sig.name


_NO_TENSOR = ("bool", "str", "dtype", "layout", "memory_format", "device", "Generator")
_SAMPLES = {"int": 1, "float": 1.5, "bool": True}


def _may_take(p, code: str, numbers: bool) -> bool:
    """Whether parameter p may accept some value of the exact type of ``code`` (a fast path's
    Tensor, int, float or bool)."""
    if code == "Tensor":
        if p.list:
            return p.N is not None and p.code == "int"
        return p.code not in _NO_TENSOR
    if code not in _SAMPLES:
        return True
    try:
        _opargs.convert(p, _SAMPLES[code], numbers)
    except _opargs._Bad:
        return False
    return True


def _shadowed(view, earlier, numbers: bool) -> bool:
    """Whether an overload tried before ``view`` may take the arguments of view's fast path (its
    required arguments, positionally, with their exact types): then that path would skip it."""
    req = [p for p in view.params if not p.has_default]
    n = len(req)
    for e in earlier:
        pos = [p for p in e.params if not p.kwarg_only]
        if len(pos) < n or any(not p.has_default for p in e.params[n:]):
            continue
        if all(_may_take(q, p.code, numbers) for q, p in zip(pos, req)):
            return True
    return False


_MAX_SLOTS = 24  # tools/gen_pyfast.py MAX_SLOTS


def chain(views, kind: int, numbers: bool) -> tuple:
    """The overloads a C caller walks (Note [overload chains] in csrc/python/pt_python_callers.c),
    read from the same Views that _opargs.bind reads. The chain ends before the first overload
    whose shape the C side does not check (several outputs as one ``out`` tuple, too many
    arguments): a call that gets there goes to the binding."""
    rows = []
    for v in views:
        sig = v.sig
        if v.out_targets is not None or sig.nargs > _MAX_SLOTS:
            break
        self_slot = sig.self_index if kind == 2 else -1
        if self_slot is None:
            break
        rows.append((_ident(sig), tuple(sys.intern(p.pyname) for p in v.params),
                     tuple(p.index for p in v.params),
                     tuple((0 if p.has_default else 1)
                           | (2 if p.code == "Tensor" and not p.list and not numbers else 0)
                           for p in v.params), v.npos, self_slot,
                     bool(v.varargs_list), bool(numbers)))
    return tuple(rows)


def fast_caller(fn, kind: int, views: list, numbers: bool, keywords: bool = True):
    """A C caller of ``views`` with fn (the Python binding) for every call no thunk takes, or
    None when no overload of the chain has a thunk."""
    spec = chain(views if keywords else views[:1], kind, numbers)
    if not any(row[0] is not None and _core._has_thunk(row[0]) for row in spec):
        return None
    return _core._fast_caller(fn, kind == 2, spec, keywords)


def wrap_written(fn, qualname: str, kind: int, keywords=(), same_self: bool = False,
                 overload: str = None, npos: int = None):
    """A C caller for a binding written by hand in Python (a factory, a Tensor method): the
    thunks of the operator's overloads serve the calls whose shape fits them, where the
    parameters the hand-written function names as keywords are ``keywords`` (the others are
    positional only there, so a keyword naming them goes to fn, which refuses it or reads it its
    own way); same_self: a result that is self's tensor is self itself (``t.to(t.dtype) is t``).
    overload: only that overload serves, the one the function calls itself (so that a Python
    dispatch key sees the same operator), and npos of its parameters (keywords in the schema)
    are read positionally. fn itself when no overload has a thunk. The hand-written function
    must give, for every call of exact types that fits an overload, what that overload gives:
    tests/py/test_fast_paths.py checks each such binding against its __wrapped__."""
    views = _ops.group(qualname, kind).refresh()
    if overload is not None:
        views = [v for v in views if v.sig.overload == overload]
    spec = []
    for row in chain(views, kind, False):
        names = tuple(n if n in keywords else sys.intern("\0" + n) for n in row[1])
        spec.append((row[0], names) + row[2:4] + ((row[4] if npos is None else npos),)
                    + row[5:])
    spec = tuple(spec)
    if not any(row[0] is not None and _core._has_thunk(row[0]) for row in spec):
        return fn
    return _core._fast_caller(fn, kind == 2, spec, True, same_self)


def build(fname: str, kind: int, views: list, slow, qualname: str = None, numbers: bool = True,
          keywords: bool = True):
    """Compiles the function of ``views``: the fast path of the first one, then those of the
    later ones that no earlier overload may take (Note [generated fast paths]), then ``slow(self
    or None, args, kwargs)``; and wraps it in its C caller when one of the overloads has a thunk
    (``numbers``: the Tensor parameters take Python numbers; ``keywords`` false: only positional
    calls of the first overload are the caller's)."""
    consts: dict = {}
    fast = _fast_path(views[0], consts) if views else None
    lines = [f"def {fname}(self, *args, **kwargs):" if kind == 2 else
             f"def {fname}(*args, **kwargs):"]
    paths = [fast] if fast is not None else []
    for i in range(1, len(views)):
        if views[i].sig.has_out or _shadowed(views[i], views[:i], numbers):
            continue
        more = _fast_path(views[i], consts, str(i))
        if more is not None:
            paths.append(more)
    # cffi raises a bare OverflowError for an int past 64 bits before anything runs (no C error
    # maps to OverflowError): the generic parser then names the argument.
    if paths:
        lines.append("    try:")
    for n, body in paths:
        lines.append(f"        if not kwargs and len(args) == {n}:")
        lines += ["            " + x for x in body]
    if paths:
        lines.append("    except OverflowError:")
        lines.append("        pass")
    lines.append(f"    return _slow({'self' if kind == 2 else 'None'}, args, kwargs)")
    env = _globals()
    env.update(consts)
    env["_slow"] = slow
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<pytensor.{fname}>", "exec"), env)
    fn = env[fname]
    fn.__qualname__ = qualname or (f"Tensor.{fname}" if kind == 2 else fname)
    fn.__module__ = "pytensor"
    fn.__doc__ = _doc(views, fname)
    fn._source = source
    if views:
        caller = fast_caller(fn, kind, views, numbers, keywords)
        if caller is not None:
            return caller
    return fn


def make_binding(qualname: str, kind: int):
    """The function (kind 1), method (kind 2) or op-packet caller (kind 0) of an operator name."""
    g = _ops.group(qualname, kind)
    # A Python-level form (Note [Python-level forms] in _ops) reads every call but the first
    # overload's common one itself.
    views = g.refresh()[:1] if g.python is not None else g.refresh()
    return build(g.fname, kind, views, g.__call__, numbers=g.numbers,
                 keywords=g.python is None)


def make_overload_caller(sig):
    """The caller of one overload by its schema's names (OpOverload.__call__)."""
    def slow(_, args, kwargs, _op=sig.op):
        return _ops.call_op(_op, args, kwargs)

    return build(sig.name, 0, [sig.view(0)], slow,
                 f"{sig.qualname}.{sig.overload or 'default'}".replace("::", "."))


def has_variant(name: str, variant: int) -> bool:
    ops = _ops.table().get("aten::" + name)
    if not ops:
        return False
    return any(_ops.sig_of(op).variants & variant for op in ops)


def module_getattr(module, name: str):
    """``pytensor.<name>`` for an operator declared as a function."""
    if not name.startswith("__"):
        if has_variant(name, lib.PT_VARIANT_FUNCTION):
            fn = make_binding("aten::" + name, 1)
            setattr(module, name, fn)
            return fn
    raise AttributeError(f"module '{module.__name__}' has no attribute '{name}'")


def module_dir(module) -> list:
    names = set(vars(module))
    for qual in _ops.table():
        ns, _, name = qual.partition("::")
        if ns == "aten" and has_variant(name, lib.PT_VARIANT_FUNCTION):
            names.add(name)
    return sorted(names)


def method(cls, name: str):
    """The Tensor method of an operator declared as a method, stored on the class."""
    if not name.startswith("__") and name != "_h" and has_variant(name, lib.PT_VARIANT_METHOD):
        fn = make_binding("aten::" + name, 2)
        setattr(_ops.Tensor, name, fn)
        return fn
    return None


# ---------------------------------------------------------------- operators
def _operand(other):
    """The Tensor for the other operand of ``+``/``-``/``*``: a Tensor, a wrapped Python number,
    or None (NotImplemented) for anything else."""
    if isinstance(other, _ops.Tensor):
        return other
    if _opargs._is_number(other):
        return _opargs.wrapped_number(other)
    return None


_COMMUTATIVE = ("add", "mul")


def _form(dunder: str, name: str, overload: str) -> str:
    """How a dunder calls its operator: "unary", "binary" (self op other), "inplace",
    "reflected" (other op self) or "commuted" (self op other, for a reflected commutative op)."""
    if not overload:
        return "unary"
    if dunder.startswith("__i"):
        return "inplace"
    if dunder.startswith("__r"):
        return "commuted" if name in _COMMUTATIVE else "reflected"
    return "binary"


_operators: dict = {}


def operator_fallback(dunder: str, self, *other):
    """Runs a Tensor operator dunder in Python (NotImplemented when its operator is not
    declared): what _TensorBase's number slots hand over (Note [Tensor number slots])."""
    fn = _operators.get(dunder)
    if fn is None:
        from ._tensor import _OPERATOR_DUNDERS
        name, overload = _OPERATOR_DUNDERS[dunder]
        out = ffi.new("pt_op **")
        if lib.pt_dispatch_find(f"aten::{name}".encode(), overload.encode(), out) != 0:
            lib.pt_error_clear()
            return NotImplemented
        fn = _operators[dunder] = make_operator(dunder)
    return fn(self, *other)


def make_operator(dunder: str):
    """The generated function of a Tensor operator dunder (see _tensor._OPERATOR_DUNDERS)."""
    from ._tensor import _OPERATOR_DUNDERS
    name, overload = _OPERATOR_DUNDERS[dunder]
    form = _form(dunder, name, overload)
    op = _ops.find("aten::" + name, overload)
    sig = _ops.sig_of(op)
    consts: dict = {}
    if form == "unary":
        exprs = _c_exprs(sig, {0: "self"}, consts)
        body = [f"def {dunder}(self):", f"    r = _e({', '.join(exprs)})",
                "    if r:", "        return _wrap(r)", "    _fail()"]
    else:
        first, second = ("other", "self") if form == "reflected" else ("self", "other")
        exprs = _c_exprs(sig, {0: first, 1: second}, consts)
        if exprs is None or sig.entry is None or not sig.ret_ptr:
            raise RuntimeError(f"aten::{name}.{overload} has no unboxed form for {dunder}")
        call = f"r = _e({', '.join(exprs)})"
        body = [f"def {dunder}(self, other):",
                "    if type(other) is not _T:",
                "        other = _operand(other)",
                "        if other is None:",
                "            return NotImplemented",
                "    " + call,
                "    if r:"]
        if form == "inplace":
            body += ["        _rel(r)", "        return self"]
        else:
            body.append("        return _wrap(r)")
        body.append("    _fail()")
    env = _globals()
    env.update(consts)
    env["_e"] = sig.entry
    exec(compile("\n".join(body) + "\n", f"<pytensor.Tensor.{dunder}>", "exec"), env)
    fn = env[dunder]
    fn.__qualname__ = f"Tensor.{dunder}"
    fn.__doc__ = f"``{dunder}`` through {sig.text()}"
    return fn
