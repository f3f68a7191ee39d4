"""acosh, asinh, atanh, deg2rad, rad2deg, signbit, isposinf, isneginf, frexp, hypot, copysign,
nextafter, fmax, fmin, gcd, lcm, heaviside, logaddexp, logaddexp2, square, positive and torch's
aliases (arccos ... arctanh, negative, fix, clip, subtract, multiply, greater ... not_equal).

Values are checked against NumPy (and Python's math for the integer functions) on every machine,
and against torch where it is installed: results, dtypes, in-place and out= forms, refusals with
torch's exception type and text, broadcasting, non-contiguous operands, sizes past the threading
threshold, gradients (gradcheck in float64) and the node names autograd records.
"""
import math

import numpy as np
import pytest

import pytensor as pt
from _torch_oracle import requires_torch, torch

FLOATS = [pt.float32, pt.float64]
SIGNED = [pt.int8, pt.int16, pt.int32, pt.int64]
INTS = [pt.uint8] + SIGNED

NP_DTYPE = {pt.float32: np.float32, pt.float64: np.float64, pt.int8: np.int8, pt.int16: np.int16,
            pt.int32: np.int32, pt.int64: np.int64, pt.uint8: np.uint8, pt.bool: np.bool_,
            pt.float16: np.float16}


def arr(t):
    return np.asarray(t.numpy())


def rng_values(n, lo, hi, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(dtype)


def same(a, b):
    """Same dtype, shape and elements (NaN equal to NaN, -0.0 to 0.0)."""
    return (a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
            and np.array_equal(arr(a), arr(b), equal_nan=a.dtype.is_floating_point))


def close(got, want, dtype):
    tol = {pt.float32: 3e-6, pt.float64: 1e-13, pt.float16: 2e-3}.get(dtype, 0)
    np.testing.assert_allclose(arr(got), want, rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- functions of one tensor, NumPy

UNARY_NP = {
    "acosh": (np.arccosh, 1.0, 20.0),
    "asinh": (np.arcsinh, -20.0, 20.0),
    "atanh": (np.arctanh, -0.99, 0.99),
    "deg2rad": (np.deg2rad, -720.0, 720.0),
    "rad2deg": (np.rad2deg, -7.0, 7.0),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", sorted(UNARY_NP))
def test_unary_matches_numpy(fn, dtype):
    ref, lo, hi = UNARY_NP[fn]
    x = rng_values(1000, lo, hi, NP_DTYPE[dtype])
    got = getattr(pt, fn)(pt.from_numpy(x))
    assert got.dtype == dtype
    close(got, ref(x), dtype)


@pytest.mark.parametrize("fn", sorted(UNARY_NP))
def test_unary_integers_compute_in_the_default_float(fn):
    x = np.array([1, 2, 3, 0], dtype=np.int64)
    ref = UNARY_NP[fn][0]
    got = getattr(pt, fn)(pt.from_numpy(x))
    assert got.dtype == pt.float32
    with np.errstate(all="ignore"):
        close(got, ref(x.astype(np.float32)), pt.float32)
    assert getattr(pt, fn)(pt.tensor([True, False])).dtype == pt.float32


def test_inverse_hyperbolic_of_complex_matches_numpy():
    z = (rng_values(50, -3, 3) + 1j * rng_values(50, -3, 3, seed=1)).astype(np.complex128)
    for fn, ref in (("acosh", np.arccosh), ("asinh", np.arcsinh), ("atanh", np.arctanh)):
        got = getattr(pt, fn)(pt.from_numpy(z))
        assert got.dtype == pt.complex128
        np.testing.assert_allclose(arr(got), ref(z), rtol=1e-12, atol=1e-12)


def test_inverse_hyperbolic_domain_edges():
    x = pt.tensor([0.5, 1.0, float("inf"), float("nan")], dtype=pt.float64)
    assert np.isnan(arr(pt.acosh(x))[0]) and arr(pt.acosh(x))[1] == 0.0
    assert arr(pt.acosh(x))[2] == math.inf
    t = arr(pt.atanh(pt.tensor([1.0, -1.0, 2.0], dtype=pt.float64)))
    assert t[0] == math.inf and t[1] == -math.inf and np.isnan(t[2])


def test_aliases_are_the_same_functions():
    x = pt.from_numpy(rng_values(40, -0.9, 0.9))
    y = pt.from_numpy(rng_values(40, 1.1, 9.0))
    pairs = [("arccos", "acos", x), ("arcsin", "asin", x), ("arctan", "atan", x),
             ("arccosh", "acosh", y), ("arcsinh", "asinh", x), ("arctanh", "atanh", x),
             ("negative", "neg", x), ("fix", "trunc", x * 10)]
    for alias, name, v in pairs:
        want = getattr(pt, name)(v)
        assert same(getattr(pt, alias)(v), want), alias
        assert same(getattr(v, alias)(), want), alias
        a = v.clone()
        assert getattr(a, alias + "_")() is a and same(a, want), alias
        b = v.clone()
        assert getattr(pt, alias + "_")(b) is b and same(b, want), alias
        o = pt.empty(0, dtype=v.dtype)
        assert getattr(pt, alias)(v, out=o) is o and same(o, want), alias


def test_binary_aliases_are_the_same_functions():
    a = pt.from_numpy(rng_values(12, -2, 2).reshape(3, 4))
    b = pt.from_numpy(rng_values(4, -2, 2, seed=3))
    assert same(pt.subtract(a, b, alpha=2), a - 2 * b)
    assert same(a.subtract(3), a - 3)
    assert same(pt.multiply(a, b), a * b) and same(a.multiply(2.5), a * 2.5)
    for alias, op in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                      ("less_equal", "le"), ("not_equal", "ne")):
        assert same(getattr(pt, alias)(a, b), getattr(pt, op)(a, b)), alias
        assert same(getattr(a, alias)(0.5), getattr(a, op)(0.5)), alias
        o = pt.empty(0, dtype=pt.bool)
        assert getattr(pt, alias)(a, 0.5, out=o) is o and same(o, getattr(a, op)(0.5))
        c = a.clone()
        getattr(c, alias + "_")(b)
        assert same(c, getattr(a, op)(b).to(a.dtype)), alias
    c = a.clone()
    c.subtract_(b)
    assert same(c, a - b)
    c.multiply_(2)
    assert same(c, (a - b) * 2)
    for lo, hi in ((-1, 1), (None, 0.5), (-0.5, None)):
        assert same(pt.clip(a, lo, hi), pt.clamp(a, lo, hi))
    assert same(a.clip(b, b + 1), pt.clamp(a, b, b + 1))
    c = a.clone()
    assert pt.clip_(c, -1, 1) is c and same(c, pt.clamp(a, -1, 1))
    o = pt.empty(0, dtype=a.dtype)
    assert pt.clip(a, min=b, out=o) is o and same(o, pt.clamp(a, min=b))


def test_square_and_positive():
    x = pt.tensor([[1, -2], [3, 4]], dtype=pt.int32)
    assert same(pt.square(x), x * x) and pt.square(x).dtype == pt.int32
    assert pt.square(pt.tensor([True, False])).tolist() == [1, 0]
    assert pt.square(pt.tensor([True, False])).dtype == pt.int64
    f = pt.tensor([1.5, -2.0])
    assert f.square().tolist() == [2.25, 4.0]
    f.square_()
    assert f.tolist() == [2.25, 4.0]
    o = pt.empty(0)
    assert pt.square(f, out=o) is o
    assert pt.positive(f) is f and f.positive() is f
    with pytest.raises(RuntimeError, match=r"The `\+` operator, on a bool tensor is not supported"):
        pt.positive(pt.tensor([True]))
    with pytest.raises(RuntimeError, match="result type Long can't be cast"):
        pt.square_(pt.tensor([True]))


def test_predicates_match_numpy():
    v = np.array([-0.0, 0.0, -1.5, 2.0, np.inf, -np.inf, np.nan, -np.nan], dtype=np.float64)
    for dtype in (pt.float16, pt.float32, pt.float64):
        t = pt.from_numpy(v).to(dtype)
        assert arr(pt.signbit(t)).tolist() == np.signbit(v).tolist()
        assert arr(pt.isposinf(t)).tolist() == np.isposinf(v).tolist()
        assert arr(pt.isneginf(t)).tolist() == np.isneginf(v).tolist()
    for dtype in INTS + [pt.bool]:
        t = pt.tensor([0, 1, 2]).to(dtype)
        if dtype in SIGNED:
            t = pt.tensor([-3, 0, 5]).to(dtype)
        assert pt.signbit(t).tolist() == (arr(t).astype(np.int64) < 0).tolist()
        assert not pt.isposinf(t).any() and not pt.isneginf(t).any()
    o = pt.empty(0, dtype=pt.bool)
    assert pt.signbit(pt.tensor([-1.0]), out=o) is o and o.tolist() == [True]
    for fn in ("signbit", "isposinf", "isneginf"):
        with pytest.raises(RuntimeError, match=f"{fn} does not support non-boolean outputs."):
            getattr(pt, fn)(pt.tensor([1.0]), out=pt.empty(1))
    with pytest.raises(NotImplementedError, match="signbit is not implemented for complex"):
        pt.signbit(pt.tensor([1j]))
    with pytest.raises(RuntimeError, match="isposinf does not support complex inputs."):
        pt.isposinf(pt.tensor([1j]))


def test_frexp_matches_numpy():
    v = np.array([0.0, -0.0, 1.0, -3.5, 1e-310, 6e300, 0.75, 1024.0], dtype=np.float64)
    for dtype in (pt.float16, pt.float32, pt.float64):
        t = pt.from_numpy(v).to(dtype)
        ref_m, ref_e = np.frexp(arr(t))
        r = pt.frexp(t)
        assert type(r).__name__ == "frexp" and r.mantissa.dtype == dtype
        assert r.exponent.dtype == pt.int32
        assert arr(r.mantissa).tolist() == ref_m.tolist()
        assert arr(r.exponent).tolist() == ref_e.tolist()
        m, e = t.frexp()
        assert same(m, r.mantissa) and same(e, r.exponent)
    t = pt.tensor([3.0, 5.0])
    m, e = pt.empty(0), pt.empty(0, dtype=pt.int32)
    r = pt.frexp(t, out=(m, e))
    assert r.mantissa is m and r.exponent is e and m.tolist() == [0.75, 0.625]
    with pytest.raises(RuntimeError, match="torch.frexp.. only supports floating-point dtypes"):
        pt.frexp(pt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="expects mantissa to have dtype float but got double"):
        pt.frexp(t, out=(pt.empty(2, dtype=pt.float64), pt.empty(2, dtype=pt.int32)))
    with pytest.raises(RuntimeError, match="expects exponent to have int dtype but got long int"):
        pt.frexp(t, out=(pt.empty(2), pt.empty(2, dtype=pt.int64)))


def test_inplace_of_integers_is_refused():
    for fn in ("acosh_", "asinh_", "atanh_", "deg2rad_", "rad2deg_", "arccos_"):
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                               "output type Long"):
            getattr(pt.tensor([1, 2]), fn)()


def test_angle_conversions_refuse_complex():
    for fn in ("deg2rad", "rad2deg"):
        with pytest.raises(RuntimeError, match=f"{fn} is not supported for complex tensors."):
            getattr(pt, fn)(pt.tensor([1j]))


# ---------------------------------------------------------------- functions of two tensors, NumPy

BINARY_NP = {
    "hypot": np.hypot, "copysign": np.copysign, "nextafter": np.nextafter, "fmax": np.fmax,
    "fmin": np.fmin, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2,
    # torch's heaviside(nan, y) is 0 (nan > 0 is false) where NumPy's is nan
    "heaviside": lambda a, b: np.where(np.isnan(a), 0, np.heaviside(a, b)).astype(a.dtype),
}
SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0, -2.5, 1e-300])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", sorted(BINARY_NP))
def test_binary_matches_numpy(fn, dtype):
    ref = BINARY_NP[fn]
    d = NP_DTYPE[dtype]
    a = np.concatenate([np.repeat(SPECIALS, len(SPECIALS)), rng_values(500, -30, 30)]).astype(d)
    b = np.concatenate([np.tile(SPECIALS, len(SPECIALS)), rng_values(500, -30, 30, seed=1)])
    b = b.astype(d)
    got = getattr(pt, fn)(pt.from_numpy(a), pt.from_numpy(b))
    assert got.dtype == dtype
    with np.errstate(all="ignore"):
        want = ref(a, b)
    if fn in ("nextafter", "fmax", "fmin", "copysign", "heaviside"):
        assert np.array_equal(arr(got), want, equal_nan=True)
        assert np.array_equal(np.signbit(arr(got)), np.signbit(want))
    else:
        close(got, want, dtype)


def test_nextafter_steps_the_16_bit_types():
    x = np.array([1.0, 1.0, 0.0, -0.0, 65504.0, -1.0, np.nan], dtype=np.float16)
    y = np.array([2.0, 0.0, 1.0, -1.0, np.inf, -1.0, 1.0], dtype=np.float16)
    got = pt.nextafter(pt.from_numpy(x), pt.from_numpy(y))
    assert got.dtype == pt.float16
    with np.errstate(over="ignore"):
        assert np.array_equal(arr(got), np.nextafter(x, y), equal_nan=True)
    b = pt.nextafter(pt.tensor([1.0, 1.0], dtype=pt.bfloat16), pt.tensor([2.0, 0.0],
                                                                         dtype=pt.bfloat16))
    assert b.to(pt.float64).tolist() == [1.0 + 2 ** -7, 1.0 - 2 ** -8]


def test_fmax_fmin_of_integers_and_bools():
    rng = np.random.default_rng(2)
    for dtype in INTS:
        d = NP_DTYPE[dtype]
        info = np.iinfo(d)
        a = rng.integers(info.min, info.max, 300, dtype=d, endpoint=True)
        b = rng.integers(info.min, info.max, 300, dtype=d, endpoint=True)
        assert arr(pt.fmax(pt.from_numpy(a), pt.from_numpy(b))).tolist() == np.fmax(a, b).tolist()
        assert arr(pt.fmin(pt.from_numpy(a), pt.from_numpy(b))).tolist() == np.fmin(a, b).tolist()
    p, q = pt.tensor([True, True, False, False]), pt.tensor([True, False, True, False])
    assert pt.fmax(p, q).tolist() == [True, True, True, False]
    assert pt.fmin(p, q).tolist() == [True, False, False, False]
    assert pt.fmax(pt.tensor([1, 5]), pt.tensor([2.5, float("nan")])).tolist() == [2.5, 5.0]


def _py_gcd(a, b, bits):
    """torch's gcd on two's-complement values of `bits` bits."""
    g = math.gcd(a, b)
    return ((g + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm_match_python(dtype):
    d = NP_DTYPE[dtype]
    info = np.iinfo(d)
    rng = np.random.default_rng(5)
    a = rng.integers(info.min, info.max, 400, dtype=d, endpoint=True)
    b = rng.integers(info.min, info.max, 400, dtype=d, endpoint=True)
    a[:4] = [0, 0, info.min, info.max]
    b[:4] = [0, 7, 0, info.max]
    g = arr(pt.gcd(pt.from_numpy(a), pt.from_numpy(b)))
    bits = np.dtype(d).itemsize * 8
    for x, y, r in zip(a.tolist(), b.tolist(), g.tolist()):
        want = math.gcd(x, y)
        if dtype != pt.uint8:
            want = _py_gcd(x, y, bits)
        assert r == want, (x, y)
    small_a = (a % 50).astype(d)
    small_b = (b % 50).astype(d)
    lcm = arr(pt.lcm(pt.from_numpy(small_a), pt.from_numpy(small_b)))
    assert lcm.tolist() == np.lcm(small_a, small_b).tolist()
    t = pt.from_numpy(small_a.copy())
    assert t.gcd_(pt.from_numpy(small_b)) is t
    assert arr(t).tolist() == np.gcd(small_a, small_b).tolist()


def test_gcd_lcm_refuse_floats_and_bools():
    for fn in ("gcd", "lcm"):
        for dtype, name in ((pt.float32, "Float"), (pt.float64, "Double"), (pt.bool, "Bool"),
                            (pt.float16, "Half")):
            with pytest.raises(NotImplementedError,
                               match=f'"{fn}_cpu" not implemented for \'{name}\''):
                getattr(pt, fn)(pt.ones(2, dtype=dtype), pt.ones(2, dtype=dtype))
    # the integer widths promote
    assert pt.gcd(pt.tensor([4, 6]), pt.tensor([6, 9], dtype=pt.int8)).dtype == pt.int64


def test_refusals_of_binary_functions():
    with pytest.raises(NotImplementedError, match='"hypot_cpu" not implemented for \'Long\''):
        pt.hypot(pt.tensor([1]), pt.tensor([2]))
    with pytest.raises(NotImplementedError, match='"nextafter_cpu" not implemented for \'Int\''):
        pt.nextafter(pt.tensor([1], dtype=pt.int32), pt.tensor([2], dtype=pt.int32))
    with pytest.raises(NotImplementedError,
                       match='"logaddexp2_cpu" not implemented for \'ComplexFloat\''):
        pt.logaddexp2(pt.tensor([1j]), pt.tensor([1j]))
    with pytest.raises(NotImplementedError,
                       match='"copysign_cpu" not implemented for \'ComplexFloat\''):
        pt.copysign(pt.tensor([1j]), pt.tensor([1j]))
    with pytest.raises(RuntimeError, match="fmax not implemented for complex tensors."):
        pt.fmax(pt.tensor([1j]), pt.tensor([1.0]))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with "
                                           "different dtypes."):
        pt.heaviside(pt.tensor([1.0]), pt.tensor([1.0], dtype=pt.float64))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for complex"):
        pt.heaviside(pt.tensor([1j]), pt.tensor([1j]))
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        pt.tensor([1, -2]).copysign_(pt.tensor([1.0, 1.0]))


def test_copysign_promotes_and_takes_scalars():
    i = pt.tensor([1, -2, 3])
    assert pt.copysign(i, -1).dtype == pt.float32
    assert pt.copysign(i, -1).tolist() == [-1.0, -2.0, -3.0]
    assert pt.copysign(i, pt.tensor([-0.0, 0.0, -1.0], dtype=pt.float64)).dtype == pt.float64
    f = pt.tensor([1.0, -2.0])
    assert f.copysign(-0.0).tolist() == [-1.0, -2.0]
    f.copysign_(1)
    assert f.tolist() == [1.0, 2.0]
    o = pt.empty(0)
    assert pt.copysign(f, -2, out=o) is o and o.tolist() == [-1.0, -2.0]


def test_heaviside_of_integers_and_bools():
    x = pt.tensor([-2, 0, 3])
    assert pt.heaviside(x, pt.tensor(7)).tolist() == [0, 7, 1]
    assert pt.heaviside(pt.tensor([True, False]), pt.tensor([False, True])).tolist() == \
        [True, True]
    assert np.array_equal(arr(pt.heaviside(pt.tensor([np.nan, -0.0]), pt.tensor([5.0, 5.0]))),
                          [0.0, 5.0])


def test_inplace_and_out_forms():
    a = pt.from_numpy(rng_values(6, -3, 3).reshape(2, 3))
    b = pt.from_numpy(rng_values(3, -3, 3, seed=4))
    for fn in ("hypot", "nextafter", "copysign"):
        c = a.clone()
        assert getattr(c, fn + "_")(b) is c
        assert same(c, getattr(pt, fn)(a, b)), fn
    for fn in ("hypot", "nextafter", "copysign", "fmax", "fmin", "logaddexp", "logaddexp2",
               "heaviside"):
        o = pt.empty(0, dtype=pt.float64)
        assert getattr(pt, fn)(a, b, out=o) is o
        assert same(o, getattr(pt, fn)(a, b)), fn


# ---------------------------------------------------------------- layouts and sizes

LAYOUT_FNS = ["acosh", "asinh", "deg2rad", "signbit", "isposinf", "hypot", "copysign", "fmax",
              "logaddexp", "gcd", "heaviside", "nextafter"]


def _operand(fn, shape, seed):
    if fn == "gcd":
        return pt.from_numpy(np.random.default_rng(seed).integers(-99, 99, shape))
    lo = 1.0 if fn == "acosh" else -5.0
    return pt.from_numpy(rng_values(int(np.prod(shape)), lo, lo + 10, seed=seed).reshape(shape))


def _apply(fn, *args):
    return getattr(pt, fn)(*args)


@pytest.mark.parametrize("fn", LAYOUT_FNS)
def test_noncontiguous_broadcast_empty_and_0d(fn):
    nargs = 2 if fn in ("hypot", "copysign", "fmax", "logaddexp", "gcd", "heaviside",
                        "nextafter") else 1
    base = [_operand(fn, (5, 6), s) for s in range(nargs)]
    want = _apply(fn, *base)
    # transposed twice, sliced, flipped twice: the same elements through other strides
    views = [b.t().contiguous().t() for b in base]
    assert same(_apply(fn, *views), want)
    flipped = [b.flip(0).flip(1) for b in base]
    assert same(_apply(fn, *flipped).flip(0).flip(1), want)
    wide = [pt.cat([b, b], 1)[:, ::2] for b in base]
    assert same(_apply(fn, *wide), _apply(fn, *[w.contiguous() for w in wide]))
    assert _apply(fn, *[b[:0] for b in base]).shape == (0, 6)
    z = _apply(fn, *[b[1, 2] for b in base])
    assert z.shape == () and z.item() == want[1, 2].item() or (z != z).item()
    if nargs == 2:
        row = base[1][:1]
        assert same(_apply(fn, base[0], row), _apply(fn, base[0], row.expand(5, 6)))
        s = base[1][0, 0]
        assert same(_apply(fn, base[0], s), _apply(fn, base[0], s.expand(5, 6)))


@pytest.mark.parametrize("fn", ["asinh", "hypot", "logaddexp", "gcd", "signbit"])
def test_large_sizes_split_across_threads(fn):
    n = 200_003
    if fn == "gcd":
        a = np.random.default_rng(0).integers(-1000, 1000, n)
        b = np.random.default_rng(1).integers(-1000, 1000, n)
        assert arr(pt.gcd(pt.from_numpy(a), pt.from_numpy(b))).tolist() == np.gcd(a, b).tolist()
        return
    a, b = rng_values(n, -10, 10), rng_values(n, -10, 10, seed=1)
    if fn == "asinh":
        close(pt.asinh(pt.from_numpy(a)), np.arcsinh(a), pt.float64)
    elif fn == "signbit":
        assert np.array_equal(arr(pt.signbit(pt.from_numpy(a))), np.signbit(a))
    else:
        close(getattr(pt, fn)(pt.from_numpy(a), pt.from_numpy(b)),
              getattr(np, fn)(a, b), pt.float64)


def test_float16_computes_in_float32_and_rounds_once():
    x = np.linspace(1.0, 8.0, 57).astype(np.float16)
    got = pt.acosh(pt.from_numpy(x))
    assert got.dtype == pt.float16
    want = np.arccosh(x.astype(np.float32)).astype(np.float16)
    assert np.array_equal(arr(got), want)
    got = pt.hypot(pt.from_numpy(x), pt.from_numpy(x[::-1].copy()))
    assert np.array_equal(arr(got), np.hypot(x.astype(np.float32),
                                             x[::-1].astype(np.float32)).astype(np.float16))


# ---------------------------------------------------------------- gradients

def _d(*shape, lo=-0.9, hi=0.9, seed=0):
    v = rng_values(int(np.prod(shape)), lo, hi, seed=seed).reshape(shape)
    return pt.from_numpy(v).requires_grad_()


GRAD_CASES = {
    "acosh": lambda: (_d(3, 4, lo=1.2, hi=3.0),),
    "asinh": lambda: (_d(3, 4, lo=-3, hi=3),),
    "atanh": lambda: (_d(3, 4),),
    "arccos": lambda: (_d(3, 4),),
    "arcsin": lambda: (_d(3, 4),),
    "arctan": lambda: (_d(3, 4, lo=-3, hi=3),),
    "arccosh": lambda: (_d(3, 4, lo=1.2, hi=3.0),),
    "arcsinh": lambda: (_d(3, 4, lo=-3, hi=3),),
    "arctanh": lambda: (_d(3, 4),),
    "negative": lambda: (_d(3, 4),),
    "square": lambda: (_d(3, 4),),
    "deg2rad": lambda: (_d(3, 4),),
    "rad2deg": lambda: (_d(3, 4),),
    "hypot": lambda: (_d(3, 4, lo=0.5, hi=2), _d(4, lo=-2, hi=-0.5, seed=1)),
    "copysign": lambda: (_d(3, 4, lo=0.5, hi=2), _d(4, lo=-2, hi=2, seed=1)),
    "fmax": lambda: (_d(3, 4, seed=2), _d(3, 4, seed=3)),
    "fmin": lambda: (_d(3, 4, seed=2), _d(1, 4, seed=3)),
    "logaddexp": lambda: (_d(3, 4, lo=-3, hi=3), _d(4, lo=-3, hi=3, seed=1)),
    "logaddexp2": lambda: (_d(3, 4, lo=-3, hi=3), _d(3, 1, lo=-3, hi=3, seed=1)),
    "subtract": lambda: (_d(3, 4), _d(4, seed=1)),
    "multiply": lambda: (_d(3, 4), _d(4, seed=1)),
    "clip": lambda: (_d(3, 4, lo=-2, hi=2), _d(4, lo=-1.5, hi=-0.5, seed=1),
                     _d(4, lo=0.5, hi=1.5, seed=2)),
}


@pytest.mark.parametrize("fn", sorted(GRAD_CASES))
def test_gradcheck(fn):
    args = GRAD_CASES[fn]()
    assert pt.autograd.gradcheck(getattr(pt, fn), args)


def test_gradients_of_scalar_overloads_and_frexp():
    x = _d(5, lo=0.5, hi=3)
    assert pt.autograd.gradcheck(lambda t: pt.copysign(t, -1.0), (x,))
    assert pt.autograd.gradcheck(lambda t: pt.clip(t, 0.8, 2.0), (x,))
    assert pt.autograd.gradcheck(lambda t: pt.frexp(t).mantissa, (x,))
    assert pt.autograd.gradcheck(lambda t: pt.subtract(t, 2, alpha=3), (x,))
    y = pt.fix(x * 3)
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * 5


NODE_NAMES = {
    "acosh": "AcoshBackward0", "arccosh": "AcoshBackward0", "arcsinh": "AsinhBackward0",
    "arctanh": "AtanhBackward0", "arccos": "AcosBackward0", "arcsin": "AsinBackward0",
    "arctan": "AtanBackward0", "negative": "NegBackward0", "square": "PowBackward0",
    "deg2rad": "Deg2RadBackward0", "rad2deg": "Rad2DegBackward0", "hypot": "HypotBackward0",
    "copysign": "CopysignBackward0", "fmax": "FmaxBackward0", "fmin": "FminBackward0",
    "logaddexp": "LogaddexpBackward0", "logaddexp2": "Logaddexp2Backward0",
    "subtract": "SubBackward0", "multiply": "MulBackward0", "clip": "ClampBackward0",
}


@pytest.mark.parametrize("fn", sorted(NODE_NAMES))
def test_node_names(fn):
    y = getattr(pt, fn)(*GRAD_CASES[fn]())
    assert y.grad_fn.name() == NODE_NAMES[fn]


def test_node_names_of_other_overloads():
    x = _d(3)
    assert pt.clip(x, 0, 1).grad_fn.name() == "ClampBackward1"
    assert pt.copysign(x, 2).grad_fn.name() == "CopysignBackward1"
    assert pt.fix(x).grad_fn.name() == "TruncBackward0"
    assert pt.frexp(x).mantissa.grad_fn.name() == "FrexpBackward0"
    assert pt.signbit(x).grad_fn is None and pt.greater(x, 0).grad_fn is None


# ---------------------------------------------------------------- against torch

def to_pt(t):
    if t.dtype == torch.bfloat16:
        return pt.from_numpy(t.float().numpy().copy()).to(pt.bfloat16)
    return pt.from_numpy(t.numpy().copy()).clone()


def to_torch(t):
    if t.dtype == pt.bfloat16:
        return torch.from_numpy(t.to(pt.float32).numpy().copy()).to(torch.bfloat16)
    return torch.from_numpy(np.array(t.numpy()))


ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128"]


def _sample(dtype, n=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    td = getattr(torch, dtype)
    if dtype == "bool":
        return torch.rand(n, generator=g) > 0.5
    if not td.is_floating_point and not td.is_complex:
        lo = 0 if dtype == "uint8" else -50
        return torch.randint(lo, 50, (n,), generator=g, dtype=td)
    if td.is_complex:
        return torch.complex(torch.randn(n, generator=g, dtype=torch.float64),
                             torch.randn(n, generator=g, dtype=torch.float64)).to(td)
    v = torch.randn(n, generator=g, dtype=torch.float64) * 3
    v[:8] = torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 1.5])
    return v.to(td)


def _run(mod, fn, args, conv):
    try:
        return getattr(mod, fn)(*[conv(a) if isinstance(a, torch.Tensor) else a for a in args])
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return e


def _compare(want, got):
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"torch raised {want!r}, pytensor gave {got}"
        assert type(got) is type(want) and str(want).split("\n")[0] in str(got), (want, got)
        return
    assert not isinstance(got, Exception), f"pytensor raised {got!r}"
    if isinstance(want, tuple):
        for w, g in zip(want, got):
            _compare(w, g)
        return
    g = to_torch(got)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype)
    if want.is_floating_point() or want.is_complex():
        # float16: two units in the last place near 1 (torch's vector loops contract some
        # products into FMAs, so results that cancel can round one float32 ulp apart)
        tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 3e-6,
               torch.complex64: 3e-6}.get(want.dtype, 1e-12)
        torch.testing.assert_close(g, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        assert torch.equal(g, want), (g, want)


TORCH_UNARY = """acosh asinh atanh arccos arcsin arctan arccosh arcsinh arctanh negative fix
square positive deg2rad rad2deg signbit isposinf isneginf frexp""".split()
TORCH_BINARY = """hypot copysign nextafter fmax fmin gcd lcm heaviside logaddexp logaddexp2
subtract multiply greater greater_equal less less_equal not_equal""".split()


@requires_torch
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("fn", TORCH_UNARY)
def test_unary_matches_torch(fn, dtype):
    x = _sample(dtype)
    _compare(_run(torch, fn, (x,), lambda a: a), _run(pt, fn, (x,), to_pt))


@requires_torch
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("fn", TORCH_BINARY)
def test_binary_matches_torch(fn, dtype):
    x, y = _sample(dtype), _sample(dtype, seed=1)
    _compare(_run(torch, fn, (x, y), lambda a: a), _run(pt, fn, (x, y), to_pt))


@requires_torch
@pytest.mark.parametrize("pair", [("int64", "float32"), ("int8", "int64"), ("float32", "float64"),
                                  ("bool", "float16"), ("float16", "bfloat16"),
                                  ("uint8", "int8"), ("float32", "complex64")])
@pytest.mark.parametrize("fn", TORCH_BINARY)
def test_mixed_dtypes_promote_like_torch(fn, pair):
    x, y = _sample(pair[0]), _sample(pair[1], seed=1)
    _compare(_run(torch, fn, (x, y), lambda a: a), _run(pt, fn, (x, y), to_pt))
    s = torch.tensor(1.5, dtype=getattr(torch, pair[1]))
    _compare(_run(torch, fn, (x, s), lambda a: a), _run(pt, fn, (x, s), to_pt))


@requires_torch
@pytest.mark.parametrize("fn", ["copysign", "subtract", "multiply", "greater", "not_equal",
                                "less_equal"])
@pytest.mark.parametrize("scalar", [2, -1.5, True])
def test_scalar_overloads_match_torch(fn, scalar):
    for dtype in ("int32", "float32", "float64"):
        x = _sample(dtype)
        _compare(_run(torch, fn, (x, scalar), lambda a: a), _run(pt, fn, (x, scalar), to_pt))


@requires_torch
@pytest.mark.parametrize("fn", TORCH_UNARY[:11] + ["deg2rad", "rad2deg"])
def test_inplace_matches_torch(fn):
    if fn in ("positive",):
        return
    for dtype in ("int64", "float32", "float64"):
        x = _sample(dtype)
        tx, px = x.clone(), to_pt(x)
        want = _run(torch.Tensor, fn + "_", (tx,), lambda a: a)
        got = _run(pt.Tensor, fn + "_", (px,), lambda a: a)
        if isinstance(want, Exception):
            _compare(want, got)
        else:
            assert got is px
            _compare(tx, px)


@requires_torch
def test_gradients_match_torch():
    for fn in sorted(GRAD_CASES):
        args = GRAD_CASES[fn]()
        targs = [torch.from_numpy(a.detach().numpy().copy()).requires_grad_() for a in args]
        y, ty = getattr(pt, fn)(*args), getattr(torch, fn)(*targs)
        assert y.grad_fn.name() == ty.grad_fn.name(), fn
        y.sum().backward()
        ty.sum().backward()
        for a, ta in zip(args, targs):
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)


def _ulps(got, want):
    """Distance in float32 units in the last place (finite values of one sign)."""
    g = got.astype(np.float32).view(np.int32).astype(np.int64)
    w = want.astype(np.float32).view(np.int32).astype(np.int64)
    return np.abs(g - w)


@pytest.mark.parametrize("fn", ["hypot", "logaddexp", "logaddexp2"])
def test_float32_within_one_ulp_of_the_exact_value(fn):
    """The float32 loops compute in double (vectorized) and round once: within 1 ulp of the
    double-precision result rounded to float32, over a wide range of magnitudes."""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal(200_000) * 10.0 ** rng.integers(-6, 6, 200_000)).astype(np.float32)
    b = (rng.standard_normal(200_000) * 10.0 ** rng.integers(-6, 6, 200_000)).astype(np.float32)
    if fn == "hypot":
        a = np.abs(a)  # one sign of result keeps the ulp distance meaningful
    got = arr(getattr(pt, fn)(pt.from_numpy(a), pt.from_numpy(b)))
    want = getattr(np, fn)(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    same_sign = np.signbit(got) == np.signbit(want)
    assert same_sign[np.abs(want) > 1e-30].all()
    assert _ulps(got[same_sign], want[same_sign]).max() <= 1


def _by_capability(compute):
    """compute() under every capability this CPU has, restoring the one in use afterwards."""
    from pytensor._C import lib
    detected = lib.pt_cpu_capability_detected()
    results = []
    try:
        for cap in range(detected + 1):
            assert lib.pt_cpu_capability_select(cap) == 0
            results.append(compute())
    finally:
        lib.pt_cpu_capability_select(lib.pt_cpu_capability())
    return results


CAP_CALLS = {
    "acosh": lambda a, b: pt.acosh(a.abs() + 1), "asinh": lambda a, b: pt.asinh(a),
    "deg2rad": lambda a, b: pt.deg2rad(a), "signbit": lambda a, b: pt.signbit(a),
    "frexp": lambda a, b: pt.frexp(a).mantissa, "hypot": pt.hypot, "copysign": pt.copysign,
    "nextafter": pt.nextafter, "fmax": pt.fmax, "fmin": pt.fmin, "heaviside": pt.heaviside,
    "logaddexp": pt.logaddexp, "logaddexp2": pt.logaddexp2, "ldexp": pt.ldexp,
    "addcmul": lambda a, b: pt.addcmul(a, b, a, value=0.5),
    "addcdiv": lambda a, b: pt.addcdiv(a, b, a, value=0.5),
    "lerp": lambda a, b: pt.lerp(a, b, 0.7), "lerp_tensor": lambda a, b: pt.lerp(a, b, b),
    "isclose": lambda a, b: pt.isclose(a, b, rtol=0.1),
    "isin": lambda a, b: pt.isin(a, b[:50]),
}


@pytest.mark.capability_independent  # selects every capability itself
@pytest.mark.parametrize("dtype", [pt.float32, pt.float64, pt.float16])
def test_every_capability_matches_the_default(dtype):
    """The AVX2 and AVX-512 tables give the default (portable) table's bits."""
    a = pt.from_numpy(np.round(rng_values(1001, -4, 4), 1)).to(dtype)
    b = pt.from_numpy(np.round(rng_values(1001, -4, 4, seed=1), 1)).to(dtype)
    a, b = a[1:], b[1:]  # a misaligned start and a tail for the vector loops

    def compute():
        return {k: f(a, b).to(pt.float64).numpy().tobytes() for k, f in CAP_CALLS.items()}
    results = _by_capability(compute)
    for r in results[1:]:
        for key in CAP_CALLS:
            assert r[key] == results[0][key], key
