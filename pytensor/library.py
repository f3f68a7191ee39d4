"""Operators defined and implemented from Python, as ``torch.library`` does it.

A ``Library(ns, kind)`` groups registrations with the dispatcher: ``define`` adds a schema
(``pt_dispatch_def``), ``impl`` a kernel for one dispatch key (``pt_dispatch_impl``), and every
call returns a registration handle that the library keeps. Deleting the library (or
``_destroy()``) releases the handles, which deregisters exactly what it added and lets the
dispatcher restore whatever was there before (an older kernel, the missing-kernel error).

A Python kernel is reached from C through a trampoline. Kernels whose arguments and result are
all plain Tensors run through the C one, ``pt_py_fast_kernel`` (Note [Python kernels in C] in
csrc/python/pt_python_module.c); everything else, and kernels that take the key set, through
``pt_py_boxed_kernel`` (an ``extern "Python"`` function of the cffi module), whose context is a
handle to a small cell holding the Python callable. The trampoline pops the arguments off the stack into
Python objects (tensors retained: stack arguments are borrowed), calls the kernel with them as
PyTorch does (positional arguments in order, kwarg-only ones by name, trailing defaults left out),
and pushes the results as owned values. An exception raised by the kernel is kept for the thread
and turned into a C status; when that status reaches Python again, ``_C._raise`` re-raises the
very same exception object (Note [Python kernel exceptions] in pytensor._C).

>>> import pytensor
>>> lib = pytensor.library.Library("mylib", "FRAGMENT")
>>> lib.define("twice(Tensor x) -> Tensor")
'twice'
>>> lib.impl("twice", lambda x: x * 2, "CPU")
>>> pytensor.ops.mylib.twice(pytensor.ones(2)).tolist()
[2.0, 2.0]
"""

from __future__ import annotations

import sys
from typing import Callable, Optional, Sequence, Union

from . import _C, _boxing, _ops
from ._C import _core, ffi, lib
from ._tensor import Tensor as _Tensor, _wrap

__all__ = ["Library", "define", "impl", "fallthrough_kernel"]

# namespace -> where its DEF library was made ("aten" belongs to the built-in declarations).
_def_namespaces = {"aten": "csrc/ops/native_functions.yaml"}

# Every context handle ever given to C. Kernel records are never freed (Note [lock-free slots] in
# dispatch.c), so a call racing with a release may still hand C's copy of the handle back to us:
# the handle must stay valid for the process; releasing only drops the callable inside the cell.
_cells: list = []

# Libraries made by the module-level define/impl, kept for the life of the process as torch does.
_keep_alive: list = []

_KINDS = ("DEF", "IMPL", "FRAGMENT")


def fallthrough_kernel():
    """A placeholder kernel: ``lib.impl(name, fallthrough_kernel, key)`` makes the dispatcher skip
    ``key`` for that operator."""
    raise NotImplementedError("fallthrough_kernel() should never be called")


class _Cell:
    __slots__ = ("fn", "qualname", "key", "with_keyset", "fallback", "handle_addr")

    def __init__(self, fn, qualname: str, key: str, with_keyset: bool, fallback: bool = False):
        self.fn, self.qualname, self.key, self.with_keyset = fn, qualname, key, with_keyset
        self.fallback = fallback
        self.handle_addr = 0


_IV_TENSOR = lib.PT_IV_TENSOR
_retain = lib.pt_tensor_retain


@ffi.def_extern()
def pt_py_boxed_kernel(op, key, keyset, stack, ctx):
    try:
        cell = ffi.from_handle(ctx)
        fn = cell.fn
        if fn is None:
            raise RuntimeError(f"the Python kernel of {cell.qualname} for {cell.key} was "
                               "deregistered")
        sig = _ops.sig_of(op)
        n = sig.nargs
        base = stack.size - n
        if base < 0:
            raise RuntimeError(f"{sig.qualname}: the stack holds {stack.size} values but the "
                               f"schema takes {n} arguments")
        items = stack.items
        values = []
        for i in range(n):
            it = items[base + i]
            if it.tag == _IV_TENSOR and it.t != ffi.NULL:  # borrowed: the Tensor gets its own ref
                _retain(it.t)
                values.append(_wrap(it.t))
            else:
                values.append(_boxing.to_python(it))
        stack.size = base
        args, kwargs = _ops.kernel_arguments(sig, values)
        if cell.fallback:
            from .ops import overload_of
            args = [overload_of(op), *args]
        if cell.with_keyset:
            args = [keyset, *args]
        return _push_results(sig, stack, base, fn(*args, **kwargs))
    except BaseException as e:  # noqa: B036 - every exception goes back to the caller unchanged
        return _C._stash_exception(e)


def _push_results(sig, stack, base: int, result) -> int:
    """Checks a Python kernel's return value against the schema and pushes it on the stack as
    owned values; returns PT_OK."""
    items = stack.items
    if len(sig.returns) == 1 and type(result) is _Tensor and sig.returns[0].code == "Tensor" \
            and not sig.returns[0].list:
        it = items[base]
        _retain(result._h)
        it.tag = _IV_TENSOR
        it.t = result._h
        stack.size = base + 1
        return lib.PT_OK
    outs = _ops.kernel_results(sig, result)
    if base + len(outs) > stack.capacity:
        raise RuntimeError(f"{sig.qualname}: no room on the stack for {len(outs)} results")
    for j, (r, v) in enumerate(zip(sig.returns, outs)):
        _boxing.push_result(items[base + j], r, v)
    stack.size = base + len(outs)
    return lib.PT_OK


def _finish_kernel(op_addr: int, stack_addr: int, base: int, result) -> int:
    """The end of a Python kernel that the C trampoline ran but whose result it does not push
    itself (Note [Python kernels in C] in csrc/python/pt_python_module.c); returns the status."""
    try:
        return _push_results(_ops.sig_of(ffi.cast("pt_op *", op_addr)),
                             ffi.cast("pt_stack *", stack_addr), base, result)
    except BaseException as e:  # noqa: B036 - as in pt_py_boxed_kernel
        return _C._stash_exception(e)


_core._kernel_setup(_finish_kernel, _C._stash_exception)


def _caller(depth: int = 2) -> str:
    f = sys._getframe(depth)
    while f is not None and f.f_globals.get("__name__") == __name__:
        f = f.f_back
    return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "<unknown>"


def _key_number(name: str) -> int:
    out = ffi.new("int32_t *")
    if lib.pt_dispatch_key_from_name(name.encode(), out):
        lib.pt_error_clear()
        raise RuntimeError(f"could not parse dispatch key: {name}")
    return out[0]


class Library:
    """A group of operator registrations for one namespace.

    kind: "DEF" (the one library that defines the namespace's operators), "FRAGMENT" (defines
    more of them), "IMPL" (kernels only). dispatch_key: the default key of ``impl``.

    >>> lib = pytensor.library.Library("demo", "FRAGMENT")
    >>> lib.define("plus_one(Tensor x) -> Tensor")
    'plus_one'
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if not isinstance(ns, str) or not ns.isidentifier():
            raise ValueError(f"Library: the namespace must be an identifier, got {ns!r}")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._where = _caller()
        self._handles: list = []
        self._cells: list = []
        self._defs: list = []
        self._owns_def = False
        if kind == "DEF":
            prev = _def_namespaces.get(ns)
            if prev is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If you "
                    "were trying to specify implementations, consider using TORCH_LIBRARY_IMPL "
                    "(which can be duplicated).  If you really intended to define operators for "
                    "a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT "
                    "to explicitly indicate this.  Previous registration of TORCH_LIBRARY was "
                    f"registered at {prev}; latest registration was registered at {self._where}")
            _def_namespaces[ns] = self._where
            self._owns_def = True

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _block(self) -> str:
        return "TORCH_LIBRARY_IMPL" if self.kind == "IMPL" else "TORCH_LIBRARY"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Registers a schema in this library's namespace; returns the operator's name as
        written (without its overload).

        >>> pytensor.library.Library("demo2", "FRAGMENT").define("f.x(Tensor a) -> Tensor")
        'f'
        """
        if not isinstance(schema, str):
            raise TypeError(f"define(): schema must be str, not {type(schema).__name__}")
        head = schema.split("(", 1)[0].strip()
        name = head.split(".", 1)[0]
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{head}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  '
                "All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                f"namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block at "
                f"{self._where})")
        if "::" in head:
            ns = head.split("::", 1)[0]
            if ns != self.ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match "
                    f"namespace of enclosing TORCH_LIBRARY block ({self.ns}).  Move this "
                    "definition to the (unique) TORCH_LIBRARY block corresponding to this "
                    "namespace (and consider deleting the namespace from your schema string.)  "
                    f"(Error occurred while processing TORCH_LIBRARY block at {self._where})")
            text = schema
        else:
            text = f"{self.ns}::{schema.lstrip()}"
        out = ffi.new("pt_registration **")
        debug = f"registered at {_caller()}"
        _C._check(lib.pt_dispatch_def(text.encode(), debug.encode(), out))
        self._handles.append(out[0])
        self._defs.append(text.split("(", 1)[0].strip())
        _ops.generation += 1
        return name

    def _qualname(self, op_name) -> str:
        from .ops import OpOverload, OpOverloadPacket
        if isinstance(op_name, OpOverload):
            return op_name._qualified_name()
        if isinstance(op_name, OpOverloadPacket):
            return op_name._qualified_op_name
        if not isinstance(op_name, str):
            raise TypeError(f"impl(): op_name must be str or an OpOverload, not "
                            f"{type(op_name).__name__}")
        if "::" in op_name:
            ns = op_name.split("::", 1)[0]
            if ns != self.ns:
                raise RuntimeError(
                    f'impl("{op_name}", ...): Explicitly provided namespace ({ns}) in operator '
                    f"name does not match namespace of enclosing {self._block()} block "
                    f"({self.ns}).  Move this definition to the {self._block()} block "
                    "corresponding to this namespace (and consider deleting the namespace from "
                    f"your schema string.)  (Error occurred while processing {self._block()} "
                    f"block at {self._where})")
            return op_name
        return f"{self.ns}::{op_name}"

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = True) -> None:
        """Registers fn as op_name's kernel for dispatch_key ("" means the library's key, else
        CompositeImplicitAutograd, as in torch). fn gets the operator's arguments and returns its
        results; ``fallthrough_kernel`` makes the dispatcher skip the key for this operator.

        >>> lib = pytensor.library.Library("demo3", "FRAGMENT")
        >>> lib.define("neg1(Tensor x) -> Tensor")
        'neg1'
        >>> lib.impl("neg1", lambda x: x * -1, "CPU")
        """
        if not callable(fn):
            raise TypeError(f"impl(): fn must be callable, not {type(fn).__name__}")
        qualname = self._qualname(op_name)
        key_name = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        key = _key_number(key_name)
        out = ffi.new("pt_registration **")
        debug = f"registered at {_caller()} (Python kernel {getattr(fn, '__qualname__', fn)!s})"
        if fn is fallthrough_kernel:
            st = lib.pt_dispatch_impl_fallthrough(qualname.encode(), key, debug.encode(), out)
        else:
            cell = _Cell(fn, qualname, key_name, with_keyset)
            handle = ffi.new_handle(cell)
            _cells.append(handle)  # cells live as long as the process: C may still hold one
            self._cells.append(cell)
            if with_keyset:
                st = lib.pt_dispatch_impl(qualname.encode(), key, lib.pt_py_boxed_kernel,
                                          handle, debug.encode(), out)
            else:
                # Note [Python kernels in C]: the context is the cell object itself.
                cell.handle_addr = int(ffi.cast("uintptr_t", handle))
                st = lib.pt_dispatch_impl(qualname.encode(), key, lib.pt_py_fast_kernel,
                                          ffi.cast("void *", id(cell)), debug.encode(), out)
        _C._check(st)
        self._handles.append(out[0])

    def fallback(self, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Registers fn for every operator at one runtime key: it is called as
        ``fn(op, *args, **kwargs)`` with the OpOverload being called (``fallthrough_kernel``
        skips the key instead)."""
        key_name = dispatch_key or self.dispatch_key
        key = _key_number(key_name)
        out = ffi.new("pt_registration **")
        debug = f"registered at {_caller()} (Python fallback)"
        if fn is fallthrough_kernel:
            st = lib.pt_dispatch_fallback(key, ffi.NULL, ffi.NULL, debug.encode(), out)
        else:
            cell = _Cell(fn, "every operator", key_name, with_keyset, fallback=True)
            handle = ffi.new_handle(cell)
            _cells.append(handle)
            self._cells.append(cell)
            st = lib.pt_dispatch_fallback(key, lib.pt_py_boxed_kernel, handle, debug.encode(),
                                          out)
        _C._check(st)
        self._handles.append(out[0])

    def _destroy(self) -> None:
        """Releases every registration of this library (newest first)."""
        handles, self._handles = self._handles, []
        for h in reversed(handles):
            lib.pt_registration_release(h)
        for cell in self._cells:
            cell.fn = None
        self._cells = []
        if self._owns_def:
            _def_namespaces.pop(self.ns, None)
            self._owns_def = False
        if handles:
            _ops.generation += 1

    def __del__(self):
        try:
            self._destroy()
        except Exception:  # interpreter shutdown: the C core may already be gone
            pass


def define(qualname, schema: str, *, lib: Optional[Library] = None, tags=()) -> str:
    """Defines an operator: ``define("mylib::f", "(Tensor x) -> Tensor")``, or
    ``define(lib, "f(Tensor x) -> Tensor")`` with a Library.

    >>> pytensor.library.define("demo4::g", "(Tensor x) -> Tensor")
    'g'
    """
    if isinstance(qualname, Library):
        return qualname.define(schema, tags=tags)
    ns, sep, name = qualname.partition("::")
    if not sep:
        raise ValueError(f"define(): expected a qualified name 'namespace::name', got {qualname!r}")
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _keep_alive.append(lib)
    return lib.define(name + schema, tags=tags)


_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "default":
                "CompositeExplicitAutograd"}


def impl(qualname, types: Union[str, Sequence[str]], func: Optional[Callable] = None, *,
         lib: Optional[Library] = None, dispatch_key: str = ""):
    """Registers a kernel. Two forms, as torch.library.impl:

    ``@impl(lib, "name", "CPU")``: a decorator registering the function in a Library;
    ``impl("ns::name", "cpu", fn)`` (or as a decorator without fn): per device type ("cpu",
    "cuda", "meta", "default") or dispatch key name.

    >>> lib = pytensor.library.Library("demo5", "FRAGMENT")
    >>> lib.define("h(Tensor x) -> Tensor")
    'h'
    >>> @pytensor.library.impl(lib, "h", "CPU")
    ... def h(x):
    ...     return x
    """
    if isinstance(qualname, Library):
        library, name = qualname, types
        key = func if isinstance(func, str) else dispatch_key

        def register(fn):
            library.impl(name, fn, key)
            return fn

        return register
    ns, sep, _ = qualname.partition("::")
    if not sep:
        raise ValueError(f"impl(): expected a qualified name 'namespace::name', got {qualname!r}")
    keys = [types] if isinstance(types, str) else list(types)

    def register(fn):
        nonlocal lib
        if lib is None:
            lib = Library(ns, "FRAGMENT")
            _keep_alive.append(lib)
        for t in keys:
            lib.impl(qualname, fn, _DEVICE_KEYS.get(t, t))
        return fn

    return register if func is None else register(func)
