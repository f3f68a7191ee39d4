"""Thunk cases of the elementwise_more family (tests/py/test_fast_paths.py reads CASES): the
inverse hyperbolic functions, torch's aliases, square/positive, the angle conversions and
predicates, and hypot, copysign, nextafter, fmax, fmin, gcd, lcm, heaviside, logaddexp(2)."""
import pytensor


def _t(*shape, dtype=pytensor.float32, lo=-0.9, hi=0.9):
    n = int(pytensor.Size(shape).numel())
    ramp = pytensor.arange(n, dtype=pytensor.float64) * ((hi - lo) / max(n - 1, 1)) + lo
    return ramp.to(dtype).reshape(shape)


def _i(*shape, start=-3):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n, dtype=pytensor.int64) * 5 + start).reshape(shape)


CASES = {}
_ONE = {"acosh": (1.1, 4.0), "arccosh": (1.1, 4.0)}
for _name in """acosh asinh atanh arccos arcsin arctan arccosh arcsinh arctanh negative fix
square deg2rad rad2deg""".split():
    _lo, _hi = _ONE.get(_name, (-0.9, 0.9))
    CASES[_name] = (lambda lo=_lo, hi=_hi: (_t(2, 3, lo=lo, hi=hi),), "")
    CASES[_name + "_"] = (lambda lo=_lo, hi=_hi: (_t(2, 3, lo=lo, hi=hi),), "inplace")
CASES["positive"] = (lambda: (_t(2, 3),), "")
for _name in ("signbit", "isposinf", "isneginf"):
    CASES[_name] = (lambda: (pytensor.tensor([[1.0, float("inf"), -float("inf")], [-0.0, 0.0, -2.0]]),), "")
# clip(x) with neither bound is refused, as clamp's: both paths must raise alike.
CASES.update({
    "clip": (lambda: (_t(2, 3),), "raises"),
    "clip_": (lambda: (_t(2, 3),), "raises inplace"),
    "clip_Tensor": (lambda: (_t(2, 3),), "raises"),
    "clip__Tensor": (lambda: (_t(2, 3),), "raises inplace"),
})
_TWO_FLOAT = "hypot nextafter fmax fmin logaddexp logaddexp2 heaviside".split()
for _name in _TWO_FLOAT:
    CASES[_name] = (lambda: (_t(2, 3), _t(3, lo=0.0, hi=0.5)), "")
for _name in ("hypot_", "nextafter_", "heaviside_"):
    CASES[_name] = (lambda: (_t(2, 3), _t(3, lo=0.0, hi=0.5)), "inplace")
CASES.update({
    "copysign_Tensor": (lambda: (_i(2, 3), _t(3)), ""),
    "copysign__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "copysign_Scalar": (lambda: (_t(2, 3), -2), ""),
    "copysign__Scalar": (lambda: (_t(2, 3), -2.5), "inplace"),
    "gcd": (lambda: (_i(2, 3), _i(3, start=4)), ""),
    "gcd_": (lambda: (_i(2, 3), _i(3, start=4)), "inplace"),
    "lcm": (lambda: (_i(2, 3), _i(3, start=4)), ""),
    "lcm_": (lambda: (_i(2, 3), _i(3, start=4)), "inplace"),
    "subtract_Tensor": (lambda: (_t(2, 3), _t(3)), ""),
    "subtract__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "subtract_Scalar": (lambda: (_t(2, 3), 2), ""),
    "subtract__Scalar": (lambda: (_t(2, 3), 2.5), "inplace"),
    "multiply_Tensor": (lambda: (_i(2, 3), _t(3)), ""),
    "multiply__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "multiply_Scalar": (lambda: (_t(2, 3), 3), ""),
    "multiply__Scalar": (lambda: (_t(2, 3), 0.5), "inplace"),
})
for _name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
    CASES[_name + "_Tensor"] = (lambda: (_t(2, 3), _t(3, lo=0.0, hi=0.0)), "")
    CASES[_name + "__Tensor"] = (lambda: (_t(2, 3), _t(3, lo=0.0, hi=0.0)), "inplace")
    CASES[_name + "_Scalar"] = (lambda: (_t(2, 3), 0), "")
    CASES[_name + "__Scalar"] = (lambda: (_t(2, 3), 0.1), "inplace")
CASES.update({
    "ldexp_Tensor": (lambda: (_t(2, 3), _i(3)), ""),
    "ldexp_": (lambda: (_t(2, 3), _i(3)), "inplace"),
    "float_power_Tensor_Tensor": (lambda: (_t(2, 3, lo=0.1, hi=2.0), _t(3)), ""),
    "float_power_Tensor_Scalar": (lambda: (_i(2, 3), 2), ""),
    "float_power_Scalar": (lambda: (2.5, _t(2, 3)), ""),
    "float_power__Scalar": (lambda: (_t(2, 3, dtype=pytensor.float64, lo=0.1), 0.5), "inplace"),
    "float_power__Tensor": (lambda: (_t(2, 3, dtype=pytensor.float64, lo=0.1), _t(3)),
                            "inplace"),
    "isreal": (lambda: (pytensor.tensor([[1 + 0j, 1j, -2.0]] * 2),), ""),
    "addcmul": (lambda: (_t(2, 3), _t(3), _t(2, 1)), ""),
    "addcmul_": (lambda: (_t(2, 3), _t(3), _t(2, 1)), "inplace"),
    "addcdiv": (lambda: (_t(2, 3), _t(3), _t(2, 1, lo=1.0, hi=2.0)), ""),
    "addcdiv_": (lambda: (_t(2, 3), _t(3), _t(2, 1, lo=1.0, hi=2.0)), "inplace"),
    "lerp_Scalar": (lambda: (_t(2, 3), _t(3), 0.25), ""),
    "lerp__Scalar": (lambda: (_t(2, 3), _t(3), 0.75), "inplace"),
    "lerp_Tensor": (lambda: (_t(2, 3), _t(3), _t(2, 1, lo=0.0, hi=1.0)), ""),
    "lerp__Tensor": (lambda: (_t(2, 3), _t(3), _t(2, 1, lo=0.0, hi=1.0)), "inplace"),
})
CASES.update({
    "isclose": (lambda: (_t(2, 3), _t(3) + 1e-7), ""),
    "isin_Tensor_Tensor": (lambda: (_i(2, 3), _i(4, start=2)), ""),
    "isin_Tensor_Scalar": (lambda: (_i(2, 3), 7), ""),
    "isin_Scalar_Tensor": (lambda: (7, _i(2, 3)), ""),
})

# out= thunks whose ops need other arguments than (2, 3) float32 values in (0.1, 0.9).
OUT_ARGS = {
    "acosh_out": lambda: (_t(2, 3, lo=1.1, hi=4.0),),
    "arccosh_out": lambda: (_t(2, 3, lo=1.1, hi=4.0),),
    "gcd_out": lambda: (_i(2, 3), _i(3, start=4)),
    "lcm_out": lambda: (_i(2, 3), _i(3, start=4)),
    "ldexp_out": lambda: (_t(2, 3), _i(3)),
    "isin_Tensor_Tensor_out": lambda: (_i(2, 3), _i(4, start=2)),
    "isin_Tensor_Scalar_out": lambda: (_i(2, 3), 7),
    "isin_Scalar_Tensor_out": lambda: (7, _i(2, 3)),
}
