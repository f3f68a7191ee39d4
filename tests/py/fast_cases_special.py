"""Thunk cases of the special family (tests/py/test_fast_paths.py reads CASES): lgamma, digamma,
polygamma, mvlgamma, erfinv, i0, sinc, logit, xlogy, igamma, igammac and the special_* operators."""
import pytensor


def _u(*shape, dtype=pytensor.float32, lo=0.1, hi=0.9):
    """Values in (lo, hi): inside the domain of every function here."""
    n = int(pytensor.Size(shape).numel())
    step = (hi - lo) / max(n, 1)
    return (pytensor.arange(n, dtype=pytensor.float64) * step + lo).to(dtype).reshape(shape)


CASES = {}
for _name in ("lgamma", "digamma", "erfinv", "i0", "sinc"):
    CASES[_name] = (lambda: (_u(2, 3),), "")
    CASES[_name + "_"] = (lambda: (_u(2, 3),), "inplace")
for _name in ("entr", "erfcx", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "ndtr"):
    CASES["special_" + _name] = (lambda: (_u(2, 3),), "")
CASES.update({
    "polygamma": (lambda: (2, _u(2, 3)), ""),
    "polygamma_": (lambda: (_u(2, 3), 1), "inplace"),
    "mvlgamma": (lambda: (_u(2, 3, lo=2.0, hi=3.0), 3), ""),
    "mvlgamma_": (lambda: (_u(2, 3, lo=2.0, hi=3.0), 2), "inplace"),
    "logit": (lambda: (_u(2, 3),), ""),
    "logit_": (lambda: (_u(2, 3),), "inplace"),
    "logit_backward": (lambda: (_u(2, 3), _u(3)), ""),
    "igamma": (lambda: (_u(2, 3, lo=0.5, hi=3.0), _u(3, lo=0.2, hi=4.0)), ""),
    "igamma_": (lambda: (_u(2, 3, lo=0.5, hi=3.0), _u(3)), "inplace"),
    "igammac": (lambda: (_u(2, 3, lo=0.5, hi=3.0), _u(3, lo=0.2, hi=4.0)), ""),
    "igammac_": (lambda: (_u(2, 3, lo=0.5, hi=3.0), _u(3)), "inplace"),
    "xlogy_Tensor": (lambda: (_u(2, 3), _u(3)), ""),
    "xlogy_Scalar_Self": (lambda: (2.5, _u(2, 3)), ""),
    "xlogy_Scalar_Other": (lambda: (_u(2, 3), 3), ""),
    "xlogy__Tensor": (lambda: (_u(2, 3), _u(3)), "inplace"),
    "xlogy__Scalar_Other": (lambda: (_u(2, 3), 0.5), "inplace"),
    "special_xlog1py": (lambda: (_u(2, 3), _u(2, 1)), ""),
    "special_xlog1py_self_scalar": (lambda: (2, _u(2, 3)), ""),
    "special_xlog1py_other_scalar": (lambda: (_u(2, 3), 1.5), ""),
    "special_zeta": (lambda: (_u(2, 3, lo=1.5, hi=4.0), _u(3)), ""),
    "special_zeta_self_scalar": (lambda: (3.0, _u(2, 3)), ""),
    "special_zeta_other_scalar": (lambda: (_u(2, 3, lo=1.5, hi=4.0), 2), ""),
})
