"""pytensor.autograd: reverse-mode automatic differentiation, with torch.autograd's API.

The graph, the formulas (csrc/ops/derivatives.yaml) and the engine are C (csrc/autograd); this
package holds the entry points (backward, grad), grad modes, custom Functions, gradcheck and
autograd.functional.

>>> x = pytensor.tensor([1.0, 2.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])
"""
from __future__ import annotations

import warnings
from typing import Optional, Sequence, Union

from . import functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "detect_anomaly", "set_detect_anomaly",
           "gradcheck", "gradgradcheck",
           "functional", "graph"]


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _as_tuple(x, what: str):
    Tensor = _tensor_cls()
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    try:
        items = tuple(x)
    except TypeError:
        raise TypeError(f"{what}: expected a Tensor or a sequence of Tensors, but got "
                        f"{type(x).__name__}") from None
    return items


def _make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool = False) -> list:
    """torch's _make_grads: the gradient of each output, ones for scalars when none is given."""
    Tensor = _tensor_cls()
    from .. import _factory
    new = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, Tensor):
            if tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {out.shape}.")
            if out.dtype.is_complex != g.dtype.is_complex:
                raise RuntimeError(f"For complex Tensors, both grad_output and output are "
                                   f"required to have the same dtype. Mismatch in dtype: "
                                   f"grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                                   f"has a dtype of {out.dtype}.")
            new.append(g)
        elif g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                new.append(_factory.ones_like(out))
            else:
                new.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    return new


def _check_roots(outputs: tuple, grads: list) -> None:
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        if g is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, grad_variables=None, inputs=None) -> None:
    """Sums the gradients of `tensors` with respect to the graph leaves into their .grad.

    With `inputs`, only those tensors get gradients accumulated."""
    from .. import _autograd
    Tensor = _tensor_cls()
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both "
                               "passed to backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None and len(_as_tuple(inputs, "backward")) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outs = _as_tuple(tensors, "backward")
    for t in outs:
        if not isinstance(t, Tensor):
            raise TypeError(f"backward(): tensors must be Tensors, not {type(t).__name__}")
    if grad_tensors is None:
        gs = (None,) * len(outs)
    else:
        gs = _as_tuple(grad_tensors, "backward") if not isinstance(grad_tensors, Tensor) \
            else (grad_tensors,)
    if len(gs) != len(outs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs"
                           if not gs else f"got {len(gs)} gradients for {len(outs)} tensors")
    ins = _as_tuple(inputs, "backward") if inputs is not None else ()
    for t in ins:
        if not isinstance(t, Tensor):
            raise TypeError(f"backward(): inputs must be Tensors, not {type(t).__name__}")
    grads = _make_grads(outs, gs)
    _check_roots(outs, grads)
    for t in ins:
        if t.requires_grad and not t.is_leaf:
            t.retain_grad()  # as torch: the input's .grad is filled the way retain_grad fills it
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        # the graph of x.grad holds x (through its saved values) and x holds x.grad: a cycle of
        # C references, which the garbage collector cannot see
        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. We "
                      "recommend using autograd.grad when creating the graph to avoid this. If "
                      "you have to use this function, make sure to reset the .grad fields of "
                      "your parameters to None after use to break the cycle and avoid the "
                      "leak.", UserWarning, stacklevel=2)
    _autograd.run_backward(outs, grads, retain_graph, create_graph, ins, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, only_inputs: bool = True,
         allow_unused: Optional[bool] = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of `outputs` with respect to `inputs` (a tuple, one per input), without
    touching any .grad."""
    from .. import _autograd, _factory
    Tensor = _tensor_cls()
    if is_grads_batched:
        raise NotImplementedError("grad(): is_grads_batched=True is not supported")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs, "grad")
    ins = _as_tuple(inputs, "grad")
    for t in outs + ins:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): expected Tensors, but got {type(t).__name__}")
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    if grad_outputs is None:
        gs = (None,) * len(outs)
    else:
        gs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else _as_tuple(grad_outputs,
                                                                                 "grad")
    if len(gs) != len(outs):
        raise RuntimeError(f"grad_outputs has {len(gs)} elements but outputs has {len(outs)}")
    grads = _make_grads(outs, gs)
    _check_roots(outs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    result = _autograd.run_backward(outs, grads, retain_graph, create_graph, ins,
                                    accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        result = tuple(_factory.zeros_like(x) if g is None else g for g, x in zip(result, ins))
    return result


