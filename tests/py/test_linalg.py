"""The matrix products (mm, bmm, addmm, baddbmm, mv, addmv, dot, vdot, matmul, outer, ger) against
torch as the oracle: every dtype, operand layouts (transposed, strided, expanded, flipped, 0-d
results, empty), sizes on both sides of the kernels' thresholds, alpha/beta rules, out= and
in-place rules, meta tensors and torch's error messages.

The module runs once with the BLAS backend the build chose and once more, in a subprocess, with
PYTENSOR_BLAS=portable, so that the portable kernel is checked against torch even where BLIS
serves (test_the_portable_kernel_passes_this_module).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import pytensor
from pytensor import _C

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
INTS = DTYPES[:5]
FLOATS = [torch.float32, torch.float64, torch.complex64, torch.complex128]
PORTABLE = "portable kernels in use" in _C._config().get("blis", "") or not pytensor.has_blis


def P(x):
    """A pytensor copy of a torch tensor (same shape, dtype, values; its own memory)."""
    return pytensor.from_dlpack(x.detach().clone().contiguous())


def T(p):
    return torch.from_dlpack(p)


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.uint8:
        return torch.randint(0, 6, shape, generator=g).to(dtype)
    if dtype in INTS:
        return torch.randint(-4, 5, shape, generator=g).to(dtype)
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, generator=g)
    return torch.randn(shape, generator=g).to(dtype)


def tol(dtype, k):
    if dtype in (torch.float16, torch.bfloat16):
        return 2e-2 if dtype == torch.bfloat16 else 4e-3
    if dtype in (torch.float32, torch.complex64):
        return 2e-5 * max(k, 1) ** 0.5
    return 1e-12 * max(k, 1)


def check(got, want, k=8):
    """got (pytensor) equals want (torch): dtype, shape, and values (exact for integers)."""
    assert isinstance(got, pytensor.Tensor)
    g = T(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    if want.dtype in INTS or want.dtype == torch.bool:
        assert torch.equal(g, want)
    else:
        r = tol(want.dtype, k)
        torch.testing.assert_close(g.to(torch.complex128), want.to(torch.complex128),
                                   rtol=r, atol=r * (1 + want.abs().amax().item() if want.numel() else 1))


# ---------------------------------------------------------------- layouts
def layout(x, kind):
    """(torch view, pytensor view) of the same values laid out as `kind`."""
    if kind == "contiguous":
        return x, P(x)
    if kind == "transposed":  # column-major: stored as the transpose
        base = x.transpose(-1, -2).contiguous()
        return base.transpose(-1, -2), P(base).transpose(-1, -2)
    if kind == "strided":  # every other column of a wider tensor
        wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype)
        wide[..., ::2] = x
        return wide[..., ::2], P(wide)[..., ::2]
    if kind == "expanded":  # one row repeated by a stride of 0
        row = x[..., :1, :]
        return row.expand(x.shape), P(row.contiguous()).expand(*x.shape)
    if kind == "flipped":  # a negative row stride (through NumPy, which keeps it)
        if x.dtype in (torch.bfloat16,):
            pytest.skip("NumPy has no bfloat16")
        a = x.flip(-2).numpy()[..., ::-1, :]
        return x, pytensor.from_dlpack(a)
    raise AssertionError(kind)


LAYOUTS = ["contiguous", "transposed", "strided", "expanded", "flipped"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", LAYOUTS)
def test_mm_matches_torch_for_every_dtype_and_layout(dtype, kind):
    a, b = rand(5, 7, dtype=dtype), rand(7, 3, dtype=dtype, seed=1)
    ta, pa = layout(a, kind)
    tb, pb = layout(b, "transposed" if kind == "contiguous" else kind)
    check(pytensor.mm(pa, pb), torch.mm(ta, tb), 7)
    check(pa.mm(pb), torch.mm(ta, tb), 7)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(70, 80, 90), (1, 300, 40), (40, 300, 1), (130, 1, 65)])
def test_mm_sizes_across_the_blocking_and_shape_thresholds(dtype, shape):
    m, k, n = shape
    a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype, seed=2)
    check(pytensor.mm(P(a), P(b)), torch.mm(a, b), k)
    check(pytensor.mm(P(a.t().contiguous()).t(), P(b)), torch.mm(a, b), k)


def test_mm_integer_products_wrap_as_torch():
    a = torch.full((3, 40), 100, dtype=torch.int8)
    b = torch.full((40, 2), 77, dtype=torch.int8)
    check(pytensor.mm(P(a), P(b)), torch.mm(a, b))
    big = torch.full((2, 3), 2 ** 62, dtype=torch.int64)
    check(pytensor.mm(P(big), P(big.t())), torch.mm(big, big.t()))


@pytest.mark.parametrize("m,k,n", [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool], ids=str)
def test_empty_products(m, k, n, dtype):
    a, b = torch.zeros(m, k, dtype=dtype), torch.zeros(k, n, dtype=dtype)
    check(pytensor.mm(P(a), P(b)), torch.mm(a, b))
    check(pytensor.bmm(P(a[None]), P(b[None])), torch.bmm(a[None], b[None]))
    if dtype != torch.bool:
        c = torch.full((m, n), 3, dtype=dtype)
        check(pytensor.addmm(P(c), P(a), P(b), beta=2), torch.addmm(c, a, b, beta=2))


# ---------------------------------------------------------------- alpha and beta
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_addmm_alpha_beta_and_broadcast_self(dtype):
    a, b = rand(4, 6, dtype=dtype), rand(6, 5, dtype=dtype, seed=1)
    for self_shape in [(4, 5), (5,), (1, 5), (4, 1), ()]:
        c = rand(*self_shape, dtype=dtype, seed=3)
        for beta, alpha in [(1, 1), (2, 3), (0, 2), (-1, 0)]:
            check(pytensor.addmm(P(c), P(a), P(b), beta=beta, alpha=alpha),
                  torch.addmm(c, a, b, beta=beta, alpha=alpha), 6)
    c = rand(4, 5, dtype=dtype, seed=3)
    check(P(c).addmm(P(a), P(b), alpha=2), c.addmm(a, b, alpha=2), 6)


def test_float_scalars_on_integer_products_truncate_as_torch():
    i = torch.int64
    c, a, b = torch.full((2, 2), 3, dtype=i), torch.ones(2, 3, dtype=i), torch.ones(3, 2, dtype=i)
    for beta, alpha in [(1.5, 2.7), (-1.5, -2.7), (True, False), (0.5, 1)]:
        check(pytensor.addmm(P(c), P(a), P(b), beta=beta, alpha=alpha),
              torch.addmm(c, a, b, beta=beta, alpha=alpha))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64, torch.complex64],
                         ids=str)
def test_beta_zero_ignores_nan_and_alpha_zero_ignores_the_factors(dtype):
    nan = torch.full((3, 4), float("nan"), dtype=dtype)
    a, b = rand(3, 5, dtype=dtype), rand(5, 4, dtype=dtype, seed=1)
    check(pytensor.addmm(P(nan), P(a), P(b), beta=0), torch.addmm(nan, a, b, beta=0), 5)
    check(pytensor.addmm(P(nan), P(a), P(b), beta=0.0), torch.addmm(nan, a, b, beta=0.0), 5)
    c = rand(3, 4, dtype=dtype, seed=4)
    if dtype != torch.float16:  # torch's float16 kernel multiplies by alpha = 0 (NaN stays)
        check(pytensor.addmm(P(c), P(nan[:, :1].expand(3, 5)), P(b), alpha=0),
              torch.addmm(c, nan[:, :1].expand(3, 5), b, alpha=0))
    check(pytensor.addmv(P(nan[:, 0]), P(a), P(b[:, 0]), beta=0),
          torch.addmv(nan[:, 0], a, b[:, 0], beta=0), 5)
    check(pytensor.baddbmm(P(nan[None]), P(a[None]), P(b[None]), beta=0),
          torch.baddbmm(nan[None], a[None], b[None], beta=0), 5)


def test_complex_alpha_beta():
    d = torch.complex128
    c, a, b = rand(3, 3, dtype=d), rand(3, 2, dtype=d, seed=1), rand(2, 3, dtype=d, seed=2)
    check(pytensor.addmm(P(c), P(a), P(b), beta=2j, alpha=1 - 1j),
          torch.addmm(c, a, b, beta=2j, alpha=1 - 1j))


@pytest.mark.parametrize("fn", [
    lambda m, c, a, b: m.addmm(c, a, b, beta=1j),
    lambda m, c, a, b: m.addmm(c.long(), a.long(), b.long(), alpha=1j),
    lambda m, c, a, b: m.addmm(c.to(m.int8), a.to(m.int8), b.to(m.int8), alpha=1000),
])
def test_scalars_that_do_not_fit_are_refused_as_torch(fn):
    args = (torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2))
    with pytest.raises(RuntimeError) as want:
        fn(torch, *args)
    with pytest.raises(RuntimeError, match="value cannot be converted to type") as got:
        fn(pytensor, *(P(x) for x in args))
    assert str(got.value) == str(want.value).split("\n")[0]


# ---------------------------------------------------------------- batches
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "strided", "expanded"])
def test_bmm_and_baddbmm(dtype, kind):
    a, b = rand(3, 4, 6, dtype=dtype), rand(3, 6, 5, dtype=dtype, seed=1)
    ta, pa = layout(a, kind)
    tb, pb = layout(b, kind)
    check(pytensor.bmm(pa, pb), torch.bmm(ta, tb), 6)
    check(pa.bmm(pb), torch.bmm(ta, tb), 6)
    for self_shape in [(3, 4, 5), (5,), (4, 1)]:
        c = rand(*self_shape, dtype=dtype, seed=2)
        check(pytensor.baddbmm(P(c), pa, pb, beta=2, alpha=3),
              torch.baddbmm(c, ta, tb, beta=2, alpha=3), 6)


def test_many_small_matrices_split_across_threads_and_few_large_ones_do_not():
    for shape in [(300, 5, 7, 3), (2, 150, 160, 140)]:
        bsz, m, k, n = shape
        a, b = rand(bsz, m, k), rand(bsz, k, n, seed=1)
        check(pytensor.bmm(P(a), P(b)), torch.bmm(a, b), k)
        ai, bi = rand(bsz, m, k, dtype=torch.int32), rand(bsz, k, n, dtype=torch.int32, seed=1)
        check(pytensor.bmm(P(ai), P(bi)), torch.bmm(ai, bi))


# ---------------------------------------------------------------- vectors
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "strided", "flipped"])
def test_mv_and_addmv(dtype, kind):
    a, v = rand(6, 9, dtype=dtype), rand(1, 9, dtype=dtype, seed=1)
    ta, pa = layout(a, kind)
    tv, pv = layout(v, "strided" if kind == "transposed" else kind)
    tv, pv = tv[0], pv[0]
    check(pytensor.mv(pa, pv), torch.mv(ta, tv), 9)
    check(pa.mv(pv), torch.mv(ta, tv), 9)
    for self_shape in [(6,), (1,), ()]:
        c = rand(*self_shape, dtype=dtype, seed=2)
        check(pytensor.addmv(P(c), pa, pv, beta=3, alpha=2), torch.addmv(c, ta, tv, beta=3, alpha=2),
              9)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_dot_and_vdot(dtype, n):
    x, y = rand(2 * n, dtype=dtype), rand(n, dtype=dtype, seed=1)
    tx, px = x[::2], P(x)[::2]
    for f in ("dot", "vdot"):
        check(getattr(pytensor, f)(px, P(y)), getattr(torch, f)(tx, y), n)
        check(getattr(px, f)(P(y)), getattr(tx, f)(y), n)


def test_vdot_conjugates_the_first_argument():
    x, y = torch.tensor([1 + 2j, 3 - 1j]), torch.tensor([3 + 4j, -2j])
    check(pytensor.vdot(P(x), P(y)), torch.vdot(x, y))
    check(pytensor.dot(P(x), P(y)), torch.dot(x, y))


@pytest.mark.parametrize("fn", ["outer", "ger"])
def test_outer_promotes_and_takes_bool_as_torch(fn):
    for da, db in [(torch.float32, torch.float32), (torch.int64, torch.float32),
                   (torch.bool, torch.bool), (torch.int8, torch.complex64)]:
        a, b = rand(4, dtype=torch.int64).to(da), rand(3, dtype=db, seed=1)
        check(getattr(pytensor, fn)(P(a), P(b)), getattr(torch, fn)(a, b))
        check(getattr(P(a), fn)(P(b)), getattr(a, fn)(b))
    out = pytensor.empty(0, dtype=pytensor.float64)
    r = getattr(pytensor, fn)(P(torch.ones(2)), P(torch.ones(3)), out=out)
    assert r is out and r.shape == (2, 3)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self, but got 2-D"):
        getattr(pytensor, fn)(P(torch.ones(2, 1)), P(torch.ones(3)))


# ---------------------------------------------------------------- matmul
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((2, 4, 3), (3,)), ((2, 4, 3), (3, 5)), ((3,), (2, 3, 4)), ((4, 3), (2, 3, 5)),
                 ((2, 1, 4, 3), (3, 3, 5)), ((5, 1, 2, 3), (1, 4, 3, 2)), ((0, 2, 3), (3, 2)),
                 ((2, 3, 0), (0, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex128,
                                   torch.bfloat16], ids=str)
def test_matmul_rank_cases(sa, sb, dtype):
    a, b = rand(*sa, dtype=dtype), rand(*sb, dtype=dtype, seed=1)
    check(pytensor.matmul(P(a), P(b)), torch.matmul(a, b), sa[-1])
    check(P(a).matmul(P(b)), torch.matmul(a, b), sa[-1])
    if len(sa) >= 3:  # a batch that does not fold without a copy
        ta = a.transpose(0, -2).contiguous().transpose(0, -2)
        pa = P(a.transpose(0, -2).contiguous()).transpose(0, -2)
        check(pytensor.matmul(pa, P(b)), torch.matmul(ta, b), sa[-1])


def test_matmul_out_may_alias_its_inputs():
    a = rand(3, 3)
    pa = P(a)
    r = pytensor.matmul(pa, pa, out=pa)
    assert r is pa
    check(pa, a @ a, 3)
    out = pytensor.empty(0)
    assert pytensor.matmul(P(rand(3)), P(rand(3, seed=1)), out=out) is out and out.shape == ()


# ---------------------------------------------------------------- out= and in place
OUT_CALLS = [
    ("mm", lambda m, x: (x(2, 3), x(3, 4)), (2, 4)),
    ("bmm", lambda m, x: (x(2, 2, 3), x(2, 3, 4)), (2, 2, 4)),
    ("addmm", lambda m, x: (x(4), x(2, 3), x(3, 4)), (2, 4)),
    ("baddbmm", lambda m, x: (x(4), x(2, 2, 3), x(2, 3, 4)), (2, 2, 4)),
    ("addmv", lambda m, x: (x(2), x(2, 3), x(3)), (2,)),
    ("mv", lambda m, x: (x(2, 3), x(3)), (2,)),
    ("dot", lambda m, x: (x(3), x(3)), ()),
    ("vdot", lambda m, x: (x(3), x(3)), ()),
    ("matmul", lambda m, x: (x(2, 2, 3), x(3, 4)), (2, 2, 4)),
]


@pytest.mark.parametrize("name,make,shape", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_overloads(name, make, shape):
    targs = make(torch, lambda *s: rand(*s, seed=len(s)))
    pargs = [P(x) for x in targs]
    want = getattr(torch, name)(*targs)
    for out in (pytensor.empty(0), pytensor.empty(*shape)):
        got = getattr(pytensor, name)(*pargs, out=out)
        assert got is out
        check(out, want, 3)
    with pytest.raises(RuntimeError, match="doesn't match the result shape"):
        getattr(pytensor, name)(*pargs, out=pytensor.empty(7, 7))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got "
                       "double instead|result dtype Double does not match input dtype Float"):
        getattr(pytensor, name)(*pargs, out=pytensor.empty(*shape, dtype=pytensor.float64))


def test_out_that_aliases_an_input_gets_the_right_values():
    a = rand(3, 3)
    pa = P(a)
    assert pytensor.mm(pa, pa, out=pa) is pa
    check(pa, a @ a, 3)
    c, m1 = rand(3, 3, seed=1), rand(3, 3, seed=2)
    pc, pm = P(c), P(m1)
    assert pytensor.addmm(pc, pm, pm, beta=2, out=pm) is pm
    check(pm, torch.addmm(c, m1, m1, beta=2), 3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bfloat16], ids=str)
def test_in_place_overloads(dtype):
    c, a, b = rand(2, 4, dtype=dtype), rand(2, 3, dtype=dtype, seed=1), rand(3, 4, dtype=dtype,
                                                                            seed=2)
    pc = P(c)
    assert pc.addmm_(P(a), P(b), beta=2, alpha=3) is pc
    check(pc, c.clone().addmm_(a, b, beta=2, alpha=3), 3)
    v = rand(2, dtype=dtype, seed=3)
    pv = P(v)
    assert pytensor.addmv_(pv, P(a), P(b[:, 0]), alpha=2) is pv
    check(pv, torch.addmv(v, a, b[:, 0], alpha=2), 3)
    assert pv.addmv_(P(a), P(b[:, 1])) is pv
    bc = rand(2, 2, 4, dtype=dtype, seed=4)
    pbc = P(bc)
    assert pbc.baddbmm_(P(a).expand(2, 2, 3), P(b).expand(2, 3, 4)) is pbc
    check(pbc, bc.clone().baddbmm_(a.expand(2, 2, 3), b.expand(2, 3, 4)), 3)


def test_in_place_self_that_is_also_a_factor():
    y = torch.arange(4.0).reshape(2, 2)
    py = P(y)
    assert py.addmm_(py, py) is py
    check(py, y + y @ y)


# ---------------------------------------------------------------- meta tensors
@pytest.mark.parametrize("name,make,shape", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_meta_tensors_give_shapes_and_dtypes_only(name, make, shape):
    args = make(pytensor, lambda *s: pytensor.empty(*s, device="meta", dtype=pytensor.float64))
    r = getattr(pytensor, name)(*args)
    assert r.device.type == "meta" and tuple(r.shape) == shape and r.dtype == pytensor.float64
    b = make(pytensor, lambda *s: pytensor.empty(*s, device="meta", dtype=pytensor.bool))
    assert getattr(pytensor, name)(*b).dtype == pytensor.bool


# ---------------------------------------------------------------- errors, as torch words them
F, D = torch.float32, torch.float64
ERRORS = [
    lambda m: m.mm(m.zeros(2, 3), m.zeros(4, 5)),
    lambda m: m.mm(m.zeros(2, 3), m.zeros(3, 5, dtype=m.float64)),
    lambda m: m.mm(m.zeros(2, 3, dtype=m.int64), m.zeros(3, 5)),
    lambda m: m.mm(m.zeros(2, 3, dtype=m.float16), m.zeros(3, 5, dtype=m.bfloat16)),
    lambda m: m.mm(m.zeros(3), m.zeros(3, 5)),
    lambda m: m.mm(m.zeros(2, 3), m.zeros(3)),
    lambda m: m.mm(m.zeros(2, 3), m.zeros(3, 4), out=m.zeros(2, 4, dtype=m.int64)),
    lambda m: m.bmm(m.zeros(2, 3), m.zeros(3, 3)),
    lambda m: m.bmm(m.zeros(1, 2, 3), m.zeros(3, 3)),
    lambda m: m.bmm(m.zeros(2, 2, 3), m.zeros(3, 3, 3)),
    lambda m: m.bmm(m.zeros(2, 2, 3), m.zeros(2, 3, 3, dtype=m.float64)),
    lambda m: m.mv(m.zeros(3), m.zeros(3)),
    lambda m: m.mv(m.zeros(2, 3), m.zeros(4)),
    lambda m: m.mv(m.zeros(2, 3), m.zeros(3, dtype=m.float64)),
    lambda m: m.dot(m.zeros(2, 3), m.zeros(3)),
    lambda m: m.dot(m.zeros(3), m.zeros(4)),
    lambda m: m.dot(m.zeros(3), m.zeros(3, dtype=m.float64)),
    lambda m: m.vdot(m.zeros(3), m.zeros(3, dtype=m.float64)),
    lambda m: m.dot(m.zeros(3), m.zeros(3), out=m.zeros((), dtype=m.float64)),
    lambda m: m.addmm(m.zeros(3, 3), m.zeros(2, 3), m.zeros(3, 5)),
    lambda m: m.addmm(m.zeros(2, 5, dtype=m.float64), m.zeros(2, 3), m.zeros(3, 5)),
    lambda m: m.addmm(m.zeros(2, 5), m.zeros(2, 3, dtype=m.float64), m.zeros(3, 5)),
    lambda m: m.addmm(m.zeros(2, 5), m.zeros(3), m.zeros(3, 5)),
    lambda m: m.addmm(m.zeros(2, 5), m.zeros(2, 3), m.zeros(4, 5)),
    lambda m: m.zeros(5).addmm_(m.zeros(2, 3), m.zeros(3, 5)),
    lambda m: m.addmv(m.zeros(3), m.zeros(2, 3), m.zeros(3)),
    lambda m: m.addmv(m.zeros(2), m.zeros(2, 3), m.zeros(3, 1)),
    lambda m: m.addmv(m.zeros(2, dtype=m.float64), m.zeros(2, 3), m.zeros(3)),
    lambda m: m.zeros(1).addmv_(m.zeros(2, 3), m.zeros(3)),
    lambda m: m.baddbmm(m.zeros(3, 3, 4), m.zeros(2, 3, 3), m.zeros(2, 3, 4)),
    lambda m: m.baddbmm(m.zeros(2, 3, 4, dtype=m.float64), m.zeros(2, 3, 3), m.zeros(2, 3, 4)),
    lambda m: m.baddbmm(m.zeros(2, 3, 4), m.zeros(2, 3, 3), m.zeros(2, 3, 4, dtype=m.float64)),
    lambda m: m.zeros(4).baddbmm_(m.zeros(2, 3, 3), m.zeros(2, 3, 4)),
    lambda m: m.matmul(m.zeros(()), m.zeros(2, 3)),
    lambda m: m.matmul(m.zeros(3), m.zeros(4)),
    lambda m: m.matmul(m.zeros(3), m.zeros(4, 2)),
    lambda m: m.matmul(m.zeros(2, 2, 3), m.zeros(2, 4, 2)),
    lambda m: m.matmul(m.zeros(3, 2, 3), m.zeros(2, 3, 2)),
    lambda m: m.matmul(m.zeros(2, 4, 3), m.zeros(5, 2)),
    lambda m: m.matmul(m.zeros(2, 2, 3), m.zeros(2, 3, 2, dtype=m.float64)),
    lambda m: m.mm(m.ones(2, 2, dtype=m.bool), m.ones(2, 2, dtype=m.bool)),
    lambda m: m.bmm(m.ones(1, 2, 2, dtype=m.bool), m.ones(1, 2, 2, dtype=m.bool)),
    lambda m: m.mv(m.ones(2, 2, dtype=m.bool), m.ones(2, dtype=m.bool)),
    lambda m: m.dot(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),
    lambda m: m.baddbmm(m.ones(1, 2, 2, dtype=m.bool), m.ones(1, 2, 2, dtype=m.bool),
                        m.ones(1, 2, 2, dtype=m.bool)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_are_torchs(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch)
    with pytest.raises(type(want.value)) as got:
        ERRORS[i](pytensor)
    assert str(got.value) == str(want.value).split("\n")[0]


def test_cuda_tensors_are_refused_clearly():
    if not pytensor.cuda.is_available():
        pytest.skip("no CUDA device")
    with pytest.raises(NotImplementedError, match="CUDA"):
        pytensor.mm(pytensor.zeros(2, 2, device="cuda"), pytensor.zeros(2, 2, device="cuda"))


# ---------------------------------------------------------------- the BLAS phase
def test_init_report_names_the_blas_configuration():
    line = _C._config()["blis"]
    if not pytensor.has_blis:
        assert line == "no"
        return
    assert line.startswith("BLIS ") and " kernels (" in line
    phases = {p["name"]: p["detail"] for p in _C._init_report()["phases"]}
    assert phases["blas"] == line


# The portable kernel is one build for every capability (gemm_portable.c is not in csrc/kernels/cpu).
@pytest.mark.capability_independent
@pytest.mark.skipif(PORTABLE, reason="this run already uses the portable kernel")
def test_the_portable_kernel_passes_this_module():
    env = dict(os.environ, PYTENSOR_BLAS="portable")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          __file__, "-k", "not portable_kernel_passes"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    probe = subprocess.run([sys.executable, "-c", "from pytensor import _C; "
                            "print(_C._config()['blis'])"], env=env, capture_output=True,
                           text=True, timeout=120)
    assert "portable kernels in use (PYTENSOR_BLAS=portable)" in probe.stdout
