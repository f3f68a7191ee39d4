"""Cases for the C fast paths of the matrix products (tests/py/test_fast_paths.py runs them):
ident -> (argument maker, mode), as CASES there."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


CASES = {
    "mm": (lambda: (_t(2, 3), _t(3, 4)), ""),
    "bmm": (lambda: (_t(2, 2, 3), _t(2, 3, 2)), ""),
    "addmm": (lambda: (_t(4), _t(2, 3), _t(3, 4)), ""),
    "addmm_": (lambda: (_t(2, 4), _t(2, 3), _t(3, 4)), "inplace"),
    "baddbmm": (lambda: (_t(2, 1, 2), _t(2, 2, 3), _t(2, 3, 2)), ""),
    "baddbmm_": (lambda: (_t(2, 2, 2), _t(2, 2, 3), _t(2, 3, 2)), "inplace"),
    "addmv": (lambda: (_t(2), _t(2, 3), _t(3)), ""),
    "addmv_": (lambda: (_t(2, dtype=pytensor.int64), _t(2, 3, dtype=pytensor.int64),
                        _t(3, dtype=pytensor.int64)), "inplace"),
    "mv": (lambda: (_t(2, 3).t(), _t(2)), ""),
    "dot": (lambda: (_t(4, dtype=pytensor.float64), _t(4, dtype=pytensor.float64)), ""),
    "vdot": (lambda: (_t(3).to(pytensor.complex64) * (1 + 2j), _t(3).to(pytensor.complex64)), ""),
    "matmul": (lambda: (_t(2, 2, 3), _t(3)), ""),
    "outer": (lambda: (_t(3), _t(2, dtype=pytensor.int32)), ""),
    "ger": (lambda: (_t(2), _t(3)), ""),
}
