"""Thunk cases of the factories (csrc/ops/native_functions.yaml) for tests/py/test_fast_paths.py:
ident -> (argument maker, mode), as its CASES."""
import pytensor

CASES = {
    "zeros": (lambda: ((2, 3),), ""),
    "ones": (lambda: ([4],), ""),
    "empty_memory_format": (lambda: ((2, 3),), "uninitialized"),
    "empty_strided": (lambda: ((2, 3), (1, 2)), "uninitialized"),
    "full": (lambda: ((2, 3), 1.5), ""),
    "full_like": (lambda: (pytensor.zeros(2, 3, dtype=pytensor.int32), 7), ""),
    "arange": (lambda: (5,), ""),
    "arange_start": (lambda: (-2, 3.5), ""),
    "arange_start_step": (lambda: (1, 10), ""),
    "linspace": (lambda: (0, 1, 5), ""),
    "to_dtype": (lambda: (pytensor.arange(6.0), pytensor.int16), ""),
}
