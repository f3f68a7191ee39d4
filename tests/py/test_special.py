"""The special family (csrc/kernels/special*.c, csrc/ops/special.yaml, pytensor/special.py):
values against exact oracles (Python's math module, and mpmath at 60 digits where it is
installed) with the float32 and float64 loops' error measured in ulp, torch's values at the poles
and edges, dtype rules, the functional / method / in-place / out= forms, layouts, gradients
(gradcheck in float64, torch's node names) and torch's refusals. test_special_torch.py compares
the same calls with torch where it is installed.
"""
import math

import numpy as np
import pytest

import pytensor

F32, F64 = pytensor.float32, pytensor.float64
INF, NAN = math.inf, math.nan
RNG = np.random.default_rng(20260)


def T(values, dtype=F64):
    return pytensor.tensor(values, dtype=dtype)


def L(t):
    return np.array(t.tolist(), dtype=np.float64)


def _samples(lo, hi, n, log=False):
    if log:
        return np.exp(RNG.uniform(math.log(lo), math.log(hi), n))
    return RNG.uniform(lo, hi, n)


# ---------------------------------------------------------------- math-module oracles
POS = [1e-300, 1e-8, 0.001, 0.1, 0.5, 0.75, 0.999, 1.0, 1.001, 1.3, 1.46, 1.5, 1.75, 2.0, 2.25,
       2.5, 3.0, 7.9, 8.0, 8.1, 10.5, 33.3, 171.5, 1e5, 1e30, 1e300]
NEG = [-1e-300, -1e-8, -0.1, -0.5, -0.75, -1.5, -2.5, -10.25, -100.3]


def test_lgamma_matches_math_lgamma():
    xs = POS + NEG
    got = L(pytensor.lgamma(T(xs)))
    ref = np.array([math.lgamma(x) for x in xs])
    # math.lgamma (Lanczos) is within a few ulp relative away from the roots and ~5e-16
    # absolute near them (the ulp tests below measure the relative error there against mpmath)
    np.testing.assert_allclose(got, ref, rtol=4e-15, atol=1e-15)


def test_erfinv_inverts_math_erf():
    ys = np.concatenate([np.linspace(-0.999999, 0.999999, 2001), [1e-300, -1e-20, 1 - 1e-15]])
    x = L(pytensor.erfinv(T(ys.tolist())))
    back = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(back, ys, rtol=2e-15, atol=1e-300)
    # near 1 erf loses the digits: erfc(x) must give back 1 - y
    tail = np.array([1e-3, 1e-8, 1e-15, 1e-100, 1e-300])
    x = L(pytensor.erfinv(T((1 - tail).tolist())))
    comp = 1 - np.array((1 - tail).tolist())  # the tails the float64 inputs really hold
    np.testing.assert_allclose([math.erfc(v) for v in x], comp, rtol=1e-13)


def test_ndtri_inverts_the_normal_cdf():
    ps = np.concatenate([np.exp(np.linspace(math.log(1e-300), math.log(0.5), 400)),
                         np.linspace(0.5, 0.999999, 400)])
    x = L(pytensor.special.ndtri(T(ps.tolist())))
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    # the oracle's own rounding of v / sqrt 2 costs 2 (v^2/2) eps relative: 3e-13 at v = -37
    np.testing.assert_allclose(cdf, ps, rtol=1e-12)


def test_xlogy_xlog1py_entr_against_math():
    x = [0.0, 0.0, 2.0, -3.0, 0.5, 1.0]
    y = [0.0, NAN, 3.0, 0.25, 1e-300, INF]
    got = L(pytensor.xlogy(T(x), T(y)))
    ref = [0.0, NAN, 2 * math.log(3), -3 * math.log(0.25), 0.5 * math.log(1e-300), INF]
    np.testing.assert_allclose(got, ref, rtol=1e-15)
    got = L(pytensor.special.xlog1py(T(x), T(y)))
    ref = [0.0, NAN, 2 * math.log1p(3), -3 * math.log1p(0.25), 0.5 * 1e-300, INF]
    np.testing.assert_allclose(got, ref, rtol=1e-15)
    got = L(pytensor.special.entr(T([0.0, 0.5, 2.0, -1.0, NAN, INF])))
    np.testing.assert_allclose(got, [0.0, -0.5 * math.log(0.5), -2 * math.log(2), -INF, NAN, -INF])


def test_sinc_logit_against_math():
    xs = [0.0, 0.25, 0.5, 1.0, -1.5, 1e-20, 3.75, 1e6 + 0.5]
    ref = [1.0] + [math.sin(math.pi * (x - round(x))) * (-1) ** round(x) / (math.pi * x)
                   for x in xs[1:]]
    np.testing.assert_allclose(L(pytensor.sinc(T(xs))), ref, rtol=1e-14, atol=1e-300)
    assert L(pytensor.sinc(T([1.0, 2.0, -3.0]))).tolist() == [0.0, 0.0, 0.0]
    ps = [0.001, 0.25, 0.5, 0.9, 0.999999]
    np.testing.assert_allclose(L(pytensor.logit(T(ps))), [math.log(p / (1 - p)) for p in ps],
                               rtol=1e-14, atol=1e-300)
    clamped = [min(max(p, 0.1), 0.9) for p in [0.0, 0.05, 0.5, 0.95, 1.0]]
    np.testing.assert_allclose(L(pytensor.logit(T([0.0, 0.05, 0.5, 0.95, 1.0]), 0.1)),
                               [math.log(p / (1 - p)) for p in clamped], rtol=1e-14)


def test_mvlgamma_is_the_sum_of_lgammas():
    xs = [2.6, 3.7, 10.0]
    for p in (1, 2, 5):
        ref = [sum(math.lgamma(x - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
               for x in xs]
        np.testing.assert_allclose(L(pytensor.mvlgamma(T(xs), p)), ref, rtol=1e-14)


def test_igamma_closed_forms():
    # P(1, x) = 1 - e^-x, Q(1/2, x) = erfc(sqrt x), P(n, x) by its finite sum
    xs = np.array([1e-5, 0.3, 1.0, 2.5, 10.0, 40.0])
    np.testing.assert_allclose(L(pytensor.igamma(T([1.0] * 6), T(xs.tolist()))),
                               -np.expm1(-xs), rtol=1e-14)
    np.testing.assert_allclose(L(pytensor.igammac(T([0.5] * 6), T(xs.tolist()))),
                               [math.erfc(math.sqrt(x)) for x in xs], rtol=1e-13)
    q = [math.exp(-x) * sum(x ** k / math.factorial(k) for k in range(4)) for x in xs]
    np.testing.assert_allclose(L(pytensor.igammac(T([4.0] * 6), T(xs.tolist()))), q, rtol=1e-13)
    both = L(pytensor.igamma(T([3.5] * 6), T(xs.tolist()))) + \
        L(pytensor.igammac(T([3.5] * 6), T(xs.tolist())))
    np.testing.assert_allclose(both, 1.0, rtol=1e-14)


def test_zeta_and_polygamma_closed_forms():
    np.testing.assert_allclose(L(pytensor.special.zeta(T([2.0, 4.0]), T([1.0, 1.0]))),
                               [math.pi ** 2 / 6, math.pi ** 4 / 90], rtol=1e-15)
    # psi1(1) = pi^2 / 6, psi2(1) = -2 zeta(3), psi1(1/2) = pi^2 / 2
    np.testing.assert_allclose(L(pytensor.polygamma(1, T([1.0, 0.5]))),
                               [math.pi ** 2 / 6, math.pi ** 2 / 2], rtol=1e-15)
    np.testing.assert_allclose(L(pytensor.polygamma(2, T([1.0]))), [-2 * 1.2020569031595942],
                               rtol=1e-15)
    np.testing.assert_allclose(L(pytensor.digamma(T([1.0, 0.5, 2.0]))),
                               [-0.5772156649015329, -0.5772156649015329 - 2 * math.log(2),
                                1 - 0.5772156649015329], rtol=2e-16)


def test_bessel_i_against_their_series():
    xs = [0.0, 0.5, -3.0, 12.0, 30.0, -60.0]

    def series(x, nu):
        term = (x / 2) ** nu / math.factorial(nu)
        total = term
        for k in range(1, 300):
            term *= (x / 2) ** 2 / (k * (k + nu))
            total += term
        return total
    np.testing.assert_allclose(L(pytensor.i0(T(xs))), [series(x, 0) for x in xs], rtol=3e-15)
    np.testing.assert_allclose(L(pytensor.special.i1(T(xs))), [series(x, 1) for x in xs],
                               rtol=3e-15)
    np.testing.assert_allclose(L(pytensor.special.i0e(T(xs))),
                               [series(x, 0) * math.exp(-abs(x)) for x in xs], rtol=3e-15)
    np.testing.assert_allclose(L(pytensor.special.i1e(T(xs))),
                               [series(x, 1) * math.exp(-abs(x)) for x in xs], rtol=3e-15)


def test_erfcx_and_log_ndtr_against_math():
    xs = [-5.0, -1.0, 0.0, 0.5, 3.0, 20.0]
    np.testing.assert_allclose(L(pytensor.special.erfcx(T(xs))),
                               [math.exp(x * x) * math.erfc(x) for x in xs], rtol=1e-13)
    # asymptotically 1 / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4))
    big = 1e4
    np.testing.assert_allclose(L(pytensor.special.erfcx(T([big]))),
                               [(1 - 1 / (2 * big ** 2)) / (big * math.sqrt(math.pi))], rtol=1e-15)
    xs = [-30.0, -2.0, -1.0, 0.0, 1.0, 5.0]
    ref = [math.log(0.5 * math.erfc(-x / math.sqrt(2))) if x < 0 else
           math.log1p(-0.5 * math.erfc(x / math.sqrt(2))) for x in xs]
    np.testing.assert_allclose(L(pytensor.special.log_ndtr(T(xs))), ref, rtol=1e-13)
    np.testing.assert_allclose(L(pytensor.special.ndtr(T(xs))),
                               [(1 + math.erf(x / math.sqrt(2))) / 2 for x in xs], rtol=1e-15)


# ---------------------------------------------------------------- accuracy in ulp (mpmath)
def _ulp_error(got, ref, np_dtype):
    rounded = np.array([float(r) for r in ref]).astype(np_dtype)
    spacing = np.spacing(np.abs(rounded)).astype(np.float64)
    import mpmath
    err = np.array([float(abs(mpmath.mpf(float(g)) - r)) for g, r in zip(got, ref)])
    finite = np.isfinite(rounded)
    return float(np.max(err[finite] / spacing[finite]))


def _mp():
    return pytest.importorskip("mpmath")


# name -> (call, mpmath reference (the module, x), argument sampler, max ulp float32, float64).
# The bounds are the measured maxima rounded up (Note [special accuracy] in special_math.h):
# the float32 loops are correctly rounded but for double rounding (0.5 ulp measured, 1 allowed).
ACCURACY = {
    "lgamma": (pytensor.lgamma, lambda m, x: m.log(abs(m.gamma(x))),
               lambda: np.concatenate([_samples(1e-6, 40, 1500, True), _samples(0.5, 3, 1500),
                                       _samples(40, 1e30, 300, True),
                                       -_samples(0.05, 0.2, 100) - 1]), 1, 4),
    "digamma": (pytensor.digamma, lambda m, x: m.digamma(x),
                lambda: np.concatenate([_samples(1e-6, 40, 1500, True), _samples(0.5, 3, 1500),
                                        _samples(40, 1e30, 300, True)]), 1, 4),
    "trigamma": (lambda t: pytensor.polygamma(1, t), lambda m, x: m.psi(1, x),
                 lambda: _samples(1e-3, 1e4, 2000, True), 1, 8),
    "polygamma3": (lambda t: pytensor.polygamma(3, t), lambda m, x: m.psi(3, x),
                   lambda: _samples(1e-2, 1e3, 1500, True), 1, 8),
    "erfinv": (pytensor.erfinv, lambda m, x: m.erfinv(x),
               lambda: np.concatenate([_samples(-0.9999, 0.9999, 2000),
                                       1 - _samples(1e-7, 1e-3, 300, True),
                                       _samples(1e-30, 1e-3, 300, True)]), 1, 3),
    "i0": (pytensor.i0, lambda m, x: m.besseli(0, x), lambda: _samples(-80, 80, 2000), 1, 14),
    "i0e": (pytensor.special.i0e, lambda m, x: m.besseli(0, x) * m.exp(-abs(x)),
            lambda: _samples(-1e4, 1e4, 2000), 1, 8),
    "i1": (pytensor.special.i1, lambda m, x: m.besseli(1, x), lambda: _samples(-80, 80, 2000),
           1, 14),
    "i1e": (pytensor.special.i1e, lambda m, x: m.besseli(1, x) * m.exp(-abs(x)),
            lambda: _samples(-1e4, 1e4, 2000), 1, 5),
    "erfcx": (pytensor.special.erfcx, lambda m, x: m.exp(x * x) * m.erfc(x),
              lambda: np.concatenate([_samples(-9, 100, 2000), _samples(1, 1e10, 300, True)]),
              1, 5),
    "ndtri": (pytensor.special.ndtri, lambda m, p: m.sqrt(2) * m.erfinv(2 * p - 1),
              lambda: _samples(1e-30, 0.999, 2000, True), 1, 3),
    "log_ndtr": (pytensor.special.log_ndtr,
                 lambda m, x: (m.log(m.erfc(-x / m.sqrt(2)) / 2) if x < 0
                               else m.log1p(-m.erfc(x / m.sqrt(2)) / 2)),
                 lambda: _samples(-30, 10, 2000), 1, 8),
    "sinc": (pytensor.sinc, lambda m, x: m.sincpi(x), lambda: _samples(-100, 100, 2000), 1, 3),
    "zeta": (lambda t: pytensor.special.zeta(t, 2.5), lambda m, x: m.zeta(x, 2.5),
             lambda: _samples(1.01, 60, 1000), 1, 6),
}


@pytest.mark.parametrize("name", sorted(ACCURACY))
@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
def test_accuracy_in_ulp(name, dtype):
    mpmath = _mp()
    fn, ref_fn, sampler, bound32, bound64 = ACCURACY[name]
    np_dtype = np.float32 if dtype == F32 else np.float64
    xs = sampler().astype(np_dtype)
    got = L(fn(pytensor.tensor(xs.tolist(), dtype=dtype)))
    with mpmath.workdps(60):
        ref = [ref_fn(mpmath, mpmath.mpf(float(x))) for x in xs]
        err = _ulp_error(got, ref, np_dtype)
    assert err <= (bound32 if dtype == F32 else bound64), f"{name}: {err} ulp"


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
def test_igamma_accuracy(upper, dtype):
    mpmath = _mp()
    np_dtype = np.float32 if dtype == F32 else np.float64
    a = _samples(0.01, 200, 600, True).astype(np_dtype)
    x = (a * np_dtype(1.1 if upper else 0.9) + np_dtype(0.1)).astype(np_dtype)
    fn = pytensor.igammac if upper else pytensor.igamma
    got = L(fn(pytensor.tensor(a.tolist(), dtype=dtype), pytensor.tensor(x.tolist(), dtype=dtype)))
    with mpmath.workdps(60):
        ref = [mpmath.gammainc(mpmath.mpf(float(ai)), *((mpmath.mpf(float(xi)), mpmath.inf) if upper
                                                          else (0, mpmath.mpf(float(xi)))),
                               regularized=True) for ai, xi in zip(a, x)]
        err = _ulp_error(got, ref, np_dtype)
    # float64 loses relative accuracy with a (the prefactor): about 4e-13 relative at a = 200
    assert err <= (1 if dtype == F32 else 2000)


# ---------------------------------------------------------------- poles and edges (torch's values)
def test_lgamma_digamma_poles():
    xs = [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN]
    assert L(pytensor.lgamma(T(xs))).tolist()[:6] == [INF] * 6
    assert math.isnan(L(pytensor.lgamma(T(xs)))[6])
    d = L(pytensor.digamma(T(xs)))
    assert d[0] == -INF and d[1] == INF and d[4] == INF
    assert all(math.isnan(v) for v in (d[2], d[3], d[5], d[6]))
    assert L(pytensor.lgamma(T([1.0, 2.0]))).tolist() == [0.0, 0.0]
    assert math.copysign(1, L(pytensor.lgamma(T([1.0])))[0]) == 1  # +0, as torch


def test_polygamma_poles_and_negative_arguments():
    p = L(pytensor.polygamma(2, T([0.0, -1.0])))
    assert p.tolist() == [-INF, -INF]
    assert L(pytensor.polygamma(3, T([0.0]))).tolist() == [INF]
    assert L(pytensor.polygamma(1, T([0.0, -3.0]))).tolist() == [INF, INF]
    # reflection: psi1(x) + psi1(1 - x) = pi^2 / sin^2(pi x)
    x = -2.3
    s = L(pytensor.polygamma(1, T([x, 1 - x])))
    np.testing.assert_allclose(s.sum(), math.pi ** 2 / math.sin(math.pi * x) ** 2, rtol=1e-14)


def test_erfinv_and_ndtri_edges():
    e = L(pytensor.erfinv(T([1.0, -1.0, 1.5, -2.0, NAN, 0.0, -0.0])))
    assert e[0] == INF and e[1] == -INF and all(math.isnan(v) for v in e[2:5])
    assert math.copysign(1, e[6]) == -1
    n = L(pytensor.special.ndtri(T([0.0, 1.0, -0.1, 1.1, 0.5])))
    assert n[0] == -INF and n[1] == INF and math.isnan(n[2]) and math.isnan(n[3]) and n[4] == 0


def test_igamma_edges():
    a = [-1.0, 0.0, 0.0, 1.0, INF, INF, 2.0, 2.0]
    x = [1.0, 1.0, 0.0, 0.0, 1.0, INF, INF, -1.0]
    p = L(pytensor.igamma(T(a), T(x)))
    q = L(pytensor.igammac(T(a), T(x)))
    assert math.isnan(p[0]) and p[1] == 1 and math.isnan(p[2]) and p[3] == 0 and p[4] == 0
    assert math.isnan(p[5]) and p[6] == 1 and math.isnan(p[7])
    assert math.isnan(q[0]) and q[1] == 0 and math.isnan(q[2]) and q[3] == 1 and q[4] == 1
    assert math.isnan(q[5]) and q[6] == 0 and math.isnan(q[7])


def test_zeta_domain():
    z = L(pytensor.special.zeta(T([1.0, 0.5, 2.0, 2.5, 2.0]), T([1.0, 1.0, -1.0, -1.5, -1.5])))
    assert z[0] == INF and math.isnan(z[1]) and z[2] == INF and math.isnan(z[3])
    # an integer s and a negative non-integer q: the sum itself, 1/(1.5^2) + 1/(0.5^2) + zeta(2, .5)
    np.testing.assert_allclose(z[4], 1 / 2.25 + 4 + 3 * math.pi ** 2 / 6, rtol=1e-14)


def test_bessel_edges():
    # torch's values at +-inf are nan (its Chebyshev form computes inf * 0 there)
    i0, i1 = L(pytensor.i0(T([INF, -INF, 0.0]))), L(pytensor.special.i1(T([INF, -INF, 0.0])))
    assert np.isnan(i0[:2]).all() and i0[2] == 1.0 and np.isnan(i1[:2]).all() and i1[2] == 0.0
    assert L(pytensor.special.i0e(T([INF, -INF]))).tolist() == [0.0, 0.0]
    assert L(pytensor.special.i1e(T([INF, -INF]))).tolist() == [0.0, -0.0]
    # e^x I0(x) stays finite up to its own overflow (I0(712) ~ 1.6e307)
    assert math.isfinite(L(pytensor.i0(T([712.0])))[0])
    assert math.isnan(L(pytensor.i0(T([NAN])))[0])


# ---------------------------------------------------------------- dtypes
UNARY = {
    "lgamma": pytensor.lgamma, "digamma": pytensor.digamma, "erfinv": pytensor.erfinv,
    "i0": pytensor.i0, "sinc": pytensor.sinc, "logit": pytensor.logit,
    "polygamma": lambda t: pytensor.polygamma(2, t), "mvlgamma": lambda t: pytensor.mvlgamma(t, 2),
    "entr": pytensor.special.entr, "erfcx": pytensor.special.erfcx, "i0e": pytensor.special.i0e,
    "i1": pytensor.special.i1, "i1e": pytensor.special.i1e, "ndtri": pytensor.special.ndtri,
    "log_ndtr": pytensor.special.log_ndtr, "ndtr": pytensor.special.ndtr,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_integers_compute_in_the_default_float_dtype(name):
    fn = UNARY[name]
    ints = pytensor.tensor([1, 2, 3])
    r = fn(ints)
    assert r.dtype == pytensor.get_default_dtype()
    np.testing.assert_allclose(L(r), L(fn(ints.to(F32))), rtol=0, atol=0, equal_nan=True)
    assert fn(pytensor.tensor([True, False])).dtype == F32
    prev = pytensor.get_default_dtype()
    pytensor.set_default_dtype(F64)
    try:
        assert fn(ints).dtype == F64
    finally:
        pytensor.set_default_dtype(prev)


# ndtr is torch's composite of four operators, each rounding to the half type as torch's does
@pytest.mark.parametrize("name", sorted(set(UNARY) - {"ndtr"}))
@pytest.mark.parametrize("dtype", [pytensor.float16, pytensor.bfloat16], ids=["half", "bf16"])
def test_half_types_compute_in_float32(name, dtype):
    fn = UNARY[name]
    x = pytensor.tensor([0.3, 0.6, 0.9, 2.5], dtype=dtype)
    r = fn(x)
    assert r.dtype == dtype
    ref = fn(x.to(F32)).to(dtype)
    np.testing.assert_array_equal(L(r), L(ref))


COMPLEX_REFUSALS = {
    "lgamma": "lgamma_vml_cpu", "digamma": "digamma", "erfinv": "erfinv_vml_cpu",
    "i0": "i0_vml_cpu", "logit": "logit_cpu", "polygamma": "polygamma", "entr": "entr_cpu",
    "erfcx": "erfcx_cpu", "i0e": "i0e_cpu", "i1": "i1_cpu", "i1e": "i1e_cpu",
    "ndtri": "ndtri_cpu", "log_ndtr": "log_ndtr_cpu", "mvlgamma": "arange_cpu",
}


@pytest.mark.parametrize("name", sorted(COMPLEX_REFUSALS))
def test_complex_refused_with_torch_kernel_names(name):
    z = pytensor.tensor([1 + 1j])
    with pytest.raises(NotImplementedError,
                       match=f'"{COMPLEX_REFUSALS[name]}" not implemented for \'ComplexFloat\''):
        UNARY[name](z)


def test_polygamma_names_digamma_and_trigamma_in_refusals():
    z = pytensor.tensor([1j])
    with pytest.raises(NotImplementedError, match='"digamma" not implemented'):
        pytensor.polygamma(0, z)
    with pytest.raises(NotImplementedError, match='"trigamma" not implemented'):
        pytensor.polygamma(1, z)


def test_complex_sinc():
    z = [0j, 0.5 + 0.25j, -1.5j, 2 + 0j]
    got = pytensor.sinc(pytensor.tensor(z, dtype=pytensor.complex128)).tolist()
    import cmath
    ref = [1.0] + [cmath.sin(math.pi * v) / (math.pi * v) for v in z[1:]]
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=1e-16)
    assert pytensor.sinc(pytensor.tensor([0.5j])).dtype == pytensor.complex64


def test_binary_dtype_rules():
    i = pytensor.tensor([1, 2])
    assert pytensor.xlogy(i, i).dtype == F32
    assert pytensor.xlogy(2, i).dtype == F32
    assert pytensor.xlogy(i, 3.0).dtype == F32
    assert pytensor.special.xlog1py(i, i).dtype == F32
    assert pytensor.xlogy(T([1.0]), pytensor.tensor([2.0])).dtype == F64
    assert pytensor.igamma(pytensor.tensor([1.0]), i).dtype == F32
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        pytensor.igamma(i, i)
    with pytest.raises(NotImplementedError, match="\"igammac_cpu\" not implemented for 'Long'"):
        pytensor.igammac(i, i)
    assert pytensor.special.zeta(i, i).dtype == F32
    assert pytensor.special.zeta(i, 2).dtype == F32
    assert pytensor.special.zeta(2, i).dtype == F32
    with pytest.raises(NotImplementedError,
                       match="\"xlogy_cpu\" not implemented for 'ComplexFloat'"):
        pytensor.xlogy(pytensor.tensor([1j]), pytensor.tensor([1.0]))
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented"):
        pytensor.igamma(pytensor.tensor([1j]), pytensor.tensor([1.0]))


def test_bad_arguments():
    x = T([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        pytensor.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        pytensor.mvlgamma(x, 0)
    with pytest.raises(TypeError):
        pytensor.lgamma([1.0])
    with pytest.raises(RuntimeError):  # an int tensor cannot hold the float result in place
        pytensor.tensor([1, 2]).lgamma_()
    with pytest.raises(RuntimeError):
        pytensor.xlogy(T([1.0, 2.0]), T([1.0, 2.0, 3.0]))


# ---------------------------------------------------------------- forms and layouts
def test_methods_inplace_and_out_forms():
    base = [0.3, 1.7, 2.5, 4.0]
    for name, kw in [("lgamma", {}), ("digamma", {}), ("erfinv", {}), ("i0", {}), ("sinc", {})]:
        fn = getattr(pytensor, name)
        want = L(fn(T([v / 5 for v in base])))
        x = T([v / 5 for v in base])
        assert L(getattr(x, name)()).tolist() == want.tolist()
        y = x.clone()
        assert getattr(y, name + "_")() is y and L(y).tolist() == want.tolist()
        out = pytensor.empty(0, dtype=F64)
        assert fn(x, out=out) is out and L(out).tolist() == want.tolist()
    for name in ("i0_", "sinc_", "logit_", "xlogy_"):
        assert hasattr(pytensor, name)
    for name in ("lgamma_", "digamma_", "erfinv_", "polygamma_", "mvlgamma_", "igamma_"):
        assert not hasattr(pytensor, name) and hasattr(pytensor.Tensor, name)
    x = T(base)
    assert L(x.polygamma(2)).tolist() == L(pytensor.polygamma(2, x)).tolist()
    y = x.clone()
    assert y.polygamma_(2) is y and L(y).tolist() == L(pytensor.polygamma(2, x)).tolist()
    out = pytensor.empty(4, dtype=F64)
    pytensor.polygamma(2, x, out=out)
    assert L(out).tolist() == L(pytensor.polygamma(2, x)).tolist()
    assert L(x.mvlgamma(2)).tolist() == L(pytensor.mvlgamma(x, p=2)).tolist()
    y = x.clone()
    assert y.mvlgamma_(2) is y and L(y).tolist() == L(pytensor.mvlgamma(x, 2)).tolist()
    p = T([0.05, 0.5, 0.97])
    assert L(p.logit(0.1)).tolist() == L(pytensor.logit(p, eps=0.1)).tolist()
    q = p.clone()
    assert pytensor.logit_(q, 0.1) is q and L(q).tolist() == L(pytensor.logit(p, 0.1)).tolist()
    out = pytensor.empty(3, dtype=F64)
    assert L(pytensor.logit(p, out=out)).tolist() == L(pytensor.logit(p)).tolist()


def test_binary_forms():
    a, b = T([0.0, 1.5, 2.0]), T([0.5, 2.0, 3.0])
    want = L(pytensor.xlogy(a, b))
    assert L(a.xlogy(b)).tolist() == want.tolist()
    assert L(pytensor.xlogy(a, 3.0)).tolist() == L(pytensor.xlogy(a, T([3.0]))).tolist()
    assert L(a.xlogy(3.0)).tolist() == L(pytensor.xlogy(a, 3.0)).tolist()
    assert L(pytensor.xlogy(2.0, b)).tolist() == L(pytensor.xlogy(T([2.0]), b)).tolist()
    c = a.clone()
    assert c.xlogy_(b) is c and L(c).tolist() == want.tolist()
    c = a.clone()
    assert pytensor.xlogy_(c, 3.0) is c and L(c).tolist() == L(pytensor.xlogy(a, 3.0)).tolist()
    for args in ((a, b), (2.0, b), (a, 3.0)):
        out = pytensor.empty(0, dtype=F64)
        pytensor.xlogy(*args, out=out)
        assert L(out).tolist() == L(pytensor.xlogy(*args)).tolist()
    for name in ("igamma", "igammac"):
        fn = getattr(pytensor, name)
        want = L(fn(b, b))
        assert L(getattr(b, name)(b)).tolist() == want.tolist()
        c = b.clone()
        assert getattr(c, name + "_")(b) is c and L(c).tolist() == want.tolist()
        out = pytensor.empty(0, dtype=F64)
        assert L(fn(b, b, out=out)).tolist() == want.tolist()
    for name in ("xlog1py", "zeta"):
        fn = getattr(pytensor.special, name)
        s = b + 1
        want = L(fn(s, b))
        assert L(fn(s, 2.0)).tolist() == L(fn(s, T([2.0]))).tolist()
        assert L(fn(2.0, b)).tolist() == L(fn(T([2.0]), b)).tolist()
        for args in ((s, b), (2.0, b), (s, 2.0)):
            out = pytensor.empty(0, dtype=F64)
            fn(*args, out=out)
            assert L(out).tolist() == L(fn(*args)).tolist()
        assert want.shape == (3,)


def test_zero_dim_empty_noncontiguous_and_large():
    x0 = T(2.5)
    assert pytensor.lgamma(x0).shape == () and L(pytensor.lgamma(x0)).item() == \
        pytest.approx(math.lgamma(2.5), rel=1e-15)
    assert pytensor.erfinv(pytensor.empty(0, 3)).shape == (0, 3)
    assert pytensor.xlogy(pytensor.empty(0), 2.0).shape == (0,)
    m = pytensor.arange(1, 13, dtype=F64).reshape(3, 4) * 0.37
    ref = L(pytensor.lgamma(m))
    np.testing.assert_allclose(ref, np.vectorize(math.lgamma)(L(m)), rtol=1e-14, atol=1e-15)
    assert (L(pytensor.lgamma(m.t())) == ref.T).all()
    assert (L(pytensor.lgamma(m[:, ::2])) == ref[:, ::2]).all()
    assert (L(pytensor.lgamma(m.flip(1))) == ref[:, ::-1]).all()
    np.testing.assert_array_equal(L(pytensor.igamma(m.t(), m[:, 0])), L(pytensor.igamma(
        m.t().contiguous(), m[:, 0].contiguous())))
    # past the iterator's threading grain: the same values as one small call each
    n = 70001
    big = pytensor.linspace(0.01, 20, n, dtype=F32)
    for fn in (pytensor.lgamma, pytensor.digamma, pytensor.special.i1e, pytensor.sinc):
        r = fn(big)
        pick = [0, 12345, 40000, n - 1]
        assert [r[i].item() for i in pick] == [fn(big[i:i + 1])[0].item() for i in pick]
    r = pytensor.xlogy(big, big.flip(0))
    assert r[777].item() == pytensor.xlogy(big[777:778], big.flip(0)[777:778])[0].item()


def test_special_namespace():
    names = ("entr erfcx expit exp2 expm1 log1p erf erfc erfinv gammaln digamma psi polygamma "
             "multigammaln i0 i0e i1 i1e ndtr ndtri log_ndtr logit xlogy xlog1py zeta sinc round "
             "softmax log_softmax logsumexp gammainc gammaincc").split()
    for n in names:
        assert callable(getattr(pytensor.special, n)), n
    assert set(names) <= set(dir(pytensor.special))
    assert not hasattr(pytensor, "special_entr")
    x = T([0.4, 1.3])
    assert L(pytensor.special.gammaln(x)).tolist() == L(pytensor.lgamma(x)).tolist()
    assert L(pytensor.special.psi(x)).tolist() == L(pytensor.digamma(x)).tolist()
    assert L(pytensor.special.multigammaln(x + 1, 2)).tolist() == \
        L(pytensor.mvlgamma(x + 1, 2)).tolist()
    assert L(pytensor.special.expit(x)).tolist() == L(pytensor.sigmoid(x)).tolist()
    assert L(pytensor.special.gammaincc(x, x)).tolist() == L(pytensor.igammac(x, x)).tolist()
    assert L(pytensor.special.round(x * 10, decimals=-1)).tolist() == [0.0, 10.0]
    with pytest.raises(AttributeError):
        pytensor.special.not_a_function


# ---------------------------------------------------------------- gradients
GRAD_CASES = [
    ("lgamma", lambda x: pytensor.lgamma(x), [(0.3, 6.0)], "LgammaBackward0"),
    ("digamma", lambda x: pytensor.digamma(x), [(0.3, 6.0)], "DigammaBackward0"),
    ("polygamma", lambda x: pytensor.polygamma(2, x), [(0.3, 6.0)], "PolygammaBackward0"),
    ("mvlgamma", lambda x: pytensor.mvlgamma(x, 3), [(1.5, 6.0)], "MvlgammaBackward0"),
    ("erfinv", lambda x: pytensor.erfinv(x), [(-0.9, 0.9)], "ErfinvBackward0"),
    ("i0", lambda x: pytensor.i0(x), [(-4.0, 4.0)], "I0Backward0"),
    ("sinc", lambda x: pytensor.sinc(x), [(-3.0, 3.0)], "SincBackward0"),
    ("logit", lambda x: pytensor.logit(x), [(0.05, 0.95)], "LogitBackward0"),
    ("logit_eps", lambda x: pytensor.logit(x, 0.2), [(0.25, 0.75)], "LogitBackward0"),
    ("xlogy", lambda x, y: pytensor.xlogy(x, y), [(-2.0, 2.0), (0.2, 3.0)], "XlogyBackward0"),
    ("xlogy_scalar_self", lambda y: pytensor.xlogy(1.5, y), [(0.2, 3.0)], "XlogyBackward1"),
    ("xlogy_scalar_other", lambda x: pytensor.xlogy(x, 2.5), [(-2.0, 2.0)], "XlogyBackward2"),
    ("igamma_x", lambda x: pytensor.igamma(T([0.7, 2.0, 3.5]), x), [(0.3, 4.0)],
     "IgammaBackward0"),
    ("igammac_x", lambda x: pytensor.igammac(T([0.7, 2.0, 3.5]), x), [(0.3, 4.0)],
     "IgammacBackward0"),
    ("entr", lambda x: pytensor.special.entr(x), [(0.2, 3.0)], "SpecialEntrBackward0"),
    ("erfcx", lambda x: pytensor.special.erfcx(x), [(-2.0, 5.0)], "SpecialErfcxBackward0"),
    ("i0e", lambda x: pytensor.special.i0e(x), [(-4.0, 4.0)], "SpecialI0EBackward0"),
    ("i1", lambda x: pytensor.special.i1(x), [(-4.0, 4.0)], "SpecialI1Backward0"),
    ("i1e", lambda x: pytensor.special.i1e(x), [(-4.0, 4.0)], "SpecialI1EBackward0"),
    ("ndtr", lambda x: pytensor.special.ndtr(x), [(-3.0, 3.0)], "MulBackward1"),
    ("ndtri", lambda x: pytensor.special.ndtri(x), [(0.05, 0.95)], "SpecialNdtriBackward0"),
    ("log_ndtr", lambda x: pytensor.special.log_ndtr(x), [(-5.0, 3.0)],
     "SpecialLogNdtrBackward0"),
    ("xlog1py", lambda x, y: pytensor.special.xlog1py(x, y), [(-2.0, 2.0), (-0.5, 3.0)],
     "SpecialXlog1PyBackward0"),
    ("xlog1py_scalar_self", lambda y: pytensor.special.xlog1py(2.0, y), [(-0.5, 3.0)],
     "SpecialXlog1PyBackward1"),
    ("xlog1py_scalar_other", lambda x: pytensor.special.xlog1py(x, 1.5), [(-2.0, 2.0)],
     "SpecialXlog1PyBackward2"),
    ("zeta_q", lambda q: pytensor.special.zeta(T([2.0, 3.5, 5.0]), q), [(0.5, 3.0)],
     "SpecialZetaBackward0"),
    ("zeta_scalar_self", lambda q: pytensor.special.zeta(2.5, q), [(0.5, 3.0)],
     "SpecialZetaBackward1"),
]


def _grad_inputs(domains, n=3):
    return tuple(pytensor.tensor(RNG.uniform(lo, hi, n).tolist(), dtype=F64).requires_grad_()
                 for lo, hi in domains)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_node_name(case):
    _, fn, domains, node = case
    ins = _grad_inputs(domains)
    assert pytensor.autograd.gradcheck(fn, ins)
    assert fn(*ins).grad_fn.name() == node


@pytest.mark.parametrize("case", [c for c in GRAD_CASES if c[0] in (
    "lgamma", "digamma", "erfinv", "sinc", "logit", "xlogy", "i1", "log_ndtr")],
    ids=lambda c: c[0])
def test_gradgradcheck(case):
    _, fn, domains, _ = case
    assert pytensor.autograd.gradgradcheck(fn, _grad_inputs(domains))


def test_inplace_polygamma_node_and_gradient():
    x = T([0.5, 1.5, 3.0]).requires_grad_()
    y = x * 1.0
    y.polygamma_(1)
    assert y.grad_fn.name() == "PolygammaBackward1"
    y.sum().backward()
    np.testing.assert_allclose(L(x.grad), L(pytensor.polygamma(2, T([0.5, 1.5, 3.0]))), rtol=1e-14)
    x = T([0.5, 1.5]).requires_grad_()
    y = x * 1.0
    y.lgamma_()
    assert y.grad_fn.name() == "LgammaBackward0"
    y.sum().backward()
    np.testing.assert_allclose(L(x.grad), L(pytensor.digamma(T([0.5, 1.5]))), rtol=1e-15)


def test_special_gradients_at_their_edges():
    # sinc'(0) = 0, i1'(0) = i1e'(0) = 1/2, xlogy's d/dx is 0 where x = 0 and y <= 0
    x = T([0.0, 0.0]).requires_grad_()
    pytensor.sinc(x).sum().backward()
    assert L(x.grad).tolist() == [0.0, 0.0]
    for fn in (pytensor.special.i1, pytensor.special.i1e):
        x = T([0.0]).requires_grad_()
        fn(x).sum().backward()
        assert L(x.grad).tolist() == [0.5]
    x, y = T([0.0, 0.0]).requires_grad_(), T([0.0, 2.0])
    pytensor.xlogy(x, y).sum().backward()
    assert L(x.grad).tolist() == [0.0, math.log(2.0)]
    x = T([0.0, 1.0]).requires_grad_()
    pytensor.xlogy(x, -1.0).sum().backward()
    g = L(x.grad)
    assert g[0] == 0.0 and math.isnan(g[1])
    # logit: outside [0, 1] nan without eps, 0 outside [eps, 1 - eps] with it
    x = T([-0.5, 0.5, 0.05]).requires_grad_()
    pytensor.logit(x).sum().backward()
    g = L(x.grad)
    assert math.isnan(g[0]) and g[1] == 4.0
    x = T([0.05, 0.5]).requires_grad_()
    pytensor.logit(x, 0.1).sum().backward()
    assert L(x.grad).tolist() == [0.0, 4.0]


@pytest.mark.parametrize("fn, what", [
    (lambda a, x: pytensor.igamma(a, x), "igamma: input"),
    (lambda a, x: pytensor.igammac(a, x), "igammac: input"),
    (lambda a, x: pytensor.special.zeta(a + 1, x), "zeta"),
    (lambda a, x: pytensor.special.zeta(a + 1, 2.0), "zeta"),
])
def test_not_implemented_gradients(fn, what):
    a = T([1.5, 2.0]).requires_grad_()
    y = fn(a, T([1.0, 2.0]))
    with pytest.raises(NotImplementedError,
                       match=f"the derivative for '{what}' is not implemented."):
        y.sum().backward()
