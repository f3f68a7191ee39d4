"""``pytensor.backends.onednn``: oneDNN (Debian's libdnnl), which runs float32 convolutions when the
build found it, as ``torch.backends.mkldnn``. The library is loaded on its first use, not at
import (Note [oneDNN loaded on first use] in csrc/kernels/nn/onednn.c).

``is_available()`` says whether the build has it and it loads (it loads it); ``enabled`` (default True) lets convolutions use
it: False sends every convolution to pytensor's own im2col + GEMM path. ``flags(enabled=...)``
sets it for a ``with`` block. ``conv_path(...)`` tells which path a convolution's pass takes
(the choice per shape: Note [convolution paths] in csrc/kernels/nn/conv.c).

>>> import pytensor
>>> from pytensor.backends import onednn
>>> with onednn.flags(enabled=False):
...     onednn.conv_path(pytensor.empty(1, 3, 8, 8), pytensor.empty(4, 3, 3, 3))
'gemm'
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
from typing import Iterator, Sequence

from .._C import _check, ffi, lib

__all__ = ["is_available", "enabled", "flags", "conv_path"]

_PATHS = {0: "none", 1: "gemm", 2: "onednn", 3: "depthwise"}
_PASSES = {"forward": 0, "backward_data": 1, "backward_weight": 2}


def is_available() -> bool:
    """Whether pytensor was built with oneDNN and the library loads (loading it now if no
    convolution has yet); the config key ``onednn_loaded`` of ``pytensor._C._init_report()`` then
    says what was loaded, or why it could not be."""
    return bool(lib.pt_onednn_is_available())


@contextlib.contextmanager
def flags(enabled: bool = False) -> Iterator[None]:
    """Sets ``enabled`` for the block and restores it after (torch.backends.mkldnn.flags)."""
    was = lib.pt_onednn_set_enabled(int(bool(enabled)))
    try:
        yield
    finally:
        lib.pt_onednn_set_enabled(was)


def _ints(v, n: int) -> list:
    v = [int(x) for x in v] if isinstance(v, (list, tuple)) else [int(v)]
    return v * n if len(v) == 1 else v


def conv_path(input, weight, stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
              dilation: int | Sequence[int] = 1, transposed: bool = False,
              output_padding: int | Sequence[int] = 0, groups: int = 1,
              pass_: str = "forward") -> str:
    """'onednn', 'gemm', 'depthwise' (the direct depthwise loops) or 'none' (no work): the path
    that ``pass_`` ('forward', 'backward_data', 'backward_weight') of ``convolution(input,
    weight, ...)`` takes. input must be batched; only its and weight's sizes and dtype are
    read."""
    dims = weight.dim() - 2
    if pass_ not in _PASSES:
        raise ValueError(f"conv_path: pass_ must be one of {sorted(_PASSES)}, got {pass_!r}")
    lists = [ffi.new("int64_t[]", _ints(v, dims))
             for v in (stride, padding, dilation, output_padding)]
    out = ffi.new("int32_t *")
    _check(lib.pt_conv_path_of(input._h, weight._h, dims, lists[0], lists[1], lists[2],
                               int(bool(transposed)), lists[3], int(groups), _PASSES[pass_], out))
    return _PATHS[out[0]]


class _Module(types.ModuleType):
    @property
    def enabled(self) -> bool:
        # the switch as set; where oneDNN cannot serve (not built, or it failed to load), the
        # value last set (PYTENSOR_ONEDNN=0 at start-up sets False), as torch.backends.mkldnn's
        return bool(lib.pt_onednn_enabled()) if is_available() else _wanted[0]

    @enabled.setter
    def enabled(self, value: bool) -> None:
        _wanted[0] = bool(value)
        lib.pt_onednn_set_enabled(int(bool(value)))


_wanted = [os.environ.get("PYTENSOR_ONEDNN", "") != "0"]
sys.modules[__name__].__class__ = _Module
