"""Sorting, selection, sets and distances against torch as the oracle: sort, argsort, topk, the
unique family (torch.unique's keyword forms and results), cross / linalg_cross, cdist and pdist,
over dtypes, layouts (0-d, empty, transposed, sliced, expanded), sizes on both sides of the
sort's thresholds (insertion sort, radix sort, threads), out= forms, meta tensors and errors."""
import math

import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
        "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def tdt(name):
    return getattr(torch, name)


def pdt(name):
    return getattr(pt, name)


def to_pt(x: torch.Tensor) -> pt.Tensor:
    """A pytensor copy of a torch tensor (bfloat16 through float32, which holds it exactly)."""
    name = str(x.dtype).split(".")[1]
    if x.dtype == torch.bfloat16:
        return pt.from_numpy(x.float().numpy().copy()).to(pt.bfloat16)
    # a copy that pytensor owns, made while no exception is pending (the release of memory lent
    # from NumPy calls back into Python)
    return pt.from_numpy(x.numpy().copy()).clone().to(pdt(name))


def to_np(x: pt.Tensor) -> np.ndarray:
    if x.dtype == pt.bfloat16:
        x = x.to(pt.float32)
    return x.contiguous().numpy()


def tnp(x: torch.Tensor) -> np.ndarray:
    return (x.float() if x.dtype == torch.bfloat16 else x).contiguous().numpy()


def assert_same(got: pt.Tensor, want: torch.Tensor, signs=True):
    """Same shape, dtype and values (NaN equal to NaN, and the sign of zeros when asked)."""
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    a, b = to_np(got), tnp(want)
    np.testing.assert_array_equal(a, b)
    if signs and a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def sample(shape, dtype, seed=0, dups=True, odd=True):
    """Values with repeats, and for floats NaN, infinities and both zeros (when `odd`)."""
    g = torch.Generator().manual_seed(seed)
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype in FLOATS:
        v = torch.randint(-20, 20, (n,), generator=g).double() / 4
        specials = torch.tensor([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0],
                                dtype=torch.float64)
        k = min(n // 3, 12) if odd else 0
        pos = torch.randperm(n, generator=g)[:k]
        v[pos] = specials[torch.arange(k) % 6]
        return v.to(tdt(dtype)).reshape(shape)
    info = torch.iinfo(tdt(dtype))
    lo, hi = (-30, 30) if dups else (max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1))
    lo = max(lo, info.min)
    v = torch.randint(lo, hi, (n,), generator=g, dtype=torch.int64)
    if not dups:  # extremes of the dtype join
        v[: min(n, 2)] = torch.tensor([info.min, info.max])[: min(n, 2)]
    return v.to(tdt(dtype)).reshape(shape)


def layouts(x: torch.Tensor):
    """(torch view, pytensor view of the same elements) per layout, plus an expanded one."""
    base = to_pt(x)
    out = [("contiguous", x, base)]
    if x.dim() >= 2:
        out.append(("transposed", x.transpose(0, -1), base.transpose(0, -1)))
    if x.dim() >= 1 and x.shape[-1] >= 2:
        out.append(("sliced", x[..., ::2], to_pt(x)[..., ::2]))
    if x.dim() >= 1 and x.shape[-1] >= 1:
        ex = x[..., :1].expand(*x.shape[:-1], 5)
        out.append(("expanded", ex, base[..., :1].expand(*x.shape[:-1], 5)))
    return out


# ---------------------------------------------------------------- sort and argsort
SHAPES = [(), (0,), (7,), (3, 24), (2, 25), (4, 0), (2, 3, 40), (1, 1000)]


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sort_matches_torch_stable(dtype, shape):
    x = sample(shape, dtype, seed=len(shape))
    for name, tx, px in layouts(x):
        for dim in range(-max(tx.dim(), 1), max(tx.dim(), 1)):
            for desc in (False, True):
                want = torch.sort(tx, dim=dim, descending=desc, stable=True)
                got = pt.sort(px, dim=dim, descending=desc, stable=True)
                assert_same(got[0], want.values)
                assert_same(got[1], want.indices)
                # the default sort is stable here as well, and argsort is its indices
                assert_same(pt.sort(px, dim, desc)[1], want.indices)
                assert_same(pt.argsort(px, dim=dim, descending=desc), want.indices)
                assert_same(px.argsort(dim, desc), want.indices)


def test_sort_nan_is_the_largest_and_zeros_keep_their_order():
    x = torch.tensor([1.0, math.nan, -math.inf, -0.0, 0.0, -math.nan, math.inf, -0.0, 2.0])
    for desc in (False, True):
        want = torch.sort(x, descending=desc, stable=True)
        got = pt.sort(to_pt(x), descending=desc, stable=True)
        assert_same(got[0], want.values)
        assert_same(got[1], want.indices)
    assert math.isnan(pt.sort(to_pt(x))[0][-1].item())
    assert math.isnan(pt.sort(to_pt(x), descending=True)[0][0].item())


@pytest.mark.parametrize("dtype", ["int64", "float32", "int8", "bfloat16"])
def test_sort_many_rows_split_across_threads(dtype):
    # 64 rows x 2048: above the thread grain; the whole range of values for the integers
    x = sample((64, 2048), dtype, seed=3, dups=False)
    for dim in (1, 0):
        want = torch.sort(x, dim=dim, stable=True)
        got = pt.sort(to_pt(x), dim=dim, stable=True)
        assert_same(got[0], want.values)
        assert_same(got[1], want.indices)


def test_sort_one_long_row_with_every_key_byte_in_use():
    g = torch.Generator().manual_seed(7)
    x = torch.randint(-(2 ** 62), 2 ** 62, (100_000,), generator=g)
    want = torch.sort(x, stable=True)
    got = pt.sort(to_pt(x), stable=True)
    assert_same(got[0], want.values)
    assert_same(got[1], want.indices)
    y = torch.randn(50_000, generator=g, dtype=torch.float64) * 1e300
    assert_same(pt.sort(to_pt(y), descending=True)[0], torch.sort(y, descending=True).values)


def test_sort_results_take_the_inputs_dense_strides():
    x = sample((4, 6), "float32")
    for tx, px in [(x.t(), to_pt(x).t()), (x, to_pt(x))]:
        assert pt.sort(px)[0].stride() == torch.sort(tx).values.stride()
        assert pt.sort(px)[1].stride() == torch.sort(tx).indices.stride()
        assert pt.argsort(px, dim=0).stride() == torch.argsort(tx, dim=0).stride()


def test_sort_returns_a_pair_and_is_a_method():
    x = to_pt(sample((3, 4), "int32"))
    r = pt.sort(x)
    assert isinstance(r, tuple) and len(r) == 2
    v, i = x.sort(0, True)
    assert_same(v, torch.sort(torch.from_numpy(x.numpy()), 0, True).values)
    assert i.dtype == pt.int64


def test_sort_out_forms():
    x = sample((3, 5), "float32")
    v, i = pt.empty(0), pt.empty(0, dtype=pt.int64)
    r = pt.sort(to_pt(x), 0, True, out=(v, i))
    assert r[0] is v and r[1] is i
    want = torch.sort(x, dim=0, descending=True, stable=True)
    assert_same(v, want.values)
    assert_same(i, want.indices)
    v2, i2 = pt.empty(3, 5), pt.empty(3, 5, dtype=pt.int64)
    pt.sort(to_pt(x), stable=True, dim=1, out=(v2, i2))
    assert_same(v2, torch.sort(x, dim=1).values)
    o = pt.empty(0, dtype=pt.int64)
    assert pt.argsort(to_pt(x), stable=True, dim=0, out=o) is o
    assert_same(o, torch.argsort(x, dim=0, stable=True))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        pt.sort(to_pt(x), values=pt.empty(0), indices=pt.empty(0, dtype=pt.int64))  # torch: out=
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pt.sort(to_pt(x), out=(pt.empty(0, dtype=pt.float64), pt.empty(0, dtype=pt.int64)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pt.sort(to_pt(x), out=(pt.empty(0), pt.empty(0, dtype=pt.int32)))
    with pytest.raises(RuntimeError, match="doesn't match"):
        pt.sort(to_pt(x), out=(pt.empty(2, 2), pt.empty(0, dtype=pt.int64)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sort_refuses_complex_with_torchs_message(dtype):
    x = pt.zeros(3, dtype=pdt(dtype))
    with pytest.raises(RuntimeError, match="Sort does not support complex dtypes on CPU"):
        pt.sort(x)
    with pytest.raises(RuntimeError, match="Sort does not support complex dtypes on CPU"):
        pt.argsort(x)
    with pytest.raises(RuntimeError, match="topk does not support complex dtypes on CPU"):
        pt.topk(x, 1)
    with pytest.raises(NotImplementedError, match="\"unique\" not implemented for 'Complex"):
        pt.unique(x)
    with pytest.raises(NotImplementedError, match="\"unique_dim\" not implemented for 'Complex"):
        pt.unique(x, dim=0)


def test_sort_dim_errors_are_torchs():
    for x, dim in [(pt.zeros(3), 1), (pt.zeros(3, 4), -3), (pt.tensor(5.0), 1)]:
        tx = torch.zeros(tuple(x.shape))
        with pytest.raises(IndexError) as want:
            torch.sort(tx, dim=dim)
        with pytest.raises(IndexError, match=r"Dimension out of range") as got:
            pt.sort(x, dim=dim)
        assert str(got.value) == str(want.value)
    v, i = pt.sort(pt.tensor(5.0), dim=0)
    assert v.shape == () and v.item() == 5.0 and i.item() == 0


# ---------------------------------------------------------------- topk
TOPK_DTYPES = [d for d in REAL if d != "bool"]


@pytest.mark.parametrize("dtype", TOPK_DTYPES)
def test_topk_values_match_torch(dtype):
    x = sample((5, 30), dtype, seed=11)
    for name, tx, px in layouts(x):
        for dim in (-1, 0):
            n = tx.shape[dim]
            for k in sorted({0, 1, n // 2, n}):
                for largest in (True, False):
                    want = torch.topk(tx, k, dim=dim, largest=largest)
                    got = pt.topk(px, k, dim=dim, largest=largest)
                    assert_same(got[0], want.values, signs=False)
                    # indices may differ between equal values: they must pick those values
                    picked = torch.gather(tx, dim, torch.from_numpy(to_np(got[1])))
                    np.testing.assert_array_equal(tnp(picked), tnp(want.values))


def test_topk_indices_match_torch_without_ties():
    g = torch.Generator().manual_seed(5)
    x = torch.randperm(3000, generator=g).reshape(30, 100).float()
    for dim, k, largest in [(1, 7, True), (0, 30, False), (1, 100, True), (-2, 3, True)]:
        want = torch.topk(x, k, dim=dim, largest=largest)
        got = to_pt(x).topk(k, dim, largest)
        assert_same(got[0], want.values)
        assert_same(got[1], want.indices)
        assert got[0].is_contiguous()
    unsorted = pt.topk(to_pt(x), 10, sorted=False)[0]
    want = torch.topk(x, 10, sorted=False).values
    np.testing.assert_array_equal(np.sort(to_np(unsorted)), np.sort(tnp(want)))


def test_topk_nan_counts_as_largest():
    x = torch.tensor([1.0, math.nan, 3.0, -math.inf, 2.0])
    for largest in (True, False):
        want = torch.topk(x, 3, largest=largest)
        got = pt.topk(to_pt(x), 3, largest=largest)
        assert_same(got[0], want.values)
        assert_same(got[1], want.indices)


def test_topk_out_and_errors():
    x = sample((4, 6), "int32")
    v, i = pt.empty(0, dtype=pt.int32), pt.empty(0, dtype=pt.int64)
    r = pt.topk(to_pt(x), 2, out=(v, i))
    assert r[0] is v and r[1] is i
    assert_same(v, torch.topk(x, 2).values)
    for shape, k in [((3,), 4), ((3,), -1), ((), 2)]:
        with pytest.raises(RuntimeError, match="selected index k out of range"):
            torch.topk(torch.zeros(shape), k)
        with pytest.raises(RuntimeError, match="selected index k out of range"):
            pt.topk(pt.zeros(*shape), k)
    r = pt.topk(pt.tensor(3.0), 1)
    assert r[0].shape == () and r[0].item() == 3.0 and r[1].item() == 0
    assert pt.topk(pt.zeros(0), 0)[0].shape == (0,)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.topk(pt.zeros(2, 3), 1, dim=2)
    with pytest.raises(RuntimeError, match="topk does not support bool dtypes on CPU"):
        pt.topk(pt.zeros(3, dtype=pt.bool), 1)


# ---------------------------------------------------------------- unique
def assert_tuple_same(got, want, x=None):
    """unique's results equal torch's: a tensor for a tensor, a tuple for a tuple. With `x` (the
    input) the second result is the inverse, which may order the groups of NaNs (each NaN is its
    own group) differently: it must rebuild x, and equal torch's away from NaNs."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, pt.Tensor)
        assert_same(got, want, signs=False)
        return
    assert isinstance(got, tuple) and len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        if i != 1 or x is None or not x.dtype.is_floating_point or w.numel() == 0:
            assert_same(g, w, signs=False)
            continue
        inv, xs = to_np(g), tnp(x)
        np.testing.assert_array_equal(to_np(got[0])[inv], xs)
        np.testing.assert_array_equal(np.where(np.isnan(xs), -1, inv),
                                      np.where(np.isnan(xs), -1, tnp(w)))


@pytest.mark.parametrize("dtype", REAL)
def test_unique_matches_torch_in_every_keyword_form(dtype):
    x = sample((4, 9), dtype, seed=21)
    # slices with NaN sort in an order torch leaves to its comparisons: none along dims
    xd = sample((4, 9), dtype, seed=21, odd=False)
    xd[2] = xd[0]
    for (name, tx, px), (_, tdx, pdx) in zip(layouts(x), layouts(xd)):
        for sorted_ in (True, False):
            for inv in (False, True):
                for cnt in (False, True):
                    kw = dict(sorted=sorted_, return_inverse=inv, return_counts=cnt)
                    x_inv = tx if inv else None
                    assert_tuple_same(pt.unique(px, **kw), torch.unique(tx, **kw), x_inv)
                    assert_tuple_same(px.unique(**kw), tx.unique(**kw), x_inv)
                    for dim in (0, 1, -1):
                        assert_tuple_same(pt.unique(pdx, dim=dim, **kw),
                                          torch.unique(tdx, dim=dim, **kw))
        assert_tuple_same(pt.unique(px, True, True), torch.unique(tx, True, True), tx)


def test_unique_keeps_every_nan_and_merges_zeros():
    x = torch.tensor([math.nan, 1.0, math.nan, 1.0, -0.0, 0.0])
    got = pt.unique(to_pt(x), return_inverse=True, return_counts=True)
    assert_tuple_same(got, torch.unique(x, return_inverse=True, return_counts=True))
    assert np.signbit(to_np(got[0])[0])  # the first zero of the stable order is kept
    rows = torch.tensor([[1.0, math.nan], [1.0, math.nan], [0.0, 2.0]])
    assert_tuple_same(pt.unique(to_pt(rows), dim=0, return_counts=True),
                      torch.unique(rows, dim=0, return_counts=True))


def test_unique_of_large_input_crosses_the_radix_threshold():
    x = sample((5000,), "int16", seed=2, dups=False)
    kw = dict(return_inverse=True, return_counts=True)
    assert_tuple_same(pt.unique(to_pt(x), **kw), torch.unique(x, **kw))
    assert_tuple_same(pt.unique(to_pt(x.reshape(50, 100)), dim=1, **kw),
                      torch.unique(x.reshape(50, 100), dim=1, **kw))


def test_unique_shapes_0d_and_empty():
    kw = dict(return_inverse=True, return_counts=True)
    for tx in [torch.tensor(3.0), torch.zeros(0), torch.zeros(0, 3), torch.zeros(2, 0, 3)]:
        assert_tuple_same(pt.unique(to_pt(tx), **kw), torch.unique(tx, **kw))
    assert_tuple_same(pt.unique(to_pt(torch.zeros(0, 3)), dim=0, **kw),
                      torch.unique(torch.zeros(0, 3), dim=0, **kw))
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't "
                                           "selected, so unique cannot be applied"):
        pt.unique(pt.zeros(0, 3), dim=1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        pt.unique(pt.tensor(3.0), dim=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.unique(pt.zeros(2, 3), dim=2)


def test_unique_aten_operators_return_three_tensors():
    x = sample((3, 4), "int64", seed=4)
    px = to_pt(x)
    ops = pt.ops.aten
    for got, want in [
        (ops._unique2(px), torch.ops.aten._unique2(x)),
        (ops._unique2(px, True, True, True), torch.ops.aten._unique2(x, True, True, True)),
        (ops.unique_dim(px, 1), torch.ops.aten.unique_dim(x, 1)),
        (ops.unique_consecutive(px), torch.ops.aten.unique_consecutive(x)),
        (ops.unique_consecutive(px, True, True, 0),
         torch.ops.aten.unique_consecutive(x, True, True, 0)),
        (ops.unique_dim_consecutive(px, 0), torch.ops.aten.unique_dim_consecutive(x, 0)),
    ]:
        assert_tuple_same(got, tuple(want))
    outs = (pt.empty(0, dtype=pt.int64), pt.empty(0, dtype=pt.int64), pt.empty(0, dtype=pt.int64))
    r = pt._unique2(px, True, True, True, out0=outs[0], out1=outs[1], out2=outs[2])
    assert all(a is b for a, b in zip(r, outs))
    assert_tuple_same(r, tuple(torch.ops.aten._unique2(x, True, True, True)))


@pytest.mark.parametrize("dtype", REAL)
def test_unique_consecutive_matches_torch(dtype):
    base = sample((3, 12), dtype, seed=8)
    x = base.repeat_interleave(2, dim=1)  # runs to merge
    kw = dict(return_inverse=True, return_counts=True)
    for name, tx, px in layouts(x):
        got = pt.unique_consecutive(px, **kw)
        assert_tuple_same(got, tuple(torch.ops.aten.unique_consecutive(tx, **kw)))
        for dim in (0, 1, -1):
            assert_tuple_same(pt.unique_consecutive(px, dim=dim, **kw),
                              torch.unique_consecutive(tx, dim=dim, **kw))


def test_unique_on_meta_is_refused():
    with pytest.raises(NotImplementedError, match="meta"):
        pt.unique(pt.zeros(3, device="meta"))


# ---------------------------------------------------------------- cross
CROSS_DTYPES = [d for d in REAL if d != "bool"] + ["complex64", "complex128"]


def cross_sample(shape, dtype, seed):
    if dtype.startswith("complex"):  # small integer parts: the products are exact
        g = torch.Generator().manual_seed(seed)
        return torch.complex(torch.randint(-9, 9, shape, generator=g).double(),
                             torch.randint(-9, 9, shape, generator=g).double()).to(tdt(dtype))
    if dtype in FLOATS:
        g = torch.Generator().manual_seed(seed)
        return (torch.randint(-40, 40, shape, generator=g).double() / 8).to(tdt(dtype))
    info = torch.iinfo(tdt(dtype))
    g = torch.Generator().manual_seed(seed)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(tdt(dtype))


@pytest.mark.parametrize("dtype", CROSS_DTYPES)
def test_cross_matches_torch(dtype):
    a, b = cross_sample((4, 3, 5), dtype, 1), cross_sample((4, 3, 5), dtype, 2)
    tol = dict(rtol=1e-2, atol=1e-2) if dtype in ("float16", "bfloat16") else dict(rtol=0, atol=0)
    for tx, ty, px, py in [(a, b, to_pt(a), to_pt(b)),
                           (a.transpose(0, 2), b.transpose(0, 2), to_pt(a).transpose(0, 2),
                            to_pt(b).transpose(0, 2)),
                           (a[:1], b, to_pt(a)[:1], to_pt(b)),                   # broadcast
                           (a[:, :, :1].expand(4, 3, 5), b, to_pt(a)[:, :, :1].expand(4, 3, 5),
                            to_pt(b))]:
        d = 1 if tx.shape[1] == 3 else [i for i, s in enumerate(tx.shape) if s == 3][0]
        want = torch.linalg.cross(tx, ty, dim=d)
        for got in (pt.linalg_cross(px, py, dim=d), pt.cross(px, py, dim=d), px.cross(py, d),
                    pt.cross(px, py, d - tx.dim())):
            assert tuple(got.shape) == tuple(want.shape) and got.is_contiguous()
            if dtype.startswith("complex"):
                np.testing.assert_array_equal(got.numpy(), want.numpy())
            else:
                np.testing.assert_allclose(to_np(got).astype(np.float64),
                                           tnp(want).astype(np.float64), **tol)


def test_cross_default_dim_and_linalg_default():
    a, b = torch.randn(3, 4, 3), torch.randn(3, 4, 3)
    with pytest.warns(UserWarning):
        want = torch.cross(a, b)  # the first dim of size 3: 0
    np.testing.assert_allclose(pt.cross(to_pt(a), to_pt(b)).numpy(), want.numpy(), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(pt.linalg_cross(to_pt(a), to_pt(b)).numpy(),
                               torch.linalg.cross(a, b).numpy(), rtol=1e-5, atol=1e-5)


def test_cross_out_and_errors():
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    o = pt.empty(0)
    assert pt.cross(to_pt(a), to_pt(b), 1, out=o) is o
    np.testing.assert_allclose(o.numpy(), torch.cross(a, b, 1).numpy(), rtol=1e-5, atol=1e-5)
    o2 = pt.empty(0)
    assert pt.linalg_cross(to_pt(a), to_pt(b), out=o2) is o2
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pt.cross(to_pt(a), to_pt(b), 1, out=pt.empty(0, dtype=pt.float64))
    cases = [
        ((4, 2), (4, 2), None, RuntimeError, "no dimension of size 3 in input"),
        ((3, 4), (3, 4), 1, RuntimeError, "linalg.cross: inputs dimension 1 must have length 3. "
                                          "Got 4 and 4"),
        ((3, 3), (2, 3, 3), 0, RuntimeError, "inputs must have the same number of dimensions"),
        ((4, 3), (2, 3), 1, RuntimeError, "The size of tensor a \\(4\\) must match the size of "
                                          "tensor b \\(2\\) at non-singleton dimension 0"),
        ((3, 4), (3, 4), 2, IndexError, "Dimension out of range"),
    ]
    for sa, sb, dim, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            torch.cross(torch.randn(sa), torch.randn(sb), dim=dim)
        with pytest.raises(exc, match=msg):
            pt.cross(pt.zeros(*sa), pt.zeros(*sb), dim=dim)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        pt.linalg_cross(pt.zeros(4, 3), pt.zeros(4, 3, dtype=pt.float64))
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        pt.linalg_cross(pt.zeros(3, dtype=pt.bool), pt.zeros(3, dtype=pt.bool))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dim"):
        pt.linalg_cross(pt.tensor(1.0), pt.tensor(1.0))


# ---------------------------------------------------------------- cdist and pdist
PS = [0.0, 0.5, 1.0, 2.0, 3.5, math.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", PS)
def test_cdist_matches_torch(dtype, p):
    g = torch.Generator().manual_seed(PS.index(p))
    # integer coordinates: differences are exact and p = 0 counts them the same way
    x1 = torch.randint(-5, 5, (2, 1, 6, 4), generator=g).to(tdt(dtype))
    x2 = torch.randint(-5, 5, (3, 30, 4), generator=g).to(tdt(dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for tx1, tx2, px1, px2 in [(x1, x2, to_pt(x1), to_pt(x2)),
                               (x1.transpose(-1, -2).contiguous().transpose(-1, -2), x2[:, ::2],
                                to_pt(x1.transpose(-1, -2).contiguous()).transpose(-1, -2),
                                to_pt(x2)[:, ::2])]:
        # compute_mode 2 keeps torch on its direct formula for p = 2 (the mm form rounds apart)
        want = torch.cdist(tx1, tx2, p=p, compute_mode="donot_use_mm_for_euclid_dist")
        # torch.cdist names the operator's int modes by strings; the operator takes the ints
        for mode in (None, 0, 1, 2):
            got = pt.ops.aten.cdist(px1, px2, p, mode)
            assert tuple(got.shape) == tuple(want.shape) and got.dtype == pdt(dtype)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=1e-6)
    fwd = pt._cdist_forward(to_pt(x1), to_pt(x2), p, None)
    np.testing.assert_allclose(fwd.numpy(), torch.cdist(x1, x2, p=p).numpy(), rtol=1e-4, atol=1e-4)


def test_cdist_shapes_out_and_errors():
    assert pt.cdist(pt.zeros(0, 3), pt.zeros(4, 3)).shape == (0, 4)
    assert pt.cdist(pt.ones(2, 0), pt.ones(4, 0)).tolist() == [[0.0] * 4] * 2
    assert pt.cdist(pt.ones(2, 1, 2, 3), pt.ones(3, 4, 3)).shape == (2, 3, 2, 4)
    o = pt.empty(0)
    assert pt._cdist_forward(pt.ones(2, 3), pt.zeros(1, 3), 2.0, None, out=o) is o
    np.testing.assert_allclose(o.numpy(), np.full((2, 1), math.sqrt(3)), rtol=1e-5, atol=1e-5)
    cases = [
        (pt.zeros(2, 3), pt.zeros(2, 4), {}, RuntimeError,
         "X1 and X2 must have the same number of columns. X1: 3 X2: 4"),
        (pt.zeros(2, 3), pt.zeros(2, 3), {"p": -1.0}, RuntimeError,
         "cdist only supports non-negative p values"),
        (pt.zeros(2, 3), pt.zeros(2, 3), {"p": math.nan}, RuntimeError,
         "cdist only supports non-negative p values"),
        (pt.zeros(3), pt.zeros(2, 3), {}, RuntimeError,
         "cdist only supports at least 2D tensors, X1 got: 1D"),
        (pt.zeros(2, 3), pt.zeros(3), {}, RuntimeError,
         "cdist only supports at least 2D tensors, X2 got: 1D"),
        (pt.zeros(2, 3, dtype=pt.float64), pt.zeros(2, 3), {}, RuntimeError,
         "expected scalar type Double but found Float"),
        (pt.zeros(2, 3, dtype=pt.int32), pt.zeros(2, 3, dtype=pt.int32), {}, RuntimeError,
         "cdist only supports floating-point dtypes, X1 got: Int"),
        (pt.zeros(2, 3, dtype=pt.complex64), pt.zeros(2, 3, dtype=pt.complex64), {},
         RuntimeError, "cdist only supports floating-point dtypes, X1 got: ComplexFloat"),
        (pt.zeros(2, 3, dtype=pt.float16), pt.zeros(2, 3, dtype=pt.float16), {},
         NotImplementedError, "\"cdist\" not implemented for 'Half'"),
        (pt.zeros(2, 3, dtype=pt.bfloat16), pt.zeros(2, 3, dtype=pt.bfloat16), {},
         NotImplementedError, "\"cdist\" not implemented for 'BFloat16'"),
        (pt.zeros(2, 2, 3), pt.zeros(3, 4, 3), {}, RuntimeError,
         "The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"),
        (pt.zeros(2, 3), pt.zeros(4, 3), {"compute_mode": 5}, ValueError,
         "5 is not a valid value for compute_mode"),
    ]
    with pytest.raises(RuntimeError, match="possible modes: 0, 1, 2, but was: 5"):
        pt.ops.aten.cdist(pt.zeros(2, 3), pt.zeros(4, 3), compute_mode=5)
    for a, b, kw, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            pt.cdist(a, b, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", PS)
def test_pdist_matches_torch(dtype, p):
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-4, 4, (9, 5), generator=g).to(tdt(dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for tx, px in [(x, to_pt(x)), (x.t().contiguous().t(), to_pt(x.t().contiguous()).t()),
                   (x[::2], to_pt(x)[::2])]:
        want = torch.pdist(tx, p=p)
        for got in (pt.pdist(px, p), pt._pdist_forward(px, p)):
            assert tuple(got.shape) == tuple(want.shape)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=1e-6)


def test_pdist_shapes_out_and_errors():
    for n, m in [(0, 3), (1, 3), (3, 0), (2, 2)]:
        x = torch.ones(n, m)
        np.testing.assert_array_equal(pt.pdist(to_pt(x)).numpy(), torch.pdist(x).numpy())
    o = pt.empty(0, dtype=pt.float64)
    assert pt._pdist_forward(pt.ones(3, 2, dtype=pt.float64), out=o) is o and o.shape == (3,)
    cases = [
        (pt.zeros(3), {}, RuntimeError, "pdist only supports 2D tensors, got: 1D"),
        (pt.zeros(3, 3), {"p": -1.0}, RuntimeError, "pdist only supports non-negative p values"),
        (pt.zeros(3, 3, dtype=pt.int32), {}, RuntimeError,
         "pdist only supports floating-point dtypes"),
        (pt.zeros(3, 3, dtype=pt.float16), {}, NotImplementedError,
         "\"pdist\" not implemented for 'Half'"),
    ]
    for a, kw, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            pt.pdist(a, **kw)


# ---------------------------------------------------------------- meta tensors
def test_meta_tensors_get_shapes_and_dtypes():
    m = pt.empty(4, 6, device="meta", dtype=pt.float16)
    v, i = pt.sort(m, dim=0)
    assert v.device.type == "meta" and v.shape == (4, 6) and i.dtype == pt.int64
    v, i = pt.topk(m, 2)
    assert v.shape == (4, 2) and i.shape == (4, 2) and i.device.type == "meta"
    assert pt.argsort(m).shape == (4, 6)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        pt.topk(m, 7)
    c = pt.cross(pt.empty(2, 3, device="meta"), pt.empty(1, 3, device="meta"), 1)
    assert c.shape == (2, 3) and c.device.type == "meta"
    d = pt.cdist(pt.empty(2, 5, 3, device="meta"), pt.empty(7, 3, device="meta"))
    assert d.shape == (2, 5, 7) and d.device.type == "meta"
    assert pt.pdist(pt.empty(5, 3, device="meta")).shape == (10,)
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns"):
        pt.cdist(pt.empty(2, 3, device="meta"), pt.empty(2, 4, device="meta"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.float64, torch.uint8], ids=str)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_selection_paths_match_the_stable_sort(dtype, largest):
    """k up to 32 keeps a running buffer, larger k up to n/4 radix-selects, larger k sorts: each is
    the first k of the stable sort (ties keep the lower position), with torch's values."""
    g = torch.Generator().manual_seed(3)
    n = 1000
    rows = [torch.randint(0, 20, (n,), generator=g).to(dtype),          # many ties
            torch.arange(n).to(dtype) if dtype != torch.uint8 else torch.arange(n) % 256,
            torch.arange(n, 0, -1).to(dtype) if dtype != torch.uint8 else torch.arange(n) % 7]
    if dtype.is_floating_point:
        r = torch.randn(n, generator=g, dtype=dtype)
        r[[5, 600]] = float("nan")
        r[[7, 8]] = float("inf")
        r[9], r[10] = -0.0, 0.0
        rows.append(r)
    x = torch.stack([row.to(dtype) for row in rows])
    px = pt.from_dlpack(x)
    _, full_i = pt.sort(px, dim=1, descending=largest, stable=True)
    for k in (1, 5, 32, 33, 100, 250, 251, 999, 1000):
        v, i = pt.topk(px, k, 1, largest=largest)
        assert torch.from_dlpack(i).tolist() == torch.from_dlpack(full_i)[:, :k].tolist(), k
        want = torch.topk(x, k, 1, largest=largest).values
        torch.testing.assert_close(torch.from_dlpack(v), want, equal_nan=True, rtol=0, atol=0)
