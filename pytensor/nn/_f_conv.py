"""pytensor.nn.functional: convolutions, conv_transpose, unfold and fold.

conv1d ... conv_transpose3d and conv_tbc are the operators themselves (``pytensor.conv2d`` is
``F.conv2d``, as in torch): compositions of ``convolution`` (csrc/kernels/nn/conv_composite.c),
whose kernels run on oneDNN or on im2col + GEMM (``pytensor.backends.onednn``). unfold and fold
are im2col and col2im (``pytensor._C._nn``) with their pairs expanded.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.conv2d(pytensor.ones(1, 1, 3, 3), pytensor.ones(1, 1, 2, 2)).tolist()
[[[[4.0, 4.0], [4.0, 4.0]]]]
"""

from __future__ import annotations

from typing import Sequence

from .. import _C
import pytensor as _pt

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "conv_tbc", "unfold", "fold"]

conv1d = _pt.conv1d
conv2d = _pt.conv2d
conv3d = _pt.conv3d
conv_transpose1d = _pt.conv_transpose1d
conv_transpose2d = _pt.conv_transpose2d
conv_transpose3d = _pt.conv_transpose3d
conv_tbc = _pt.conv_tbc


def _pair(v) -> list:
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v, v]


def unfold(input, kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
           padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1):
    """Extracts sliding local blocks from a batched (N, C, H, W) or unbatched (C, H, W) input:
    (N, C * kh * kw, L) (torch.nn.functional.unfold).

    >>> import pytensor, pytensor.nn.functional as F
    >>> F.unfold(pytensor.arange(4.0).reshape(1, 1, 2, 2), 1).shape
    pytensor.Size([1, 1, 4])
    """
    return _C._nn.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                         _pair(stride))


def fold(input, output_size: int | Sequence[int], kernel_size: int | Sequence[int],
         dilation: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
         stride: int | Sequence[int] = 1):
    """Combines sliding local blocks into a tensor, adding overlapping values: the inverse
    layout of unfold (torch.nn.functional.fold).

    >>> import pytensor, pytensor.nn.functional as F
    >>> F.fold(pytensor.ones(1, 4, 1), (2, 2), 2).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """
    return _C._nn.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                         _pair(padding), _pair(stride))
