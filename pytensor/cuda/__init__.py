"""pytensor.cuda: the CUDA devices, as the core's device guard for "cuda" sees them.

Without the CUDA backend library, or without a driver and a GPU, no guard is registered for
"cuda": ``is_available()`` is False, ``device_count()`` is 0, and calls that need a device raise
RuntimeError. The legacy CUDA tensor classes (``pytensor.cuda.FloatTensor``, ...) are set on this
module when the tensor classes are built.
"""

from __future__ import annotations

from .. import _C, _device
from .._C import ffi, lib

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "manual_seed", "manual_seed_all", "default_generators"]


def device_count() -> int:
    """The number of CUDA devices (0 without the backend or a GPU).

    >>> pytensor.cuda.device_count() >= 0
    True
    """
    out = ffi.new("int32_t *")
    if lib.pt_device_count(lib.PT_DEV_CUDA, out):
        lib.pt_error_clear()
        return 0
    return out[0]


def is_available() -> bool:
    """Whether a CUDA device can be used.

    >>> isinstance(pytensor.cuda.is_available(), bool)
    True
    """
    return device_count() > 0


def _index(device, argname: str = "device") -> int:
    if device is None:
        return current_device()
    d = _device.device(device) if not isinstance(device, _device.device) else device
    if d.type != "cuda":
        raise ValueError(f"{argname}: expected a CUDA device, got {d}")
    return current_device() if d.index is None else d.index


def current_device() -> int:
    """The index of this thread's current CUDA device."""
    out = ffi.new("int32_t *")
    st = lib.pt_device_current(lib.PT_DEV_CUDA, out)
    if st:
        _C._raise(st)
    return out[0]


def set_device(device) -> None:
    """Makes ``device`` (an int, "cuda:N" or a device) this thread's current CUDA device."""
    st = lib.pt_device_set_current(lib.PT_DEV_CUDA, _index(device))
    if st:
        _C._raise(st)


def synchronize(device=None) -> None:
    """Waits for all work queued on ``device`` (default: the current one) to finish."""
    st = lib.pt_device_synchronize(lib.PT_DEV_CUDA, _index(device))
    if st:
        _C._raise(st)


def _generators() -> tuple:
    from .._generator import _default
    return tuple(_default(f"cuda:{i}") for i in range(device_count()))


class _DefaultGenerators:
    """The default generator of each CUDA device, created when first asked for."""

    __slots__ = ("_gens",)

    def __init__(self):
        self._gens = None

    def _get(self) -> tuple:
        if self._gens is None:
            self._gens = _generators()
        return self._gens

    def __getitem__(self, i):
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self):
        return iter(self._get())

    def __repr__(self) -> str:
        return repr(self._get())


default_generators = _DefaultGenerators()


def manual_seed(seed: int) -> None:
    """Seeds the current CUDA device's default generator (does nothing without CUDA)."""
    if is_available():
        default_generators[current_device()].manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds the default generator of every CUDA device (does nothing without CUDA)."""
    for g in default_generators:
        g.manual_seed(seed)
