"""pytensor.nn.functional: embedding_bag, bilinear and pdist.

embedding_bag checks what torch.nn.functional checks in Python (the input's rank, the offsets,
the mode and its options), renorms the rows it will read when ``max_norm`` is given
(``embedding_renorm_``, in place, as torch) and calls ``pytensor.embedding_bag`` (which picks
``_embedding_bag`` or ``_embedding_bag_forward_only``); bilinear and pdist are the operators
themselves, as in torch. The arithmetic, forward and backward, is in the operators' C kernels
(csrc/kernels/nn/embedding_bag.c, trilinear.c; csrc/kernels/distance.c).

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> w = pytensor.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> F.embedding_bag(pytensor.tensor([0, 1, 2]), w, pytensor.tensor([0, 2])).tolist()
[[2.0, 3.0], [5.0, 6.0]]
"""

from __future__ import annotations

from typing import Optional

import pytensor

__all__ = ["embedding_bag", "bilinear", "pdist"]

Tensor = pytensor.Tensor

_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None,
                  max_norm: Optional[float] = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None,
                  include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """Sums, means or maxima of bags of rows of ``weight``: a 2-D ``input`` holds one bag per row;
    a 1-D ``input`` is cut into bags at ``offsets``.

    >>> w = pytensor.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> embedding_bag(pytensor.tensor([[0, 1]]), w, mode="sum").tolist()
    [[4.0, 6.0]]
    """
    if weight.dtype == pytensor.long and input.is_floating_point():
        import warnings
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. "
                      "Usage `embedding_bag(weight, input, ...)` is deprecated, "
                      "and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences. However, found offsets of "
                             f"type {type(offsets)}")
        offsets = pytensor.arange(0, input.numel(), input.size(1), dtype=input.dtype,
                                  device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse=True makes a sparse gradient, and "
                                  "pytensor has no sparse layout; use sparse=False")
    if max_norm is not None:
        pytensor.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
            f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    ret, _, _, _ = pytensor.embedding_bag(weight, input, offsets, scale_grad_by_freq,
                                          _MODES[mode], sparse, per_sample_weights,
                                          include_last_offset, padding_idx)
    return ret


bilinear = pytensor.bilinear
pdist = pytensor.pdist
