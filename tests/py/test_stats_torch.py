"""The operators of stats.yaml against torch: values, indices (where torch's choice is
deterministic: distinct values, NaN, short rows for mode), dtypes, shapes, out= results, error
types and messages, grad_fn names and gradients."""
import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

REAL = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def to_pt(x):
    if x.dtype == torch.bfloat16:
        return pt.from_numpy(x.float().numpy().copy()).clone().to(pt.bfloat16)
    return pt.from_numpy(x.numpy().copy()).clone()


def to_np(x):
    if x.dtype == pt.bfloat16:
        x = x.to(pt.float32)
    return x.contiguous().numpy()


def tnp(x):
    return (x.float() if x.dtype == torch.bfloat16 else x).contiguous().numpy()


def same(got, want, rtol=0.0, atol=0.0):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        assert type(got).__name__ == type(want).__name__
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "torch.").replace("torch", "pytensor")
    if rtol or atol:
        np.testing.assert_allclose(to_np(got).astype(np.float64), tnp(want).astype(np.float64),
                                   rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(to_np(got), tnp(want))


def distinct(shape, dtype, seed=0):
    """Distinct values (so that every index torch returns is the only right one)."""
    g = torch.Generator().manual_seed(seed)
    n = int(np.prod(shape)) if shape else 1
    perm = torch.randperm(n, generator=g)
    if dtype in ("uint8", "int8"):
        perm = perm % 250 if dtype == "uint8" else perm % 250 - 125
    x = (perm - (0 if dtype == "uint8" else n // 2)).to(getattr(torch, dtype))
    return x.reshape(shape)


def both(fn, x, *args, **kwargs):
    return fn(pt, to_pt(x), *args, **kwargs), fn(torch, x, *args, **kwargs)


def errors_alike(fn, *args):
    with pytest.raises(Exception) as want:
        fn(torch, *args)
    with pytest.raises(type(want.value)) as got:
        fn(pt, *[to_pt(a) if isinstance(a, torch.Tensor) else a for a in args])
    assert str(got.value).split("\n")[0].strip() == str(want.value).split("\n")[0].strip()


SELECTIONS = {
    "median_dim": lambda L, x, d, k: L.median(x, d, keepdim=k),
    "nanmedian_dim": lambda L, x, d, k: L.nanmedian(x, d, k),
    "kthvalue": lambda L, x, d, k: L.kthvalue(x, min(2, x.numel()), d, k),
    "mode": lambda L, x, d, k: L.mode(x, d, keepdim=k),
    "cummax": lambda L, x, d, k: L.cummax(x, d),
    "cummin": lambda L, x, d, k: x.cummin(d),
    "aminmax": lambda L, x, d, k: L.aminmax(x, dim=d, keepdim=k),
}


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("op", sorted(SELECTIONS))
def test_selections_match_torch_on_distinct_values(op, dtype):
    fn = SELECTIONS[op]
    for shape in [(5, 7), (3, 4, 6), ()]:
        x = distinct(shape, dtype, seed=len(op))
        if dtype in ("uint8", "int8") and op == "mode":
            continue  # repeats from the wrap-around make torch's index unspecified
        for d in ([0, -1] if shape else [0]):
            for k in (False, True):
                got, want = both(fn, x, d, k)
                same(got, want)
                same(fn(pt, to_pt(x).transpose(0, -1) if shape else to_pt(x), d, k),
                     fn(torch, x.transpose(0, -1) if shape else x, d, k))


@pytest.mark.parametrize("dtype", REAL)
def test_full_reductions_match_torch(dtype):
    x = distinct((6, 5), dtype, seed=3)
    for f in (lambda L, t: L.median(t), lambda L, t: L.nanmedian(t), lambda L, t: t.msort(),
              lambda L, t: L.aminmax(t), lambda L, t: L.count_nonzero(t, 0),
              lambda L, t: L.nansum(t, 1), lambda L, t: L.count_nonzero(t)):
        got, want = both(f, x)
        tol = 1e-2 if dtype in ("float16", "bfloat16") else 0
        same(got, want, rtol=tol)


def test_nan_handling_matches_torch():
    # (a row of NaNs only is below: torch's index there is whatever nth_element leaves)
    x = torch.tensor([[3.0, float("nan"), 1.0, float("nan"), 2.0],
                      [float("nan"), 2.0, 1.0, 3.0, 4.0], [4.0, 1.0, 2.0, 5.0, 3.0]])
    for f in (lambda L, t: L.median(t, 1), lambda L, t: L.nanmedian(t, 1), lambda L, t: L.median(t),
              lambda L, t: L.nanmedian(t), lambda L, t: L.kthvalue(t, 5, 1),
              lambda L, t: L.kthvalue(t, 3, 1), lambda L, t: L.cummax(t, 1),
              lambda L, t: L.cummin(t, 1), lambda L, t: L.logcumsumexp(t, 1),
              lambda L, t: L.aminmax(t, dim=1), lambda L, t: L.nansum(t, 1),
              lambda L, t: L.nanmean(t, 1), lambda L, t: L.msort(t), lambda L, t: L.median(t, 0)):
        got, want = both(f, x)
        same(got, want, rtol=1e-6)
    nans = torch.full((2, 5), float("nan"))
    for f in (lambda L, t: L.median(t, 1), lambda L, t: L.nanmedian(t, 1),
              lambda L, t: L.kthvalue(t, 3, 1)):
        got, want = both(f, nans)
        same(got.values, want.values)
    same(pt.median(to_pt(nans), 1).indices, torch.median(nans, 1).indices)  # the first NaN


def test_mode_matches_torch_on_short_rows_with_ties():
    g = torch.Generator().manual_seed(5)
    for dtype in (torch.int64, torch.float32, torch.int8, torch.bool):
        x = torch.randint(0, 4, (20, 12), generator=g).to(dtype)
        got, want = both(lambda L, t: L.mode(t, 1), x)
        same(got, want)


def test_ties_give_torch_values_and_consistent_indices():
    x = torch.tensor([[2, 1, 2, 2, 1, 2], [0, 0, 0, 0, 0, 0]])
    for f in (lambda L, t: L.median(t, 1), lambda L, t: L.kthvalue(t, 4, 1)):
        got, want = both(f, x)
        same(got.values, want.values)
        assert (to_pt(x).gather(1, got.indices[:, None])[:, 0] == got.values).all()
    same(pt.cummax(to_pt(x), 1), torch.cummax(x, 1))  # the latest of equal values
    same(pt.cummin(to_pt(x), 1), torch.cummin(x, 1))


def test_logcumsumexp_matches_torch():
    g = torch.Generator().manual_seed(7)
    for dtype, tol in ((torch.float32, 1e-5), (torch.float64, 1e-12), (torch.float16, 2e-3),
                       (torch.bfloat16, 2e-2)):
        x = (torch.randn(4, 33, generator=g) * 10).to(dtype)
        for d in (0, 1):
            got, want = both(lambda L, t: L.logcumsumexp(t, d), x)
            same(got, want, rtol=tol, atol=tol)
    inf = float("inf")
    x = torch.tensor([-inf, -inf, 0.0, inf, inf, -inf])
    got, want = both(lambda L, t: t.logcumsumexp(0), x)
    same(got, want)


def test_nansum_nanmean_dtypes_match_torch():
    for dtype in (torch.bool, torch.uint8, torch.int32, torch.float16, torch.float32):
        x = torch.tensor([[1, 0, 3], [2, 5, 1]]).to(dtype)
        same(*both(lambda L, t: L.nansum(t), x))
        same(*both(lambda L, t: L.nansum(t, [0], True), x))
        same(*both(lambda L, t: L.nansum(t, 1, dtype=L.float64), x))
    x = torch.tensor([[1.0, float("nan")], [float("nan"), float("nan")]])
    same(*both(lambda L, t: L.nanmean(t, 1), x))
    same(*both(lambda L, t: L.nanmean(t, dtype=L.float64), x))


def test_zero_dim_and_empty_match_torch():
    s = torch.tensor(3.5)
    for f in (lambda L, t: L.median(t, 0), lambda L, t: L.nanmedian(t, -1, True),
              lambda L, t: L.kthvalue(t, 1, 0), lambda L, t: L.mode(t, 0),
              lambda L, t: L.cummax(t, 0), lambda L, t: L.logcumsumexp(t, 0),
              lambda L, t: L.aminmax(t, dim=0), lambda L, t: L.aminmax(t),
              lambda L, t: L.count_nonzero(t), lambda L, t: L.nansum(t, 0), lambda L, t: L.msort(t)):
        same(*both(f, s))
    e = torch.empty(0, 4)
    for f in (lambda L, t: L.median(t, 1), lambda L, t: L.median(t), lambda L, t: L.nanmedian(t),
              lambda L, t: L.mode(t, 1), lambda L, t: L.cummin(t, 0), lambda L, t: L.nansum(t, 0),
              lambda L, t: L.count_nonzero(t, 1), lambda L, t: L.aminmax(t, dim=1),
              lambda L, t: L.kthvalue(t, 1, 1), lambda L, t: L.msort(t)):
        same(*both(f, e))


def test_errors_match_torch():
    x = torch.ones(2, 3)
    e = torch.empty(0, 3)
    errors_alike(lambda L, t: L.median(t), torch.tensor([True]))
    errors_alike(lambda L, t: L.median(t, 0), torch.tensor([True]))
    errors_alike(lambda L, t: L.median(t, 0), torch.ones(2, dtype=torch.complex64))
    errors_alike(lambda L, t: L.median(t, 0), e)
    errors_alike(lambda L, t: L.nanmedian(t, 2), x)
    errors_alike(lambda L, t: L.kthvalue(t, 4), x)
    errors_alike(lambda L, t: L.kthvalue(t, 0, 0), x)
    errors_alike(lambda L, t: L.kthvalue(t, 1, 0), e)
    errors_alike(lambda L, t: L.kthvalue(t, 1), torch.tensor([False]))
    errors_alike(lambda L, t: L.mode(t, 0), e)
    errors_alike(lambda L, t: L.mode(t), torch.ones(2, dtype=torch.complex64))
    errors_alike(lambda L, t: L.cummax(t, 0), torch.ones(2, dtype=torch.complex128))
    errors_alike(lambda L, t: L.cummin(t, 3), x)
    errors_alike(lambda L, t: L.logcumsumexp(t, 0), torch.tensor([1, 2]))
    errors_alike(lambda L, t: L.logcumsumexp(t, 0), torch.tensor([True]))
    errors_alike(lambda L, t: L.aminmax(t), torch.empty(0))
    errors_alike(lambda L, t: L.aminmax(t, dim=0), e)
    errors_alike(lambda L, t: L.aminmax(t), torch.ones(2, dtype=torch.complex64))
    errors_alike(lambda L, t: L.nansum(t), torch.ones(2, dtype=torch.complex64))
    errors_alike(lambda L, t: L.nanmean(t), torch.tensor([1, 2]))
    errors_alike(lambda L, t: L.nanmean(t), torch.tensor([True]))
    errors_alike(lambda L, t: L.msort(t), torch.ones(2, dtype=torch.complex64))
    errors_alike(lambda L, t: L.count_nonzero(t, [0, 0]), x)


def test_out_forms_match_torch():
    x = distinct((4, 5), "float32", seed=9)
    for name, call in [
        ("median", lambda L, t, o: L.median(t, 1, out=o)),
        ("kthvalue", lambda L, t, o: L.kthvalue(t, 3, 0, True, out=o)),
        ("mode", lambda L, t, o: L.mode(t, 1, out=o)),
        ("cummax", lambda L, t, o: L.cummax(t, 1, out=o)),
        ("aminmax", lambda L, t, o: L.aminmax(t, dim=0, out=o)),
    ]:
        second = "int64" if name != "aminmax" else "float32"
        o_pt = (pt.empty(0), pt.empty(0, dtype=getattr(pt, second)))
        o_th = (torch.empty(0), torch.empty(0, dtype=getattr(torch, second)))
        r_pt, r_th = call(pt, to_pt(x), o_pt), call(torch, x, o_th)
        assert type(r_pt).__name__ == type(r_th).__name__, name
        same(o_pt[0], o_th[0])
        same(o_pt[1], o_th[1])
    # (torch's binding offers no out= for median() of everything)
    for call in (lambda L, t, o: L.logcumsumexp(t, 1, out=o),
                 lambda L, t, o: L.nansum(t, 1, out=o), lambda L, t, o: L.nanmean(t, 0, out=o),
                 lambda L, t, o: L.msort(t, out=o)):
        o_pt, o_th = pt.empty(0), torch.empty(0)
        assert call(pt, to_pt(x), o_pt) is o_pt
        call(torch, x, o_th)
        same(o_pt, o_th, rtol=1e-6)


GRADS = [
    lambda L, t: L.median(t), lambda L, t: L.median(t, 1)[0], lambda L, t: L.nanmedian(t),
    lambda L, t: L.nanmedian(t, 0, True)[0], lambda L, t: L.kthvalue(t, 2, 0)[0],
    lambda L, t: L.mode(t, 1)[0], lambda L, t: L.cummax(t, 1)[0], lambda L, t: L.cummin(t, 0)[0],
    lambda L, t: L.logcumsumexp(t, 1), lambda L, t: L.nansum(t, 0), lambda L, t: L.nanmean(t),
    lambda L, t: L.msort(t),
]


@pytest.mark.parametrize("i", range(len(GRADS)))
def test_gradients_and_node_names_match_torch(i):
    f = GRADS[i]
    # ties and NaN included: the gradients' routing must agree too
    x = torch.tensor([[1.0, 3.0, 3.0, -2.0], [0.5, float("nan"), 2.0, 0.5],
                      [4.0, 4.0, 1.0, 1.0]], dtype=torch.float64)
    if i in (0, 1, 4, 5, 6, 7, 8, 11):
        x = torch.nan_to_num(x, 7.0)
    if i in (1, 4, 5):  # torch's index among equal values is unspecified
        x = distinct((3, 4), "float64", seed=i)
    xt = x.clone().requires_grad_()
    xp = to_pt(x).requires_grad_()
    yt, yp = f(torch, xt), f(pt, xp)
    assert yp.grad_fn.name() == yt.grad_fn.name()
    w = torch.arange(yt.numel(), dtype=torch.float64).reshape(yt.shape) - 1.5
    (yt * w).sum().backward()
    (yp * to_pt(w)).sum().backward()
    np.testing.assert_allclose(to_np(xp.grad), tnp(xt.grad), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantiles_match_torch(op, interpolation):
    g = torch.Generator().manual_seed(21)
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(4, 6, 5, generator=g).to(dtype)
        x[x > 1.2] = float("nan")
        x[1, 2] = float("nan")
        qs = torch.tensor([0.0, 0.33, 0.5, 1.0], dtype=dtype)
        for q in (0.0, 0.6, 1.0, qs):
            for dim in (None, 0, 1, -1):
                for keepdim in (False, True):
                    f = lambda L, t: getattr(L, op)(t, q if not isinstance(q, torch.Tensor)  # noqa: E731
                                                    else (to_pt(q) if L is pt else q), dim,
                                                    keepdim, interpolation=interpolation)
                    got, want = both(f, x)
                    assert tuple(got.shape) == tuple(want.shape) and got.dtype == to_pt(want).dtype
                    np.testing.assert_allclose(to_np(got), tnp(want), rtol=1e-6, atol=1e-7,
                                               equal_nan=True)


def test_quantile_errors_and_gradients_match_torch():
    x = torch.randn(3, 4, dtype=torch.float64)
    errors_alike(lambda L, t: L.quantile(t, 0.5), torch.empty(0))
    errors_alike(lambda L, t: L.quantile(t, 1.5), x)
    errors_alike(lambda L, t: L.nanquantile(t, -0.5), x)
    errors_alike(lambda L, t: L.quantile(t, 0.5), x.int())
    errors_alike(lambda L, t: L.quantile(t, 0.5, interpolation="cubic"), x)
    errors_alike(lambda L, t, q: L.quantile(t, q), x, torch.tensor([0.5, 1.5], dtype=torch.float64))
    errors_alike(lambda L, t, q: L.quantile(t, q), x, torch.tensor([0.5]))
    errors_alike(lambda L, t, q: L.quantile(t, q), x, torch.full((2, 2), 0.5, dtype=torch.float64))
    errors_alike(lambda L, t: L.quantile(t, 0.5, dim=3), x)
    for q in (0.25, torch.tensor([0.1, 0.8], dtype=torch.float64)):
        xt, xp = x.clone().requires_grad_(), to_pt(x).requires_grad_()
        qt, qp = q, (to_pt(q) if isinstance(q, torch.Tensor) else q)
        torch.quantile(xt, qt, dim=1).sum().backward()
        pt.quantile(xp, qp, dim=1).sum().backward()
        np.testing.assert_allclose(to_np(xp.grad), tnp(xt.grad), rtol=1e-12, atol=1e-12)
