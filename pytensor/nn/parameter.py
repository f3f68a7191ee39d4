"""``pytensor.nn.Parameter`` and ``pytensor.nn.Buffer``: the tensors a Module registers.

A Parameter is a leaf Tensor of its own class over the data it was given (same storage, same
version counter, out of any graph), with ``requires_grad`` set as asked. Module's ``__setattr__``
registers a Parameter as a parameter and a Buffer as a buffer.

>>> import pytensor
>>> p = pytensor.nn.Parameter(pytensor.zeros(2))
>>> type(p).__name__, p.requires_grad, p.is_leaf
('Parameter', True, True)
"""

from __future__ import annotations

from .._C import _raise, ffi, lib
from .._tensor import Tensor, _TensorBase
from .. import _factory

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _alias_as(cls, data: Tensor):
    """A ``cls`` object over a detached alias of ``data`` (shares its storage and version)."""
    ref = ffi.new("pt_tensor **")
    st = lib.pt_autograd_detach(data._h, ref)
    if st:
        _raise(st)
    out = _TensorBase.__new__(cls)
    # adopts the new reference and takes the C tensor's Python slot (Note [one Python object
    # per tensor] in csrc/python/pt_python.c)
    out._h = ref[0]
    return out


class Parameter(Tensor):
    """A Tensor that a Module treats as one of its parameters.

    ``Parameter(data=None, requires_grad=True)``: ``data`` defaults to an empty tensor.
    """

    _is_param = True

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = _factory.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be a Tensor, not "
                            f"{type(data).__name__}")
        out = _alias_as(cls, data)
        out.requires_grad_(requires_grad)
        return out

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # torch._utils._rebuild_parameter(data, requires_grad, hooks): pytensor/_utils.py
        from .._utils import reduce_parameter
        return reduce_parameter(self)


class _BufferMeta(type(Tensor)):
    # isinstance(t, Buffer) holds for the plain Tensor that Buffer(...) returns.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A Tensor that a Module registers as a buffer: ``Buffer(data=None, *, persistent=True)``
    returns a detached alias of ``data`` (a plain Tensor, as torch's does) marked so that
    ``isinstance(b, Buffer)`` holds; ``persistent`` says whether state_dict keeps it."""

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = _factory.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): argument 'data' must be a Tensor, not "
                            f"{type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


_LAZY_USE_ERROR = (
    "Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
    "`LazyModule` or explicitly manipulating `pytensor.nn.parameter.UninitializedParameter` "
    "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
    "parameters before calling pytensor functions")

# what an uninitialized tensor still answers (as torch's UninitializedTensorMixin)
_LAZY_ALLOWED = frozenset((
    "__hash__", "size", "copy_", "is_floating_point", "is_complex", "half", "float", "double",
    "char", "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize",
    "requires_grad", "requires_grad_", "grad", "grad_fn", "is_leaf", "data", "device",
    "dtype", "cls_to_become", "share_memory_", "detach", "persistent", "type",
    "__class__", "__dict__", "__repr__", "__reduce_ex__", "__deepcopy__",
    "__getstate__", "__setstate__", "__eq__", "__ne__", "__init__", "__new__"))


class UninitializedTensorMixin:
    """A tensor whose shape is not known yet: ``materialize(shape, device=None,
    dtype=None)`` gives it data and turns it into ``cls_to_become``; before that, using it
    raises ValueError."""

    def materialize(self, shape, device=None, dtype=None) -> None:
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _factory.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __getattribute__(self, name):
        if (not name.startswith("_") or name.startswith("__")) and name not in _LAZY_ALLOWED:
            attr = getattr(Tensor, name, None)
            if callable(attr) and not isinstance(attr, type):
                raise ValueError(_LAZY_USE_ERROR.format(f"method {name}"))
        return super().__getattribute__(name)


def is_lazy(param) -> bool:
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter not yet materialized (``torch.nn.UninitializedParameter``)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        data = _factory.empty(0, device=device, dtype=dtype)
        return _alias_as(cls, data).requires_grad_(requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer not yet materialized (``torch.nn.UninitializedBuffer``)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        data = _factory.empty(0, device=device, dtype=dtype)
        out = _alias_as(cls, data).requires_grad_(requires_grad)
        out.persistent = persistent
        out._is_buffer = True
        return out

    def __init__(self, requires_grad: bool = False, device=None, dtype=None,
                 persistent: bool = True):
        pass
