"""pytensor.nn.functional: pooling (max, average, adaptive, fractional, power-average, max
unpooling).

Each function picks its operator as torch.nn.functional does: the 1-d, max-without-indices and
adaptive average forms are composite operators (pytensor.max_pool1d, pytensor.max_pool2d,
pytensor._C._nn.adaptive_avg_pool2d, ...), the rest operators of pytensor._C._nn with C forward
and backward kernels (csrc/kernels/nn/pool*.c). ``stride=None`` means the kernel size. The
power-average pools are torch's composition of pow, avg_pool and the sign-safe root; max
unpooling computes its default output size from the pooling arguments, as torch does. Fractional
max pooling draws its per-plane samples with pytensor.rand (the default generator) unless
``_random_samples`` is given, and takes its output size from ``output_ratio`` when no
``output_size`` is given, as torch does.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.max_pool2d(pytensor.arange(16.0).reshape(1, 1, 4, 4), 2).tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

from typing import Optional

import pytensor

from .._C import _nn

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d",
    "lp_pool3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices",
    "max_pool3d", "max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
]


def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _stride(stride) -> list:
    return [] if stride is None else stride


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


# ---------------------------------------------------------------- max pooling
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over the last dim of a (N, C, L) or (C, L) tensor, with the flat indices of the
    maxima. >>> F.max_pool1d_with_indices(pytensor.tensor([[1., 3., 2., 0.]]), 2)[1].tolist()
    [[1, 2]]"""
    return pytensor.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                            ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Max pooling over the last dim; (values, indices) when return_indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return pytensor.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """2-d max pooling of (N, C, H, W) or (C, H, W) with the flat (h * W + w) indices."""
    return _nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                       ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """2-d max pooling; (values, indices) when return_indices.

    >>> F.max_pool2d(pytensor.ones(1, 1, 4, 4), 2).shape
    pytensor.Size([1, 1, 2, 2])
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return pytensor.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """3-d max pooling of (N, C, D, H, W) or (C, D, H, W) with flat indices."""
    return _nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                       ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """3-d max pooling; (values, indices) when return_indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return pytensor.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


# ---------------------------------------------------------------- average pooling
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """Average pooling over the last dim of (N, C, L) or (C, L)."""
    return pytensor.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                               count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None):
    """2-d average pooling; divisor_override replaces the window size as divisor."""
    return _nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode,
                          count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None):
    """3-d average pooling."""
    return _nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode,
                          count_include_pad, divisor_override)


# ---------------------------------------------------------------- adaptive pooling
def adaptive_avg_pool1d(input, output_size):
    """Average pooling of the last dim to output_size windows."""
    return pytensor.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to an (oH, oW) output; None in output_size keeps that input size."""
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to an (oD, oH, oW) output; None keeps that input size."""
    return _nn.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices: bool = False):
    """Adaptive max pooling of the last dim, with indices."""
    return pytensor.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """Adaptive max pooling of the last dim; (values, indices) when return_indices."""
    if return_indices:
        return adaptive_max_pool1d_with_indices(input, output_size)
    return pytensor.adaptive_max_pool1d(input, output_size)[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices: bool = False):
    """Adaptive 2-d max pooling, with indices; None in output_size keeps that input size."""
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """Adaptive 2-d max pooling; (values, indices) when return_indices."""
    if return_indices:
        return adaptive_max_pool2d_with_indices(input, output_size)
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices: bool = False):
    """Adaptive 3-d max pooling, with indices; None in output_size keeps that input size."""
    return _nn.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """Adaptive 3-d max pooling; (values, indices) when return_indices.

    >>> F.adaptive_max_pool3d(pytensor.arange(8.0).reshape(1, 1, 2, 2, 2), 1).flatten().tolist()
    [7.0]
    """
    if return_indices:
        return adaptive_max_pool3d_with_indices(input, output_size)
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


# ---------------------------------------------------------------- fractional max pooling
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """Fractional 2-d max pooling of (N, C, H, W) or (C, H, W), with the flat indices."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = _ntuple(output_ratio, 2)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = pytensor.rand(n_batch, input.size(-3), 2, dtype=input.dtype,
                                        device=input.device)
    return _nn.fractional_max_pool2d(input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Fractional 2-d max pooling; (values, indices) when return_indices.

    >>> F.fractional_max_pool2d(pytensor.ones(1, 1, 5, 5), 2, output_size=3).shape
    pytensor.Size([1, 1, 3, 3])
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """Fractional 3-d max pooling of (N, C, T, H, W) or (C, T, H, W), with the flat indices."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        ratio = _ntuple(output_ratio, 3)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]),
                       int(input.size(-1) * ratio[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = pytensor.rand(n_batch, input.size(-4), 3, dtype=input.dtype,
                                        device=input.device)
    return _nn.fractional_max_pool3d(input, kernel_size, output_size, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Fractional 3-d max pooling; (values, indices) when return_indices."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


# ---------------------------------------------------------------- power-average pooling
def _lp_root(out, norm_type, window: int):
    return (pytensor.sign(out) * pytensor.relu(pytensor.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size: int, stride=None, ceil_mode: bool = False):
    """(sum over each window of x ** p) ** (1 / p) along the last dim."""
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_root(out, norm_type, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each 2-d window of x ** p) ** (1 / p)."""
    kw, kh = _ntuple(kernel_size, 2)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_root(out, norm_type, kw * kh)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each 3-d window of x ** p) ** (1 / p)."""
    kd, kw, kh = _ntuple(kernel_size, 3)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_root(out, norm_type, kd * kw * kh)


# ---------------------------------------------------------------- max unpooling
def _unpool_output_size(input, kernel_size, stride, padding, output_size) -> list:
    input_size = input.size()
    n = len(kernel_size)
    default_size = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
                    for d in range(n)]
    if output_size is None:
        return default_size
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        min_size, max_size = default_size[d] - stride[d], default_size[d] + stride[d]
        if not min_size < output_size[d] < max_size:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{min_size} and {max_size})")
    return list(output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value back at its max_pool1d index in a zeroed (N, C, L_out)."""
    kernel_size = _ntuple(kernel_size, 1)
    stride = kernel_size if stride is None else _ntuple(stride, 1)
    padding = _ntuple(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size) + [1]
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value back at its max_pool2d index in a zeroed (N, C, H_out, W_out)."""
    kernel_size = _ntuple(kernel_size, 2)
    stride = kernel_size if stride is None else _ntuple(stride, 2)
    padding = _ntuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value back at its max_pool3d index in a zeroed (N, C, D_out, H_out, W_out)."""
    kernel_size = _ntuple(kernel_size, 3)
    stride = kernel_size if stride is None else _ntuple(stride, 3)
    padding = _ntuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn.max_unpool3d(input, indices, size, stride, padding)
