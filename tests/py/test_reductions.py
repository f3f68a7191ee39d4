"""Reductions and scans (csrc/kernels/reduce*.c) against torch as the oracle: every op over every
dtype torch accepts for it, over dims given as None, an int, negative ints and lists, keepdim,
dtype=, and inputs that are contiguous, transposed, sliced, expanded (zero strides), 0-d, empty
and large enough to be chunked and split across threads; the inner and the outer walk; NaN and
ties; out= and in-place forms; meta tensors; torch's error messages; summation accuracy against
math.fsum; and the agreement of every CPU capability's loops with the default ones."""
import math

import numpy as np
import pytest

import pytensor as pt
from pytensor._C import lib

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

ALL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
       torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
REAL = [d for d in ALL if not d.is_complex]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INEXACT = FLOATS + [torch.complex64, torch.complex128]


def _values(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_complex:
        return torch.complex(torch.randn(shape, generator=g), torch.randn(shape, generator=g)).to(dtype)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    lo = 0 if dtype == torch.uint8 else -5
    return torch.randint(lo, 6, shape, generator=g).to(dtype)


def _layouts(dtype):
    """(name, torch tensor) over the layouts the engine tells apart."""
    base = _values((4, 6, 5), dtype)
    return [
        ("contiguous", base),
        ("transposed", base.transpose(0, 2)),
        ("sliced", base[:, ::2, 1:]),
        ("expanded", _values((1, 6, 1), dtype, 1).expand(4, 6, 5)),
        ("flipped", base.flip(1)),
        ("zero-d", _values((), dtype, 2)),
        ("empty", _values((0, 3), dtype)),
    ]


def _pt(t):
    return pt.from_dlpack(t)


def _th(t):
    return torch.from_dlpack(t)


def _close(got, want, rtol=None, atol=None):
    got = _th(got) if isinstance(got, pt.Tensor) else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype in (torch.float16, torch.bfloat16):
        rtol, atol = 1e-2, 1e-2
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _both(fn, x, *args, **kwargs):
    """fn(torch tensor) and fn(pytensor tensor) with the same arguments, or both errors."""
    try:
        want = fn(torch, x, *args, **kwargs)
    except Exception as e:  # torch refuses: so must pytensor, with the same kind of error
        with pytest.raises(type(e)):
            fn(pt, _pt(x), *args, **kwargs)
        return None, None
    return fn(pt, _pt(x), *args, **kwargs), want


def _dim_forms(ndim):
    if ndim == 0:
        return [None, 0, -1]
    return [None, 0, -1, [0, ndim - 1], []] if ndim > 1 else [None, 0, -1]


# ---------------------------------------------------------------- sum, prod, mean

@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "mean"])
def test_sum_prod_mean_over_layouts_and_dims(op, dtype):
    for name, x in _layouts(dtype):
        if op == "prod" and x.numel() > 40:
            x = x[..., :2] if x.ndim else x  # products of many values overflow
        for dim in _dim_forms(x.ndim):
            for keepdim in (False, True):
                def call(lib_, t, dim=dim, keepdim=keepdim):
                    f = getattr(lib_, op)
                    if dim is None:
                        return f(t)
                    if op == "prod":
                        d = dim if isinstance(dim, int) else None
                        return f(t, d, keepdim=keepdim) if d is not None else f(t)
                    return f(t, dim, keepdim=keepdim)
                got, want = _both(call, x)
                if want is not None:
                    _close(got, want)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16, torch.float64, torch.complex64])
def test_sum_dtype_argument_and_integer_promotion(dtype):
    x = _values((5, 7), dtype)
    for out_dtype in (torch.float64, torch.int64, torch.complex128):
        if dtype.is_complex and not out_dtype.is_complex:
            continue
        _close(pt.sum(_pt(x), 1, dtype=_ptype(out_dtype)), torch.sum(x, 1, dtype=out_dtype))
        _close(pt.prod(_pt(x), dtype=_ptype(out_dtype)), torch.prod(x, dtype=out_dtype))
    _close(pt.mean(_pt(x), 0, dtype=pt.float64), torch.mean(x, 0, dtype=torch.float64))


def _ptype(torch_dtype):
    return getattr(pt, str(torch_dtype).split(".")[1])


def test_mean_refuses_integers_with_torch_message():
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype\. Input dtype "
                       r"must be either a floating point or complex dtype\. Got: Long"):
        pt.mean(pt.arange(3))
    with pytest.raises(RuntimeError, match="Got: Int"):
        pt.arange(3, dtype=pt.int32).mean(0)
    with pytest.raises(RuntimeError, match="Optional dtype must be"):
        pt.mean(pt.arange(3.0), dtype=pt.int32)
    _close(pt.mean(pt.arange(4), dtype=pt.float32), torch.mean(torch.arange(4), dtype=torch.float32))


def test_empty_reductions_give_identities():
    e = torch.zeros(0, 3)
    for op in ("sum", "prod", "mean"):
        _close(getattr(pt, op)(_pt(e)), getattr(torch, op)(e))
    _close(pt.sum(_pt(e), 0), torch.sum(e, 0))
    _close(pt.mean(_pt(e), 0), torch.mean(e, 0))
    _close(pt.all(_pt(e)), torch.all(e))
    _close(pt.any(_pt(e)), torch.any(e))
    _close(pt.logsumexp(_pt(e), 0), torch.logsumexp(e, 0))


# ---------------------------------------------------------------- max, min, amax, amin, argmax

@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_extrema_over_layouts(dtype):
    for name, x in _layouts(dtype):
        got, want = _both(lambda L, t: L.max(t), x)
        if want is not None:
            _close(got, want)
        got, want = _both(lambda L, t: L.min(t), x)
        if want is not None:
            _close(got, want)
        for dim in _dim_forms(x.ndim):
            if dim is None:
                continue
            for keepdim in (False, True):
                for op in ("amax", "amin"):
                    got, want = _both(lambda L, t: getattr(L, op)(t, dim, keepdim), x)
                    if want is not None:
                        _close(got, want)
                if isinstance(dim, int):
                    for op in ("max", "min"):
                        got, want = _both(lambda L, t: getattr(L, op)(t, dim, keepdim), x)
                        if want is not None:
                            _close(got[0], want[0])
                            _close(got[1], want[1])
                    for op in ("argmax", "argmin"):
                        got, want = _both(lambda L, t: getattr(L, op)(t, dim, keepdim), x)
                        if want is not None:
                            _close(got, want)
        for op in ("argmax", "argmin"):
            for keepdim in (False, True):
                got, want = _both(lambda L, t: getattr(L, op)(t, keepdim=keepdim), x)
                if want is not None:
                    _close(got, want)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_nan_propagates_and_first_index_wins(dtype):
    x = torch.tensor([[1.0, float("nan"), 5.0, float("nan")], [2.0, 7.0, 7.0, -1.0],
                      [-3.0, -3.0, float("inf"), -float("inf")]], dtype=dtype)
    for op in ("amax", "amin"):
        for dim in (0, 1):
            _close(getattr(pt, op)(_pt(x), dim), getattr(torch, op)(x, dim))
    for op in ("max", "min", "argmax", "argmin"):
        for dim in (0, 1):
            g, w = getattr(pt, op)(_pt(x), dim), getattr(torch, op)(x, dim)
            for a, b in zip(g if isinstance(g, tuple) else [g], w if isinstance(w, tuple) else [w]):
                _close(a, b)
        _close(getattr(pt, op)(_pt(x)), getattr(torch, op)(x))
    big = torch.randn(100_003).to(dtype)
    big[77_777] = float("nan")
    _close(pt.max(_pt(big)), torch.max(big))
    _close(pt.argmax(_pt(big)), torch.argmax(big))
    _close(pt.amin(_pt(big.view(-1, 1).expand(-1, 3).contiguous()), 0),
           torch.amin(big.view(-1, 1).expand(-1, 3).contiguous(), 0))


def test_extrema_refuse_complex_and_empty_with_torch_messages():
    c = pt.zeros(2, 3, dtype=pt.complex64)
    with pytest.raises(NotImplementedError,
                       match="\"max_values_cpu\" not implemented for 'ComplexFloat'"):
        pt.amax(c)
    with pytest.raises(NotImplementedError, match="\"min_all\" not implemented for 'ComplexFloat'"):
        pt.min(c)
    with pytest.raises(RuntimeError, match=r"max\(\): does not support complex input"):
        pt.max(c, 0)
    with pytest.raises(RuntimeError, match=r"argmin\(\): does not support complex input"):
        pt.argmin(c)
    e = pt.zeros(2, 0)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for "
                       r"input\.numel\(\) == 0\. Specify the reduction dim with the 'dim' argument\."):
        pt.max(e)
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim to be specified"):
        pt.amax(e)
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 1 to have non-zero size"):
        pt.amin(e, 1)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified for "
                       r"input\.numel\(\) == 0\.$"):
        pt.argmax(e)
    with pytest.raises(IndexError, match=r"min\(\): Expected reduction dim 1 to have non-zero"):
        pt.min(e, 1)
    assert tuple(pt.amax(e, 0).shape) == (0,)


# ---------------------------------------------------------------- all, any

@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_all_any(dtype):
    for name, x in _layouts(dtype):
        for op in ("all", "any"):
            _close(getattr(pt, op)(_pt(x)), getattr(torch, op)(x))
            for dim in _dim_forms(x.ndim):
                if dim is None:
                    continue
                for keepdim in (False, True):
                    got, want = _both(lambda L, t: getattr(L, op)(t, dim, keepdim), x)
                    if want is not None:
                        _close(got, want)
    nan = torch.tensor([float("nan"), 0.0]).to(dtype) if dtype.is_floating_point else None
    if nan is not None:
        _close(pt.any(_pt(nan)), torch.any(nan))


def test_all_any_out_must_be_bool():
    with pytest.raises(RuntimeError, match="all only supports bool tensor for result, got: Float"):
        pt.all(pt.ones(2, 3), 0, out=pt.empty(3))
    out = pt.empty(3, dtype=pt.bool)
    r = pt.any(pt.ones(2, 3), 0, out=out)
    assert r is out and out.tolist() == [True, True, True]


# ---------------------------------------------------------------- norm, std, var, logsumexp

@pytest.mark.parametrize("dtype", INEXACT, ids=str)
@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, -1, float("inf"), -float("inf")])
def test_norm(dtype, p):
    for name, x in _layouts(dtype):
        got, want = _both(lambda L, t: L.norm(t, p), x)
        if want is not None:
            _close(got, want, rtol=1e-4, atol=1e-5)
        if x.ndim >= 2:
            got, want = _both(lambda L, t: L.norm(t, p, dim=[0, -1], keepdim=True), x)
            if want is not None:
                _close(got, want, rtol=1e-4, atol=1e-5)
            got, want = _both(lambda L, t: (L.linalg.vector_norm if L is torch
                                            else L.linalg_vector_norm)(t, p, 1), x)
            if want is not None:
                _close(got, want, rtol=1e-4, atol=1e-5)


def test_norm_errors_and_dtype():
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point or "
                       "complex tensor as input. Got Int"):
        pt.norm(pt.ones(2, dtype=pt.int32))
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        pt.norm(pt.ones(0), float("inf"))
    with pytest.raises(RuntimeError, match="dtype should be real for real inputs, but got "
                       "ComplexFloat"):
        pt.norm(pt.ones(2), 2, dtype=pt.complex64)
    x = _values((3, 4), torch.float32)
    _close(pt.norm(_pt(x), 2, dtype=pt.float64), torch.norm(x, dtype=torch.float64))
    _close(pt.norm(_pt(x), None, [1], False, dtype=pt.float64),
           torch.norm(x, dim=[1], dtype=torch.float64))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var(op, dtype):
    for name, x in _layouts(dtype):
        got, want = _both(lambda L, t: getattr(L, op)(t), x)
        if want is not None:
            _close(got, want, rtol=1e-4, atol=1e-5)
        for dim in _dim_forms(x.ndim)[1:]:
            for corr in (0, 1, 2.5):
                got, want = _both(lambda L, t: getattr(L, op)(t, dim, correction=corr,
                                                              keepdim=True), x)
                if want is not None:
                    _close(got, want, rtol=1e-4, atol=1e-5)
            got, want = _both(lambda L, t: getattr(L, op)(t, dim, False), x)
            if want is not None:
                _close(got, want, rtol=1e-4, atol=1e-5)
            got, want = _both(lambda L, t: getattr(L, op + "_mean")(t, dim), x)
            if want is not None:
                _close(got[0], want[0], rtol=1e-4, atol=1e-5)
                _close(got[1], want[1], rtol=1e-4, atol=1e-5)


def test_var_is_stable_for_large_offsets():
    x = torch.randn(10_000, dtype=torch.float64) + 1e9
    ref = float(np.var(x.numpy(), ddof=1))
    assert abs(pt.var(_pt(x)).item() - ref) <= 1e-6 * ref
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex"):
        pt.std(pt.arange(3))


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_logsumexp(dtype):
    for name, x in _layouts(dtype):
        for dim in _dim_forms(x.ndim)[1:]:
            got, want = _both(lambda L, t: L.logsumexp(t, dim, True), x)
            if want is not None:
                _close(got, want, rtol=1e-5, atol=1e-5)
    big = torch.tensor([[1000.0, 1000.0], [-float("inf"), -float("inf")], [float("inf"), 1.0]])
    _close(pt.logsumexp(_pt(big), 1), torch.logsumexp(big, 1))


# ---------------------------------------------------------------- cumsum, cumprod

@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scans(op, dtype):
    for name, x in _layouts(dtype):
        if op == "cumprod" and x.numel() > 40:
            x = x[..., :3]
        for dim in ([0, -1] if x.ndim else [0, -1]):
            got, want = _both(lambda L, t: getattr(L, op)(t, dim), x)
            if want is not None:
                _close(got, want, rtol=1e-4, atol=1e-4)
            got, want = _both(lambda L, t: getattr(L, op)(t, dim, dtype=torch.float64
                                                          if L is torch else pt.float64), x)
            if want is not None and not dtype.is_complex:
                _close(got, want, rtol=1e-6, atol=1e-6)


def test_scan_in_place_and_out():
    x = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    p = _pt(x.clone())
    r = p.cumsum_(1)
    assert r is p
    _close(p, x.cumsum(1).to(torch.int32))
    out = pt.empty(3, 4, dtype=pt.float64)
    assert pt.cumprod(_pt(x), 0, out=out) is out
    _close(out, torch.cumprod(x, 0, out=torch.empty(3, 4, dtype=torch.float64)))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                       r"\[-2, 1\], but got 2\)"):
        pt.cumsum(p, 2)


# ---------------------------------------------------------------- dims, out=, meta

def test_dim_errors_with_torch_messages():
    x = pt.ones(2, 3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        pt.sum(x, [0, -2])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                       r"\[-2, 1\], but got 3\)"):
        pt.sum(x, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.amax(x, [5])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.argmax(pt.tensor(1.0), 1)
    assert pt.all(x, ()).shape == x.shape  # all.dims reads [] as no dims; sum reads it as all
    assert pt.sum(x, ()).shape == ()


def test_out_forms():
    x = _values((4, 5), torch.float32)
    out = pt.empty(5, dtype=pt.float64)
    assert pt.sum(_pt(x), 0, out=out) is out
    _close(out, torch.sum(x, 0, dtype=torch.float64))
    out = pt.empty(0)
    assert pt.mean(_pt(x), 1, out=out) is out
    _close(out, torch.mean(x, 1))
    with pytest.raises(RuntimeError, match="Expected the dtype for input and out to match, but "
                       "got Float for input's dtype and Double for out's dtype."):
        pt.amax(_pt(x), 0, out=pt.empty(5, dtype=pt.float64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got "
                       "double instead"):
        pt.argmax(_pt(x), out=pt.empty((), dtype=pt.float64))
    with pytest.raises(RuntimeError, match="doesn't match the result shape"):
        pt.sum(_pt(x), 0, out=pt.empty(3))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                       "type Long"):
        pt.var(_pt(x), 0, out=pt.empty(5, dtype=pt.int64))
    v, i = pt.empty(4), pt.empty(4, dtype=pt.int64)
    rv, ri = pt.max(_pt(x), 1, out=(v, i))
    assert rv is v and ri is i
    _close(v, torch.max(x, 1).values)
    _close(i, torch.max(x, 1).indices)
    o0, o1 = pt.empty(0), pt.empty(0)
    pt.var_mean(_pt(x), 1, correction=0, out0=o0, out1=o1)
    _close(o0, torch.var(x, 1, correction=0))
    _close(o1, torch.mean(x, 1))


def test_meta_tensors_get_shapes_and_dtypes():
    m = pt.empty(4, 5, 6, dtype=pt.float16, device="meta")
    cases = [
        (pt.sum(m, [0, 2]), (5,), pt.float16), (pt.sum(m.to(pt.int8)), (), pt.int64),
        (pt.mean(m, 1, keepdim=True), (4, 1, 6), pt.float16), (pt.amax(m, -1), (4, 5), pt.float16),
        (pt.max(m, 1)[1], (4, 6), pt.int64), (pt.argmin(m), (), pt.int64),
        (pt.all(m, 2), (4, 5), pt.bool), (pt.norm(m, 3, [1]), (4, 6), pt.float16),
        (pt.var(m, 0), (5, 6), pt.float16), (pt.logsumexp(m, [0, 1]), (6,), pt.float16),
        (pt.cumsum(m, 1), (4, 5, 6), pt.float16), (pt.prod(m.to(pt.bool), 0), (5, 6), pt.int64),
    ]
    for r, shape, dtype in cases:
        assert r.device.type == "meta" and tuple(r.shape) == shape and r.dtype == dtype


# ---------------------------------------------------------------- sizes, threads, capabilities

@pytest.mark.parametrize("shape,dims", [((300_000,), None), ((3, 200_000), 1), ((200_000, 3), 0),
                                        ((600, 700), 0), ((700, 600), 1), ((64, 50, 70), [0, 2]),
                                        ((5, 70_000), 0), ((2, 3, 60_000), [0, 2])])
def test_large_inner_and_outer_reductions(shape, dims):
    x = _values(shape, torch.float64)
    for op in ("sum", "mean", "amax", "amin"):
        f = getattr(torch, op)
        want = f(x) if dims is None else f(x, dims)
        got = getattr(pt, op)(_pt(x)) if dims is None else getattr(pt, op)(_pt(x), dims)
        _close(got, want, rtol=1e-10, atol=1e-9)
    xi = _values(shape, torch.int32)
    want = torch.sum(xi) if dims is None else torch.sum(xi, dims)
    got = pt.sum(_pt(xi)) if dims is None else pt.sum(_pt(xi), dims)
    assert torch.equal(_th(got), want)
    xt = x.t() if x.ndim == 2 else x
    _close(pt.sum(_pt(xt), 0), torch.sum(xt, 0), rtol=1e-10, atol=1e-9)


def test_results_do_not_depend_on_the_thread_count():
    x = _values((3_000_000,), torch.float32)
    m = _values((2000, 1500), torch.float32)
    before = pt.get_num_threads()
    try:
        results = []
        for n in (1, 2, 3):
            pt.set_num_threads(n)
            results.append([_th(pt.sum(_pt(x))).clone(), _th(pt.sum(_pt(m), 0)).clone(),
                            _th(pt.mean(_pt(m), 1)).clone()])
        for r in results[1:]:
            for a, b in zip(results[0], r):
                assert torch.equal(a, b)
    finally:
        pt.set_num_threads(before)


def test_sum_accuracy_at_least_numpy_pairwise():
    """1e7 float32 values: ones and small values that a sequential float32 sum loses."""
    rng = np.random.default_rng(0)
    x = np.ones(10_000_000, dtype=np.float32)
    x[::3] = rng.uniform(1e-4, 1e-3, size=x[::3].shape).astype(np.float32)
    exact = math.fsum(x.astype(np.float64))
    err_pt = abs(float(pt.sum(pt.from_dlpack(torch.from_numpy(x))).item()) - exact)
    err_np = abs(float(np.sum(x)) - exact)
    assert err_pt <= max(err_np, 1e-7 * exact)
    # strided (every other element) and outer (a column of a 2-d view) walks, too
    xs = x[::2]
    exact_s = math.fsum(xs.astype(np.float64))
    assert abs(float(pt.sum(pt.from_dlpack(torch.from_numpy(x))[::2]).item()) - exact_s) <= \
        max(abs(float(np.sum(xs)) - exact_s), 1e-7 * exact_s)
    m = x.reshape(-1, 10)
    col = pt.sum(pt.from_dlpack(torch.from_numpy(m)), 0)
    exact_c = [math.fsum(m[:, j].astype(np.float64)) for j in range(10)]
    err_c = max(abs(a - b) for a, b in zip(col.tolist(), exact_c))
    err_cnp = max(abs(a - b) for a, b in zip(np.sum(m, 0).tolist(), exact_c))
    assert err_c <= max(err_cnp, 1e-6 * max(exact_c))


@pytest.mark.capability_independent  # selects every capability itself
def test_every_cpu_capability_agrees_with_the_default_loops():
    detected = lib.pt_cpu_capability_detected()
    xs = [_values((1000, 37), torch.float32), _values((37, 1000), torch.float64).t(),
          _values((500, 100), torch.int8), _values((300, 301), torch.complex64)]
    def run():
        out = []
        for x in xs:
            p = _pt(x)
            out.append(_th(pt.sum(p, 0)).clone())
            out.append(_th(pt.sum(p, 1)).clone())
            out.append(_th(pt.sum(p)).clone())
            out.append(_th(pt.prod(p[:3], 0)).clone())
            out.append(_th(pt.cumsum(p, 1)).clone())
            if not x.dtype.is_complex:
                out += [_th(pt.amax(p, 0)).clone(), _th(pt.amin(p, 1)).clone(),
                        _th(pt.argmax(p, 1)).clone()]
            if x.dtype.is_floating_point or x.dtype.is_complex:
                out += [_th(pt.norm(p, 3, [0])).clone(), _th(pt.var(p, 1)).clone()]
        return out
    try:
        lib.pt_cpu_capability_select(0)
        reference = run()
        for cap in range(1, detected + 1):
            lib.pt_cpu_capability_select(cap)
            for a, b in zip(run(), reference):
                torch.testing.assert_close(a, b, rtol=2e-6, atol=1e-6, equal_nan=True)
    finally:
        lib.pt_cpu_capability_select(lib.pt_cpu_capability())  # the capability in use at start-up


# ---------------------------------------------------------------- long contiguous rows
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16,
                                   torch.float16], ids=str)
def test_arg_extremes_of_long_rows_match_torch(dtype):
    """Rows long enough for the two-pass search (a vectorized pass, then the first occurrence):
    ties keep the first index, a nan wins wherever it is, -0.0 equals 0.0, and infinities."""
    g = torch.Generator().manual_seed(5)
    rows, n = 12, 1000
    if dtype.is_floating_point:
        x = torch.randn(rows, n, generator=g).to(dtype)
        x[1, 700] = float("nan")
        x[2, 3], x[2, 999] = float("nan"), float("nan")
        x[3, :] = 0.0
        x[3, 500] = -0.0
        x[4, 10], x[4, 900] = float("inf"), float("-inf")
        x[5, 255], x[5, 256] = 50.0, 50.0          # a tie across the lane blocks
        x[6, 999] = 1e4                              # the extreme in the tail
        x[7, :] = float("-inf")
    else:
        x = torch.randint(-50, 50, (rows, n), generator=g, dtype=dtype)
        x[5, 255], x[5, 256] = 100, 100
        x[6, 999] = 101
    for name in ("argmax", "argmin"):
        got = getattr(pt, name)(_pt(x), 1)
        assert _th(got).tolist() == getattr(torch, name)(x, 1).tolist(), name
    for name in ("max", "min"):
        got = getattr(pt, name)(_pt(x), 1)
        want = getattr(torch, name)(x, 1)
        assert _th(got[1]).tolist() == want[1].tolist(), name
        _close(got[0], want[0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shape,dim", [((300_001,), 0), ((3000, 70), 0), ((70, 3000), 1),
                                       ((40, 50, 60), (0, 2)), ((40, 50, 60), 1)])
def test_mapped_reductions_over_blocks_and_columns(dtype, shape, dim):
    """norm, var/std and logsumexp map the elements inside the reduction's walk (row blocks of
    the inner walk, rows of columns in the outer one, one shift per output): against torch in
    float64, over sizes that cross the mapping blocks and the task chunks."""
    g = torch.Generator().manual_seed(9)
    x = (torch.randn(shape, generator=g, dtype=torch.float64) * 3 + 5).to(dtype)
    px = _pt(x)
    x64 = x.double()
    tol = dict(rtol=2e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-12)
    for p in (1, 2, 3.5, 0, float("inf")):
        got = pt.linalg.vector_norm(px, p, dim)
        want = torch.linalg.vector_norm(x64, p, dim).to(dtype)
        torch.testing.assert_close(_th(got), want, **tol)
    torch.testing.assert_close(_th(pt.var(px, dim)), torch.var(x64, dim).to(dtype), **tol)
    torch.testing.assert_close(_th(pt.std(px, dim, correction=0)),
                               torch.std(x64, dim, correction=0).to(dtype), **tol)
    torch.testing.assert_close(_th(pt.logsumexp(px, dim)), torch.logsumexp(x64, dim).to(dtype),
                               **tol)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_logsumexp_of_complex_inputs_matches_torch(dtype):
    """torch's rule: the max of the real parts (0 where infinite) is taken out, the rest is
    complex exp, sum and log; infinities, nan and empty reductions as torch."""
    g = torch.Generator().manual_seed(4)
    x = torch.randn(5, 7, generator=g, dtype=dtype) * 30
    x[1, 2] = complex(float("inf"), 1.0)
    x[2, 3] = complex(float("nan"), 0.0)
    x[3, :] = complex(float("-inf"), 0.0)
    for dim in (0, 1, (0, 1), []):
        for keepdim in (False, True):
            got = pt.logsumexp(_pt(x), dim, keepdim)
            # torch 2.13 raises for a full complex reduction without keepdim (its max is kept as
            # [1, 1] and added in place into a 0-d result); its keepdim result, squeezed, is the
            # value
            want = torch.logsumexp(x, dim, True)
            if not keepdim:
                want = want.squeeze((0, 1) if dim in ((0, 1), []) else dim)
            _close(got, want)
    e = torch.empty(0, 3, dtype=dtype)
    _close(pt.logsumexp(_pt(e), 0), torch.logsumexp(e, 0))
    t = x.t()  # a strided input
    _close(pt.logsumexp(_pt(t), 1), torch.logsumexp(t, 1))
