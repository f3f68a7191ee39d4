"""pytensor.nn.functional: pad, interpolate (and the deprecated upsample, upsample_nearest,
upsample_bilinear), grid_sample, affine_grid, pixel_shuffle, pixel_unshuffle, channel_shuffle,
native_channel_shuffle; GRID_SAMPLE_INTERPOLATION_MODES and GRID_SAMPLE_PADDING_MODES, the enums
grid_sample passes to the grid_sampler operator.

As in torch, these functions only check their arguments and choose an operator; padding,
interpolation and sampling run in the operators' C kernels (csrc/kernels/nn/pad.c, upsample.c,
grid.c, shuffle.c).

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.pad(pytensor.tensor([[[1.0, 2.0]]]), (1, 1), mode="replicate").tolist()
[[[1.0, 1.0, 2.0, 2.0]]]
>>> F.interpolate(pytensor.tensor([[[1.0, 3.0]]]), scale_factor=2, mode="nearest").tolist()
[[[1.0, 1.0, 3.0, 3.0]]]
"""

from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence

from .._C import _nn

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "grid_sample", "affine_grid", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "native_channel_shuffle", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]

_GRID_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
    "grid_sample for details.")


def _top():
    import pytensor
    return pytensor


def pad(input, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None):
    """Pads the last ``len(pad) // 2`` dims: ``pad`` lists (left, right) amounts from the last dim
    backwards. Modes: ``'constant'`` (``value``, default 0; negative amounts crop), ``'reflect'``,
    ``'replicate'``, ``'circular'`` (1 to 3 padded dims after 1 or 2 leading ones).

    >>> import pytensor
    >>> pad(pytensor.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    return _nn.pad(input, pad, mode, value)


def _is_integer(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) or (
        hasattr(x, "__index__") and not isinstance(x, float))


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None, antialias: bool = False):
    """Resamples ``input`` (N, C, d1[, d2[, d3]]) to ``size`` or by ``scale_factor``, with torch's
    modes: ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D), ``'bilinear'``, ``'bicubic'``
    (4-D), ``'trilinear'`` (5-D) and ``'area'`` (adaptive average pooling); ``antialias`` for
    bilinear and bicubic downsampling.

    >>> import pytensor
    >>> interpolate(pytensor.tensor([[[0.0, 1.0]]]), size=3, mode="linear",
    ...             align_corners=True).tolist()
    [[[0.0, 0.5, 1.0]]]
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor) for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # the sizes the scale factors give (floor, as torch); the kernels then use sizes only
        output_size = [math.floor(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")

    nd = input.dim()
    if mode in ("nearest", "nearest-exact") and nd in (3, 4, 5):
        prefix = "upsample_nearest" if mode == "nearest" else "_upsample_nearest_exact"
        return getattr(_nn, f"{prefix}{nd - 2}d")(input, output_size, scale_factors)
    if mode == "area" and nd in (3, 4, 5):
        import pytensor.nn.functional as F
        fn = getattr(F, f"adaptive_avg_pool{nd - 2}d", None)
        if fn is None:
            raise NotImplementedError(f"interpolate(mode='area') needs "
                                      f"adaptive_avg_pool{nd - 2}d, which this build lacks")
        return fn(input, output_size)
    if mode == "linear" and nd == 3:
        return _nn.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if mode == "bilinear" and nd == 4:
        op = _nn._upsample_bilinear2d_aa if antialias else _nn.upsample_bilinear2d
        return op(input, output_size, align_corners, scale_factors)
    if mode == "trilinear" and nd == 5:
        return _nn.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if mode == "bicubic" and nd == 4:
        op = _nn._upsample_bicubic2d_aa if antialias else _nn.upsample_bicubic2d
        return op(input, output_size, align_corners, scale_factors)

    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in needs and nd in (3, 4, 5):
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {needs[mode]}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
        f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
        f"(got {mode})")


def upsample(input, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: Optional[bool] = None):
    """Deprecated alias of :func:`interpolate` (warns, as torch does).

    >>> import pytensor, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     upsample(pytensor.tensor([[[1.0]]]), size=2).tolist()
    [[[1.0, 1.0]]]
    """
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``.

    >>> import pytensor, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     upsample_nearest(pytensor.tensor([[[1.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0]]]
    """
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)``.

    >>> import pytensor, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     upsample_bilinear(pytensor.tensor([[[[0.0, 1.0]]]]), size=(1, 3)).tolist()
    [[[[0.0, 0.5, 1.0]]]]
    """
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_MODES = GRID_SAMPLE_INTERPOLATION_MODES
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
_GRID_PADDING = GRID_SAMPLE_PADDING_MODES


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None):
    """Samples ``input`` (N, C, H, W) at the normalized coordinates of ``grid`` (N, H', W', 2),
    x then y in [-1, 1]; modes bilinear, nearest, bicubic; padding zeros, border, reflection.

    >>> import pytensor
    >>> x = pytensor.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> grid_sample(x, pytensor.tensor([[[[0.0, 0.0]]]]), align_corners=True).tolist()
    [[[[2.5]]]]
    """
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in _GRID_PADDING:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_GRID_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _top().grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode],
                               align_corners)


def affine_grid(theta, size: Sequence[int], align_corners: Optional[bool] = None):
    """The sampling grid (N, H, W, 2) of the affine maps ``theta`` (N, 2, 3) for an output of
    ``size`` (N, C, H, W), for :func:`grid_sample`.

    >>> import pytensor
    >>> theta = pytensor.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, :, :, 0].tolist()
    [[-1.0, 1.0], [-1.0, 1.0]]
    """
    if align_corners is None:
        warnings.warn(_GRID_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an issue for standard 3D use cases.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _top().affine_grid_generator(theta, size, align_corners)


def pixel_shuffle(input, upscale_factor: int):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r).

    >>> import pytensor
    >>> pixel_shuffle(pytensor.arange(4.0).reshape(1, 4, 1, 1), 2).reshape(-1).tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    return _top().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor: int):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W), the inverse of :func:`pixel_shuffle`.

    >>> import pytensor
    >>> pixel_unshuffle(pytensor.arange(4.0).reshape(1, 1, 2, 2), 2).reshape(-1).tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    return _top().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups: int):
    """Splits the channels (dim 1) into ``groups`` groups and interleaves them.

    >>> import pytensor
    >>> channel_shuffle(pytensor.arange(4.0).reshape(1, 4, 1), 2).reshape(-1).tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    return _top().channel_shuffle(input, groups)


def native_channel_shuffle(input, groups: int):
    """The ``native_channel_shuffle`` operator: :func:`channel_shuffle`'s rearrangement of the
    channels (dim 1) into ``groups`` interleaved groups, as one view-and-copy.

    >>> import pytensor
    >>> native_channel_shuffle(pytensor.arange(4.0).reshape(1, 4, 1), 2).reshape(-1).tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    return _top().native_channel_shuffle(input, groups)
