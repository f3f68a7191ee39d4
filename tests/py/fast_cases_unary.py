"""Thunk cases of the unary family (tests/py/test_fast_paths.py reads CASES): the functions of one
tensor, their in-place forms, clamp, relu, silu, where and softmax."""
import pytensor


def _t(*shape, dtype=pytensor.float32, shift=0.0):
    n = int(pytensor.Size(shape).numel())
    ramp = (pytensor.arange(n, dtype=pytensor.float64) - (n / 2 - shift)) * (1 / n)
    return ramp.to(dtype).reshape(shape)


_ONE_TENSOR = """abs neg reciprocal frac sign sgn acos asin atan ceil floor round trunc cos cosh sin
sinh tan tanh erf erfc exp exp2 expm1 log log10 log1p log2 rsqrt sqrt sigmoid logical_not relu silu
nan_to_num""".split()

CASES = {}
for _name in _ONE_TENSOR:
    CASES[_name] = (lambda: (_t(2, 3, shift=3.5),), "")
    CASES[_name + "_"] = (lambda: (_t(2, 3, shift=3.5),), "inplace")
for _name in ("isnan", "isinf", "isfinite"):
    CASES[_name] = (lambda: (pytensor.tensor([[1.0, float("inf"), -float("inf")]] * 2),), "")
CASES.update({
    # clamp's thunk serves clamp(x), which torch refuses: both paths must raise the same error.
    "clamp": (lambda: (_t(2, 3),), "raises"),
    "clamp_": (lambda: (_t(2, 3),), "raises inplace"),
    "clamp_Tensor": (lambda: (_t(2, 3),), "raises"),
    "clamp__Tensor": (lambda: (_t(2, 3),), "raises inplace"),
    "clamp_min_Tensor": (lambda: (_t(2, 3), _t(3, shift=1.0)), ""),
    "clamp_min__Tensor": (lambda: (_t(2, 3), _t(3, shift=1.0)), "inplace"),
    "clamp_max_Tensor": (lambda: (_t(2, 3), _t(2, 1)), ""),
    "clamp_max__Tensor": (lambda: (_t(2, 3), _t(2, 1)), "inplace"),
    "where_self": (lambda: (pytensor.tensor([[True, False, True]] * 2), _t(2, 3),
                            _t(3, dtype=pytensor.float64)), ""),
    "_softmax": (lambda: (_t(2, 5), 1, False), ""),
    "_log_softmax": (lambda: (_t(2, 5), 0, False), ""),
    "softmax_int": (lambda: (_t(3, 4), -1), ""),
    "log_softmax_int": (lambda: (_t(3, 4), 0), ""),
})

# The Scalar forms of clamp_min/clamp_max/threshold/where.
CASES.update({
    "clamp_min": (lambda: (_t(2, 3), 0), ""),
    "clamp_min_": (lambda: (_t(2, 3), -0.1), "inplace"),
    "clamp_max": (lambda: (_t(2, 3), 0.1), ""),
    "clamp_max_": (lambda: (_t(2, 3), 0), "inplace"),
    "threshold": (lambda: (_t(2, 3), 0.0, -5), ""),
    "threshold_": (lambda: (_t(2, 3), 0.1, 7.5), "inplace"),
    "where_Scalar": (lambda: (pytensor.tensor([True, False, True]), 1.5, 0), ""),
    "where_ScalarSelf": (lambda: (pytensor.tensor([True, False, True]), 2, _t(3)), ""),
    "where_ScalarOther": (lambda: (pytensor.tensor([True, False, True]), _t(2, 3), -1.0), ""),
})
