"""The float32/float64 matrix products on both sides of the small-product kernel's limits and of
the hand-split medium products (csrc/kernels/gemm_small.c, gemm_split.c): mm, addmm, bmm,
baddbmm, matmul, mv and addmv against NumPy in float64 (always) and torch (when installed), over
transposed, sliced and negative-stride operands and results, alpha/beta, empty and batch-0
products, broadcast batch dims, at one and two threads.
"""
import numpy as np
import pytest

import pytensor

from _torch_oracle import requires_torch, torch

DTYPES = ["float32", "float64"]
# (m, n, k): tiny and odd edges of the 6 x 16 tile, the small kernel's work limit (256^3) and
# depth limit (512) on both sides, the three hand-split shapes (deep, tall, wide), and two shapes
# just above two threads' worth of work whose threads' shares of (panel, row block) units end in
# the middle of a panel (Note [sharing the small product]): 8 rows (a 6-row and a 2-row block) by
# 63 panels, and 84 row blocks (the last of 2 rows) by 3 panels whose last is half empty. The
# last two are shallow and wide, row blocks outermost (Note [rows outer for a shallow product]):
# a rank-one product (a linear layer's weight gradient at batch 1) and an odd one. The last two
# have an odd number of units on two threads, taken row block by row block for a row-major C
# (Note [the small product's shares follow C's rows]): the shares meet inside a block of rows.
SHAPES = [(1, 2, 1), (5, 7, 3), (6, 16, 8), (7, 17, 9), (13, 33, 65), (64, 64, 64),
          (100, 101, 99), (256, 256, 256), (257, 256, 256), (20, 30, 513), (64, 100, 1000),
          (1000, 100, 64), (64, 100, 3000), (1000, 100, 200), (100, 1000, 200), (8, 1000, 300),
          (500, 40, 110), (1024, 1024, 1), (301, 1003, 2), (1001, 97, 50), (997, 45, 40)]
LAYOUTS = ["plain", "a.t", "b.t", "both.t", "sliced", "negative"]


def tol(dtype, k):
    return (1e-5 if dtype == "float32" else 1e-12) * max(k, 1) ** 0.5


def close(got, want, dtype, k):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.shape == want.shape
    t = tol(dtype, k)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=t * 10, atol=t * scale)


def laid_out(x, layout, rng):
    """x (a NumPy matrix or batch) as a pytensor tensor of the same values in the given layout."""
    if layout in ("plain", "a.t", "b.t", "both.t"):
        return pytensor.from_numpy(np.ascontiguousarray(x))
    if layout == "sliced":  # every other column of a wider array
        wide = rng.standard_normal(x.shape[:-1] + (2 * x.shape[-1],)).astype(x.dtype)
        wide[..., ::2] = x
        return pytensor.from_numpy(wide)[..., ::2]
    flipped = np.ascontiguousarray(x[..., ::-1, :])  # rows stored in reverse: negative row stride
    return pytensor.from_numpy(flipped[..., ::-1, :])


def transposed(x):
    """x as a pytensor tensor whose matrices are stored column-major."""
    return pytensor.from_numpy(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)


def operands(m, n, k, dtype, layout, seed=0, batch=()):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (m, k)).astype(dtype)
    b = rng.standard_normal(batch + (k, n)).astype(dtype)
    pa = transposed(a) if layout in ("a.t", "both.t") else laid_out(a, layout, rng)
    pb = transposed(b) if layout in ("b.t", "both.t") else laid_out(b, layout, rng)
    return a, b, pa, pb


def exact(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mm_matches_float64_numpy(threads, dtype, shape, layout):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, layout)
    close(pa.mm(pb), exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", [(1, 1), (2.5, 0.5), (-1, 0), (0.25, -2)])
def test_addmm_alpha_beta(threads, dtype, shape, alpha, beta):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, "a.t", seed=1)
    c = np.random.default_rng(2).standard_normal((m, n)).astype(dtype)
    if beta == 0:
        c[0, 0] = np.nan  # beta == 0: self is not read
    got = pytensor.addmm(pytensor.from_numpy(c), pa, pb, beta=beta, alpha=alpha)
    want = (0 if beta == 0 else beta * c.astype(np.float64)) + alpha * exact(a, b)
    close(got, want, dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 16, 8), (13, 33, 65), (64, 100, 1000), (1000, 100, 200)],
                         ids=lambda s: "x".join(map(str, s)))
def test_addmm_in_place_into_a_transposed_and_a_sliced_result(threads, dtype, shape):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, "plain", seed=3)
    c = np.random.default_rng(4).standard_normal((m, n)).astype(dtype)
    ct = pytensor.from_numpy(np.ascontiguousarray(c.T)).t()  # column-major result
    ct.addmm_(pa, pb, beta=0.5, alpha=2)
    close(ct, 0.5 * c + 2 * exact(a, b), dtype, k)
    wide = np.zeros((m, 2 * n), dtype)
    wide[:, 1::2] = c
    pw = pytensor.from_numpy(wide)
    view = pw[:, 1::2]
    view.addmm_(pa, pb, beta=-1, alpha=1)
    close(view, -c + exact(a, b), dtype, k)
    assert not pw.numpy()[:, ::2].any()  # the columns between were left alone


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 2, 1), (7, 17, 9), (64, 64, 64), (100, 101, 99),
                                   (128, 128, 256), (20, 30, 513)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("count", [1, 3, 8])
@pytest.mark.parametrize("layout", ["plain", "b.t", "sliced", "negative"])
def test_bmm_matches_float64_numpy(threads, dtype, shape, count, layout):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, layout, seed=5, batch=(count,))
    close(pytensor.bmm(pa, pb), exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 17, 9), (64, 64, 64), (20, 30, 513)],
                         ids=lambda s: "x".join(map(str, s)))
def test_baddbmm_alpha_beta(threads, dtype, shape):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, "a.t", seed=6, batch=(4,))
    c = np.random.default_rng(7).standard_normal((4, m, n)).astype(dtype)
    got = pytensor.baddbmm(pytensor.from_numpy(c), pa, pb, beta=0.5, alpha=-2)
    close(got, 0.5 * c + -2 * exact(a, b), dtype, k)
    got = pytensor.baddbmm(pytensor.from_numpy(c[:1]), pa, pb, beta=1, alpha=1)  # self broadcasts
    close(got, c[:1] + exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ashape,bshape", [((3, 1, 7, 9), (2, 9, 17)), ((5, 64, 64), (64, 33)),
                                           ((2, 13, 65), (4, 1, 65, 6)), ((9,), (4, 9, 16)),
                                           ((4, 20, 513), (513, 30))])
def test_matmul_broadcasts_batch_dims(threads, dtype, ashape, bshape):
    rng = np.random.default_rng(8)
    a = rng.standard_normal(ashape).astype(dtype)
    b = rng.standard_normal(bshape).astype(dtype)
    got = pytensor.matmul(pytensor.from_numpy(a), pytensor.from_numpy(b))
    close(got, np.matmul(a.astype(np.float64), b.astype(np.float64)), dtype, ashape[-1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k", [(1, 1), (7, 9), (5, 40), (64, 64), (256, 256), (100, 1000)])
@pytest.mark.parametrize("layout", ["plain", "a.t", "sliced", "negative"])
def test_mv_and_addmv(threads, dtype, m, k, layout):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((m, k)).astype(dtype)
    v = rng.standard_normal(k).astype(dtype)
    c = rng.standard_normal(m).astype(dtype)
    pa = transposed(a) if layout == "a.t" else laid_out(a, layout, rng)
    pv = pytensor.from_numpy(np.ascontiguousarray(v))
    if layout == "sliced":
        pv = pytensor.from_numpy(np.repeat(v, 2))[::2]
    elif layout == "negative":
        pv = pytensor.from_numpy(np.ascontiguousarray(v[::-1])[::-1])
    close(pa.mv(pv), exact(a, v), dtype, k)
    close(pytensor.addmv(pytensor.from_numpy(c), pa, pv, beta=2, alpha=0.5),
          2 * c + 0.5 * exact(a, v), dtype, k)
    close(pytensor.addmv(pytensor.from_numpy(c), pa, pv, beta=0, alpha=1), exact(a, v), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 17, 100])
def test_dot_and_one_column_mm(threads, dtype, k):
    rng = np.random.default_rng(14)
    x, y = rng.standard_normal(k).astype(dtype), rng.standard_normal(k).astype(dtype)
    got = pytensor.dot(pytensor.from_numpy(x), pytensor.from_numpy(y))
    close(got, np.dot(x.astype(np.float64), y), dtype, k)
    a = rng.standard_normal((9, k)).astype(dtype)
    col = rng.standard_normal((k, 1)).astype(dtype)
    close(pytensor.from_numpy(a).mm(pytensor.from_numpy(col)), exact(a, col), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_products(threads, dtype):
    z = lambda *s: pytensor.from_numpy(np.zeros(s, dtype))  # noqa: E731
    assert pytensor.mm(z(0, 5), z(5, 7)).shape == (0, 7)
    assert pytensor.bmm(z(0, 6, 16), z(0, 16, 8)).shape == (0, 6, 8)
    c = pytensor.from_numpy(np.full((6, 8), 3, dtype))
    close(pytensor.addmm(c, z(6, 0), z(0, 8), beta=2), np.full((6, 8), 6.0), dtype, 1)
    close(pytensor.mm(z(6, 0), z(0, 8)), np.zeros((6, 8)), dtype, 1)
    b0 = pytensor.baddbmm(pytensor.from_numpy(np.ones((0, 6, 8), dtype)), z(0, 6, 3), z(0, 3, 8))
    assert b0.shape == (0, 6, 8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_alpha_zero_ignores_the_factors(threads, dtype):
    a = np.full((6, 16), np.nan, dtype)
    c = np.ones((6, 16), dtype)
    got = pytensor.addmm(pytensor.from_numpy(c), pytensor.from_numpy(a),
                         pytensor.from_numpy(np.ones((16, 16), dtype)), beta=3, alpha=0)
    close(got, 3 * np.ones((6, 16)), dtype, 1)


def test_an_out_that_overlaps_an_input_gets_the_right_values():
    rng = np.random.default_rng(10)
    a = pytensor.from_numpy(rng.standard_normal((16, 16)).astype("float32"))
    want = a.numpy().astype(np.float64) @ a.numpy()
    pytensor.mm(a, a.clone(), out=a)
    close(a, want, "float32", 16)


@requires_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matches_torch(threads, dtype, shape):
    m, n, k = shape
    a, b, pa, pb = operands(m, n, k, dtype, "both.t", seed=11)
    c = np.random.default_rng(12).standard_normal((m, n)).astype(dtype)
    ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
    got = pytensor.addmm(pytensor.from_numpy(c), pa, pb, beta=0.5, alpha=1.5)
    close(got, torch.addmm(tc, ta.t().contiguous().t(), tb, beta=0.5, alpha=1.5)
          .to(torch.float64).numpy(), dtype, k)
    a3, b3, pa3, pb3 = operands(min(m, 64), min(n, 64), min(k, 64), dtype, "b.t", 13, (3,))
    close(pytensor.bmm(pa3, pb3),
          torch.bmm(torch.from_numpy(a3), torch.from_numpy(b3)).to(torch.float64).numpy(),
          dtype, min(k, 64))


# Few rows, a long k, A row-major and B column-major (x @ w.t()): on BLIS's skx kernels these go
# through a column-major buffer (Note [a short product with B column-major] in blas.c), elsewhere
# as they are; either way the values are these. The result is also written into a slice of a
# wider tensor (a row stride past n) with beta, and as a batch.
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 64, 1024), (16, 256, 600), (128, 300, 520), (5, 11, 700)],
                         ids=lambda s: "x".join(map(str, s)))
def test_short_product_with_b_column_major(threads, dtype, shape):
    m, n, k = shape
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    pa, pw = pytensor.from_numpy(a), pytensor.from_numpy(w)
    close(pa.mm(pw.t()), exact(a, w.T), dtype, k)
    wide = rng.standard_normal((m, n + 5)).astype(dtype)
    out = pytensor.from_numpy(wide.copy())
    got = pytensor.addmm(out[:, 2:n + 2], pa, pw.t(), beta=0.5, alpha=-2.0)
    close(got, 0.5 * wide[:, 2:n + 2].astype(np.float64) - 2.0 * exact(a, w.T), dtype, k)
    target = out[:, 2:n + 2]
    pytensor.mm(pa, pw.t(), out=target)
    close(target, exact(a, w.T), dtype, k)
    assert out[:, :2].numpy().tolist() == wide[:, :2].tolist()      # the columns beside it
    assert out[:, n + 2:].numpy().tolist() == wide[:, n + 2:].tolist()
    batch = rng.standard_normal((3, m, k)).astype(dtype)
    close(pytensor.from_numpy(batch).matmul(pw.t()), exact(batch, w.T), dtype, k)
