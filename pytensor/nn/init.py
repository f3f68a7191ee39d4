"""Parameter initialization (``torch.nn.init``): each function fills its tensor in place under
no_grad, drawing from ``generator`` (default: pytensor's default generator), and returns it.

Fan-based schemes read ``fan_in = size(1) * receptive field`` and ``fan_out = size(0) *
receptive field`` (the receptive field is the product of the dims after the second), as torch.
``orthogonal_`` orthonormalizes a Gaussian matrix by Gram-Schmidt, applied twice per column
(which keeps the columns orthogonal to rounding error, Giraud et al. 2005); the Q it gives is
the unique one whose R has a positive diagonal, which is what torch's sign correction of its
Householder QR produces.

>>> import pytensor
>>> w = pytensor.empty(3, 5)
>>> _ = xavier_uniform_(w)
>>> bool((w.abs() <= (6 / 8) ** 0.5).all())
True
"""

from __future__ import annotations

import math
import warnings

from .. import _factory
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity`` (``leaky_relu`` takes its negative slope as
    ``param``, default 0.01)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param,
                                                                                  float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4  # torch's empirical value (pytorch/pytorch#50664)
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fills ``tensor`` from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fills ``tensor`` from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None):
    """Fills ``tensor`` from N(mean, std**2) truncated to [a, b], by rejection: from the
    normal itself when it puts more than 0.3 of its mass in [a, b], else from U(a, b) accepted
    with the normal's density relative to its peak on [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        if tensor.numel() == 0:
            return tensor
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            tensor.normal_(mean, std, generator=generator)
            redo = (tensor < a) | (tensor > b)
            while bool(redo.any()):
                fresh = _factory.empty_like(tensor).normal_(mean, std, generator=generator)
                tensor.copy_(tensor.where(~redo, fresh))
                redo = (tensor < a) | (tensor > b)
            return tensor
        peak = max(a, min(mean, b))
        log_peak = -0.5 * ((peak - mean) / std) ** 2

        def rejected(x):
            log_density = ((x - mean) / std).pow(2).mul(-0.5).sub(log_peak)
            u = _factory.empty_like(x).uniform_(generator=generator)
            return u.log().gt(log_density)

        tensor.uniform_(a, b, generator=generator)
        redo = rejected(tensor)
        while bool(redo.any()):
            fresh = _factory.empty_like(tensor).uniform_(a, b, generator=generator)
            tensor.copy_(tensor.where(~redo, fresh))
            redo = redo & rejected(tensor)
        return tensor


def constant_(tensor, val: float):
    """Fills ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills ``tensor`` with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills the 2-D ``tensor`` with the identity matrix."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_factory.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups: int = 1):
    """Fills the {3, 4, 5}-D ``tensor`` with the Dirac delta: a convolution with it keeps as
    many input channels as it can, per group."""
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    n = min(per_group, sizes[1])
    with no_grad():
        tensor.zero_()
        if n == 0 or tensor.numel() == 0:
            return tensor
        d = _factory.arange(n)
        rows = (_factory.arange(groups).unsqueeze(1) * per_group + d).reshape(-1)
        cols = d.repeat(groups)
        centre = tuple(s // 2 for s in sizes[2:])
        tensor[(rows, cols) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor) -> tuple:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Fills ``tensor`` from U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Fills ``tensor`` from N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """Fills ``tensor`` from U(-bound, bound), ``bound = gain * sqrt(3 / fan)`` (He et al.)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """Fills ``tensor`` from N(0, std**2), ``std = gain / sqrt(fan)`` (He et al.)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def _orthonormal_columns(m):
    """Q of the QR of the (rows >= cols) matrix ``m`` with R's diagonal positive."""
    q = m.clone()
    for j in range(q.size(1)):
        v = q[:, j]
        if j:
            basis = q[:, :j]
            for _ in range(2):
                v = v - basis.mv(basis.t().mv(v))
        q[:, j] = v / v.norm()
    return q


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fills ``tensor`` (2-D or more, viewed as ``size(0) x rest``) with a (semi-)orthogonal
    matrix times ``gain``, uniform over such matrices (Saxe et al. 2013)."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            q = _orthonormal_columns(flat.t()).t()
        else:
            q = _orthonormal_columns(flat)
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fills the 2-D ``tensor`` from N(0, std**2) and zeroes ``ceil(sparsity * rows)`` random
    entries of every column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros and cols:
            # one random permutation of the rows per column, by argsort of uniform keys
            keys = _factory.empty((rows, cols)).uniform_(generator=generator)
            zero_rows = keys.argsort(dim=0)[:num_zeros]
            tensor.scatter_(0, zero_rows, 0.0)
    return tensor


def _deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use ``{new_name}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
