"""pytensor.nn.functional: linear, the normalizations (batch_norm, instance_norm, layer_norm,
group_norm, rms_norm), embedding and one_hot.

Each function checks what torch.nn.functional checks in Python and calls the operator torch calls
(``pytensor._C._nn.linear``, ``pytensor.batch_norm``, ``pytensor.embedding``, ...); the arithmetic,
forward and backward, is in the operators' C kernels (csrc/kernels/nn/norm_*.c, embedding.c).

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> [round(v, 4) for v in F.layer_norm(pytensor.tensor([[1.0, 3.0]]), [2])[0].tolist()]
[-1.0, 1.0]
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Union

import pytensor

from .._C import _nn

__all__ = [
    "linear", "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "embedding",
    "one_hot",
]

Tensor = pytensor.Tensor

_CUDNN_ENABLED = True  # torch.backends.cudnn.enabled's default; no CPU kernel reads it


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """y = input @ weight.T + bias.

    >>> linear(pytensor.tensor([[1.0, 2.0]]), pytensor.tensor([[1.0, 1.0]])).tolist()
    [[3.0]]
    """
    return _nn.linear(input, weight, bias)


def _verify_batch_size(size) -> None:
    prod = size[0]
    for i in range(len(size) - 2):
        prod *= size[i + 2]
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _verify_spatial_size(size) -> None:
    prod = 1
    for i in range(2, len(size)):
        prod *= size[i]
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes each channel (dim 1) over the batch and the other dims; in training the running
    statistics (when given) are updated in place with ``momentum``.

    >>> y = batch_norm(pytensor.tensor([[1.0], [3.0]]), None, None, training=True)
    >>> [round(v, 4) for v in y.flatten().tolist()]
    [-1.0, 1.0]
    """
    if training:
        _verify_batch_size(input.size())
    return pytensor.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                               eps, _CUDNN_ENABLED)


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes each (sample, channel) over its other dims.

    >>> [round(v, 4) for v in instance_norm(pytensor.tensor([[[1.0, 3.0]]])).flatten().tolist()]
    [-1.0, 1.0]
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    return pytensor.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                                  momentum, eps, _CUDNN_ENABLED)


def layer_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    """Normalizes over the last ``len(normalized_shape)`` dims."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return pytensor.layer_norm(input, list(normalized_shape), weight, bias, eps, _CUDNN_ENABLED)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalizes each group of channels of each sample.

    >>> [round(v, 4) for v in group_norm(pytensor.tensor([[[1.0], [3.0]]]), 1).flatten().tolist()]
    [-1.0, 1.0]
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))
    return pytensor.group_norm(input, num_groups, weight, bias, eps, _CUDNN_ENABLED)


def rms_norm(input: Tensor, normalized_shape: Union[int, List[int]],
             weight: Optional[Tensor] = None, eps: Optional[float] = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the last ``len(normalized_shape)`` dims (eps None: the
    machine epsilon of the compute type).

    >>> [round(v, 4) for v in rms_norm(pytensor.tensor([[3.0, 4.0]]), [2], eps=0.0)[0].tolist()]
    [0.8485, 1.1314]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return pytensor.rms_norm(input, list(normalized_shape), weight, eps)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at the indices ``input``.

    >>> embedding(pytensor.tensor([1]), pytensor.tensor([[0.0, 1.0], [2.0, 3.0]])).tolist()
    [[2.0, 3.0]]
    """
    if sparse:
        raise NotImplementedError("embedding: sparse=True makes a sparse gradient, and pytensor "
                                  "has no sparse layout; use sparse=False")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with pytensor.no_grad():
            pytensor.embedding_renorm_(weight, input, max_norm, norm_type)
    return pytensor.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot vectors of the class indices in ``tensor``.

    >>> one_hot(pytensor.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    return _nn.one_hot(tensor, num_classes)
