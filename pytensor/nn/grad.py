"""``pytensor.nn.grad`` (also ``pytensor.nn.functional.grad``): the gradients of a convolution with
respect to its input or its weight, as torch.nn.grad.

Each is one call of the ``convolution_backward`` operator with one output asked for; the operand
that is not read (the input for ``conv*d_input``, the weight for ``conv*d_weight``) is given by its
size alone, as a broadcast view of one element.

>>> import pytensor
>>> from pytensor.nn import grad
>>> grad.conv1d_input((1, 1, 3), pytensor.ones(1, 1, 2), pytensor.ones(1, 1, 2)).tolist()
[[[1.0, 2.0, 1.0]]]
"""

from __future__ import annotations

from typing import Sequence

import pytensor as _pt

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _expand(v, n: int) -> list:
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)] * n


def _stand_in(like, size):
    """A tensor of `size` whose values are never read: one element broadcast."""
    return like.new_empty(1).expand(list(size))


def _grad(which: int, grad_output, input, weight, n: int, stride, padding, dilation, groups):
    mask = [which == 0, which == 1, False]
    return _pt.convolution_backward(grad_output, input, weight, None, _expand(stride, n),
                                    _expand(padding, n), _expand(dilation, n), False, [0] * n,
                                    int(groups), mask)[which]


def conv1d_input(input_size: Sequence[int], weight, grad_output, stride: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1):
    """The gradient of conv1d with respect to an input of ``input_size`` (N, C_in, L)."""
    return _grad(0, grad_output, _stand_in(grad_output, input_size), weight, 1, stride, padding,
                 dilation, groups)


def conv1d_weight(input, weight_size: Sequence[int], grad_output, stride: int | Sequence[int] = 1,
                  padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                  groups: int = 1):
    """The gradient of conv1d with respect to a weight of ``weight_size`` (C_out, C_in/groups,
    k)."""
    return _grad(1, grad_output, input, _stand_in(grad_output, weight_size), 1, stride, padding,
                 dilation, groups)


def conv2d_input(input_size: Sequence[int], weight, grad_output, stride: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1):
    """The gradient of conv2d with respect to an input of ``input_size`` (N, C_in, H, W)."""
    return _grad(0, grad_output, _stand_in(grad_output, input_size), weight, 2, stride, padding,
                 dilation, groups)


def conv2d_weight(input, weight_size: Sequence[int], grad_output, stride: int | Sequence[int] = 1,
                  padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                  groups: int = 1):
    """The gradient of conv2d with respect to a weight of ``weight_size`` (C_out, C_in/groups,
    kh, kw)."""
    return _grad(1, grad_output, input, _stand_in(grad_output, weight_size), 2, stride, padding,
                 dilation, groups)


def conv3d_input(input_size: Sequence[int], weight, grad_output, stride: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1):
    """The gradient of conv3d with respect to an input of ``input_size`` (N, C_in, D, H, W)."""
    return _grad(0, grad_output, _stand_in(grad_output, input_size), weight, 3, stride, padding,
                 dilation, groups)


def conv3d_weight(input, weight_size: Sequence[int], grad_output, stride: int | Sequence[int] = 1,
                  padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                  groups: int = 1):
    """The gradient of conv3d with respect to a weight of ``weight_size`` (C_out, C_in/groups,
    kd, kh, kw)."""
    return _grad(1, grad_output, input, _stand_in(grad_output, weight_size), 3, stride, padding,
                 dilation, groups)
