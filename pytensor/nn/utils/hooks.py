"""Hook bookkeeping that nn.Module shares with its users: ``RemovableHandle`` (what every
``register_*_hook`` of a Module returns) and ``BackwardHook`` (how full backward hooks of a
Module reach the autograd graph).

Note [module backward hooks]: a Module's full backward hooks see the gradients of its inputs
and outputs as a whole, which no single autograd node holds. As torch does, the tensors going in
and coming out of the forward pass are each passed through an identity Function; a pre-hook on
the output identity's node sees grad_output, a pre-hook on the input identity's node sees
grad_input (its incoming gradients), and may replace them.

>>> from collections import OrderedDict
>>> hooks = OrderedDict()
>>> h = RemovableHandle(hooks)
>>> hooks[h.id] = print
>>> h.remove()
>>> len(hooks)
0
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "BackwardHook"]


class RemovableHandle:
    """A handle to a hook kept in one or more dicts: ``remove()`` deletes it from them; usable
    as a context manager. ``extra_dict`` names further dicts that hold the same id."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [] if extra_dict is None else (
            extra_dict if isinstance(extra_dict, list) else [extra_dict])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        if self.extra_dict_ref:
            return (self.hooks_dict_ref(), self.id,
                    tuple(r() for r in self.extra_dict_ref))
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state) -> None:
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extras = state[2] if len(state) > 2 else ()
        self.extra_dict_ref = tuple(weakref.ref(OrderedDict() if d is None else d)
                                    for d in extras)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _identity_fn():
    from ...autograd.function import Function

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
            return args

        @staticmethod
        def backward(ctx, *grads):
            return grads

    return BackwardHookFunction


_IDENTITY = None


def _apply_identity(tensors):
    global _IDENTITY
    if _IDENTITY is None:
        _IDENTITY = _identity_fn()
    return _IDENTITY.apply(*tensors)


class BackwardHook:
    """Runs a Module's full backward pre-hooks and hooks (Note [module backward hooks]).
    ``setup_input_hook(args)`` and ``setup_output_hook(result)`` return the arguments and the
    result with the identity nodes in place."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack(grads, index, size):
        out = [None] * size
        for i, g in zip(index, grads):
            out[i] = g
        return tuple(out)

    def _run_hooks(self, grad_inputs):
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(res)}, but expected {len(grad_inputs)}")
            grad_inputs = res
        return grad_inputs

    def _apply_on(self, args, fn):
        from ..._tensor import Tensor
        from ...autograd.grad_mode import is_grad_enabled

        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not is_grad_enabled() or not any(args[i].requires_grad for i in index):
            return args, None
        outs = _apply_identity([args[i] for i in index])
        node = next(o.grad_fn for o in outs if o.grad_fn is not None)
        fn(node, index, len(args))
        res = list(args)
        for i, o in zip(index, outs):
            res[i] = o
        return tuple(res), index

    def setup_input_hook(self, args):
        def register(node, index, size):
            def pre_hook(grads):
                if self.grad_outputs is None:  # the output never got a gradient
                    return None
                res = self._run_hooks(self._pack(grads, index, size))
                self.grad_outputs = None
                return tuple(res[i] for i in index)
            node.register_prehook(pre_hook)

        is_tuple = isinstance(args, tuple)
        res, self.input_tensors_index = self._apply_on(args if is_tuple else (args,), register)
        self.n_inputs = len(args) if is_tuple else 1
        return res if is_tuple else res[0]

    def setup_output_hook(self, result):
        def register(node, index, size):
            def pre_hook(grads):
                grads = self._pack(grads, index, size)
                for hook in self.user_pre_hooks:
                    res = hook(self.module, grads)
                    if res is None:
                        continue
                    if len(res) != len(grads):
                        raise RuntimeError("Backward pre hook returned an invalid number of "
                                           f"grad_output, got {len(res)}, but expected "
                                           f"{len(grads)}")
                    grads = res
                self.grad_outputs = grads
                if self.input_tensors_index is None:  # no input needs a gradient
                    if self.user_hooks:
                        warnings.warn(
                            "Full backward hook is firing when gradients are computed with "
                            "respect to module outputs since no inputs require gradients. See "
                            "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                            "#torch.nn.Module.register_full_backward_hook for more details.",
                            stacklevel=5)
                    for hook in self.user_hooks:
                        res = hook(self.module, tuple([None] * self.n_inputs),
                                   self.grad_outputs)
                        if res is not None and not all(r is None for r in res):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(grads[i] for i in index)
            node.register_prehook(pre_hook)

        is_tuple = isinstance(result, tuple)
        res, self.output_tensors_index = self._apply_on(
            result if is_tuple else (result,), register)
        self.n_outputs = len(result) if is_tuple else 1
        return res if is_tuple else res[0]
