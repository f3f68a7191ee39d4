"""Graph nodes as Python sees them, and the hooks on what the graph saves (torch.autograd.graph).

The pack/unpack pairs of saved_tensors_hooks live on a thread-local stack in C (Note [saved tensor
hooks], csrc/autograd/autograd.h): every saved variable, the formulas' and custom Functions' alike,
is packed by the innermost pair when it is saved and unpacked when a node reads it.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from .._autograd import Node
from .._C import _keep, _raise, _stash_exception, _str, ffi, lib

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class _HooksCell:
    __slots__ = ("pack_hook", "unpack_hook")

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook


@ffi.def_extern()
def pt_py_saved_pack(ctx, t, packed):
    try:
        from .._autograd import _wrap
        cell = ffi.from_handle(ctx)
        lib.pt_tensor_retain(t)
        packed[0] = _keep(cell.pack_hook(_wrap(t)))
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by the operation that saved
        return _stash_exception(e)


@ffi.def_extern()
def pt_py_saved_unpack(ctx, packed, out):
    try:
        from .._tensor import Tensor
        cell = ffi.from_handle(ctx)
        r = cell.unpack_hook(ffi.from_handle(packed))
        if not isinstance(r, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(r).__name__}")
        lib.pt_tensor_retain(r._h)
        out[0] = r._h
        return 0
    except BaseException as e:  # noqa: B036 - re-raised by backward or the saved-field access
        return _stash_exception(e)


class saved_tensors_hooks:
    """Sets pack_hook(tensor) -> Any and unpack_hook(Any) -> Tensor for the tensors that
    autograd saves inside the block (this thread only; the innermost pair wins when nested).
    pack_hook runs with grad mode off when a tensor is saved, and what it returns is kept
    instead of the tensor; unpack_hook runs each time the saved value is read (in backward, or
    through `grad_fn._saved_<name>`) and must return a tensor equal to the one saved. The
    packed objects are freed with the graph (or after a backward without retain_graph). As in
    torch, what pack_hook returns should not hold the tensor it got (`x.detach()` does not):
    a saved output holds its own node.

    >>> with pytensor.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
    ...     y = x.exp()
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if not callable(self.pack_hook) or not callable(self.unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable, "
                            f"not {type(self.pack_hook).__name__} and "
                            f"{type(self.unpack_hook).__name__}")
        handle = _keep(_HooksCell(self.pack_hook, self.unpack_hook))
        st = lib.pt_autograd_saved_hooks_push(lib.pt_py_saved_pack, lib.pt_py_saved_unpack,
                                              lib.pt_py_release_handle, handle,
                                              lib.pt_py_release_handle)
        if st:
            lib.pt_py_release_handle(handle)
            _raise(st)

    def __exit__(self, *exc) -> None:
        st = lib.pt_autograd_saved_hooks_pop()
        if st:
            _raise(st)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device when backward reads
    them. pin_memory is accepted as torch's (pytensor has no pinned host memory: the copy is a
    plain one)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside the block, setting saved-tensor hooks raises RuntimeError(error_message); entering
    it while hooks are set raises the same."""
    if not isinstance(error_message, str):
        raise TypeError("disable_saved_tensors_hooks(): argument 'error_message' must be str, "
                        f"not {type(error_message).__name__}")
    prev = lib.pt_autograd_saved_hooks_disabled_message()
    prev = None if prev == ffi.NULL else _str(prev)
    st = lib.pt_autograd_saved_hooks_disable(error_message.encode())
    if st:
        _raise(st)
    try:
        yield
    finally:
        lib.pt_autograd_saved_hooks_disable(ffi.NULL if prev is None else prev.encode())
