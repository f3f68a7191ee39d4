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

__all__ = ["Parameter", "Buffer"]


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
