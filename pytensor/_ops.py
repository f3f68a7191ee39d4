"""Calling registered operators from Python: schemas read from C, arguments parsed the way
PyTorch's PythonArgParser does, and one call into the dispatcher.

Every operator the dispatcher knows (``pt_dispatch_op_count``/``pt_dispatch_op_at``) is described
by its schema; ``sig_of(op)`` reads it once into a ``Sig`` (parameters with their kind, defaults as
Python values, alias sets, and the operator's unboxed entry point ``lib.pt_call_<name>_<overload>``
when the generator made one). The overloads of one name form a ``Group``; calling a group tries
each overload in turn (Note [overload order]; the argument checks and their errors are in
_opargs). Python kernels registered from pytensor.library get their arguments and hand back
their results through ``kernel_arguments``/``kernel_results``.

A matched call goes either through the unboxed entry point (Note [unboxed calling convention] in
tools/gen_ops.py: each parameter becomes one or two C arguments; a single Tensor result comes back
as the return value) or, for operators without one (those defined from Python), through
``pt_dispatch_call`` with a stack of boxed values (_boxing). The per-call fast paths that skip this
generic parser are generated from the same Sig objects in _opsgen. A function or method whose
overload names its returns gives them as that overload's pytensor.return_types tuple (operator
objects give plain tuples, as torch.ops does); the out= overloads of such operators take their
outputs as one ``out`` tuple (Note [out= tuples]); a few names take arguments that no schema has
(Note [Python-level forms]).

Note [overload order]
PyTorch's parser takes the first of a name's Python signatures that accepts the arguments, in the
order its code generator (sort_overloads) gives them: sorted by signature text, then
topologically by a partial order in which one signature ranks below another of the same length
when each argument's type is the same or less specific - Scalar below Tensor, int and SymInt
below Tensor (a 0-dim integer tensor is also an int), int[] below int, Tensor[] below any other
list. So ``max(a, torch.tensor(0))`` is max.other, not max.dim. We order the same way; the out=
overloads, which torch merges into the signature they write the result of, come after the others
(they only match when ``out=`` is given). Python numbers are accepted for Tensor parameters only
by PyTorch's allow-numbers-as-tensors list (add, sub, mul, div, true_divide, floor_divide and
their aliases) and become 0-dim "wrapped number" tensors, which type promotion treats as a Python
scalar; every other operator takes a number only where a schema says Scalar.
"""

from __future__ import annotations

from . import _C, _boxing, _device, _dtype
from ._C import _core, _raise, ffi, lib
from ._opargs import Mismatch, _Bad, _typename, bind, convert, resolve
from ._opargs import _c_bool as convert_bool

_NULL = ffi.NULL
_IV_TENSOR = lib.PT_IV_TENSOR
_IV_NONE = lib.PT_IV_NONE
_dispatch_tensors = _core._dispatch_tensors

# Bumped by pytensor.library after every def/deregistration; with the operator count it tells the
# caches below that the table of operators changed.
generation = 0

# Filled by _late(): _tensor imports this module.
Tensor = None
_wrap = None


def _late():
    global Tensor, _wrap
    from ._tensor import Tensor as T, _wrap as w

    Tensor, _wrap = T, w


def _fail():
    """Raises the error of the last failed C call on this thread."""
    _raise(lib.pt_error_code() or lib.PT_ERR_RUNTIME)


def _str(p) -> str:
    return ffi.string(p).decode("utf-8", "replace") if p != _NULL else ""


# ---------------------------------------------------------------- schema model
_KIND_CODE = {}
_CKIND = {}          # (code, optional, list) -> unboxed argument form
_RET_CTYPE = {"Tensor": "pt_tensor **", "Scalar": "pt_scalar *", "int": "int64_t *",
              "float": "double *", "bool": "int32_t *", "dtype": "int32_t *"}
_TYPE_NAMES = {"Tensor": "Tensor", "int": "int", "float": "float", "complex": "complex",
               "bool": "bool", "str": "str", "Scalar": "Number", "dtype": "pytensor.dtype",
               "layout": "pytensor.layout", "device": "pytensor.device",
               "Generator": "pytensor.Generator", "memory_format": "pytensor.memory_format",
               "other": "object"}
_LIST_NAMES = {"int": "tuple of ints", "float": "tuple of floats", "bool": "tuple of bools",
               "Tensor": "tuple of Tensors", "str": "tuple of str"}


def _tables():
    kinds = {"TENSOR": "Tensor", "INT": "int", "SYMINT": "int", "FLOAT": "float",
             "COMPLEX": "complex", "BOOL": "bool", "STR": "str", "SCALAR": "Scalar",
             "SCALAR_TYPE": "dtype", "LAYOUT": "layout", "DEVICE": "device",
             "GENERATOR": "Generator", "MEMORY_FORMAT": "memory_format"}
    for k, code in kinds.items():
        _KIND_CODE[getattr(lib, "PT_TYPE_" + k)] = code
    for opt in (False, True):
        _CKIND["Tensor", opt, False] = "T"
        _CKIND["Tensor", opt, True] = "TL"
        _CKIND["int", opt, False] = "I?" if opt else "I"
        _CKIND["int", opt, True] = "IL"
        _CKIND["float", opt, False] = "F?" if opt else "F"
        _CKIND["bool", opt, False] = "B?" if opt else "B"
        _CKIND["Scalar", opt, False] = "S"
        for e in ("dtype", "layout", "memory_format"):
            _CKIND[e, opt, False] = "E?" if opt else "E"
        _CKIND["device", opt, False] = "D?" if opt else "D"
        _CKIND["Generator", opt, False] = "G"
        _CKIND["str", opt, False] = "STR"
    _CKIND["float", False, True] = "FL"
    _CKIND["bool", False, True] = "BL"


class Param:
    """One argument or return of a schema."""

    __slots__ = ("name", "pyname", "index", "type", "code", "optional", "list", "optional_elems",
                 "N", "kwarg_only", "has_default", "default", "civ", "alias", "is_write", "ckind")

    def __init__(self, info, index: int):
        if not _KIND_CODE:
            _tables()
        self.name = _str(info.name)
        self.pyname = self.name
        self.index = index
        self.type = _str(info.type)
        self.code = _KIND_CODE.get(info.elem_kind, "other")
        self.optional = bool(info.optional)
        self.list = bool(info.list)
        self.optional_elems = bool(info.optional_elems)
        self.N = info.N if info.N >= 0 else None
        self.kwarg_only = bool(info.kwarg_only)
        self.has_default = bool(info.has_default)
        self.civ = info.default_value if info.default_value != _NULL else None
        self.default = _boxing.to_python(self.civ) if self.civ is not None else None
        if self.has_default and self.list and self.default is not None and self.N is not None \
                and not isinstance(self.default, list):
            self.default = [self.default] * self.N
        self.alias = _str(info.alias_before) if info.has_alias else None
        self.is_write = bool(info.alias_is_write)
        self.ckind = _CKIND.get((self.code, self.optional, self.list))
        if self.list and self.optional and self.code != "int":
            self.ckind = None

    def type_name(self) -> str:
        return _LIST_NAMES.get(self.code, "tuple") if self.list else _TYPE_NAMES[self.code]

    def describe(self, pyname: bool = True) -> str:
        """``Tensor input``, ``Number alpha = 1``: PyTorch's way of showing a parameter."""
        text = f"{self.type_name()} {self.pyname if pyname else self.name}"
        if self.has_default:
            text += f" = {_default_text(self.default)}"
        return text


def _default_text(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_default_text(x) for x in v) + "]"
    if isinstance(v, str):
        return repr(v)
    return repr(v) if not isinstance(v, (bool, int, float)) or v is None else str(v)


class Sig:
    """One overload: its schema read from C, its entry point and its Python views."""

    __slots__ = ("op", "schema", "qualname", "ns", "name", "overload", "params",
                 "returns", "nargs", "self_index", "entry", "ret_ptr", "out_types", "aliases",
                 "variants", "views", "has_out", "capacity", "plain_kernel_args", "tensor_params",
                 "op_addr", "tensors_only", "rtype", "list_ret", "__weakref__")

    def __init__(self, op):
        schema = lib.pt_op_schema(op)
        if schema == _NULL:
            raise RuntimeError(f"operator {_str(lib.pt_op_name(op))} has no schema (its def was "
                               "released)")
        lib.pt_schema_retain(schema)
        self.op = op
        self.schema = schema
        full = _str(lib.pt_schema_name(schema))
        self.ns, _, self.name = full.rpartition("::")
        self.ns = self.ns or "aten"
        self.overload = _str(lib.pt_schema_overload(schema))
        self.qualname = f"{self.ns}::{self.name}"
        info = ffi.new("pt_schema_arg_info *")
        self.params = []
        for i in range(lib.pt_schema_num_arguments(schema)):
            _C._check(lib.pt_schema_argument(schema, i, info))
            self.params.append(Param(info, i))
        self.returns = []
        for i in range(lib.pt_schema_num_returns(schema)):
            _C._check(lib.pt_schema_return(schema, i, info))
            self.returns.append(Param(info, i))
        self.nargs = len(self.params)
        self.self_index = next((p.index for p in self.params
                                if p.name == "self" and p.code == "Tensor" and not p.list), None)
        self.variants = lib.pt_op_variants(op)
        self.has_out = any(p.kwarg_only and p.is_write for p in self.params)
        # A result that is an argument written in place (`Tensor(a!)`) is that argument's object.
        self.aliases = []
        for r in self.returns:
            hit = None
            if r.alias is not None and r.is_write and not r.list:
                hit = next((p.index for p in self.params if p.alias == r.alias and p.is_write),
                           None)
            self.aliases.append(hit)
        self.entry, self.ret_ptr, self.out_types = self._find_entry()
        from . import return_types
        self.rtype = return_types.type_of(self)
        # torch's functions and methods give a Tensor[] result as a tuple (its operator objects
        # as a list).
        self.list_ret = len(self.returns) == 1 and self.returns[0].list and \
            self.returns[0].code == "Tensor"
        self.views = {}
        self.capacity = max(self.nargs, len(self.returns), 1)
        # Python kernels get the values as they are when no argument has a default or is
        # kwarg-only (kernel_arguments has nothing to leave out or name).
        self.plain_kernel_args = not any(p.has_default or p.kwarg_only for p in self.params)
        self.tensor_params = tuple(p.code == "Tensor" and not p.list for p in self.params)
        # Every argument and result a plain Tensor: call_boxed hands the call to C whole.
        plain = [p.code == "Tensor" and not p.list and not p.optional
                 for p in self.params + self.returns]
        self.tensors_only = bool(self.returns) and all(plain) and self.capacity <= 16
        self.op_addr = int(ffi.cast("uintptr_t", op))

    def __del__(self, _release=lib.pt_schema_release):
        s = getattr(self, "schema", None)
        if s is not None:
            _release(s)

    def _find_entry(self):
        # Only the declarations file makes entry points, all of them in aten.
        if self.ns != "aten" or lib.pt_schema_is_vararg(self.schema) or \
                lib.pt_schema_is_varret(self.schema):
            return None, False, ()
        if any(p.ckind is None for p in self.params):
            return None, False, ()
        ident = self.name + (f"_{self.overload}" if self.overload else "")
        entry = getattr(lib, "pt_call_" + ident, None)
        if entry is None:
            return None, False, ()
        if len(self.returns) == 1 and self.returns[0].code == "Tensor" and \
                not self.returns[0].list:
            return entry, True, ()
        out = []
        for r in self.returns:
            ctype = _RET_CTYPE.get(r.code)
            if ctype is None or r.list or r.optional:
                return None, False, ()
            out.append(ctype)
        return entry, False, tuple(out)

    # ---------------------------------------------------------------- Python views
    def view(self, kind: int) -> "View":
        """The parameters Python sees: kind 0 the operator object (torch.ops: schema names),
        1 a pytensor function (``self`` is ``input``), 2 a Tensor method (``self`` bound)."""
        v = self.views.get(kind)
        if v is None:
            v = self.views[kind] = View(self, kind)
        return v

    def __repr__(self) -> str:
        return f"<Sig {_str(lib.pt_schema_text(self.schema))}>"

    def text(self) -> str:
        return _str(lib.pt_schema_text(self.schema))


class View:
    __slots__ = ("sig", "kind", "params", "npos", "min_args", "max_args", "varargs_list",
                 "out_targets", "out_position")

    def __init__(self, sig: Sig, kind: int):
        self.sig = sig
        self.kind = kind
        params = []
        for p in sig.params:
            if kind == 2 and p.index == sig.self_index:
                continue
            if kind == 1 and p.name == "self" and p.type == "Tensor":
                q = object.__new__(Param)
                for slot in Param.__slots__:
                    setattr(q, slot, getattr(p, slot))
                q.pyname = "input"
                p = q
            params.append(p)
        self.params = params
        self.npos = sum(1 for p in params if not p.kwarg_only)
        self.min_args = sum(1 for p in params if not p.has_default)
        self.max_args = len(params)
        # `t.view(2, 3)` for `t.view((2, 3))`: PyTorch allows it when the only positional
        # parameter is an int list.
        self.varargs_list = (kind != 0 and self.npos == 1 and params[0].list
                             and params[0].code == "int" and not params[0].kwarg_only)
        # Note [out= tuples]: the function of an out= overload with named returns takes its
        # outputs as one `out` tuple, torch's "tuple of Tensors out"; out_position is that
        # argument's index in torch's signature (every other argument, then out), which torch's
        # messages name.
        self.out_targets = self.out_position = None
        outs = tuple(p.index for p in params if p.kwarg_only and p.is_write and
                     p.code == "Tensor" and not p.list)
        if kind == 1 and sig.rtype is not None and len(outs) >= 2:
            self.out_targets = outs
            self.out_position = len(params) - len(outs)
            self.min_args -= len(outs) - 1
            self.max_args -= len(outs) - 1

    def describe(self) -> str:
        parts, star = [], False
        targets = self.out_targets or ()
        for p in self.params:
            if p.index in targets:
                continue
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(p.describe())
        if targets:
            if not star:
                parts.append("*")
            parts.append("tuple of Tensors out")
        return "(" + ", ".join(parts) + ")"


_sigs: dict = {}   # keyed by the op pointer itself (cdata pointers hash and compare by address)


def sig_of(op) -> Sig:
    """The Sig of an operator entry, rebuilt when its schema changed."""
    s = _sigs.get(op)
    if s is not None and s.schema == lib.pt_op_schema(op):
        return s
    s = _sigs[op] = Sig(op)
    return s


# ---------------------------------------------------------------- the table of operators
_table: dict = {}          # "ns::name" -> [op pointers, in def order]
_snapshot = None


def table() -> dict:
    """{"ns::name": [pt_op *, ...]} for every operator with a def, refreshed when it changed."""
    global _table, _snapshot
    out = ffi.new("pt_op **")
    while True:
        key = (lib.pt_dispatch_op_count(), generation)
        if key == _snapshot:
            return _table
        t = {}
        for i in range(key[0]):
            # A Library collected meanwhile (its __del__ runs at any allocation) can remove a def
            # under this loop: then the index fails and the scan starts over.
            if lib.pt_dispatch_op_at(i, out):
                lib.pt_error_clear()
                break
            name = _str(lib.pt_op_name(out[0]))
            ns, _, rest = name.partition("::")
            t.setdefault(f"{ns}::{rest.partition('.')[0]}", []).append(out[0])
        else:
            if key == (lib.pt_dispatch_op_count(), generation):
                _table, _snapshot = t, key
                return t


def find(qualname: str, overload: str = ""):
    """The op entry of "ns::name" + overload, or None."""
    out = ffi.new("pt_op **")
    if lib.pt_dispatch_find(qualname.encode(), overload.encode(), out):
        lib.pt_error_clear()
        return None
    return out[0]


# PyTorch's list of operators whose Tensor parameters also take Python numbers
# (should_allow_numbers_as_tensors in its argument parser), with their in-place forms.
_NUMBER_OPS = frozenset("""
add sub mul div divide multiply subtract true_divide floor_divide to copy _to_copy _conj
""".split())


def _number_ops(name: str) -> bool:
    return name in _NUMBER_OPS or (name.endswith("_") and name[:-1] in _NUMBER_OPS)


# Note [overload order]: how torch's code generator spells a parameter type in the signature
# text it sorts by (argument_type_str).
_SORT_TYPES = {"int": "int64_t", "float": "double", "str": "c10::string_view",
               "int[]": "IntArrayRef", "SymInt[]": "SymIntArrayRef", "Tensor[]": "TensorList",
               "Scalar[]": "ScalarList", "Tensor?[]": "c10::List<::std::optional<Tensor>>"}


def _sort_type(t: str) -> str:
    if t.endswith("?"):
        return _sort_type(t[:-1]) + "?"
    m = t.find("[")
    if m < 0:
        return _SORT_TYPES.get(t, t)
    elem, size = t[:m], t[m + 1:-1]
    if elem == "bool":
        return f"::std::array<bool,{size}>"
    head = _SORT_TYPES.get(elem + "[]", f"ArrayRef<{_sort_type(elem)}>")
    return f"{head}[{size}]" if size else head


def _sort_default(v) -> str:
    if v is None:
        return "None"
    if isinstance(v, list):
        return "[" + ", ".join(_sort_default(x) for x in v) + "]"
    return str(v)


def _sort_text(view: "View", out: str) -> str:
    """torch's signature_str of a view: ``max(Tensor input, int64_t dim, bool keepdim=False,
    *, TensorList[2] out=None)`` (``out`` the merged out= formal, "" when none)."""
    formals, star = [], False
    for p in view.params:
        if p.kwarg_only and not star:
            formals.append("*")
            star = True
        text = f"{_sort_type(p.type)} {p.pyname}"
        if p.has_default:
            text += f"={_sort_default(p.default)}"
        formals.append(text)
    if out:
        if not star:
            formals.append("*")
        formals.append(out)
    return f"{view.sig.name}({', '.join(formals)})"


def _arg_smaller(t1: str, t2: str) -> bool:
    return (t1 == "Scalar" and t2 == "Tensor" or t1 == "Scalar?" and t2 == "Tensor?"
            or t1 == "int[]" and t2 in ("int", "int?")
            or t1 == "Tensor[]" and "[]" in t2
            or t1 == "SymInt[]" and t2 == "int[]"
            or t1 in ("SymInt", "int") and t2 == "Tensor")


def _smaller(a: list, b: list) -> bool:
    """torch's is_smaller over the parameter types of two signatures (outputs left out)."""
    if len(a) != len(b) or a == b:
        return False
    return all(x == y or _arg_smaller(x, y) for x, y in zip(a, b))


def torch_order(views: list) -> list:
    """The views in the order torch's parser tries them (Note [overload order])."""
    plain = [v for v in views if not v.sig.has_out]
    outs = [v for v in views if v.sig.has_out]
    return _sorted(plain, outs) + _sorted(outs, ())


def _sorted(views: list, outs) -> list:
    def inputs(v):
        return [p.type for p in v.params if not (p.kwarg_only and p.is_write)]

    def out_formal(v):
        want = inputs(v)
        for o in outs:
            if inputs(o) == want and [p.pyname for p in o.params if not p.is_write or
                                      not p.kwarg_only] == [p.pyname for p in v.params]:
                n = sum(1 for p in o.params if p.kwarg_only and p.is_write)
                return "Tensor out=None" if n == 1 else f"TensorList[{n}] out=None"
        return ""

    views = sorted(views, key=lambda v: _sort_text(v, out_formal(v)))
    types = [inputs(v) for v in views]
    larger = {}
    for i, a in enumerate(types):
        bigger = {j for j, b in enumerate(types) if _smaller(a, b)}
        if bigger:
            larger[i] = bigger
    if not larger:
        return views
    order = [i for i in range(len(views)) if i not in larger]
    for idx in range(len(views)):
        i = order[idx]
        for j in sorted(larger):
            rest = larger[j]
            rest.discard(i)
            if not rest:
                del larger[j]
                order.append(j)
    return [views[i] for i in order]


class Group:
    """The overloads of one name that a Python entity (function, method, op object) sees."""

    __slots__ = ("qualname", "fname", "kind", "views", "numbers", "snapshot", "python")

    def __init__(self, qualname: str, kind: int):
        self.qualname = qualname
        self.fname = qualname.partition("::")[2]
        self.kind = kind
        self.numbers = kind == 0 or _number_ops(self.fname)
        self.snapshot = None
        self.views = []
        self.python = _PYTHON_FORMS.get(qualname) if kind else None

    def refresh(self) -> list:
        t = table()
        if self.snapshot is not _snapshot:
            # A function is the same binding in the top namespace and in _C._nn; which
            # namespace offers it is decided where the name is looked up.
            want = {1: lib.PT_VARIANT_FUNCTION | lib.PT_VARIANT_NN,
                    2: lib.PT_VARIANT_METHOD}.get(self.kind, 0)
            sigs = []
            for op in t.get(self.qualname, ()):
                try:
                    sigs.append(sig_of(op))
                except RuntimeError:  # its def went away since the table was read
                    lib.pt_error_clear()
            sigs = [s for s in sigs if not want or s.variants & want]
            if self.kind == 2:
                sigs = [s for s in sigs if s.self_index is not None]
            if self.kind:
                self.views = torch_order([s.view(self.kind) for s in sigs])
            else:
                # Operator objects (torch.ops) try the overloads in declaration order, the ones
                # with fewer Scalars first and the out= ones last.
                order = sorted(range(len(sigs)), key=lambda i: (
                    sigs[i].has_out,
                    sum(1 for p in sigs[i].params if p.code == "Scalar" and not p.kwarg_only),
                    i))
                self.views = [sigs[i].view(0) for i in order]
            self.snapshot = _snapshot
        return self.views

    def __call__(self, self_obj, args, kwargs):
        if self.python is not None:
            return self.python(self, self_obj, args, kwargs)
        return self.dispatch(self_obj, args, kwargs)

    def dispatch(self, self_obj, args, kwargs):
        """Resolves the overload and calls it; a function or method gets its named returns as
        the overload's return_types tuple, an operator object a plain tuple, as in torch."""
        views = self.refresh()
        if not views:
            raise RuntimeError(f"operator {self.qualname} has no overloads left (its defs were "
                               "released)")
        view, values = resolve(self, views, self_obj, args, kwargs)
        result = call(view.sig, values)
        rtype = view.sig.rtype
        if rtype is not None and self.kind:
            return tuple.__new__(rtype, result)
        if view.sig.list_ret and self.kind and isinstance(result, list):
            return tuple(result)
        return result


# ---------------------------------------------------------------- Python-level forms
# Note [Python-level forms]
# A few of torch's functions take arguments that no schema has, because torch writes their
# Python binding by hand (nonzero's as_tuple) or in Python (torch.norm, whose p may be a string
# and whose default is "fro"; torch.unique_consecutive, which returns only the results asked
# for; torch.cdist, whose compute_mode is a string). Their Groups hand every call that the generated fast path did not
# take to the form here, which reads the extra arguments and calls the operators.
def _nonzero_form(g: Group, self_obj, args, kwargs):
    """nonzero(input, *, bool as_tuple=False, Tensor out=None): as_tuple=True gives one 1-D
    int64 index tensor per dim (nonzero_numpy: a 0-d input counts as 1-D)."""
    if not kwargs or "as_tuple" not in kwargs:
        return g.dispatch(self_obj, args, kwargs)
    kwargs = dict(kwargs)
    flag = kwargs.pop("as_tuple")
    try:
        flag = convert_bool(flag)
    except _Bad:
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {_typename(flag)}") \
            from None
    if not flag:
        return g.dispatch(self_obj, args, kwargs)
    out = kwargs.pop("out", None)
    view, values = resolve(g, g.refresh(), self_obj, args, kwargs)
    if out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    return tuple(call(sig_of(find("aten::nonzero_numpy")), [values[view.sig.self_index]]))


def _norm_form(g: Group, self_obj, args, kwargs):
    """torch.norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None) and
    Tensor.norm(p="fro", dim=None, keepdim=False, dtype=None) (see pytensor.linalg)."""
    from . import linalg
    if g.kind == 2:
        return linalg._tensor_norm(self_obj, *args, **kwargs)
    return linalg._functional_norm(*args, **kwargs)


def _unique_consecutive_form(g: Group, self_obj, args, kwargs):
    """torch.unique_consecutive is a Python function over the operator: it returns the output
    alone, or a tuple with the inverse and/or the counts that were asked for."""
    view, values = resolve(g, g.refresh(), self_obj, args, kwargs)
    result = call(view.sig, values)
    if view.sig.has_out:
        return result
    names = {p.name: v for p, v in zip(view.sig.params, values)}
    keep = (True, names["return_inverse"], names["return_counts"])
    picked = tuple(r for r, k in zip(result, keep) if k)
    return picked[0] if len(picked) == 1 else picked


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def _cdist_form(g: Group, self_obj, args, kwargs):
    """torch.cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") is a Python
    function that names the operator's int compute_mode (None, 1, 2) by strings."""
    args, kwargs = list(args), dict(kwargs or {})
    if len(args) > 4:
        raise TypeError(f"cdist() takes from 2 to 4 positional arguments but {len(args)} were "
                        "given")
    if len(args) == 4:
        if "compute_mode" in kwargs:
            raise TypeError("cdist() got multiple values for argument 'compute_mode'")
        mode = args.pop()
    else:
        mode = kwargs.pop("compute_mode", "use_mm_for_euclid_dist_if_necessary")
    if not isinstance(mode, str) or mode not in _CDIST_MODES:
        raise ValueError(f"{mode} is not a valid value for compute_mode")
    kwargs["compute_mode"] = _CDIST_MODES[mode]
    return g.dispatch(self_obj, args, kwargs)


_PYTHON_FORMS = {"aten::nonzero": _nonzero_form, "aten::norm": _norm_form,
                 "aten::unique_consecutive": _unique_consecutive_form,
                 "aten::cdist": _cdist_form}


_groups: dict = {}


def group(qualname: str, kind: int) -> Group:
    g = _groups.get((qualname, kind))
    if g is None:
        g = _groups[qualname, kind] = Group(qualname, kind)
    return g


# ---------------------------------------------------------------- calling
def _scalar_value(s):
    k = s.kind
    if k == lib.PT_SCALAR_FLOAT:
        return s.re
    if k == lib.PT_SCALAR_INT:
        return s.i
    if k == lib.PT_SCALAR_BOOL:
        return bool(s.i)
    return complex(s.re, s.im)


def c_arguments(sig: Sig, values) -> list:
    """The unboxed entry point's arguments for canonical values (Note [unboxed calling
    convention]); the list keeps the C buffers it points to alive."""
    from ._args import _scalar
    out = []
    for p, v in zip(sig.params, values):
        k = p.ckind
        if k == "T":
            out.append(_NULL if v is None else v._h)
        elif k == "I" or k == "F":
            out.append(v)
        elif k == "B":
            out.append(1 if v else 0)
        elif k == "S":
            out.append(_NULL if v is None else _scalar(v, p.name))
        elif k == "IL":
            if v is None:
                out += (-1, _NULL)
            else:
                out += (len(v), ffi.new("int64_t[]", v) if v else _NULL)
        elif k == "E" or k == "E?":
            out.append(-1 if v is None else v._id)
        elif k == "D":
            out.append(_device._to_cdevice(v))
        elif k == "D?":
            out.append(_NULL if v is None else ffi.new("pt_device *", _device._to_cdevice(v)))
        elif k == "G":
            out.append(_NULL if v is None else v._h)
        elif k == "I?":
            out.append(_NULL if v is None else ffi.new("int64_t *", v))
        elif k == "F?":
            out.append(_NULL if v is None else ffi.new("double *", v))
        elif k == "B?":
            out.append(-1 if v is None else (1 if v else 0))
        elif k == "TL":
            hs = [_NULL if t is None else t._h for t in v]
            out += (len(hs), ffi.new("pt_tensor *[]", hs) if hs else _NULL)
        elif k == "FL":
            out += (len(v), ffi.new("double[]", v) if v else _NULL)
        elif k == "BL":
            out += (len(v), ffi.new("int64_t[]", [int(x) for x in v]) if v else _NULL)
        elif k == "STR":
            out.append(_NULL if v is None else v.encode())
        else:
            raise RuntimeError(f"no unboxed form for argument {p.name} of {sig.qualname}")
    return out


def call(sig: Sig, values):
    """Calls an overload with canonical values; returns its Python result."""
    try:
        if sig.entry is not None:
            cargs = c_arguments(sig, values)
            if sig.ret_ptr:
                r = sig.entry(*cargs)
                if r == _NULL:
                    _fail()
                a = sig.aliases[0]
                if a is not None:
                    lib.pt_tensor_release(r)
                    return values[a]
                return _wrap(r)
            outs = [ffi.new(t) for t in sig.out_types]
            st = sig.entry(*cargs, *outs)
            if st:
                _raise(st)
            results = []
            for r, ctype, o in zip(sig.returns, sig.out_types, outs):
                if ctype == "pt_tensor **":
                    # an undefined tensor (convolution_backward's masked outputs) is None
                    results.append(_wrap(o[0]) if o[0] != _NULL else None)
                elif ctype == "pt_scalar *":
                    results.append(_scalar_value(o))
                elif r.code == "bool":
                    results.append(bool(o[0]))
                elif r.code == "dtype":
                    results.append(_dtype._dtypes_by_id[o[0]])
                else:
                    results.append(o[0])
            return _pack(sig, results, values)
        return call_boxed(sig, values)
    except OverflowError:
        _raise_overflow(sig, values)
        raise


_I64 = 1 << 63


def _raise_overflow(sig: Sig, values) -> None:
    """Names the argument behind cffi's bare "int too big to convert", in torch's words: an int
    list fails to unpack (TypeError), an int overflows (ValueError), a Scalar is too big
    (OverflowError). Returns when no argument is to blame."""
    fname = sig.name
    for pos, (p, v) in enumerate(zip(sig.params, values), 1):
        if isinstance(v, bool) or p.ckind in ("T", "TL", None):
            continue
        if isinstance(v, int) and not -_I64 <= v < _I64:
            if p.ckind == "S":
                raise OverflowError(f"{fname}(): argument '{p.name}' (position {pos}) = {v} "
                                    "does not fit in 64 bits: int too big to convert") from None
            raise ValueError(f"{fname}(): argument '{p.name}' (position {pos}) = {v}: "
                             "Overflow when unpacking long long") from None
        if isinstance(v, (list, tuple)):
            for i, x in enumerate(v, 1):
                if isinstance(x, int) and not -_I64 <= x < _I64:
                    raise TypeError(f"{fname}(): argument '{p.name}' failed to unpack the object "
                                    f"at pos {i} with error \"Overflow when unpacking long "
                                    "long\"") from None


def call_boxed(sig: Sig, values):
    """Calls through pt_dispatch_call with the arguments boxed on a stack."""
    if sig.tensors_only:
        return _pack(sig, _dispatch_tensors(sig.op_addr, values, sig.capacity), values)
    n = sig.nargs
    items = ffi.new("pt_ivalue[]", sig.capacity)
    keep = []
    for i, (plain, v) in enumerate(zip(sig.tensor_params, values)):
        if plain and v is not None:
            it = items[i]
            it.tag = _IV_TENSOR
            it.t = v._h
        else:
            _boxing.push_argument(items[i], sig.params[i], v, keep)
    stack = ffi.new("pt_stack *", (items, n, sig.capacity))
    st = lib.pt_dispatch_call(sig.op, stack)
    if st:
        _raise(st)
    results = []
    clear = False
    for i in range(stack.size):
        it = items[i]
        if it.tag == _IV_TENSOR and it.t != _NULL:
            results.append(_wrap(it.t))  # adopts the result's reference
            it.tag = _IV_NONE
        else:
            results.append(_boxing.to_python(it))
            clear = True
    if clear:
        lib.pt_stack_clear(stack)
    return _pack(sig, results, values)


def _pack(sig: Sig, results: list, values):
    for j, a in enumerate(sig.aliases):
        if a is not None and j < len(results):
            results[j] = values[a]
    if not sig.returns:
        return None
    if len(sig.returns) == 1 and len(results) == 1:
        return results[0]
    return tuple(results)


def call_op(op, args, kwargs):
    """Calls one operator entry (an OpOverload) with Python arguments, by schema names."""
    sig = sig_of(op)
    try:
        values = bind(sig.view(0), sig.name, True, None, args, kwargs)
    except Mismatch as e:
        raise TypeError(str(e)) from None
    return call(sig, values)


# ---------------------------------------------------------------- Python kernels
def kernel_arguments(sig: Sig, values: list):
    """(args, kwargs) for a Python kernel, as PyTorch passes them: positional arguments in
    order, kwarg-only ones by name, and trailing arguments equal to their default left out."""
    if sig.plain_kernel_args:
        return values, {}
    args, kwargs = [], {}
    positional = [p for p in sig.params if not p.kwarg_only]
    last = len(positional)
    while last and positional[last - 1].has_default and \
            _same(values[positional[last - 1].index], positional[last - 1].default):
        last -= 1
    for p in positional[:last]:
        args.append(values[p.index])
    for p in sig.params:
        if p.kwarg_only and not (p.has_default and _same(values[p.index], p.default)):
            kwargs[p.name] = values[p.index]
    return args, kwargs


def _same(v, default) -> bool:
    if v is None or default is None:
        return v is default
    if Tensor is not None and isinstance(v, Tensor):
        return False
    return type(v) is type(default) and v == default


def kernel_results(sig: Sig, result) -> list:
    """A Python kernel's return value as canonical values, one per schema return."""
    rets = sig.returns
    if not rets:
        if result is not None:
            raise TypeError(f"{sig.qualname}: the kernel returned {_typename(result)} but the "
                            "schema returns ()")
        return []
    if len(rets) == 1:
        items = [result]
    else:
        if not isinstance(result, (tuple, list)) or len(result) != len(rets):
            raise TypeError(f"{sig.qualname}: the kernel must return a tuple of {len(rets)} "
                            f"values, got {_typename(result)}")
        items = list(result)
    out = []
    for r, v in zip(rets, items):
        try:
            out.append(convert(r, v, False))
        except _Bad:
            raise TypeError(f"Unable to cast {v!r} to {r.type}: {sig.qualname} returns "
                            f"{r.type}") from None
    return out


# This module is imported on first use of an operator, after the package has built Tensor.
_late()
