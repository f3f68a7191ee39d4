"""``parameters_to_vector`` / ``vector_to_parameters`` (torch's
nn/utils/convert_parameters.py): all parameters as one flat vector and back.

>>> import pytensor
>>> ps = [pytensor.ones(2, 2), pytensor.zeros(3)]
>>> parameters_to_vector(ps).tolist()
[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

from ..._tensor import Tensor
from ..modules.module import typename


def _pt():
    import pytensor
    return pytensor


__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    device = param.device
    if old_param_device is None:
        return device
    if device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old_param_device


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and concatenated into one vector (in autograd's graph)."""
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return _pt().cat(vec)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Makes each parameter's data the next ``numel`` entries of ``vec`` (views, not
    copies)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected pytensor.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
