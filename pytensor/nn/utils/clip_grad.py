"""Gradient clipping (torch's nn/utils/clip_grad.py): ``get_total_norm`` (the p-norm of many
tensors taken as one vector), ``clip_grads_with_norm_`` (scale by ``max_norm / (total +
1e-6)`` when that is below 1), ``clip_grad_norm_`` (both), ``clip_grad_value_`` (clamp).

``foreach`` is accepted as torch's; the per-tensor norms are one C reduction each either way.

>>> import pytensor
>>> p = pytensor.nn.Parameter(pytensor.ones(4))
>>> p.grad = pytensor.full((4,), 3.0)
>>> float(clip_grad_norm_([p], 1.0))
6.0
"""

from __future__ import annotations

import types
import warnings

from ... import _factory
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _pt():
    import pytensor
    return pytensor


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` seen as one vector (0-dim tensor; 0.0 for
    none)."""
    from ... import linalg

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _factory.tensor(0.0)
    with no_grad():
        first_device = tensors[0].device
        norms = [linalg.vector_norm(t, norm_type).to(first_device) for t in tensors]
        total = linalg.vector_norm(_pt().stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach=None) -> None:
    """Scales the gradients of ``parameters`` in place by ``min(max_norm / (total_norm +
    1e-6), 1)``."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Clips the gradients of ``parameters`` to total norm ``max_norm``; returns the total
    norm they had."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated name of ``clip_grad_norm_``."""
    warnings.warn("`pytensor.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`pytensor.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamps the gradients of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
