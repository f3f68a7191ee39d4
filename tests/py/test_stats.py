"""Order statistics, scans with indices and NaN-aware reductions against NumPy (no torch needed):
median, nanmedian, kthvalue, mode, msort, cummax, cummin, logcumsumexp, aminmax, nansum,
nanmean, count_nonzero. Oracles are np.sort / np.partition (the lower middle value, as torch
picks), np.maximum.accumulate, np.logaddexp.accumulate, np.nansum, np.nanmean, np.count_nonzero
and exact loops; inputs cover dtypes, 0-d, empty, non-contiguous (transposed, sliced, flipped),
ties, NaN, rows long and many enough to cross the selection and threading thresholds, out=
forms, meta tensors and gradients (gradcheck in float64)."""
import numpy as np
import pytest

import pytensor as pt

INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]
HALVES = ["float16", "bfloat16"]


def P(a, dtype=None):
    t = pt.from_numpy(np.ascontiguousarray(a).copy()).clone()
    return t.to(getattr(pt, dtype)) if dtype else t


def N(t):
    if t.dtype in (pt.bfloat16, pt.float16):
        t = t.to(pt.float64)
    return t.contiguous().numpy()


def data(shape, dtype, seed=0, nan=False, dups=True):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype in INTS or dtype == "bool":
        lo, hi = (0, 2) if dtype == "bool" else (0, 60) if dtype == "uint8" else (-50, 50)
        a = rng.integers(lo, hi if dups else max(hi, n * 4), size=n)
        if not dups:
            a = rng.permutation(n) - (n // 2 if dtype != "uint8" else 0)
        a = a.astype(np.bool_ if dtype == "bool" else getattr(np, dtype))
    else:
        a = rng.integers(-20, 20, size=n).astype(np.float64) / 4 if dups else \
            rng.permutation(n).astype(np.float64) / 8 - n / 16
        if nan:
            a[rng.random(n) < 0.2] = np.nan
        a = a.astype(getattr(np, dtype)) if dtype in FLOATS else a
    return a.reshape(shape)


def lower_median(a, axis):
    """torch's median: the lower of the two middle values; NaN when the slice holds one."""
    s = np.sort(a, axis=axis)
    n = a.shape[axis]
    m = np.take(s, (n - 1) // 2, axis=axis)
    if a.dtype.kind == "f":
        m = np.where(np.isnan(a).any(axis=axis), np.nan, m)
    return m


def lower_nanmedian(a, axis):
    a = np.moveaxis(a, axis, -1)
    out = np.empty(a.shape[:-1], dtype=a.dtype)
    for ix in np.ndindex(out.shape):
        row = a[ix]
        row = np.sort(row[~np.isnan(row)])
        out[ix] = row[(len(row) - 1) // 2] if len(row) else np.nan
    return out


def check_picks(x, values, indices, dim, keepdim=False):
    """The indices name elements holding the values."""
    xi = N(x)
    idx = N(indices)
    if not keepdim and x.dim() > 0:
        idx = np.expand_dims(idx, dim)
    got = np.take_along_axis(xi, idx, axis=dim) if x.dim() > 0 else xi[()]
    want = N(values) if keepdim or x.dim() == 0 else np.expand_dims(N(values), dim)
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- median, nanmedian, kthvalue
@pytest.mark.parametrize("dtype", INTS + FLOATS + HALVES)
def test_median_along_each_dim_is_the_lower_middle(dtype):
    a = data((5, 6, 7), dtype if dtype not in HALVES else "float64", seed=1)
    x = P(a, dtype)
    ref = N(x)
    for dim in range(3):
        for keepdim in (False, True):
            r = pt.median(x, dim, keepdim=keepdim)
            want = lower_median(ref, dim)
            if keepdim:
                want = np.expand_dims(want, dim)
            np.testing.assert_array_equal(N(r.values), want)
            assert r.values.dtype == x.dtype and r.indices.dtype == pt.int64
            check_picks(x, r.values, r.indices, dim, keepdim)
    np.testing.assert_array_equal(N(pt.median(x)), lower_median(ref.reshape(-1), 0))
    assert x.median().shape == ()


@pytest.mark.parametrize("dtype", FLOATS)
def test_median_propagates_nan_and_nanmedian_skips_it(dtype):
    a = data((8, 9), dtype, seed=2, nan=True)
    a[3] = np.nan  # a row of NaNs only
    x = P(a)
    for dim in (0, 1):
        m = pt.median(x, dim)
        np.testing.assert_array_equal(N(m.values), lower_median(a, dim))
        # a NaN result names the first NaN of its slice
        first = np.argmax(np.isnan(a), axis=dim)
        has = np.isnan(a).any(axis=dim)
        np.testing.assert_array_equal(N(m.indices)[has], first[has])
        nm = pt.nanmedian(x, dim)
        np.testing.assert_array_equal(N(nm.values), lower_nanmedian(a, dim))
        check_picks(x, nm.values, nm.indices, dim)
    assert np.isnan(N(pt.median(x)))
    flat = a.reshape(-1)
    np.testing.assert_array_equal(N(pt.nanmedian(x)), np.sort(flat[~np.isnan(flat)])[
        (np.count_nonzero(~np.isnan(flat)) - 1) // 2])
    assert pt.nanmedian(x, 1).indices[3].item() == 0  # all NaN: the first one


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_kthvalue_is_the_kth_smallest(dtype):
    a = data((4, 11), dtype, seed=3)
    x = P(a)
    for k in (1, 2, 6, 11):
        r = pt.kthvalue(x, k)
        np.testing.assert_array_equal(N(r.values), np.sort(a, axis=1)[:, k - 1])
        check_picks(x, r.values, r.indices, 1)
        r0 = x.kthvalue(min(k, 4), 0, True)
        np.testing.assert_array_equal(N(r0.values), np.sort(a, axis=0)[min(k, 4) - 1][None])


def test_kthvalue_ranks_nan_last():
    a = np.array([3.0, np.nan, 1.0, np.nan, 2.0])
    x = P(a)
    assert [x.kthvalue(k).values.item() for k in (1, 2, 3)] == [1.0, 2.0, 3.0]
    r = x.kthvalue(4)
    assert np.isnan(r.values.item()) and r.indices.item() == 1
    assert x.kthvalue(5).indices.item() == 3


def test_selection_among_ties_names_the_rank_in_input_order():
    # the stable order of [2, 1, 2, 2, 1, 2] is 1@1 1@4 2@0 2@2 2@3 2@5
    x = pt.tensor([2, 1, 2, 2, 1, 2])
    assert [x.kthvalue(k).indices.item() for k in range(1, 7)] == [1, 4, 0, 2, 3, 5]
    assert x.median(0).indices.item() == 0


@pytest.mark.parametrize("pattern", ["random", "sorted", "reversed", "constant", "organ", "few"])
def test_long_rows_and_many_rows_cross_the_thresholds(pattern):
    n = 70001
    rng = np.random.default_rng(4)
    base = {"random": rng.standard_normal(n), "sorted": np.arange(n, dtype=float),
            "reversed": np.arange(n, 0, -1, dtype=float), "constant": np.full(n, 2.5),
            "organ": np.concatenate([np.arange(n // 2), np.arange(n - n // 2, 0, -1)]).astype(float),
            "few": rng.integers(0, 3, n).astype(float)}[pattern]
    x = P(base)
    for k in (1, n // 3, (n + 1) // 2, n):
        r = pt.kthvalue(x, k)
        assert r.values.item() == np.partition(base, k - 1)[k - 1]
        assert base[r.indices.item()] == r.values.item()
    assert pt.median(x).item() == np.sort(base)[(n - 1) // 2]
    # many rows: threads split them (the grain is 32768 elements)
    m = P(base[:70000].reshape(700, 100))
    r = pt.median(m, 1)
    np.testing.assert_array_equal(N(r.values), lower_median(base[:70000].reshape(700, 100), 1))
    check_picks(m, r.values, r.indices, 1)
    rt = pt.median(m.t(), 0)
    np.testing.assert_array_equal(N(rt.values), N(r.values))


def test_non_contiguous_inputs():
    a = data((6, 10), "float64", seed=5)
    x = P(a)
    for view, ref in [(x.t(), a.T), (x[:, ::3], a[:, ::3]), (x.flip(1), a[:, ::-1]),
                      (x[1::2], a[1::2])]:
        for dim in (0, 1):
            r = pt.median(view, dim)
            np.testing.assert_array_equal(N(r.values), lower_median(ref, dim))
            check_picks(view, r.values, r.indices, dim)
            np.testing.assert_array_equal(N(pt.kthvalue(view, 2, dim).values),
                                          np.sort(ref, axis=dim).take(1, axis=dim))


def test_zero_dim_and_empty_inputs():
    s = pt.tensor(4.5)
    for f in (pt.median, pt.nanmedian):
        r = f(s, 0)
        assert r.values.shape == () and r.values.item() == 4.5 and r.indices.item() == 0
        assert f(s, -1, keepdim=True).values.shape == ()
        assert f(s).item() == 4.5
    assert pt.kthvalue(s, 1).values.item() == 4.5 and pt.mode(s).indices.item() == 0
    e = pt.empty(0, 3)
    for f in (pt.median, pt.nanmedian, pt.mode):
        r = f(e, 1)
        assert r.values.shape == (0,) and r.indices.shape == (0,)
        with pytest.raises(IndexError, match=r"Expected reduction dim 0 to have non-zero size"):
            f(e, 0)
    assert np.isnan(pt.median(pt.empty(0)).item()) and np.isnan(pt.nanmedian(e).item())
    with pytest.raises(IndexError, match="kthvalue"):
        pt.kthvalue(e, 1, 0)


def test_refused_dtypes_and_bad_arguments():
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        pt.median(pt.tensor([True, False]))
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        pt.median(pt.tensor([True, False]), 0)
    with pytest.raises(NotImplementedError, match="'ComplexFloat'"):
        pt.nanmedian(pt.ones(2, dtype=pt.complex64), 0)
    with pytest.raises(NotImplementedError, match="\"kthvalue_cpu\" not implemented for 'Bool'"):
        pt.kthvalue(pt.tensor([True]), 1)
    with pytest.raises(NotImplementedError, match="\"mode_cpu\""):
        pt.mode(pt.ones(2, dtype=pt.complex128))
    with pytest.raises(RuntimeError, match="selected number k out of range for dimension 0"):
        pt.kthvalue(pt.ones(3), 4)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        pt.kthvalue(pt.ones(3), 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.median(pt.ones(2, 3), 2)


def test_out_forms_of_the_selections():
    a = data((3, 7), "float32", seed=6)
    x = P(a)
    v, i = pt.empty(0), pt.empty(0, dtype=pt.int64)
    r = pt.median(x, 1, out=(v, i))
    assert r.values is v and r.indices is i and type(r).__name__ == "median_out"
    np.testing.assert_array_equal(N(v), lower_median(a, 1))
    v, i = pt.empty(0), pt.empty(0, dtype=pt.int64)
    pt.kthvalue(x, 2, 0, True, out=(v, i))
    assert v.shape == (1, 7)
    o = pt.empty(0)
    assert pt.nanmedian(x, out=o) is o and o.shape == ()
    with pytest.raises(RuntimeError, match="dtype"):
        pt.mode(x, 1, out=(pt.empty(0), pt.empty(0)))


# ---------------------------------------------------------------- mode
def mode_oracle(row):
    vals, counts = np.unique(row, return_counts=True)
    v = vals[np.argmax(counts)]  # the smallest among the most frequent
    return v, np.flatnonzero(row == v)[-1]


@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS)
def test_mode_is_the_most_frequent_smallest_value_at_its_last_position(dtype):
    a = data((6, 40), dtype, seed=7)
    x = P(a)
    r = pt.mode(x)
    for j in range(6):
        v, at = mode_oracle(a[j])
        assert N(r.values)[j] == v and N(r.indices)[j] == at
    r0 = x.mode(0, keepdim=True)
    assert r0.values.shape == (1, 40)
    check_picks(x, r0.values, r0.indices, 0, keepdim=True)


# ---------------------------------------------------------------- msort
@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS)
def test_msort_sorts_along_dim_zero(dtype):
    a = data((9, 4), dtype, seed=8)
    np.testing.assert_array_equal(N(pt.msort(P(a))), np.sort(a, axis=0))
    np.testing.assert_array_equal(N(P(a).t().msort()), np.sort(a.T, axis=0))
    o = pt.empty(0, dtype=P(a).dtype)
    assert pt.msort(P(a), out=o) is o


# ---------------------------------------------------------------- cummax, cummin, logcumsumexp
def cum_oracle(a, maximum):
    """Values and indices as torch defines them: ties and NaNs take over."""
    v, idx = np.empty_like(a), np.empty(a.shape, dtype=np.int64)
    best, at = a[0], 0
    for j, c in enumerate(a):
        isnan = a.dtype.kind == "f" and np.isnan(c)
        bestnan = a.dtype.kind == "f" and np.isnan(best)
        if isnan or (not bestnan and (c >= best if maximum else c <= best)):
            best, at = c, j
        v[j], idx[j] = best, at
    return v, idx


@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS + HALVES)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(op, dtype):
    src = dtype if dtype not in HALVES else "float64"
    a = data((5, 30), src, seed=9, nan=dtype in FLOATS)
    x = P(a, dtype)
    ref = N(x)
    r = getattr(pt, op)(x, 1)
    assert r.values.dtype == x.dtype and r.indices.dtype == pt.int64
    for j in range(5):
        v, i = cum_oracle(ref[j], op == "cummax")
        np.testing.assert_array_equal(N(r.values)[j], v)
        np.testing.assert_array_equal(N(r.indices)[j], i)
    if dtype in INTS:
        acc = np.maximum.accumulate if op == "cummax" else np.minimum.accumulate
        np.testing.assert_array_equal(N(getattr(x, op)(0).values), acc(a, axis=0))


def test_scans_on_views_zero_dim_empty_and_threads():
    a = np.random.default_rng(10).standard_normal((300, 250))
    x = P(a)
    np.testing.assert_array_equal(N(pt.cummax(x, 0).values), np.maximum.accumulate(a, 0))
    np.testing.assert_array_equal(N(pt.cummin(x.t(), 1).values), np.minimum.accumulate(a.T, 1))
    np.testing.assert_array_equal(N(pt.cummax(x.flip(0), 0).values),
                                  np.maximum.accumulate(a[::-1], 0))
    np.testing.assert_allclose(N(pt.logcumsumexp(x, 1)), np.logaddexp.accumulate(a, 1),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(N(pt.logcumsumexp(x[:, ::2], 0)),
                               np.logaddexp.accumulate(a[:, ::2], 0), rtol=1e-12)
    s = pt.tensor(2.0)
    assert pt.cummax(s, 0).values.item() == 2.0 and pt.cummin(s, -1).indices.item() == 0
    assert pt.logcumsumexp(s, 0).item() == 2.0
    e = pt.empty(0, 4)
    assert pt.cummax(e, 0).values.shape == (0, 4) and pt.logcumsumexp(e, 1).shape == (0, 4)


@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_logcumsumexp(dtype):
    a = np.random.default_rng(11).standard_normal((4, 50)) * 30
    x = P(a, dtype)
    want = np.logaddexp.accumulate(N(x), 1)
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1e-2}[dtype]
    r = x.logcumsumexp(1)
    assert r.dtype == x.dtype
    np.testing.assert_allclose(N(r), want, rtol=tol, atol=tol)


def test_logcumsumexp_infinities_and_nan():
    inf = np.inf
    x = P(np.array([-inf, -inf, 1.0, inf, inf, 2.0]))
    np.testing.assert_array_equal(N(pt.logcumsumexp(x, 0)), [-inf, -inf, 1.0, inf, inf, inf])
    y = P(np.array([1.0, np.nan, -inf, 5.0]))
    got = N(pt.logcumsumexp(y, 0))
    assert got[0] == 1.0 and np.isnan(got[1:]).all()
    big = P(np.array([1000.0, 1000.0]))
    np.testing.assert_allclose(N(pt.logcumsumexp(big, 0)), [1000.0, 1000.0 + np.log(2)])
    with pytest.raises(NotImplementedError, match="\"logcumsumexp_out_cpu\" not implemented for 'Long'"):
        pt.logcumsumexp(pt.tensor([1, 2]), 0)
    o = pt.empty(0, dtype=pt.float64)
    assert pt.logcumsumexp(x, 0, out=o) is o


def test_scan_out_forms_and_errors():
    x = P(np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]]))
    v, i = pt.empty(0, dtype=pt.float64), pt.empty(0, dtype=pt.int64)
    r = pt.cummax(x, 1, out=(v, i))
    assert r.values is v and type(r).__name__ == "cummax_out"
    np.testing.assert_array_equal(N(i), [[0, 0, 2], [0, 1, 2]])
    with pytest.raises(NotImplementedError, match="\"cummin_cpu\" not implemented for 'ComplexFloat'"):
        pt.cummin(pt.ones(2, dtype=pt.complex64), 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.cummax(x, 2)


# ---------------------------------------------------------------- aminmax
@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS + HALVES)
def test_aminmax(dtype):
    src = dtype if dtype not in HALVES else "float64"
    a = data((4, 5, 6), src, seed=12)
    x = P(a, dtype)
    ref = N(x)
    r = pt.aminmax(x)
    assert r.min.shape == () and r.min.dtype == x.dtype
    assert N(r.min) == ref.min() and N(r.max) == ref.max()
    for dim in (0, 1, -1):
        r = x.aminmax(dim=dim, keepdim=True)
        np.testing.assert_array_equal(N(r.min), ref.min(axis=dim, keepdims=True))
        np.testing.assert_array_equal(N(r.max), ref.max(axis=dim, keepdims=True))
    assert pt.aminmax(x, keepdim=True).max.shape == (1, 1, 1)


def test_aminmax_nan_empty_and_errors():
    x = P(np.array([[1.0, np.nan], [2.0, 3.0]]))
    r = pt.aminmax(x, dim=1)
    assert np.isnan(N(r.min)[0]) and np.isnan(N(r.max)[0]) and N(r.max)[1] == 3.0
    with pytest.raises(RuntimeError, match=r"aminmax\(\): cannot compute aminmax over an empty"):
        pt.aminmax(pt.empty(0))
    with pytest.raises(IndexError, match="aminmax: Expected reduction dim 0 to have non-zero"):
        pt.aminmax(pt.empty(0, 3), dim=0)
    assert pt.aminmax(pt.empty(0, 3), dim=1).min.shape == (0,)
    with pytest.raises(NotImplementedError, match="aminmax_cpu"):
        pt.aminmax(pt.ones(2, dtype=pt.complex64))
    lo, hi = pt.empty(0), pt.empty(0)
    r = pt.aminmax(pt.ones(2, 3), dim=0, out=(lo, hi))
    assert r.min is lo and r.max is hi and lo.shape == (3,)


# ---------------------------------------------------------------- nansum, nanmean, count_nonzero
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_nansum_nanmean(dtype):
    a = data((6, 7), "float64", seed=13, nan=True)
    x = P(a, dtype)
    ref = N(x)
    tol = 1e-6 if dtype in FLOATS else 1e-2
    np.testing.assert_allclose(N(pt.nansum(x)), np.nansum(ref), rtol=tol)
    for dim in (0, 1, [0, 1]):
        np.testing.assert_allclose(N(x.nansum(dim)), np.nansum(ref, axis=tuple(np.atleast_1d(dim))),
                                   rtol=tol)
        np.testing.assert_allclose(N(pt.nanmean(x, dim, keepdim=True)),
                                   np.nanmean(ref, axis=tuple(np.atleast_1d(dim)), keepdims=True),
                                   rtol=tol)
    assert pt.nansum(x).dtype == x.dtype and pt.nanmean(x).dtype == x.dtype
    assert pt.nansum(x, dtype=pt.float64).dtype == pt.float64


def test_nansum_integers_and_large_inputs():
    a = data((3, 4), "int16", seed=14)
    r = pt.nansum(P(a), 1)
    assert r.dtype == pt.int64
    np.testing.assert_array_equal(N(r), a.sum(1))
    assert pt.nansum(pt.tensor([True, True, False])).item() == 2
    b = np.random.default_rng(15).standard_normal(100003)
    b[::7] = np.nan
    np.testing.assert_allclose(pt.nansum(P(b)).item(), np.nansum(b), rtol=1e-10)
    np.testing.assert_allclose(pt.nanmean(P(b)).item(), np.nanmean(b), rtol=1e-10)
    assert np.isnan(pt.nanmean(P(np.array([np.nan]))).item())
    with pytest.raises(RuntimeError, match="nansum on CPU does not support complex inputs"):
        pt.nansum(pt.ones(2, dtype=pt.complex64))
    with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point "
                       "or complex dtype but got Long"):
        pt.nanmean(pt.tensor([1, 2]))
    o = pt.empty(0, dtype=pt.float64)
    assert pt.nansum(P(b), out=o) is o and pt.nanmean(P(b), 0, out=o) is o


@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS + ["complex64"])
def test_count_nonzero(dtype):
    a = data((5, 6), dtype if dtype != "complex64" else "float32", seed=16)
    x = P(a, dtype if dtype == "complex64" else None)
    assert pt.count_nonzero(x).item() == np.count_nonzero(a)
    assert pt.count_nonzero(x).dtype == pt.int64
    np.testing.assert_array_equal(N(x.count_nonzero(0)), np.count_nonzero(a, axis=0))
    np.testing.assert_array_equal(N(pt.count_nonzero(x, [0, 1])), np.count_nonzero(a))
    np.testing.assert_array_equal(N(pt.count_nonzero(x.t(), dim=1)), np.count_nonzero(a, axis=0))
    o = pt.empty(0, dtype=pt.int64)
    assert pt.count_nonzero(x, 1, out=o) is o and o.shape == (5,)
    assert pt.count_nonzero(pt.tensor(3.0)).item() == 1 and pt.count_nonzero(pt.empty(0)).item() == 0


# ---------------------------------------------------------------- meta, gradients
def test_meta_tensors_get_shapes_and_dtypes():
    m = pt.empty(4, 5, device="meta")
    cases = [(pt.median(m, 1).values, (4,), pt.float32), (pt.median(m), (), pt.float32),
             (pt.kthvalue(m, 2, 0, True).indices, (1, 5), pt.int64),
             (pt.mode(m).values, (4,), pt.float32), (pt.cummax(m, 0).indices, (4, 5), pt.int64),
             (pt.logcumsumexp(m, 1), (4, 5), pt.float32), (pt.aminmax(m, dim=0).max, (5,), pt.float32),
             (pt.nansum(m, 1), (4,), pt.float32), (pt.count_nonzero(m, 0), (5,), pt.int64)]
    for r, shape, dtype in cases:
        assert r.device.type == "meta" and tuple(r.shape) == shape and r.dtype == dtype


def _distinct(*shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    a = rng.permutation(n).astype(np.float64).reshape(shape) / 3 - n / 7
    return P(a).requires_grad_()


GRADS = {
    "median": (lambda x: pt.median(x), "MedianBackward0"),
    "median_dim": (lambda x: pt.median(x, 1)[0], "MedianBackward1"),
    "median_keepdim": (lambda x: pt.median(x, 0, True)[0], "MedianBackward1"),
    "nanmedian": (lambda x: pt.nanmedian(x), "NanmedianBackward0"),
    "nanmedian_dim": (lambda x: pt.nanmedian(x, 0)[0], "NanmedianBackward1"),
    "kthvalue": (lambda x: pt.kthvalue(x, 2, 1)[0], "KthvalueBackward0"),
    "mode": (lambda x: pt.mode(x, 0)[0], "ModeBackward0"),
    "cummax": (lambda x: pt.cummax(x, 1)[0], "CummaxBackward0"),
    "cummin": (lambda x: pt.cummin(x, 0)[0], "CumminBackward0"),
    "logcumsumexp": (lambda x: pt.logcumsumexp(x, 1), "LogcumsumexpBackward0"),
    "nansum": (lambda x: pt.nansum(x, 1), "NansumBackward0"),
    "nansum_all": (lambda x: pt.nansum(x), "NansumBackward0"),
    "nanmean": (lambda x: pt.nanmean(x, 0), "DivBackward0"),
    "msort": (lambda x: pt.msort(x), "SortBackward0"),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    fn, node = GRADS[name]
    x = _distinct(3, 4, seed=len(name))
    assert fn(x).grad_fn.name() == node
    assert pt.autograd.gradcheck(fn, (x,))


def test_nan_aware_gradients_skip_nans():
    x = P(np.array([1.0, np.nan, 3.0, 4.0])).requires_grad_()
    pt.nansum(x).backward()
    np.testing.assert_array_equal(N(x.grad), [1.0, 0.0, 1.0, 1.0])
    y = P(np.array([[1.0, np.nan, 3.0]])).requires_grad_()
    pt.nanmedian(y, 1)[0].sum().backward()
    np.testing.assert_array_equal(N(y.grad), [[1.0, 0.0, 0.0]])


def test_logcumsumexp_gradient_with_signed_and_zero_gradients():
    x = _distinct(2, 5, seed=3)
    w = P(np.array([[1.0, -2.0, 0.0, 3.0, -0.5], [0.0, 0.0, 1.0, -1.0, 2.0]]))
    assert pt.autograd.gradcheck(lambda t: pt.logcumsumexp(t, 1) * w, (x,))
    assert pt.autograd.gradcheck(lambda t: pt.logcumsumexp(t, 0) * w, (x,))


# ---------------------------------------------------------------- quantile, nanquantile
METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_quantile_matches_numpy_methods(method, dtype):
    a = np.random.default_rng(17).standard_normal((6, 9)).astype(dtype)
    x = P(a)
    tol = 1e-6 if dtype == "float32" else 1e-13
    for q in (0.0, 0.25, 0.5, 0.7, 1.0):
        for dim in (None, 0, 1, -1):
            got = pt.quantile(x, q, dim=dim, interpolation=method)
            want = np.quantile(a, q, axis=dim, method=method)
            assert got.dtype == x.dtype and tuple(got.shape) == np.shape(want)
            np.testing.assert_allclose(N(got), want, rtol=tol, atol=tol)
    qs = np.array([0.1, 0.5, 0.95], dtype=dtype)
    got = x.quantile(P(qs), dim=1, keepdim=True, interpolation=method)
    want = np.quantile(a, qs, axis=1, keepdims=True, method=method)
    assert tuple(got.shape) == want.shape == (3, 6, 1)
    np.testing.assert_allclose(N(got), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(N(pt.quantile(x.t(), P(qs), 0, interpolation=method)),
                               np.quantile(a.T, qs, axis=0, method=method), rtol=tol, atol=tol)


@pytest.mark.filterwarnings("ignore:All-NaN slice")  # NumPy's note on the row of NaNs
@pytest.mark.parametrize("method", METHODS)
def test_nanquantile_skips_nan_and_quantile_propagates_it(method):
    a = np.random.default_rng(18).standard_normal((5, 8))
    a[a > 0.8] = np.nan
    a[2] = np.nan
    x = P(a)
    for q in (0.0, 0.4, 1.0):
        for dim in (None, 0, 1):
            np.testing.assert_allclose(N(pt.nanquantile(x, q, dim, interpolation=method)),
                                       np.nanquantile(a, q, axis=dim, method=method),
                                       rtol=1e-13, equal_nan=True)
            np.testing.assert_allclose(N(pt.quantile(x, q, dim, interpolation=method)),
                                       np.quantile(a, q, axis=dim, method=method),
                                       rtol=1e-13, equal_nan=True)


def test_quantile_zero_dim_out_and_errors():
    s = pt.tensor(2.5, dtype=pt.float64)
    assert pt.quantile(s, 0.3).item() == 2.5 and pt.quantile(s, 0.3, 0, True).shape == ()
    x = P(np.arange(10.0).reshape(2, 5))
    o = pt.empty(0, dtype=pt.float64)
    assert pt.quantile(x, 0.5, 1, out=o) is o
    np.testing.assert_array_equal(N(o), [2.0, 7.0])
    assert pt.nanquantile(x, P(np.array([0.0, 1.0])), out=o) is o and o.shape == (2,)
    cases = [
        (lambda: pt.quantile(pt.empty(0), 0.5), "quantile() input tensor must be non-empty"),
        (lambda: pt.quantile(x, 1.5), "quantile() q must be in the range [0, 1] but got 1.5"),
        (lambda: pt.nanquantile(x, -0.25), "quantile() q must be in the range [0, 1] but got -0.25"),
        (lambda: pt.quantile(x, P(np.array([0.5, 2.0]))),
         "quantile() q values must be in the range [0, 1]"),
        (lambda: pt.quantile(x, P(np.full((2, 2), 0.5))),
         "quantile() q must be a scalar or 1D tensor"),
        (lambda: pt.quantile(x.to(pt.int32), 0.5),
         "quantile() input tensor must be either float or double dtype"),
        (lambda: pt.quantile(x.to(pt.float16), 0.5),
         "quantile() input tensor must be either float or double dtype"),
        (lambda: pt.quantile(x, P(np.array([0.5], dtype=np.float32))),
         "quantile() q tensor must be same dtype as the input tensor"),
        (lambda: pt.quantile(x, 0.5, interpolation="foo"),
         "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
         "but got foo"),
        (lambda: pt.quantile(x, 0.5, out=pt.empty(0)),
         "quantile() out tensor must be same dtype as the input tensor"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == message
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.quantile(x, 0.5, dim=2)


@pytest.mark.parametrize("method", METHODS)
def test_quantile_gradients(method):
    x = _distinct(4, 5, seed=19)
    q = P(np.array([0.2, 0.5, 0.9]))
    assert pt.autograd.gradcheck(lambda t: pt.quantile(t, 0.3, 1, interpolation=method), (x,))
    assert pt.autograd.gradcheck(lambda t: pt.quantile(t, q, interpolation=method), (x,))
    assert pt.autograd.gradcheck(lambda t: pt.nanquantile(t, q, 0, True, interpolation=method),
                                 (x,))
