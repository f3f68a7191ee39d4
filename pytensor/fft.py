"""``pytensor.fft``: torch.fft's discrete Fourier transforms.

Every function here is an operator declared in csrc/ops/fft.yaml as ``fft_<name>`` (torch's
aten names: ``pytensor.fft.rfft`` is ``aten::fft_rfft``), made on first use with torch's
signature, defaults and messages. The transforms run on pytensor's own C plans (mixed radix 2, 3,
4, 5 and generic primes, Bluestein for large prime factors, real transforms through half-length
complex ones: csrc/kernels/fft*.c); autograd records torch's nodes (FftC2CBackward0,
FftR2CBackward0, FftC2RBackward0).

>>> import pytensor
>>> x = pytensor.tensor([1., 2., 3., 4.])
>>> pytensor.fft.fft(x)
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
>>> pytensor.fft.irfft(pytensor.fft.rfft(x), n=4)
tensor([1., 2., 3., 4.])
"""

from __future__ import annotations

from . import _opsgen

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NAMES = frozenset(__all__)


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    fn = _opsgen.make_binding("aten::fft_" + name, 1)
    globals()[name] = fn
    return fn


def __dir__() -> list:
    return sorted(set(globals()) | _NAMES)
