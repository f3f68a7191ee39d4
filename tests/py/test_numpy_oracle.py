"""Every operator family against NumPy (or exact arithmetic) as the oracle, so that a machine without
torch still checks every kernel: binary arithmetic, division, bitwise and comparison loops, the
unary functions, reductions and scans, softmax, sorting and sets, the shape and gather/scatter
operators, matrix products, advanced indexing, the Python operators and the structseq results.
The files named after each family compare against torch where it is installed; these cases
cover the same kernels with same-dtype operands (where NumPy's promotion and torch's agree) over
contiguous, transposed and sliced inputs, sizes on both sides of the thread split."""
import math
import operator

import numpy as np
import pytest

import pytensor as pt

INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]
REALS = INTS + ["float16"] + FLOATS
COMPLEX = ["complex64", "complex128"]
RNG = np.random.default_rng(0)


def P(a) -> pt.Tensor:
    """A pytensor copy of a NumPy array (its own memory, same dtype and shape)."""
    return pt.from_numpy(np.array(a, copy=True))


def sample(dtype: str, shape=(5, 7), low=-9, high=10, nonzero=False) -> np.ndarray:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype in INTS:
        info = np.iinfo(dtype)
        a = RNG.integers(max(low, info.min), min(high, info.max), shape).astype(dtype)
    elif dtype in COMPLEX:
        a = (RNG.uniform(low, high, shape) + 1j * RNG.uniform(low, high, shape)).astype(dtype)
    else:
        a = RNG.uniform(low, high, shape).astype(dtype)
    if nonzero:
        a[a == 0] = 1
    return a


def layouts(a: np.ndarray):
    """The same values as contiguous, transposed and sliced NumPy arrays with the pytensor views
    of the same layout."""
    t = P(a)
    yield "contiguous", a, t
    if a.ndim >= 2:
        yield "transposed", a.T, t.t()
        yield "sliced", a[::2, 1:], t[::2, 1:]


def check(got: pt.Tensor, want, dtype=None, rtol=None, atol=0.0):
    want = np.asarray(want)
    assert isinstance(got, pt.Tensor)
    assert tuple(got.shape) == want.shape
    assert str(got.dtype) == f"pytensor.{dtype or want.dtype}"
    g = got.numpy()
    if rtol is None:
        np.testing.assert_array_equal(g, want.astype(g.dtype))
    else:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True)


def tol(dtype: str) -> float:
    return {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6}.get(dtype, 1e-12)


# ------------------------------------------------------------------ binary arithmetic and division
ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
         "minimum": np.minimum}


@pytest.mark.parametrize("dtype", REALS + COMPLEX[:1])
@pytest.mark.parametrize("name", sorted(ARITH))
def test_arithmetic_matches_numpy(name, dtype):
    if dtype in COMPLEX and name in ("maximum", "minimum"):
        pytest.skip("complex numbers have no order")
    b = sample(dtype, (7,))
    rtol = tol(dtype) if dtype in ("float16", "complex64") else None
    for kind, a, t in layouts(sample(dtype, (5, 7))):
        bb = b[: a.shape[1]]
        with np.errstate(over="ignore"):
            want = ARITH[name](a, bb)
        check(getattr(pt, name)(t, P(bb)), want, rtol=rtol)


@pytest.mark.parametrize("n", [1, 7, 100, 70_001])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_add_and_mul_across_the_thread_split(dtype, n):
    a, b = sample(dtype, (n,)), sample(dtype, (n,))
    check(pt.add(P(a), P(b)), a + b)
    check(pt.mul(P(a), P(b)), a * b, rtol=None if dtype == "int32" else 1e-15)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_floors_as_python(dtype):
    low = 0 if dtype == "uint8" else -9
    a, b = sample(dtype, (6, 5), low=low), sample(dtype, (5,), low=low, nonzero=True)
    check(pt.floor_divide(P(a), P(b)), np.floor_divide(a, b))
    check(pt.remainder(P(a), P(b)), np.remainder(a, b))
    check(pt.div(P(a), P(b)), a.astype(np.float64) / b, dtype="float32", rtol=1e-6)
    check(pt.div(P(a), P(b), rounding_mode="trunc"), np.trunc(a.astype(np.float64) / b).astype(dtype))


@pytest.mark.parametrize("dtype", FLOATS + ["float16"])
def test_float_division_matches_numpy(dtype):
    a, b = sample(dtype, (6, 5)), sample(dtype, (6, 5), nonzero=True)
    check(pt.div(P(a), P(b)), a / b, rtol=tol(dtype))
    check(pt.floor_divide(P(a), P(b)), np.floor_divide(a, b), rtol=tol(dtype))
    check(pt.remainder(P(a), P(b)), np.remainder(a, b), rtol=tol(dtype), atol=tol(dtype) * 10)
    check(pt.fmod(P(a), P(b)), np.fmod(a, b), rtol=tol(dtype), atol=tol(dtype) * 10)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_pow_matches_exact_powers(dtype):
    a = sample(dtype, (4, 6), low=-5, high=6)
    e = np.floor(sample(dtype, (6,), low=0, high=4))  # whole exponents: exact, and no NaN
    check(pt.pow(P(a), P(e)), np.power(a, e), rtol=None if dtype in INTS else tol(dtype))


@pytest.mark.parametrize("dtype", ["bool"] + INTS)
def test_bitwise_matches_numpy(dtype):
    a, b = sample(dtype, (5, 6)), sample(dtype, (6,))
    for name, fn in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                     ("bitwise_xor", np.bitwise_xor)):
        check(getattr(pt, name)(P(a), P(b)), fn(a, b))
    check(pt.bitwise_not(P(a)), np.invert(a))
    if dtype != "bool":
        s = sample(dtype, (6,), low=0, high=3)
        check(pt.bitwise_left_shift(P(a), P(s)), np.left_shift(a, s))
        check(pt.bitwise_right_shift(P(a), P(s)), np.right_shift(a, s))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64"])
def test_comparisons_match_numpy(dtype):
    a, b = sample(dtype, (5, 6), low=-2, high=3), sample(dtype, (6,), low=-2, high=3)
    for name, fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                     ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
        for kind, x, t in layouts(a):
            check(getattr(pt, name)(t, P(b[: x.shape[1]])), fn(x, b[: x.shape[1]]))
    for name, fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                     ("logical_xor", np.logical_xor)):
        check(getattr(pt, name)(P(a), P(b)), fn(a, b))


def test_type_promotion_of_mixed_dtypes_follows_the_common_rules():
    # Cases where NumPy, torch and the C standard agree.
    i8, u8, f32 = sample("int8", (4,)), sample("uint8", (4,), low=0), sample("float32", (4,))
    check(pt.add(P(i8), P(u8)), i8.astype(np.int16) + u8)
    check(pt.mul(P(i8), P(f32)), i8 * f32, rtol=1e-6)
    check(pt.add(P(f32), P(f32.astype(np.float64))), f32.astype(np.float64) * 2, rtol=1e-15)
    check(pt.add(P(i8), 3), i8 + np.int8(3))  # a Python int keeps the tensor's dtype


# ------------------------------------------------------------------ unary functions
UNARY = {  # name -> (NumPy function, domain low, high)
    "abs": (np.abs, -9, 9), "neg": (np.negative, -9, 9), "exp": (np.exp, -20, 20),
    "exp2": (np.exp2, -20, 20), "expm1": (np.expm1, -5, 5), "log": (np.log, 0.01, 50),
    "log2": (np.log2, 0.01, 50), "log10": (np.log10, 0.01, 50), "log1p": (np.log1p, -0.9, 50),
    "sqrt": (np.sqrt, 0, 50), "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 50),
    "reciprocal": (np.reciprocal, 0.5, 9), "sin": (np.sin, -6, 6), "cos": (np.cos, -6, 6),
    "tan": (np.tan, -1.2, 1.2), "asin": (np.arcsin, -1, 1), "acos": (np.arccos, -1, 1),
    "atan": (np.arctan, -9, 9), "sinh": (np.sinh, -5, 5), "cosh": (np.cosh, -5, 5),
    "tanh": (np.tanh, -9, 9), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -20, 20),
    "erf": (np.vectorize(math.erf), -3, 3), "erfc": (np.vectorize(math.erfc), -3, 3),
    "floor": (np.floor, -9, 9), "ceil": (np.ceil, -9, 9), "trunc": (np.trunc, -9, 9),
    "round": (np.round, -9, 9), "sign": (np.sign, -9, 9), "frac": (lambda x: x - np.trunc(x), -9, 9),
    "relu": (lambda x: np.maximum(x, 0), -9, 9),
    "silu": (lambda x: x / (1 + np.exp(-x)), -9, 9),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_function_matches_numpy(name, dtype):
    fn, low, high = UNARY[name]
    a = RNG.uniform(low, high, (9, 33)).astype(dtype)
    if name == "round":
        a[0, :4] = [0.5, 1.5, 2.5, -0.5]  # halves to even, as NumPy and torch
    want = fn(a.astype(np.float64))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for kind, x, t in layouts(a):
        w = want if kind == "contiguous" else (want.T if kind == "transposed" else want[::2, 1:])
        fn_ = getattr(pt, name, None) or getattr(pt._C._nn, name)  # silu: torch._C._nn's
        check(fn_(t), w.astype(dtype), rtol=rtol, atol=rtol)
    inplace = P(a)
    if hasattr(inplace, name + "_"):
        assert getattr(inplace, name + "_")() is inplace
        check(inplace, want.astype(dtype), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("n", [8, 40_000, 100_003])
def test_exp_and_tanh_across_the_thread_split(n):
    a = RNG.uniform(-30, 30, n).astype(np.float32)
    check(pt.exp(P(a)), np.exp(a.astype(np.float64)).astype(np.float32), rtol=1e-6)
    check(pt.tanh(P(a)), np.tanh(a.astype(np.float64)).astype(np.float32), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_unary_functions_are_exact(dtype):
    a = sample(dtype, (4, 5), low=-9 if dtype != "uint8" else 0)
    check(pt.abs(P(a)), np.abs(a))
    check(pt.sign(P(a)), np.sign(a))
    check(pt.clamp(P(a), 1, 5), np.clip(a, 1, 5))
    check(pt.sqrt(P(np.abs(a))), np.sqrt(np.abs(a).astype(np.float64)), dtype="float32",
          rtol=1e-6)


def test_special_values_and_where():
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype=np.float32)
    check(pt.isnan(P(a)), np.isnan(a))
    check(pt.isinf(P(a)), np.isinf(a))
    check(pt.isfinite(P(a)), np.isfinite(a))
    check(pt.nan_to_num(P(a)), np.nan_to_num(a))
    with np.errstate(invalid="ignore"):
        check(pt.exp(P(a)), np.exp(a), rtol=1e-6)  # exp is within 1 ulp
    c, x, y = sample("bool", (3, 4)), sample("float32", (3, 4)), sample("float32", (4,))
    check(pt.where(P(c), P(x), P(y)), np.where(c, x, y))


# ------------------------------------------------------------------ reductions and scans
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sums_and_extrema_match_numpy(dtype, dim, keepdim):
    a = sample(dtype, (4, 5, 6))
    t = P(a)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    axis = dim
    nk = keepdim if dim is not None else False
    want_sum = a.astype(np.float64 if dtype in FLOATS else np.int64).sum(axis=axis, keepdims=nk)
    check(pt.sum(t, **kw), want_sum.astype(dtype if dtype in FLOATS else "int64"), rtol=rtol,
          atol=rtol * 100)
    if dim is None:
        check(pt.amax(t), a.max())
        check(pt.amin(t), a.min())
    else:
        check(pt.amax(t, dim, keepdim), a.max(axis=dim, keepdims=keepdim))
        check(pt.amin(t, dim, keepdim), a.min(axis=dim, keepdims=keepdim))
    if dtype in FLOATS:
        check(pt.mean(t, **kw), a.mean(axis=axis, keepdims=nk, dtype=np.float64).astype(dtype),
              rtol=rtol, atol=rtol * 100)


@pytest.mark.parametrize("dtype", FLOATS)
def test_statistics_and_norms_match_numpy(dtype):
    a = sample(dtype, (6, 9))
    t = P(a)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for dim in (0, 1):
        check(pt.var(t, dim), a.var(axis=dim, ddof=1), rtol=rtol)
        check(pt.std(t, dim, correction=0), a.std(axis=dim), rtol=rtol)
        check(pt.prod(t, dim), a.astype(np.float64).prod(axis=dim).astype(dtype), rtol=rtol)
        m = a.max(axis=dim, keepdims=True)
        lse = (np.log(np.exp(a - m).sum(axis=dim, keepdims=True)) + m).squeeze(dim)
        check(pt.logsumexp(t, dim), lse, rtol=rtol)
        check(pt.norm(t, dim=dim), np.linalg.norm(a.astype(np.float64), axis=dim).astype(dtype),
              rtol=rtol)
    check(pt.linalg.vector_norm(t, 1), np.abs(a).sum(dtype=np.float64).astype(dtype), rtol=rtol)


@pytest.mark.parametrize("dtype", ["int16", "int64", "float32", "float64"])
def test_arg_extrema_take_the_first_of_ties(dtype):
    a = sample(dtype, (7, 50), low=-3, high=3)
    t = P(a)
    for dim in (0, 1):
        check(pt.argmax(t, dim), a.argmax(axis=dim))
        check(pt.argmin(t, dim), a.argmin(axis=dim))
        values, indices = pt.max(t, dim)
        check(values, a.max(axis=dim))
        check(indices, a.argmax(axis=dim))
    check(pt.argmax(t), np.int64(a.argmax()))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_scans_match_numpy(dtype):
    a = sample(dtype, (5, 8), low=-3, high=4)
    out = "int64" if dtype in INTS else dtype
    for dim in (0, 1):
        check(pt.cumsum(P(a), dim), np.cumsum(a, axis=dim, dtype=out))
        check(pt.cumprod(P(a), dim), np.cumprod(a, axis=dim, dtype=out))


def test_all_any_and_a_long_float_sum():
    b = sample("bool", (6, 7))
    check(pt.all(P(b), 1), b.all(axis=1))
    check(pt.any(P(b), 0), b.any(axis=0))
    x = RNG.uniform(0, 1, 1_000_003).astype(np.float32)
    got = pt.sum(P(x)).item()
    assert abs(got - math.fsum(x.tolist())) <= 1e-5 * math.fsum(x.tolist())


# ------------------------------------------------------------------ softmax
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(7,), (3, 40), (2, 3, 5), (4, 70_000)])
def test_softmax_and_log_softmax_match_numpy(shape, dtype):
    a = (RNG.standard_normal(shape) * 5).astype(dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for dim in range(-1, len(shape) - 1) if len(shape) > 1 else [0]:
        x = a.astype(np.float64)
        e = np.exp(x - x.max(axis=dim, keepdims=True))
        sm = e / e.sum(axis=dim, keepdims=True)
        check(pt.softmax(P(a), dim), sm.astype(dtype), rtol=rtol, atol=1e-7)
        check(pt.log_softmax(P(a), dim), np.log(sm).astype(dtype), rtol=rtol, atol=1e-6)


def test_softmax_of_large_and_infinite_values():
    a = np.array([[1000.0, 1000.0, -np.inf], [-np.inf, 0.0, 1e30]], dtype=np.float32)
    check(pt.softmax(P(a), 1), np.array([[0.5, 0.5, 0], [0, 0, 1]], np.float32), rtol=0)


# ------------------------------------------------------------------ sorting, selection, sets
@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("n", [5, 33, 5000])
def test_stable_sort_matches_numpy(dtype, n):
    a = sample(dtype, (3, n), low=-20, high=20)
    for descending in (False, True):
        values, indices = pt.sort(P(a), dim=1, descending=descending, stable=True)
        key = -a.astype(np.float64) if descending else a
        order = np.argsort(key, axis=1, kind="stable")
        check(indices, order)
        check(values, np.take_along_axis(a, order, axis=1))
    check(pt.argsort(P(a), dim=0, stable=True), np.argsort(a, axis=0, kind="stable"))


def test_sort_puts_nan_last():
    a = np.array([3.0, np.nan, -1.0, np.inf, 0.0], dtype=np.float32)
    check(pt.sort(P(a)).values, np.sort(a))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_topk_and_kthvalue_match_numpy(dtype):
    a = np.stack([RNG.permutation(60) for _ in range(4)]).astype(dtype)
    values, indices = pt.topk(P(a), 5, dim=1)
    want = -np.sort(-a, axis=1)[:, :5]
    check(values, want)
    check(pt.gather(P(a), 1, indices), want)
    values, _ = pt.topk(P(a), 3, dim=1, largest=False)
    check(values, np.sort(a, axis=1)[:, :3])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32"])
def test_unique_matches_numpy(dtype):
    a = sample(dtype, (40,), low=-5, high=5)
    values, inverse, counts = pt.unique(P(a), return_inverse=True, return_counts=True)
    wv, wi, wc = np.unique(a, return_inverse=True, return_counts=True)
    check(values, wv)
    check(inverse, wi.reshape(a.shape))
    check(counts, wc)
    run = np.array([1, 1, 2, 2, 2, 1, 3, 3], dtype=np.int64)
    check(pt.unique_consecutive(P(run)), np.array([1, 2, 1, 3]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_distances_and_cross_match_numpy(dtype):
    x, y = sample(dtype, (5, 3)), sample(dtype, (4, 3))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    diff = x[:, None, :].astype(np.float64) - y[None, :, :]
    for p in (1.0, 2.0, np.inf):
        want = np.linalg.norm(diff, ord=p, axis=2)
        check(pt.cdist(P(x), P(y), p=p), want.astype(dtype), rtol=rtol)
    iu = np.triu_indices(5, 1)
    want = np.linalg.norm(x[:, None, :].astype(np.float64) - x[None], axis=2)[iu]
    check(pt.pdist(P(x)), want.astype(dtype), rtol=rtol, atol=1e-6)
    check(pt.linalg.cross(P(x[:4]), P(y)), np.cross(x[:4], y), rtol=rtol, atol=1e-5)


# ------------------------------------------------------------------ shape and gather/scatter
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "float64", "complex64"])
def test_joining_splitting_and_reordering_match_numpy(dtype):
    a, b = sample(dtype, (3, 4)), sample(dtype, (2, 4))
    for kind, x, t in layouts(a):
        check(pt.flip(t, [0]), np.flip(x, 0))
        check(pt.roll(t, 2, 1), np.roll(x, 2, 1))
        check(t.repeat(2, 1), np.tile(x, (2, 1)))
        check(pt.tril(t), np.tril(x))
        check(pt.triu(t, 1), np.triu(x, 1))
    check(pt.cat([P(a), P(b)]), np.concatenate([a, b]))
    check(pt.stack([P(a), P(a)], 1), np.stack([a, a], 1))
    for got, want in zip(pt.split(P(a), [1, 3], 1), np.split(a, [1], 1)):
        check(got, want)
    for got, want in zip(pt.chunk(P(a), 2, 1), np.split(a, 2, 1)):
        check(got, want)
    check(pt.tile(P(a), (2, 2)), np.tile(a, (2, 2)))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_gather_scatter_and_index_select_match_numpy(dtype):
    a = sample(dtype, (4, 6), low=0)
    idx = RNG.integers(0, 6, (4, 3))
    for kind, x, t in layouts(a):
        i = RNG.integers(0, x.shape[1], (x.shape[0], 3))
        check(pt.gather(t, 1, P(i)), np.take_along_axis(x, i, 1))
        check(pt.index_select(t, 1, P(i[0])), np.take(x, i[0], 1))
    check(pt.take(P(a), P(idx)), np.take(a, idx))
    src = sample(dtype, (4, 3), low=0)
    # scatter with distinct indices per row: exact placement.
    perm = np.stack([RNG.permutation(6)[:3] for _ in range(4)])
    want = a.copy()
    np.put_along_axis(want, perm, src, 1)
    check(pt.scatter(P(a), 1, P(perm), P(src)), want)
    want = a.astype(np.float64)
    np.add.at(want, (np.arange(4)[:, None].repeat(3, 1), idx), src)
    check(pt.scatter_add(P(a), 1, P(idx), P(src)), want.astype(dtype))


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_masks_and_nonzero_match_numpy(dtype):
    a, m = sample(dtype, (5, 6)), sample("bool", (5, 6))
    check(pt.masked_fill(P(a), P(m), 1), np.where(m, np.ones_like(a), a))
    check(pt.masked_select(P(a), P(m)), a[m])
    check(pt.nonzero(P(a)), np.argwhere(a))
    check(pt.nonzero(P(a).t()), np.argwhere(a.T))


# ------------------------------------------------------------------ matrix products
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 130, 70)])
def test_matrix_products_match_numpy(dtype, m, k, n):
    a, b = sample(dtype, (m, k), low=-4, high=5), sample(dtype, (k, n), low=-4, high=5)
    want = a.astype(np.complex128 if dtype in COMPLEX else np.float64) @ b
    rtol = 1e-4 if dtype in ("float32", "complex64") else None if dtype in INTS else 1e-12
    if dtype in INTS:
        want = (a.astype(np.int64) @ b.astype(np.int64)).astype(dtype)
    check(pt.mm(P(a), P(b)), want.astype(dtype), rtol=rtol, atol=1e-4)
    check(pt.mm(P(a.T.copy()).t(), P(b.T.copy()).t()), want.astype(dtype), rtol=rtol, atol=1e-4)
    c = sample(dtype, (m, n), low=-4, high=5)
    check(pt.addmm(P(c), P(a), P(b)), (c + want).astype(dtype), rtol=rtol, atol=1e-4)
    check(pt.mv(P(a), P(b[:, 0])), want[:, 0].astype(dtype), rtol=rtol, atol=1e-4)


@pytest.mark.parametrize("dtype", FLOATS)
def test_batched_products_dot_and_outer_match_numpy(dtype):
    a, b = sample(dtype, (3, 4, 5)), sample(dtype, (3, 5, 2))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    check(pt.bmm(P(a), P(b)), a @ b, rtol=rtol, atol=1e-5)
    check(pt.matmul(P(a), P(b[0])), a @ b[0], rtol=rtol, atol=1e-5)
    x, y = sample(dtype, (7,)), sample(dtype, (7,))
    check(pt.dot(P(x), P(y)), np.dot(x, y), rtol=rtol, atol=1e-5)
    check(pt.outer(P(x), P(y)), np.outer(x, y), rtol=rtol)


# ------------------------------------------------------------------ advanced indexing
@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_advanced_indexing_matches_numpy(dtype):
    a = sample(dtype, (4, 5, 6))
    t = P(a)
    i, j = np.array([0, 3, 1, 3]), np.array([4, 0, 2, 2])
    m = sample("bool", (4, 5))
    for index in ((i,), (i, j), (slice(None), j), (Ellipsis, np.array([5, 0])), (i[:, None], j),
                  (m,), (1, j[:2]), (None, i)):
        pidx = tuple(P(x) if isinstance(x, np.ndarray) else x for x in index)
        check(t[pidx], a[index])
    check(t[[0, 2]], a[[0, 2]])


def test_index_put_and_accumulate_match_numpy():
    a = sample("float64", (5, 4))
    i = np.array([0, 2, 2, 4])
    v = sample("float64", (4, 4))
    t = P(a)
    t[P(np.array([0, 2, 4]))] = P(v[:3])
    want = a.copy()
    want[[0, 2, 4]] = v[:3]
    check(t, want)
    want = a.copy()
    np.add.at(want, i, v)
    check(pt.index_put(P(a), (P(i),), P(v), accumulate=True), want, rtol=1e-15)
    m = a > 0
    t = P(a)
    t[P(m)] = 0.0
    check(t, np.where(m, 0.0, a))


# ------------------------------------------------------------------ Python operators
OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
             operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
             operator.lshift, operator.rshift, operator.lt, operator.le, operator.eq,
             operator.ne, operator.gt, operator.ge]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_python_operators_match_numpy(op, dtype):
    if dtype == "float64" and op in (operator.and_, operator.or_, operator.xor, operator.lshift,
                                     operator.rshift):
        pytest.skip("bitwise operators take integers")
    a = sample(dtype, (3, 4), low=1, high=5)
    b = sample(dtype, (4,), low=1, high=4)
    want = op(a, b)
    if op is operator.truediv:
        want = want.astype(np.float32 if dtype in INTS else dtype)
    rtol = None if dtype in INTS and op is not operator.truediv else 1e-6
    check(op(P(a), P(b)), want, rtol=rtol)
    check(op(P(a), 2), op(a, a.dtype.type(2)).astype(want.dtype), rtol=rtol)  # wrapped number
    check(op(3, P(b)), op(b.dtype.type(3), b).astype(want.dtype), rtol=rtol)  # reflected
    t = P(a)
    if op not in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
                  operator.truediv) or dtype in FLOATS:
        inplace = getattr(operator, "i" + op.__name__.strip("_").rstrip("_"), None)
        if inplace is not None:
            u = inplace(t, P(b))
            assert u is t
            check(t, want, rtol=rtol)


def test_unary_python_operators():
    a = sample("int32", (3, 4))
    check(-P(a), -a)
    check(~P(a), ~a)
    check(abs(P(a)), np.abs(a))


# ------------------------------------------------------------------ structseq results
def test_structseq_results_carry_torchs_field_names():
    a = sample("float32", (3, 5))
    for result, names in ((pt.max(P(a), 1), ("values", "indices")),
                          (pt.min(P(a), 0), ("values", "indices")),
                          (pt.sort(P(a)), ("values", "indices")),
                          (pt.topk(P(a), 2), ("values", "indices"))):
        values, indices = result
        assert len(result) == 2 and tuple(result) == (values, indices)
        assert getattr(result, names[0]) is values and getattr(result, names[1]) is indices
    check(pt.max(P(a), 1).values, a.max(axis=1))
    check(pt.min(P(a), 0).indices, a.argmin(axis=0))
