"""bincount, histc, histogram, searchsorted and bucketize against NumPy (np.bincount,
np.histogram, np.searchsorted, np.digitize) and, where installed, torch (values, dtypes, shapes,
messages): weights and minlength, bin edges at the borders and values outside the range, density,
NaN, sorter=, side= / right=, out_int32=, rows of boundaries, scalars, empty and non-contiguous
inputs, out= forms."""
import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch


def P(a, dtype=None):
    t = pt.from_numpy(np.ascontiguousarray(a).copy()).clone()
    return t.to(getattr(pt, dtype)) if dtype else t


def N(t):
    return t.contiguous().numpy()


# ---------------------------------------------------------------- bincount
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_counts_and_weights(dtype):
    a = np.random.default_rng(0).integers(0, 20, 300).astype(dtype)
    x = P(a)
    r = pt.bincount(x)
    assert r.dtype == pt.int64
    np.testing.assert_array_equal(N(r), np.bincount(a))
    np.testing.assert_array_equal(N(x.bincount(minlength=30)), np.bincount(a, minlength=30))
    w = np.random.default_rng(1).standard_normal(300)
    r = pt.bincount(x, P(w))
    assert r.dtype == pt.float64
    np.testing.assert_allclose(N(r), np.bincount(a, w), rtol=1e-12)
    r32 = pt.bincount(x, P(w.astype(np.float32)))
    assert r32.dtype == pt.float32
    np.testing.assert_allclose(N(r32), np.bincount(a, w.astype(np.float32)), rtol=1e-5)
    assert pt.bincount(x, P(np.ones(300, dtype=np.int32))).dtype == pt.float64
    np.testing.assert_array_equal(N(pt.bincount(x[::3])), np.bincount(a[::3]))


def test_bincount_edges_and_errors():
    assert pt.bincount(pt.tensor([], dtype=pt.int64), minlength=3).tolist() == [0, 0, 0]
    assert pt.bincount(pt.tensor([], dtype=pt.int64)).shape == (0,)
    cases = [
        (lambda: pt.bincount(pt.tensor([-1, 2])), RuntimeError,
         "bincount only supports 1-d non-negative integral inputs."),
        (lambda: pt.bincount(pt.tensor([[1]])), RuntimeError,
         "bincount only supports 1-d non-negative integral inputs."),
        (lambda: pt.bincount(pt.tensor([1.0])), NotImplementedError,
         "\"bincount_cpu\" not implemented for 'Float'"),
        (lambda: pt.bincount(pt.tensor([True])), NotImplementedError,
         "\"bincount_cpu\" not implemented for 'Bool'"),
        (lambda: pt.bincount(pt.tensor([1, 2]), pt.tensor([1.0])), RuntimeError,
         "weights should be 1-d and have the same length as input"),
        (lambda: pt.bincount(pt.tensor([1, 2]), minlength=-1), RuntimeError,
         "minlength should be >= 0"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message
    o = pt.empty(0, dtype=pt.int64)
    assert pt.bincount(pt.tensor([2, 2]), out=o) is o and o.tolist() == [0, 0, 2]


# ---------------------------------------------------------------- histc, histogram
def histc_oracle(a, bins, lo, hi):
    """torch.histc: the range from the data when min == max, widened by 1 when still empty."""
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a, bins, range=(lo, hi))[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_matches_numpy(dtype):
    a = np.random.default_rng(2).standard_normal(1000).astype(dtype)
    x = P(a)
    for bins, lo, hi in [(10, 0, 0), (7, -1, 1), (1, 0, 0), (100, -3, 0.5)]:
        r = pt.histc(x, bins=bins, min=lo, max=hi)
        assert r.dtype == x.dtype and r.shape == (bins,)
        np.testing.assert_array_equal(N(r), histc_oracle(a, bins, lo, hi))
    np.testing.assert_array_equal(N(x.reshape(10, 100).t().histc(5)), histc_oracle(a, 5, 0, 0))
    # borders: the last bin keeps its right edge, values outside are skipped
    b = np.array([0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 5.0], dtype=dtype)
    np.testing.assert_array_equal(N(pt.histc(P(b), 4, 0, 4)), [1, 1, 1, 2])
    np.testing.assert_array_equal(N(pt.histc(P(np.array([1.0, 1, 1], dtype=dtype)), 4)),
                                  [0, 0, 3, 0])
    assert N(pt.histc(pt.empty(0), 3)).tolist() == [0, 0, 0]
    assert pt.histc(P(b).to(pt.float16), 4, 0, 4).dtype == pt.float16


def test_histc_errors():
    x = pt.tensor([1.0, 2.0])
    cases = [
        (lambda: pt.histc(pt.tensor([1, 2]), 4), NotImplementedError,
         "\"histogram_cpu\" not implemented for 'Long'"),
        (lambda: pt.histc(x, 0), RuntimeError,
         "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
        (lambda: pt.histc(x, 4, 2, 1), RuntimeError, "torch.histc: max must be larger than min"),
        (lambda: pt.histc(pt.tensor([1.0, float("inf")]), 4), RuntimeError,
         "torch.histc: range of [1, inf] is not finite"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message
    o = pt.empty(0)
    assert pt.histc(x, 2, out=o) is o and o.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_matches_numpy(dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 25)).astype(dtype)
    w = rng.random((40, 25)).astype(dtype)
    x = P(a)
    for bins in (1, 5, 33):
        for rng_ in (None, (-1.0, 2.0)):
            for density in (False, True):
                for weight in (None, w):
                    r = pt.histogram(x, bins, range=rng_, weight=None if weight is None else P(weight),
                                     density=density)
                    assert type(r).__name__ == "histogram" and r.hist.dtype == x.dtype
                    h, e = np.histogram(a, bins, range=rng_, weights=weight, density=density)
                    np.testing.assert_allclose(N(r.bin_edges), e, rtol=1e-6, atol=1e-6)
                    np.testing.assert_allclose(N(r.hist), h, rtol=1e-5, atol=1e-6)
    edges = np.array([-2.0, -0.5, 0.0, 0.1, 3.0], dtype=dtype)
    r = x.histogram(P(edges), weight=P(w), density=True)
    h, _ = np.histogram(a, edges, weights=w, density=True)
    np.testing.assert_allclose(N(r.hist), h, rtol=1e-5)
    np.testing.assert_array_equal(N(r.bin_edges), edges)
    np.testing.assert_array_equal(N(pt.histogram(x.t(), P(edges)).hist), np.histogram(a, edges)[0])


def test_histogram_borders_and_errors():
    r = pt.histogram(pt.tensor([1.0, 1.0]), 2)
    assert N(r.bin_edges).tolist() == [0.5, 1.0, 1.5] and N(r.hist).tolist() == [0.0, 2.0]
    r = pt.histogram(pt.empty(0), 2)
    assert N(r.bin_edges).tolist() == [0.0, 0.5, 1.0] and N(r.hist).tolist() == [0.0, 0.0]
    r = pt.histogram(pt.tensor([0.0, 4.0, 5.0, -1.0, float("nan")]), 4, range=(0.0, 4.0))
    assert N(r.hist).tolist() == [1.0, 0.0, 0.0, 1.0]
    x = pt.tensor([1.0, 2.0])
    cases = [
        (lambda: pt.histogram(pt.tensor([1, 2]), 3), NotImplementedError,
         "\"histogramdd\" not implemented for 'Long'"),
        (lambda: pt.histogram(x, 3, range=(3.0, 1.0)), RuntimeError,
         "torch.histogramdd: min should not exceed max, but got min 3 max 1 for dimension 0"),
        (lambda: pt.histogram(x, -1), RuntimeError,
         "torch.histogram(): bins must be > 0, but got -1 for dimension 0"),
        (lambda: pt.histogram(x, pt.tensor([[2.0, 1.0]])), RuntimeError,
         "torch.histogramdd: bins tensor should have one dimension, but got 2 dimensions in the "
         "bins tensor for dimension 0"),
        (lambda: pt.histogram(x, 2, weight=pt.tensor([1.0])), RuntimeError,
         "torch.histogramdd: if weight tensor is provided it should have the same shape as the "
         "input tensor excluding its innermost dimension, but got input with shape [2, 1] and "
         "weight with shape [1]"),
        (lambda: pt.histogram(pt.tensor([1.0, float("nan")]), 2), RuntimeError,
         "torch.histogramdd: dimension 0's range [nan, nan] is not finite"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message
    h, e = pt.empty(0), pt.empty(0)
    r = pt.histogram(x, 2, out=(h, e))
    assert r.hist is h and r.bin_edges is e and type(r).__name__ == "histogram_out"


# ---------------------------------------------------------------- searchsorted, bucketize
@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "float32", "float64"])
def test_searchsorted_matches_numpy(dtype):
    rng = np.random.default_rng(4)
    seq = np.sort(rng.integers(-20, 20, 50)).astype(dtype)
    vals = rng.integers(-25, 25, (6, 7)).astype(dtype)
    s, v = P(seq), P(vals)
    for side in ("left", "right"):
        r = pt.searchsorted(s, v, side=side)
        assert r.dtype == pt.int64 and r.shape == (6, 7)
        np.testing.assert_array_equal(N(r), np.searchsorted(seq, vals, side=side))
    np.testing.assert_array_equal(N(pt.searchsorted(s, v, right=True, out_int32=True)),
                                  np.searchsorted(seq, vals, side="right"))
    assert pt.searchsorted(s, v, out_int32=True).dtype == pt.int32
    np.testing.assert_array_equal(N(pt.searchsorted(s, v.t())), np.searchsorted(seq, vals.T))
    np.testing.assert_array_equal(N(pt.searchsorted(s.flip(0).flip(0), v[:, ::2])),
                                  np.searchsorted(seq, vals[:, ::2]))
    # sorter: the positions that sort an unsorted sequence
    shuffled = rng.permutation(seq)
    order = np.argsort(shuffled, kind="stable")
    np.testing.assert_array_equal(N(pt.searchsorted(P(shuffled), v, sorter=P(order))),
                                  np.searchsorted(shuffled, vals, sorter=order))
    assert pt.searchsorted(s, 3).item() == np.searchsorted(seq, 3)
    assert pt.searchsorted(s, 3).shape == ()


def test_searchsorted_rows_nan_mixed_dtypes_and_empty():
    rng = np.random.default_rng(5)
    seq = np.sort(rng.standard_normal((3, 4, 9)), axis=-1)
    vals = rng.standard_normal((3, 4, 5))
    r = pt.searchsorted(P(seq), P(vals), right=True)
    want = np.stack([[np.searchsorted(seq[i, j], vals[i, j], side="right") for j in range(4)]
                     for i in range(3)])
    np.testing.assert_array_equal(N(r), want)
    s = P(np.array([1.0, 2.0, np.nan]))
    # torch's comparisons put a NaN value past everything, and pass over a NaN boundary
    assert pt.searchsorted(s, pt.tensor([np.nan, 2.0, 5.0])).tolist() == [3, 1, 3]
    assert pt.searchsorted(pt.tensor([1, 3, 5]), pt.tensor([2.5, 3.0])).tolist() == [1, 1]
    assert pt.searchsorted(pt.empty(0), pt.tensor([1.0])).tolist() == [0]
    assert pt.searchsorted(pt.tensor([1.0]), pt.empty(0, 3)).shape == (0, 3)
    big = np.sort(rng.standard_normal(100000))
    q = rng.standard_normal(40000)
    np.testing.assert_array_equal(N(pt.searchsorted(P(big), P(q))), np.searchsorted(big, q))


def test_bucketize_matches_digitize():
    rng = np.random.default_rng(6)
    edges = np.sort(rng.integers(0, 30, 12)).astype(np.float64)
    x = rng.integers(-5, 35, (4, 9)).astype(np.float64)
    for right in (False, True):
        r = pt.bucketize(P(x), P(edges), right=right)
        # torch's right=False is NumPy's right=True: boundaries[i-1] < x <= boundaries[i]
        np.testing.assert_array_equal(N(r), np.digitize(x, edges, right=not right))
    assert pt.bucketize(4, P(edges), out_int32=True).dtype == pt.int32
    assert pt.bucketize(4, P(edges)).item() == np.digitize(4, edges, right=True)
    with pytest.raises(RuntimeError, match=r"boundaries tensor must be 1 dimension, but got dim\(2\)"):
        pt.bucketize(P(x), P(edges).reshape(3, 4))
    o = pt.empty(0, dtype=pt.int64)
    assert pt.bucketize(P(x), P(edges), out=o) is o and o.shape == (4, 9)


def test_searchsorted_errors():
    s = pt.tensor([1.0, 2.0, 3.0])
    cases = [
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), side="left", right=True),
         "torch.searchsorted(): side and right can't be set to opposites, got side of left while "
         "right was True"),
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), side="foo"),
         "torch.searchsorted(): side can only be 'left' or 'right' but got foo"),
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), sorter=pt.tensor([1, 2])),
         "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
         "tensor [3]and got sorter tensor [2]"),
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), sorter=pt.tensor([1.0, 2.0, 0.0])),
         "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Float"),
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), sorter=pt.tensor([1, 2, 5])),
         "torch.searchsorted(): sorter index out of range"),
        (lambda: pt.searchsorted(pt.tensor(3.0), pt.tensor([2.0])),
         "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
         "dimension"),
        (lambda: pt.searchsorted(pt.tensor([[1, 3], [2, 4]]), pt.tensor([2, 3])),
         "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
         "dimensions of boundaries tensor and input value tensor must match, but we got "
         "boundaries tensor [2, 2] and input value tensor [2]"),
        (lambda: pt.searchsorted(pt.tensor([[1, 3], [2, 4]]), 2),
         "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
         "is 1, but we got boundaries tensor dim(2) and input value's dim(0) numel(1)"),
        (lambda: pt.searchsorted(s, pt.tensor([2.0]), out=pt.empty(0, dtype=pt.int32)),
         "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
         "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
         "dtype Int and out_int32 flag is False"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == message
    with pytest.raises(NotImplementedError, match="\"searchsorted_out_cpu\" not implemented for 'Bool'"):
        pt.searchsorted(pt.tensor([True, False]), pt.tensor([True]))


def test_meta_shapes():
    m = pt.empty(3, 4, device="meta")
    assert pt.searchsorted(pt.empty(5, device="meta"), m).shape == (3, 4)
    assert pt.bucketize(m, pt.empty(5, device="meta"), out_int32=True).dtype == pt.int32
    assert pt.histc(pt.empty(0, device="meta"), 7).shape == (7,)


# ---------------------------------------------------------------- against torch
def T2P(t):
    return pt.from_numpy(t.numpy().copy()).clone()


@requires_torch
def test_bins_match_torch():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(500, generator=g)
    w = torch.rand(500, generator=g)
    for f in (lambda L, t, w: L.histc(t, 13), lambda L, t, w: L.histc(t, 6, -1, 1.5),
              lambda L, t, w: L.histogram(t, 9), lambda L, t, w: L.histogram(t, 4, range=(-2.0, 0.3)),
              lambda L, t, w: L.histogram(t, 8, weight=w, density=True)):
        want, got = f(torch, x, w), f(pt, T2P(x), T2P(w))
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
            np.testing.assert_allclose(N(a), b.numpy(), rtol=1e-6, atol=1e-7)
    i = torch.randint(0, 40, (300,), generator=g)
    for f in (lambda L, t: L.bincount(t), lambda L, t: L.bincount(t, minlength=50),
              lambda L, t: t.bincount(t.float() * 0.5)):
        a, b = f(pt, T2P(i)), f(torch, i)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        np.testing.assert_allclose(N(a), b.numpy())
    seq = torch.sort(torch.randint(0, 20, (3, 15), generator=g), -1).values.double()
    vals = torch.randint(-2, 22, (3, 6), generator=g)
    for f in (lambda L, s, v: L.searchsorted(s, v), lambda L, s, v: L.searchsorted(s, v, right=True),
              lambda L, s, v: L.searchsorted(s[0], v, side="right", out_int32=True),
              lambda L, s, v: L.bucketize(v, s[1]), lambda L, s, v: L.bucketize(v.float(), s[2], right=True),
              lambda L, s, v: L.searchsorted(s[0], 7), lambda L, s, v: L.bucketize(7.5, s[0])):
        a, b = f(pt, T2P(seq), T2P(vals)), f(torch, seq, vals)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1] and a.shape == b.shape
        np.testing.assert_array_equal(N(a), b.numpy())
