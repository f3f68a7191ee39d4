"""isclose, allclose, equal and isin: against NumPy (np.isclose, np.isin, np.array_equal) on every
machine and against torch where installed, with torch's refusals, broadcasting, strided operands,
sizes past the threading threshold, and the three overloads and flags of isin."""
import numpy as np
import pytest

import pytensor as pt
from _torch_oracle import requires_torch, torch
from test_elementwise_more import ALL_DTYPES, _compare, _run, _sample, arr, rng_values, to_pt

SPECIAL = np.array([0.0, -0.0, 1.0, 1.0 + 1e-6, 1.0 + 1e-4, np.inf, -np.inf, np.nan, 1e-9, -1e-9])


# ---------------------------------------------------------------- isclose, allclose

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tol", [(1e-5, 1e-8, False), (1e-3, 0.0, True), (0.0, 0.0, False),
                                 (0.0, 1e-3, True)])
def test_isclose_matches_numpy(dtype, tol):
    rtol, atol, equal_nan = tol
    a = np.repeat(SPECIAL, len(SPECIAL)).astype(dtype)
    b = np.tile(SPECIAL, len(SPECIAL)).astype(dtype)
    got = pt.isclose(pt.from_numpy(a), pt.from_numpy(b), rtol, atol, equal_nan)
    assert got.dtype == pt.bool
    # NumPy's tolerance is symmetric in where it reads b (|a - b| <= atol + rtol * |b|), as torch's
    assert arr(got).tolist() == np.isclose(a, b, rtol, atol, equal_nan).tolist()
    assert pt.allclose(pt.from_numpy(a), pt.from_numpy(b), rtol, atol, equal_nan) is \
        bool(np.allclose(a, b, rtol, atol, equal_nan))


def test_isclose_of_integers_bools_and_complex():
    i, j = pt.tensor([1, 5, 100]), pt.tensor([2, 5, 103])
    assert pt.isclose(i, j, atol=1).tolist() == [True, True, False]
    assert pt.isclose(i, j, rtol=0.05, atol=0).tolist() == [False, True, True]
    assert pt.isclose(pt.tensor([True]), pt.tensor([False]), atol=1).tolist() == [True]
    z = np.array([1 + 1j, 1 + 1j, np.nan + 0j, 2j])
    w = np.array([1 + 1j, 1 + 1.00001j, np.nan + 1j, 2.1j])
    for equal_nan in (False, True):
        got = pt.isclose(pt.from_numpy(z), pt.from_numpy(w), equal_nan=equal_nan)
        assert arr(got).tolist() == np.isclose(z, w, equal_nan=equal_nan).tolist()


def test_isclose_broadcasts_and_refuses_like_torch():
    a = pt.from_numpy(rng_values(12, -1, 1).reshape(3, 4))
    assert pt.isclose(a, a[0]).shape == (3, 4)
    assert bool(pt.isclose(a, a[0])[0].all())
    assert a.isclose(a.t().contiguous().t()).all()
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        pt.isclose(pt.ones(2), pt.ones(2, dtype=pt.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        pt.isclose(a, a, rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero, but got "
                                           "-0.5"):
        pt.allclose(a, a, atol=-0.5)
    assert a.allclose(a + 1e-9) is True and a.allclose(a + 1) is False


# ---------------------------------------------------------------- equal

def test_equal_semantics():
    f = pt.tensor([1.0, 2.0, float("nan")])
    assert pt.equal(f, f) is False  # NaN is not equal to itself
    assert pt.equal(f[:2], f[:2].clone()) is True
    assert pt.equal(pt.ones(2, 1), pt.ones(2)) is False  # shapes must match, no broadcasting
    assert pt.equal(pt.tensor(1.0), pt.tensor([1.0])) is False
    assert pt.equal(pt.ones(2), pt.ones(2, dtype=pt.int64)) is True  # values after promotion
    assert pt.equal(pt.tensor([-0.0]), pt.tensor([0.0])) is True
    assert pt.equal(pt.ones(0), pt.ones(0, dtype=pt.int64)) is True
    assert pt.tensor([True, False]).equal(pt.tensor([1, 0])) is True
    assert pt.equal(pt.tensor([1 + 2j]), pt.tensor([1 + 2j])) is True
    assert pt.equal(pt.tensor([1 + 2j]), pt.tensor([1 - 2j])) is False


@pytest.mark.parametrize("where", [0, 12345, 199_999])
def test_equal_finds_one_difference_anywhere(where):
    n = 200_000  # threaded
    a = rng_values(n, -1, 1)
    b = a.copy()
    assert pt.equal(pt.from_numpy(a), pt.from_numpy(b)) is True
    b[where] += 1e-12
    assert pt.equal(pt.from_numpy(a), pt.from_numpy(b)) is False
    m = pt.from_numpy(a.reshape(400, 500))
    assert pt.equal(m.t(), m.t().contiguous()) is True
    assert pt.equal(m.flip(0).flip(0), m) is True


# ---------------------------------------------------------------- isin

@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16,
                                   np.float32, np.float64])
@pytest.mark.parametrize("sizes", [(50, 3), (7, 400), (3000, 2000), (10, 0), (0, 5)])
def test_isin_matches_numpy(dtype, sizes):
    rng = np.random.default_rng(sizes[0] + sizes[1])
    a = rng.integers(0, 60, sizes[0]).astype(dtype)
    b = rng.integers(0, 60, sizes[1]).astype(dtype)
    for invert in (False, True):
        got = pt.isin(pt.from_numpy(a), pt.from_numpy(b), invert=invert)
        assert got.dtype == pt.bool and got.shape == a.shape
        assert arr(got).tolist() == np.isin(a, b, invert=invert).tolist()
        got = pt.isin(pt.from_numpy(a), pt.from_numpy(b), assume_unique=True, invert=invert)
        assert arr(got).tolist() == np.isin(a, b, invert=invert).tolist()


def test_isin_floats_with_nan_and_signed_zero():
    a = np.array([np.nan, 0.0, -0.0, np.inf, 1.5, -np.inf])
    b = np.array([np.nan, -0.0, np.inf, 2.5])
    got = pt.isin(pt.from_numpy(a), pt.from_numpy(b))
    assert arr(got).tolist() == np.isin(a, b).tolist() == [False, True, True, True, False, False]


def test_isin_promotes_shapes_and_scalars():
    i = pt.tensor([[1, 2, 3], [4, 5, 6]])
    assert pt.isin(i, pt.tensor([[2.0], [5.5]])).tolist() == [[False, True, False]] + \
        [[False, False, False]]
    assert pt.isin(pt.tensor([1], dtype=pt.uint8), pt.tensor([257])).tolist() == [False]
    assert pt.isin(i, 2).tolist() == [[False, True, False], [False, False, False]]
    assert pt.isin(i, 2.5).tolist() == [[False] * 3] * 2
    r = pt.isin(5, i)
    assert r.shape == () and r.item() is True
    assert pt.isin(7, i, invert=True).item() is True
    t = i.t()  # strided elements
    assert arr(pt.isin(t, pt.tensor([1, 6]))).tolist() == np.isin(arr(t), [1, 6]).tolist()
    o = pt.empty(0, dtype=pt.bool)
    assert pt.isin(i, pt.tensor([1]), out=o) is o and o.sum().item() == 1
    assert pt.isin(i, 1, out=o) is o and pt.isin(1, i, out=pt.empty(0, dtype=pt.bool)).item()


def test_isin_refusals():
    with pytest.raises(RuntimeError, match=r"Unsupported input type encountered for isin\(\): Bool"):
        pt.isin(pt.tensor([1]), pt.tensor([True]))
    with pytest.raises(RuntimeError, match=r"Unsupported input type encountered for isin\(\): "
                                           "ComplexFloat"):
        pt.isin(pt.tensor([1j]), pt.tensor([1j]))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype bool, but got float "
                                           "instead"):
        pt.isin(pt.tensor([1]), pt.tensor([1]), out=pt.empty(1))


# ---------------------------------------------------------------- against torch

@requires_torch
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_isclose_equal_isin_match_torch(dtype):
    x, y = _sample(dtype), _sample(dtype, seed=1)
    for args in ((x, y), (x, x), (x, x.clone())):
        _compare(_run(torch, "isclose", args, lambda a: a), _run(pt, "isclose", args, to_pt))
        assert _run(torch, "equal", args, lambda a: a) == _run(pt, "equal", args, to_pt)
        want = _run(torch, "allclose", args, lambda a: a)
        got = _run(pt, "allclose", args, to_pt)
        assert (type(want) is type(got)) and (isinstance(want, Exception) or want == got)
        _compare(_run(torch, "isin", args, lambda a: a), _run(pt, "isin", args, to_pt))
    tx = torch.tensor(x.tolist()[:5]).to(x.dtype) if dtype != "bfloat16" else x[:5]
    _compare(_run(torch, "isin", (x, tx), lambda a: a), _run(pt, "isin", (x, tx), to_pt))


@requires_torch
@pytest.mark.parametrize("pair", [("int64", "float32"), ("int8", "uint8"), ("float16", "float32"),
                                  ("int32", "float64")])
def test_mixed_dtypes_match_torch(pair):
    x, y = _sample(pair[0]), _sample(pair[1], seed=1)
    for fn in ("isclose", "equal", "isin"):
        want, got = _run(torch, fn, (x, y), lambda a: a), _run(pt, fn, (x, y), to_pt)
        if fn == "equal":
            assert want == got
        else:
            _compare(want, got)
