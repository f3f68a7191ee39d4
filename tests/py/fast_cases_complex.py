"""Thunk cases of the complex family (tests/py/test_fast_paths.py reads CASES): conjugation, the
views between complex and real dtypes, angle, polar and complex, and
absolute (abs, which gives complex tensors their real dtype)."""
import pytensor


def _z(*shape, dtype=pytensor.complex64):
    n = int(pytensor.Size(shape).numel())
    re = pytensor.arange(n, dtype=pytensor.float64) - n / 2
    return pytensor.complex(re, re * 0.5 + 1).to(dtype).reshape(shape)


def _r(*shape):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=pytensor.float32).reshape(shape)


CASES = {
    "conj": (lambda: (_z(2, 3),), ""),
    "_conj": (lambda: (_z(2, 3),), ""),
    "resolve_conj": (lambda: (_z(2, 3).conj(),), ""),
    "_neg_view": (lambda: (_r(2, 3),), ""),
    "resolve_neg": (lambda: (_r(2, 3)._neg_view(),), ""),
    "conj_physical": (lambda: (_z(2, 3).t(),), ""),
    "_conj_physical": (lambda: (_z(3, dtype=pytensor.complex128),), ""),
    "conj_physical_": (lambda: (_z(2, 3),), "inplace"),
    "real": (lambda: (_z(2, 3),), ""),
    "imag": (lambda: (_z(2, 3).t(),), ""),
    "view_as_real": (lambda: (_z(2, 3),), ""),
    "view_as_complex": (lambda: (_r(3, 2),), ""),
    "angle": (lambda: (_z(2, 3),), ""),
    "polar": (lambda: (_r(2, 3), _r(3)), ""),
    "complex": (lambda: (_r(2, 1), _r(3)), ""),
    "absolute": (lambda: (_z(2, 3),), ""),
    "absolute_": (lambda: (_r(2, 3) - 3,), "inplace"),
}
