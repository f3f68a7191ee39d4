"""Thunk cases of the fft family (tests/py/test_fast_paths.py reads CASES): the primitives
_fft_c2c, _fft_r2c, _fft_c2r, the torch.fft functions, the window factories, stft and istft, with sizes that take the mixed-radix
and Bluestein paths."""
import pytensor


def _r(*shape, dtype=pytensor.float32):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n, dtype=pytensor.float64).reshape(shape) % 7 - 3).to(dtype)


def _z(*shape, dtype=pytensor.complex64):
    re = _r(*shape, dtype=pytensor.float64)
    return pytensor.complex(re, re * 0.5 + 1).to(dtype)


CASES = {
    "_fft_r2c": (lambda: (_r(3, 10), [1], 0, True), ""),
    "_fft_c2r": (lambda: (_z(4, 6), [0, 1], 2, 10), ""),
    "_fft_c2c": (lambda: (_z(6, 5, dtype=pytensor.complex128), [0, 1], 1, False), ""),
    "fft_fft": (lambda: (_z(2, 12),), ""),
    "fft_ifft": (lambda: (_r(2, 67),), ""),
    "fft_rfft": (lambda: (_r(3, 9),), ""),
    "fft_irfft": (lambda: (_z(3, 5),), ""),
    "fft_hfft": (lambda: (_z(3, 6),), ""),
    "fft_ihfft": (lambda: (_r(2, 8, dtype=pytensor.float64),), ""),
    "fft_fftn": (lambda: (_z(3, 4, 5),), ""),
    "fft_ifftn": (lambda: (_r(3, 4),), ""),
    "fft_rfftn": (lambda: (_r(4, 6),), ""),
    "fft_irfftn": (lambda: (_z(4, 4),), ""),
    "fft_hfftn": (lambda: (_z(3, 4),), ""),
    "fft_ihfftn": (lambda: (_r(3, 5),), ""),
    "fft_fftfreq": (lambda: (7,), ""),
    "fft_rfftfreq": (lambda: (8,), ""),
    "fft_fftshift": (lambda: (_r(3, 4),), ""),
    "fft_ifftshift": (lambda: (_r(5),), ""),
    "hann_window": (lambda: (8,), ""),
    "hann_window_periodic": (lambda: (7, False), ""),
    "hamming_window": (lambda: (5,), ""),
    "hamming_window_periodic": (lambda: (6, True), ""),
    "hamming_window_periodic_alpha": (lambda: (6, False, 0.6), ""),
    "hamming_window_periodic_alpha_beta": (lambda: (6, True, 0.6, 0.3), ""),
    "blackman_window": (lambda: (9,), ""),
    "blackman_window_periodic": (lambda: (9, False), ""),
    "bartlett_window": (lambda: (4,), ""),
    "bartlett_window_periodic": (lambda: (5, False), ""),
    "kaiser_window": (lambda: (10,), ""),
    "kaiser_window_periodic": (lambda: (10, False), ""),
    "kaiser_window_beta": (lambda: (10, True, 4.5), ""),
    "stft": (lambda: (_z(40), 8), ""),
    "istft": (lambda: (_z(5, 11), 8), ""),
}
