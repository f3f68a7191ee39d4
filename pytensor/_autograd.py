"""The autograd side of Tensor: the properties and methods torch's Tensor has for it
(requires_grad, grad, grad_fn, backward, register_hook, detach, data, _version), the graph
nodes seen from Python (grad_fn objects), and the engine call that pytensor.autograd wraps.

Everything here is thin: metadata, nodes, the formulas and the engine live in C
(csrc/autograd); this module turns their results into Python objects and their errors into
torch's exceptions.
"""
from __future__ import annotations

import traceback
import warnings
import weakref

from ._C import _keep, _raise, _str, _stash_exception, ffi, lib

_wrap = None  # pytensor._tensor._wrap, set by _install


# ------------------------------------------------------------------ graph nodes
class Node:
    """A node of the backward graph (what `tensor.grad_fn` returns), as torch's
    autograd.graph.Node: `name()`, `next_functions`, `register_hook`, `register_prehook` and the
    saved values as `_saved_<name>` attributes."""

    __slots__ = ("_ptr", "__weakref__")

    def __init__(self):
        raise TypeError("Node objects are made by autograd, not by hand")

    @classmethod
    def _new(cls, ptr):
        """Wraps a new reference (NULL gives None)."""
        if ptr == ffi.NULL:
            return None
        n = object.__new__(cls)
        n._ptr = ffi.gc(ptr, lib.pt_node_release)
        return n

    def name(self) -> str:
        return _str(lib.pt_node_name(self._ptr))

    @property
    def next_functions(self) -> tuple:
        out = []
        node = ffi.new("pt_node **")
        nr = ffi.new("int32_t *")
        for i in range(lib.pt_node_num_next(self._ptr)):
            st = lib.pt_node_next(self._ptr, i, node, nr)
            if st:
                _raise(st)
            out.append((Node._new(node[0]), nr[0]))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        return _node_metadata.setdefault(self._key(), {})

    def _sequence_nr(self) -> int:
        return lib.pt_node_sequence_nr(self._ptr)

    def _key(self) -> int:
        return int(ffi.cast("uintptr_t", self._ptr))

    def register_hook(self, fn):
        """Registers fn(grad_inputs, grad_outputs) -> tuple or None, run after this node: it
        may return replacement gradients for the node's inputs (one per next edge, None where
        no gradient flows). Returns a handle whose remove() takes it off."""
        return _register_node_hook(self, fn, lib.PT_NODE_POST_HOOK)

    def register_prehook(self, fn):
        """Registers fn(grad_outputs) -> tuple or None, run before this node (after the tensor
        hooks of its outputs): it may return replacement gradients. Returns a handle."""
        return _register_node_hook(self, fn, lib.PT_NODE_PRE_HOOK)

    def __getattr__(self, name: str):
        # AccumulateGrad's leaf is `variable`, as torch names it
        if name == "variable" and self.name() == "torch::autograd::AccumulateGrad":
            field = name
        elif name.startswith("_saved_"):
            field = name[len("_saved_"):]
        else:
            raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")
        from . import _boxing
        iv = ffi.new("pt_ivalue *")
        st = lib.pt_node_saved(self._ptr, field.encode(), iv)
        if st:
            if st == lib.PT_ERR_VALUE:
                lib.pt_error_clear()
                raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")
            _raise(st)
        if iv.tag == lib.PT_IV_TENSOR:
            return _wrap(iv.t)  # a new reference
        value = _boxing.to_python(iv)
        if iv.tag == lib.PT_IV_INT_LIST:
            value = tuple(value)
        return value

    def __eq__(self, other):
        return isinstance(other, Node) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<{self.name().rpartition('::')[2]} object at {self._key():#x}>"


_node_metadata: "weakref.WeakValueDictionary | dict" = {}


# ------------------------------------------------------------------ hooks
class RemovableHandle:
    """What register_hook returns: `remove()` takes the hook off (a context manager too)."""

    __slots__ = ("_hook", "id")
    _next_id = 0

    def __init__(self, hook_ptr):
        self._hook = ffi.gc(hook_ptr, lib.pt_hook_release)
        RemovableHandle._next_id += 1
        self.id = RemovableHandle._next_id

    def remove(self) -> None:
        if self._hook is not None:
            lib.pt_hook_remove(self._hook)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookCell:
    __slots__ = ("fn", "shape", "dtype")

    def __init__(self, fn, shape, dtype):
        self.fn, self.shape, self.dtype = fn, shape, dtype


@ffi.def_extern()
def pt_py_grad_hook(ctx, grad, replacement):
    try:
        cell = ffi.from_handle(ctx)
        lib.pt_tensor_retain(grad)
        g = _wrap(grad)
        r = cell.fn(g)
        if r is None:
            return 0
        from ._tensor import Tensor
        if not isinstance(r, Tensor):
            raise TypeError(f"expected Tensor, but hook returned '{type(r).__name__}'")
        name = getattr(cell.fn, "__name__", repr(cell.fn))
        if tuple(r.shape) != tuple(g.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if r.dtype != g.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {g.type()} "
                               f"got {r.type()})")
        lib.pt_tensor_retain(r._h)
        replacement[0] = r._h
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by the caller of backward
        return _stash_exception(e)


def register_hook(t, hook):
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, not {type(hook).__name__}")
    if not lib.pt_autograd_requires_grad(t._h):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    return _register(lib.pt_autograd_register_hook, t._h, lib.pt_py_grad_hook,
                     _HookCell(hook, tuple(t.shape), t.dtype))


def _register(register, owner, trampoline, cell):
    """Registers a hook through the C call `register(owner, trampoline, ctx, release, &hook)`,
    with ctx a handle keeping `cell` alive until C releases it."""
    handle = _keep(cell)
    out = ffi.new("pt_hook **")
    st = register(owner, trampoline, handle, lib.pt_py_release_handle, out)
    if st:
        lib.pt_py_release_handle(handle)
        _raise(st)
    return RemovableHandle(out[0])


# ------------------------------------------------------------------ node hooks
class _NodeHookCell:
    __slots__ = ("fn", "kind")

    def __init__(self, fn, kind):
        self.fn, self.kind = fn, kind


def _hook_name(fn) -> str:
    return getattr(fn, "__name__", repr(fn))


def _grads_tuple(n, arr):
    out = []
    for i in range(n):
        if arr[i] == ffi.NULL:
            out.append(None)
        else:
            lib.pt_tensor_retain(arr[i])
            out.append(_wrap(arr[i]))
    return tuple(out)


def _replace_grads(fn, result, n, arr, old) -> None:
    """Writes a hook's tuple of gradients into arr (n entries), with torch's checks."""
    from ._tensor import Tensor
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != n:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {n})")
    for i, r in enumerate(result):
        if r is not None and not isinstance(r, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
        if r is not None and old[i] is not None:
            if tuple(r.shape) != tuple(old[i].shape):
                raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the size of value")
            if r.dtype != old[i].dtype:
                raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was "
                                   f"{old[i].type()} got {r.type()})")
    for i, r in enumerate(result):
        if r is not None:
            lib.pt_tensor_retain(r._h)
        if arr[i] != ffi.NULL:
            lib.pt_tensor_release(arr[i])
        arr[i] = r._h if r is not None else ffi.NULL


@ffi.def_extern()
def pt_py_node_hook(ctx, n_in, grad_inputs, n_out, grad_outputs):
    try:
        cell = ffi.from_handle(ctx)
        gos = _grads_tuple(n_out, grad_outputs)
        if cell.kind == lib.PT_NODE_PRE_HOOK:
            result = cell.fn(gos)
            if result is not None:
                _replace_grads(cell.fn, result, n_out, grad_outputs, gos)
            return 0
        gis = _grads_tuple(n_in, grad_inputs)
        result = cell.fn(gis, gos)
        if result is not None:
            _replace_grads(cell.fn, result, n_in, grad_inputs, gis)
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by the caller of backward
        return _stash_exception(e)


def _register_node_hook(node, fn, kind):
    if not callable(fn):
        raise TypeError(f"register_{'pre' if kind == lib.PT_NODE_PRE_HOOK else ''}hook: hook "
                        f"must be callable, not {type(fn).__name__}")
    return _register(lambda owner, *rest: lib.pt_node_register_hook(owner, kind, *rest),
                     node._ptr, lib.pt_py_node_hook, _NodeHookCell(fn, kind))


class _PostAccCell:
    __slots__ = ("fn", "tensor")

    def __init__(self, fn, tensor):
        self.fn, self.tensor = fn, weakref.ref(tensor)


@ffi.def_extern()
def pt_py_post_acc_hook(ctx, leaf, replacement):
    try:
        cell = ffi.from_handle(ctx)
        t = cell.tensor()
        if t is None:  # the Python object died first: hand the hook a new one over the leaf
            lib.pt_tensor_retain(leaf)
            t = _wrap(leaf)
        r = cell.fn(t)
        if r is not None:
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by the caller of backward
        return _stash_exception(e)


def register_post_accumulate_grad_hook(t, hook):
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, not "
                        f"{type(hook).__name__}")
    return _register(lib.pt_autograd_register_post_accumulate_hook, t._h,
                     lib.pt_py_post_acc_hook, _PostAccCell(hook, t))


# ------------------------------------------------------------------ anomaly traces
@ffi.def_extern()
def pt_py_anomaly_trace(buf, cap):
    try:
        text = "".join(traceback.format_stack()[:-1]).encode("utf-8", "replace")[:cap - 1]
        ffi.memmove(buf, text + b"\0", len(text) + 1)
    except BaseException:  # noqa: B036 - a trace is best effort; never fail the forward call
        pass


lib.pt_autograd_set_anomaly_tracer(lib.pt_py_anomaly_trace)


# ------------------------------------------------------------------ the engine
def _tensor_array(ts):
    arr = ffi.new("pt_tensor *[]", max(len(ts), 1))
    for i, t in enumerate(ts):
        arr[i] = t._h
    return arr


def run_backward(tensors, grads, retain_graph: bool, create_graph: bool, inputs=(),
                 accumulate: bool = True, allow_unused: bool = False):
    """Runs the engine; with accumulate=False returns the gradients of `inputs` (None where
    unused)."""
    ts, gs = _tensor_array(tensors), _tensor_array(grads)
    ins = _tensor_array(inputs)
    out = ffi.new("pt_tensor *[]", max(len(inputs), 1))
    st = lib.pt_autograd_backward(len(tensors), ts, gs, int(bool(retain_graph)),
                                  int(bool(create_graph)), len(inputs), ins, int(accumulate),
                                  int(bool(allow_unused)), out)
    if st:
        _raise(st)
    if accumulate:
        return None
    return tuple(_wrap(out[i]) if out[i] != ffi.NULL else None for i in range(len(inputs)))


# ------------------------------------------------------------------ Tensor's side
# The names torch's grad-assignment message gives dtypes: the C++ type of the gradient's
# elements and the ScalarType of the tensor.
_CPP_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                   "float64": "double", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>", "int8": "signed char",
                   "uint8": "unsigned char", "int16": "short int", "int32": "int",
                   "int64": "long int", "bool": "bool"}
_SCALAR_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                      "float64": "Double", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble", "int8": "Char", "uint8": "Byte",
                      "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}


def _dtype_key(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _cpp_type_name(dtype) -> str:
    return _CPP_TYPE_NAMES.get(_dtype_key(dtype), _dtype_key(dtype))


def _scalar_type_name(dtype) -> str:
    return _SCALAR_TYPE_NAMES.get(_dtype_key(dtype), _dtype_key(dtype))


def _install(tensor_cls, wrap) -> None:
    """Adds the autograd properties and methods to Tensor."""
    global _wrap
    _wrap = wrap

    def _get_requires_grad(self) -> bool:
        return bool(lib.pt_autograd_requires_grad(self._h))

    def _set_requires_grad(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"requires_grad must be a bool, not {type(value).__name__}")
        st = lib.pt_autograd_set_requires_grad(self._h, int(value))
        if st:
            _raise(st)

    def requires_grad_(self, requires_grad: bool = True):
        """Sets requires_grad in place (leaves only) and returns self."""
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            # torch's requires_grad_ words this differently from the property's setter
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        _set_requires_grad(self, bool(requires_grad))
        return self

    def _get_grad(self):
        h = self._h
        if not lib.pt_autograd_is_leaf(h) and not lib.pt_autograd_retains_grad(h):
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        g = lib.pt_autograd_grad(h)
        return None if g == ffi.NULL else _wrap(g)

    def _set_grad(self, value) -> None:
        if value is None:
            st = lib.pt_autograd_set_grad(self._h, ffi.NULL)
            if st:
                _raise(st)
            return
        if not isinstance(value, tensor_cls):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' "
                               f"to a tensor of size '{list(self.shape)}'. Please ensure that the "
                               "gradient and the tensor are the same size")
        if value.dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_cpp_type_name(value.dtype)}' to "
                f"a tensor with grad_dtype '{_scalar_type_name(self.dtype)}'. The gradient must "
                "match the tensor's grad_dtype (defaults to the tensor's dtype).")
        if value.device != self.device:
            raise RuntimeError(f"attempting to assign a gradient with device type "
                               f"'{value.device.type}' to a tensor with device type "
                               f"'{self.device.type}'. Please ensure that the gradient and the "
                               "tensor are on the same device")
        st = lib.pt_autograd_set_grad(self._h, value._h)
        if st:
            _raise(st)

    def _del_grad(self) -> None:
        _set_grad(self, None)

    def _grad_fn(self):
        # a view written through its base (or a sibling) gets its history regenerated here
        out = ffi.new("pt_node **")
        st = lib.pt_autograd_grad_fn_of(self._h, out)
        if st:
            _raise(st)
        return Node._new(out[0])

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (its ``_base``)."""
        return bool(lib.pt_autograd_is_view(self._h))

    def _get_base(self):
        b = lib.pt_autograd_view_base(self._h)
        return None if b == ffi.NULL else _wrap(b)

    def _is_leaf(self) -> bool:
        return bool(lib.pt_autograd_is_leaf(self._h))

    def _version(self) -> int:
        if lib.pt_tensor_is_inference(self._h):
            raise RuntimeError("Inference tensors do not track version counter.")
        return lib.pt_autograd_version(self._h)

    def is_inference(self) -> bool:
        """Whether this tensor was made in inference mode (or is a view of such a tensor)."""
        return bool(lib.pt_tensor_is_inference(self._h))

    def _output_nr(self) -> int:
        return lib.pt_autograd_output_nr(self._h)

    def _retains_grad(self) -> bool:
        return bool(lib.pt_autograd_retains_grad(self._h))

    def retain_grad(self) -> None:
        """Keeps the gradient of a non-leaf tensor in .grad after backward."""
        st = lib.pt_autograd_retain_grad(self._h)
        if st:
            _raise(st)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                 inputs=None) -> None:
        """Computes the gradient of this tensor with respect to the graph leaves
        (autograd.backward)."""
        from . import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing this one's storage and version counter, out of the graph."""
        out = ffi.new("pt_tensor **")
        st = lib.pt_autograd_detach(self._h, out)
        if st:
            _raise(st)
        return _wrap(out[0])

    def detach_(self):
        """Takes this tensor out of the graph in place (it becomes a leaf)."""
        st = lib.pt_autograd_detach_(self._h)
        if st:
            _raise(st)
        return self

    def _get_data(self):
        out = ffi.new("pt_tensor **")
        st = lib.pt_autograd_data(self._h, out)
        if st:
            _raise(st)
        return _wrap(out[0])

    def _set_data(self, value) -> None:
        if not isinstance(value, tensor_cls):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        st = lib.pt_autograd_set_data(self._h, value._h)
        if st:
            _raise(st)

    def register_post_accumulate_grad_hook_(self, hook):
        """Registers hook(tensor) -> None, run on this leaf after its .grad was accumulated in
        backward; returns a handle whose remove() takes it off."""
        return register_post_accumulate_grad_hook(self, hook)

    def register_hook_(self, hook):
        """Registers hook(grad) -> Tensor or None, run when this tensor's gradient is
        computed; returns a handle whose remove() takes it off."""
        return register_hook(self, hook)

    tensor_cls.requires_grad = property(_get_requires_grad, _set_requires_grad)
    tensor_cls.requires_grad_ = requires_grad_
    tensor_cls.grad = property(_get_grad, _set_grad, _del_grad)
    tensor_cls.grad_fn = property(_grad_fn)
    tensor_cls.is_leaf = property(_is_leaf)
    tensor_cls._version = property(_version)
    tensor_cls._is_view = _is_view
    tensor_cls._base = property(_get_base)
    tensor_cls.output_nr = property(_output_nr)
    tensor_cls.retains_grad = property(_retains_grad)
    tensor_cls.retain_grad = retain_grad
    tensor_cls.backward = backward
    tensor_cls.detach = detach
    tensor_cls.detach_ = detach_
    tensor_cls.data = property(_get_data, _set_data)
    tensor_cls.register_hook = register_hook_
    tensor_cls.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook_
    tensor_cls.is_inference = is_inference
