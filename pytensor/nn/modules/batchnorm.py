"""Batch normalization: ``BatchNorm1d/2d/3d`` and ``LazyBatchNorm1d/2d/3d``, with torch's
parameters (``weight``, ``bias``) and buffers (``running_mean``, ``running_var``,
``num_batches_tracked``).

In training mode a layer normalizes with the batch's statistics and folds them into the running
ones (``F.batch_norm`` updates the buffers in place); ``momentum=None`` makes that fold a
cumulative average, ``1 / num_batches_tracked``. In eval mode it normalizes with the running
statistics, unless it keeps none (``track_running_stats=False``), when it uses the batch's.

>>> import pytensor
>>> bn = pytensor.nn.BatchNorm1d(2)
>>> _ = bn(pytensor.tensor([[1.0, 2.0], [3.0, 6.0]]))
>>> bn.running_mean.tolist(), int(bn.num_batches_tracked)
([0.20000000298023224, 0.4000000059604645], 1)
"""

from __future__ import annotations

from ... import _factory
import pytensor as _pt
from .. import functional as F, init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d"]


def _zero_count(device=None):
    return _factory.tensor(0, dtype=_pt.int64, device=device)


class _NormBase(Module):
    """Parameters, running statistics and their reset, shared by batch and instance norm."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_factory.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_factory.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean",
                                 _factory.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var",
                                 _factory.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _zero_count(device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # checkpoints from before version 2 have no num_batches_tracked: keep the current count
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked
                                   if self.num_batches_tracked is not None
                                   else _zero_count())
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            use_batch_stats = True
        else:
            use_batch_stats = self.running_mean is None and self.running_var is None
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A norm layer whose ``num_features`` comes from the first input's ``size(1)``."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _zero_count(device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            if self.bias is not None:
                self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


def _dims_check(allowed: tuple):
    words = " or ".join(f"{d}D" for d in allowed)

    def check(self, input) -> None:
        if input.dim() not in allowed:
            raise ValueError(f"expected {words} input (got {input.dim()}D input)")
    return check


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a 2D or 3D input, (N, C) or (N, C, L), per channel C."""
    _check_input_dim = _dims_check((2, 3))


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a 4D input (N, C, H, W), per channel C."""
    _check_input_dim = _dims_check((4,))


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a 5D input (N, C, D, H, W), per channel C."""
    _check_input_dim = _dims_check((5,))


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose ``num_features`` is inferred from the first input's ``size(1)``."""
    cls_to_become = BatchNorm1d
    _check_input_dim = _dims_check((2, 3))


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose ``num_features`` is inferred from the first input's ``size(1)``."""
    cls_to_become = BatchNorm2d
    _check_input_dim = _dims_check((4,))


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose ``num_features`` is inferred from the first input's ``size(1)``."""
    cls_to_become = BatchNorm3d
    _check_input_dim = _dims_check((5,))
