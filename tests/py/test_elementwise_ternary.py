"""ldexp, float_power, isreal, addcmul, addcdiv and lerp: values against NumPy on every machine
and against torch where installed (dtypes, promotion, in-place and out= forms, refusals),
broadcasting and strided operands, gradients (gradcheck in float64) and node names."""
import numpy as np
import pytest

import pytensor as pt
from _torch_oracle import requires_torch, torch
from test_elementwise_more import (ALL_DTYPES, _compare, _run, _sample, arr, close, rng_values,
                                   same, to_pt)


def _f(*shape, lo=-3.0, hi=3.0, seed=0, dtype=np.float64):
    return pt.from_numpy(rng_values(int(np.prod(shape)), lo, hi, dtype, seed).reshape(shape))


# ---------------------------------------------------------------- ldexp

def test_ldexp_matches_numpy():
    x = rng_values(300, -5, 5)
    e = np.random.default_rng(1).integers(-60, 60, 300)
    got = pt.ldexp(pt.from_numpy(x), pt.from_numpy(e))
    assert got.dtype == pt.float64
    assert np.array_equal(arr(got), np.ldexp(x, e))
    f = x.astype(np.float32)
    got = pt.ldexp(pt.from_numpy(f), pt.from_numpy(e.astype(np.int32)))
    assert got.dtype == pt.float32 and np.array_equal(arr(got), np.ldexp(f, e))
    assert pt.ldexp(pt.tensor([1, 2]), pt.tensor([1, 2])).tolist() == [2.0, 8.0]
    assert pt.ldexp(pt.tensor([1, 2]), pt.tensor([1, 2])).dtype == pt.float32
    assert pt.ldexp(pt.tensor([3.0]), pt.tensor([0.5])).item() == pytest.approx(3 * 2 ** 0.5)
    z = pt.ldexp(pt.tensor([1 + 2j]), pt.tensor([3]))
    assert z.dtype == pt.complex64 and z.tolist() == [8 + 16j]


def test_ldexp_inplace_and_out():
    x = pt.tensor([1.0, 3.0], dtype=pt.float64)
    assert x.ldexp_(pt.tensor([2, -1])) is x and x.tolist() == [4.0, 1.5]
    assert pt.ldexp_(x, pt.tensor([1])) is x and x.tolist() == [8.0, 3.0]
    o = pt.empty(0, dtype=pt.float64)
    assert pt.ldexp(x, pt.tensor([1]), out=o) is o and o.tolist() == [16.0, 6.0]
    with pytest.raises(RuntimeError, match="ldexp can't be cast to the desired output type Long"):
        pt.ldexp_(pt.tensor([1, 2]), pt.tensor([1]))


# ---------------------------------------------------------------- float_power

def test_float_power_computes_in_double():
    b = rng_values(50, 0.1, 4.0, np.float32)
    e = rng_values(50, -3, 3, np.float32, seed=1)
    got = pt.float_power(pt.from_numpy(b), pt.from_numpy(e))
    assert got.dtype == pt.float64
    close(got, np.float_power(b, e), pt.float64)
    got = pt.float_power(pt.tensor([2, 3]), 2)
    assert got.dtype == pt.float64 and got.tolist() == [4.0, 9.0]
    got = pt.float_power(2, pt.tensor([0.5, 3]))
    assert got.dtype == pt.float64
    close(got, np.float_power(2.0, [0.5, 3.0]), pt.float64)
    z = pt.float_power(pt.tensor([2]), 1j)
    assert z.dtype == pt.complex128
    np.testing.assert_allclose(arr(z), np.float_power(2.0 + 0j, 1j), rtol=1e-13)
    assert pt.tensor([1.5]).float_power(pt.tensor([2j])).dtype == pt.complex128


def test_float_power_inplace_and_out_need_double():
    x = pt.tensor([4.0, 9.0], dtype=pt.float64)
    assert x.float_power_(0.5) is x and x.tolist() == [2.0, 3.0]
    assert x.float_power_(pt.tensor([2.0, 1.0])) is x and x.tolist() == [4.0, 3.0]
    msg = "the base given to float_power_ has dtype Float but the operation's result requires " \
          "dtype Double"
    with pytest.raises(RuntimeError, match=msg):
        pt.tensor([1.0]).float_power_(2)
    with pytest.raises(RuntimeError, match=msg):
        pt.tensor([1.0]).float_power_(pt.tensor([2.0]))
    o = pt.empty(0, dtype=pt.float64)
    assert pt.float_power(pt.tensor([3]), 2, out=o) is o and o.tolist() == [9.0]
    assert pt.float_power(2, pt.tensor([3]), out=o) is o and o.tolist() == [8.0]
    assert pt.float_power(pt.tensor([3]), pt.tensor([2]), out=o) is o and o.tolist() == [9.0]
    with pytest.raises(RuntimeError, match="the output given to float_power has dtype Float but "
                                           "the operation's result requires dtype Double"):
        pt.float_power(pt.tensor([3]), 2, out=pt.empty(1))


def test_float_power_nodes_and_gradients():
    x = _f(4, lo=0.5, hi=2).requires_grad_()
    e = _f(4, seed=1).requires_grad_()
    assert pt.float_power(x, e).grad_fn.name() == "PowBackward1"
    assert pt.float_power(x, 2).grad_fn.name() == "PowBackward0"
    assert pt.float_power(2, e).grad_fn.name() == "PowBackward2"
    assert pt.autograd.gradcheck(pt.float_power, (x, e))
    xf = pt.tensor([1.5, 2.0], requires_grad=True)
    y = pt.float_power(xf, 3)
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    y.sum().backward()
    assert xf.grad.dtype == pt.float32 and xf.grad.tolist() == [6.75, 12.0]


# ---------------------------------------------------------------- isreal

def test_isreal_matches_numpy():
    z = np.array([1 + 0j, 1j, -0.0 + 0j, np.nan + 0j, 2 - 1e-300j])
    assert arr(pt.isreal(pt.from_numpy(z))).tolist() == np.isreal(z).tolist()
    for dtype in (pt.bool, pt.int32, pt.float16, pt.float64):
        r = pt.ones(2, 3).to(dtype).isreal()
        assert r.dtype == pt.bool and r.shape == (2, 3) and bool(r.all())


# ---------------------------------------------------------------- addcmul, addcdiv

def test_addcmul_addcdiv_match_numpy():
    a, b, c = (rng_values(60, -3, 3, seed=s).reshape(3, 4, 5) for s in range(3))
    c = np.where(np.abs(c) < 0.1, 0.5, c)
    for value in (1, 0.5, -2):
        got = pt.addcmul(pt.from_numpy(a), pt.from_numpy(b), pt.from_numpy(c), value=value)
        close(got, a + value * b * c, pt.float64)
        got = pt.addcdiv(pt.from_numpy(a), pt.from_numpy(b), pt.from_numpy(c), value=value)
        close(got, a + value * b / c, pt.float64)
    # broadcast operands
    got = pt.addcmul(pt.from_numpy(a[0, 0]), pt.from_numpy(b[:, :1, :]), pt.from_numpy(c[0]))
    close(got, a[0, 0] + b[:, :1, :] * c[0], pt.float64)


def test_addcmul_of_integers_wraps_and_truncates_value():
    i = pt.tensor([1, 2])
    assert pt.addcmul(i, i, i, value=2).tolist() == [3, 10]
    assert pt.addcmul(i, i, i, value=0.5).tolist() == [1, 2]
    big = pt.tensor([100], dtype=pt.int8)
    assert pt.addcmul(big, big, big).tolist() == [(100 + 100 * 100 + 128) % 256 - 128]
    assert pt.addcmul(i, i, pt.tensor([1.5, 2.0])).dtype == pt.float32


def test_addcmul_addcdiv_refusals():
    i = pt.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        pt.addcdiv(pt.tensor([1.0, 2.0]), i, i)
    with pytest.raises(NotImplementedError, match='"addcmul_cpu_out" not implemented for '
                                                  "'Bool'"):
        b = pt.tensor([True])
        pt.addcmul(b, b, b)
    f = pt.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without "
                                           "overflow"):
        pt.addcmul(f, f, f, value=1j)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast "
                                           r"shape \[2, 2\]"):
        f.clone().addcmul_(f, f.view(2, 1))


def test_addcmul_addcdiv_inplace_and_out():
    a, b, c = _f(2, 3), _f(3, seed=1), _f(2, 1, lo=1, hi=2, seed=2)
    for fn in ("addcmul", "addcdiv"):
        want = getattr(pt, fn)(a, b, c, value=1.5)
        d = a.clone()
        assert getattr(d, fn + "_")(b, c, value=1.5) is d and same(d, want)
        o = pt.empty(0, dtype=pt.float64)
        assert getattr(pt, fn)(a, b, c, value=1.5, out=o) is o and same(o, want)
        assert same(getattr(a, fn)(b, c, value=1.5), want)


# ---------------------------------------------------------------- lerp

def _np_lerp(x, e, w):
    return np.where(np.abs(w) < 0.5, x + w * (e - x), e - (e - x) * (1 - w))


def test_lerp_matches_numpy():
    x, e = rng_values(200, -5, 5), rng_values(200, -5, 5, seed=1)
    w = rng_values(200, -0.5, 1.5, seed=2)
    close(pt.lerp(pt.from_numpy(x), pt.from_numpy(e), pt.from_numpy(w)), _np_lerp(x, e, w),
          pt.float64)
    for weight in (0.0, 0.3, 0.5, 1.0, 2.0):
        got = pt.lerp(pt.from_numpy(x), pt.from_numpy(e), weight)
        close(got, _np_lerp(x, e, np.float64(weight)), pt.float64)
    assert np.array_equal(arr(pt.lerp(pt.from_numpy(x), pt.from_numpy(e), 1.0)), e)
    z = pt.lerp(pt.tensor([1 + 1j]), pt.tensor([3 - 1j]), 0.25)
    assert z.dtype == pt.complex64 and z.tolist() == [1.5 + 0.5j]


def test_lerp_dtype_rules():
    f, d = pt.tensor([1.0, 2.0]), pt.tensor([1.0, 2.0], dtype=pt.float64)
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        pt.lerp(f, d, 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype "
                                           "double"):
        pt.lerp(f, f, d)
    with pytest.raises(NotImplementedError, match='"lerp_kernel_scalar" not implemented for '
                                                  "'Long'"):
        pt.lerp(pt.tensor([1]), pt.tensor([2]), 0.5)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float"):
        pt.lerp(f, f, 2j)
    # a 0-d weight of another dtype is read in self's
    assert pt.lerp(f, f * 3, pt.tensor(0.5, dtype=pt.float64)).tolist() == [2.0, 4.0]
    h = pt.lerp(pt.tensor([1.0], dtype=pt.float16), pt.tensor([2.0], dtype=pt.float16), 0.3)
    assert h.dtype == pt.float16 and abs(h.item() - 1.3) < 1e-3


def test_lerp_inplace_and_out():
    x, e, w = _f(2, 3), _f(3, seed=1), _f(2, 1, lo=0, hi=1, seed=2)
    for weight in (0.25, w):
        want = pt.lerp(x, e, weight)
        y = x.clone()
        assert y.lerp_(e, weight) is y and same(y, want)
        o = pt.empty(0, dtype=pt.float64)
        assert pt.lerp(x, e, weight, out=o) is o and same(o, want)
        assert same(x.lerp(e, weight), want)


@pytest.mark.parametrize("fn", ["addcmul", "addcdiv", "lerp"])
def test_strided_and_large_operands(fn):
    n = 70_001  # past the threading threshold
    a, b = _f(n), _f(n, seed=1)
    c = _f(n, lo=0.5, hi=2, seed=2)
    want = getattr(pt, fn)(a, b, c)
    assert same(getattr(pt, fn)(a.flip(0), b.flip(0), c.flip(0)).flip(0), want)
    a2, b2, c2 = (pt.stack([t, t], 1)[:, 0] for t in (a, b, c))
    assert same(getattr(pt, fn)(a2, b2, c2), want)
    assert getattr(pt, fn)(a[:0], b[:0], c[:0]).shape == (0,)
    assert getattr(pt, fn)(a[3], b[3], c[3]).item() == want[3].item()


# ---------------------------------------------------------------- gradients

def test_gradients_and_node_names():
    x, e = _f(3, 4).requires_grad_(), _f(4, seed=1).requires_grad_()
    w = _f(3, 1, lo=0, hi=1, seed=2).requires_grad_()
    t2 = _f(3, 1, lo=0.5, hi=2, seed=3).requires_grad_()
    cases = [
        (lambda a, b, c: pt.addcmul(a, b, c, value=0.5), (x, e, w), "AddcmulBackward0"),
        (lambda a, b, c: pt.addcdiv(a, b, c, value=-2), (x, e, t2), "AddcdivBackward0"),
        (lambda a, b: pt.lerp(a, b, 0.3), (x, e), "LerpBackward0"),
        (pt.lerp, (x, e, w), "LerpBackward1"),
        (pt.ldexp, (x, e), "LdexpBackward0"),
    ]
    for fn, args, node in cases:
        assert fn(*args).grad_fn.name() == node
        assert pt.autograd.gradcheck(fn, args), node


# ---------------------------------------------------------------- against torch

@requires_torch
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("fn", ["addcmul", "addcdiv", "lerp", "ldexp", "float_power", "isreal"])
def test_matches_torch(fn, dtype):
    x, y, z = _sample(dtype), _sample(dtype, seed=1), _sample(dtype, seed=2)
    args = {"addcmul": (x, y, z), "addcdiv": (x, y, z), "lerp": (x, y, z), "ldexp": (x, y),
            "float_power": (x, y), "isreal": (x,)}[fn]
    _compare(_run(torch, fn, args, lambda a: a), _run(pt, fn, args, to_pt))
    if fn == "lerp":
        _compare(_run(torch, fn, (x, y, 0.7), lambda a: a), _run(pt, fn, (x, y, 0.7), to_pt))
    if fn == "float_power":
        _compare(_run(torch, fn, (x, 2.5), lambda a: a), _run(pt, fn, (x, 2.5), to_pt))
        _compare(_run(torch, fn, (3, x), lambda a: a), _run(pt, fn, (3, x), to_pt))


@requires_torch
@pytest.mark.parametrize("pair", [("int64", "float32"), ("float32", "float64"),
                                  ("int32", "int8"), ("float16", "float32"), ("bool", "int64")])
@pytest.mark.parametrize("fn", ["addcmul", "addcdiv", "ldexp", "float_power"])
def test_mixed_dtypes_match_torch(fn, pair):
    x, y = _sample(pair[0]), _sample(pair[1], seed=1)
    args = (x, y, y) if fn.startswith("addc") else (x, y)
    _compare(_run(torch, fn, args, lambda a: a), _run(pt, fn, args, to_pt))
    if fn == "addcmul":
        _compare(_run(torch, fn, (x, x, x), lambda a: a), _run(pt, fn, (x, x, x), to_pt))


@requires_torch
def test_gradients_match_torch():
    x, e = rng_values(12, -2, 2).reshape(3, 4), rng_values(4, -2, 2, seed=1)
    w = rng_values(3, 0.5, 2, seed=2).reshape(3, 1)
    calls = [("addcmul", lambda m, a, b, c: m.addcmul(a, b, c, value=0.5)),
             ("addcdiv", lambda m, a, b, c: m.addcdiv(a, b, c, value=3)),
             ("lerp", lambda m, a, b, c: m.lerp(a, b, c)),
             ("lerp", lambda m, a, b, c: m.lerp(a, b, 0.8)),
             ("ldexp", lambda m, a, b, c: m.ldexp(a, b)),
             ("float_power", lambda m, a, b, c: m.float_power(a.abs() + 0.5, b))]
    for name, call in calls:
        pa = [pt.from_numpy(v.copy()).requires_grad_() for v in (x, e, w)]
        ta = [torch.from_numpy(v.copy()).requires_grad_() for v in (x, e, w)]
        y, ty = call(pt, *pa), call(torch, *ta)
        assert y.grad_fn.name() == ty.grad_fn.name(), name
        np.testing.assert_allclose(arr(y.detach()), ty.detach().numpy(), rtol=1e-12)
        y.sum().backward()
        ty.sum().backward()
        for p, t in zip(pa, ta):
            if t.grad is None:
                assert p.grad is None or not bool(p.grad.any()), name
            else:
                np.testing.assert_allclose(arr(p.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- complex gradients

COMPLEX_GRAD_CALLS = {
    "acosh": lambda m, x: m.acosh(x), "asinh": lambda m, x: m.asinh(x),
    "atanh": lambda m, x: m.atanh(x), "arccos": lambda m, x: m.arccos(x),
    "arcsinh": lambda m, x: m.arcsinh(x), "negative": lambda m, x: m.negative(x),
    "subtract": lambda m, x: m.subtract(x, x * 2, alpha=2),
    "multiply": lambda m, x: m.multiply(x, x), "logaddexp": lambda m, x: m.logaddexp(x, x * 2),
    "addcmul": lambda m, x: m.addcmul(x, x, x, value=0.5),
    "addcdiv": lambda m, x: m.addcdiv(x, x, x + 1), "lerp": lambda m, x: m.lerp(x, x * 2, 0.3),
    "lerp_tensor": lambda m, x: m.lerp(x, x * 2, x),
}


@requires_torch
@pytest.mark.parametrize("fn", sorted(COMPLEX_GRAD_CALLS))
def test_complex_gradients_match_torch(fn):
    z = np.array([0.3 + 0.2j, -0.5 + 0.7j, 0.1 - 0.4j])
    px = pt.from_numpy(z.copy()).requires_grad_()
    tx = torch.from_numpy(z.copy()).requires_grad_()
    y, ty = COMPLEX_GRAD_CALLS[fn](pt, px), COMPLEX_GRAD_CALLS[fn](torch, tx)
    assert y.grad_fn.name() == ty.grad_fn.name()
    y.abs().sum().backward()
    ty.abs().sum().backward()
    np.testing.assert_allclose(arr(px.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", ["acosh", "atanh", "logaddexp", "addcmul", "lerp"])
def test_complex_gradcheck(fn):
    z = pt.from_numpy(np.array([0.3 + 0.2j, -0.5 + 0.7j, 0.1 - 0.4j])).requires_grad_()
    assert pt.autograd.gradcheck(lambda x: COMPLEX_GRAD_CALLS[fn](pt, x), (z,))
