"""Custom autograd Functions (torch.autograd.Function): forward and backward written in Python,
recorded as one node of the graph whose backward calls back into Python."""
from __future__ import annotations

import functools
import weakref

from .. import _autograd
from .._C import _keep, _raise, _stash_exception, ffi, lib
from .grad_mode import is_grad_enabled, no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


class FunctionCtx:
    """The `ctx` of forward and backward: save_for_backward / saved_tensors, mark_dirty,
    mark_non_differentiable, set_materialize_grads, needs_input_grad; any other attribute may
    be set to pass values from forward to backward."""

    def __init__(self):
        self._saved = None
        self._dirty = ()
        self._non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._node = None       # the node's address once recorded (not a reference)
        self._released = False

    def save_for_backward(self, *tensors) -> None:
        Tensor = _tensor_cls()
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._to_save_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward.")
        if self._saved is None:
            return tuple(getattr(self, "_to_save", ()))
        out = []
        for entry in self._saved:
            if entry is None:
                out.append(None)
            elif isinstance(entry, tuple):
                t, version, is_output = entry
                if t._version != version:
                    raise RuntimeError(
                        "one of the variables needed for gradient computation has been modified "
                        f"by an inplace operation: [{t.type()} {list(t.shape)}] is at version "
                        f"{t._version}; expected version {version} instead. Hint: enable anomaly "
                        "detection to find the operation that failed to compute its gradient, "
                        "with pytensor.autograd.set_detect_anomaly(True).")
                out.append(t)
            else:
                out.append(entry.unpack(self._node))
        return tuple(out)

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_name = f"{name}Backward"


class Function(metaclass=_FunctionMeta):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`, then call
    `YourFunction.apply(*args)`.

    >>> class Square(pytensor.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = pytensor.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward()
    >>> x.grad
    tensor([6.])
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @classmethod
    def apply(cls, *args, **kwargs):
        Tensor = _tensor_cls()
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = is_grad_enabled() and any(ctx.needs_input_grad)
        uses_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        to_save = getattr(ctx, "_to_save", ())
        if not record:
            ctx._saved = [None if t is None else (t, t._version, False) for t in to_save]
            return outputs
        inputs = ffi.new("pt_tensor *[]", max(len(args), 1))
        for i, a in enumerate(args):
            inputs[i] = a._h if isinstance(a, Tensor) and a.requires_grad else ffi.NULL
        handle = _keep(_Cell(cls, ctx))
        node = ffi.new("pt_node **")
        st = lib.pt_autograd_custom_node(cls._backward_name.encode(), lib.pt_py_custom_apply,
                                         handle, lib.pt_py_release_handle, len(args), inputs,
                                         len(outs), node)
        if st:
            lib.pt_py_release_handle(handle)
            _raise(st)
        node_ptr = ffi.gc(node[0], lib.pt_node_release)
        if not ctx.materialize_grads:
            st = lib.pt_autograd_custom_node_materialize(node_ptr, 0)
            if st:
                _raise(st)
        ctx._node = int(ffi.cast("uintptr_t", node_ptr))
        st = lib.pt_autograd_custom_node_on_release(node_ptr, lib.pt_py_custom_release_saved)
        if st:
            _raise(st)
        dirty = {id(t) for t in ctx._dirty}
        nondiff = {id(t) for t in ctx._non_differentiable}
        input_ids = {id(a) for a in args if isinstance(a, Tensor)}
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                continue
            if id(o) in nondiff or not (o.is_floating_point() or o.is_complex()):
                continue
            if id(o) in dirty:
                if o.is_leaf and o.requires_grad:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                       "in-place operation.")
                # as torch: a dirty tensor counts one more modification, so what saved it
                # before this call sees the change even if forward wrote it under no_grad
                st = lib.pt_autograd_bump_version(o._h)
                if st:
                    _raise(st)
                # a view written in place rebases its base (CopySlices), which hands the
                # node's first edge the view's gradient: only when the view is that input
                if args and args[0] is o:
                    st = lib.pt_autograd_rebase_history(o._h, node_ptr, i)
                    if st:
                        _raise(st)
                    continue
                target = o
            elif id(o) in input_ids:
                # an input returned as it is: a new view of it gets the history (so that
                # writing it in place is refused as in torch: Note [view tracking])
                from .._tensor import _call

                h = o._h
                target = _call(lib.pt_tensor_as_strided, h, lib.pt_tensor_ndim(h),
                               lib.pt_tensor_sizes(h), lib.pt_tensor_strides(h),
                               lib.pt_tensor_offset(h))
                outs[i] = target
            else:
                target = o
            st = lib.pt_autograd_set_history(target._h, node_ptr, i)
            if st:
                _raise(st)
        out_ids = {id(o): i for i, o in enumerate(outs) if isinstance(o, Tensor)}
        # saved variables of the C core: the checks and saved-tensor hooks of the formulas'
        ctx._saved = [None if t is None else
                      _SavedTensor(t, id(t) in out_ids and id(t) not in input_ids)
                      for t in to_save]
        ctx._to_save = ()
        return tuple(outs) if is_tuple else outs[0]


class _SavedTensor:
    """One tensor of save_for_backward, held by a C saved variable (Note [saved tensor hooks]).
    An input saved as it is unpacks to the very object that was saved while that lives."""

    __slots__ = ("_ptr", "_obj")

    def __init__(self, t, is_output: bool):
        out = ffi.new("pt_saved_tensor **")
        st = lib.pt_saved_tensor_new(t._h, int(is_output), out)
        if st:
            _raise(st)
        self._ptr = ffi.gc(out[0], lib.pt_saved_tensor_free)
        self._obj = None if is_output else weakref.ref(t)

    def unpack(self, node_addr):
        out = ffi.new("pt_tensor **")
        owner = ffi.cast("pt_node *", node_addr) if node_addr else ffi.NULL
        st = lib.pt_saved_tensor_unpack(self._ptr, owner, out)
        if st:
            _raise(st)
        obj = self._obj() if self._obj is not None else None
        if obj is not None and obj._h == out[0]:
            lib.pt_tensor_release(out[0])
            return obj
        return _autograd._wrap(out[0])

    def release(self) -> None:
        lib.pt_saved_tensor_release_data(self._ptr)


@ffi.def_extern()
def pt_py_custom_release_saved(handle):
    # a backward without retain_graph is over: what the Function saved goes (the C node's
    # `released` flag refuses a second run)
    cell = ffi.from_handle(handle)
    for entry in cell.ctx._saved or ():
        if isinstance(entry, _SavedTensor):
            entry.release()


class _Cell:
    __slots__ = ("cls", "ctx")

    def __init__(self, cls, ctx):
        self.cls, self.ctx = cls, ctx


@ffi.def_extern()
def pt_py_custom_apply(handle, n_grads, grads, n_outs, outs):
    try:
        cell = ffi.from_handle(handle)
        Tensor = _tensor_cls()
        gs = []
        for i in range(n_grads):
            g = grads[i]
            if g == ffi.NULL:
                gs.append(None)
            else:
                lib.pt_tensor_retain(g)
                gs.append(_autograd._wrap(g))
        result = cell.cls.backward(cell.ctx, *gs)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) < n_outs:
            raise RuntimeError(f"function {cell.cls._backward_name} returned an incorrect number "
                               f"of gradients (expected {n_outs}, got {len(result)})")
        if len(result) > n_outs and any(r is not None for r in result[n_outs:]):
            raise RuntimeError(f"function {cell.cls._backward_name} returned an incorrect number "
                               f"of gradients (expected {n_outs}, got {len(result)})")
        for i in range(n_outs):
            r = result[i]
            if r is None:
                continue
            if not isinstance(r, Tensor):
                raise TypeError(f"function {cell.cls._backward_name} returned a gradient "
                                f"different than None at position {i + 1}, but the "
                                f"corresponding forward input was not a Variable")
            lib.pt_tensor_retain(r._h)
            outs[i] = r._h
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by the caller of backward
        return _stash_exception(e)


class _DelayedError(Function):
    """Passes its inputs through; differentiating it raises (what once_differentiable puts
    after a backward that ran under create_graph)."""

    @staticmethod
    def forward(ctx, msg, *xs):
        ctx.msg = msg
        return xs

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.msg)


def once_differentiable(fn):
    """Marks a backward as not differentiable itself: it runs with grad mode off, and under
    create_graph its results carry a node that raises if they are differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        Tensor = _tensor_cls()
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)

        def fake_requires_grad(v):
            if isinstance(v, Tensor) and (v.is_floating_point() or v.is_complex()):
                return v.detach().requires_grad_()
            return v
        wrapped = _DelayedError.apply(
            "trying to differentiate twice a function that was marked with "
            "@once_differentiable", *(fake_requires_grad(v) for v in outs))
        return wrapped if is_tuple else wrapped[0]
    return wrapper
