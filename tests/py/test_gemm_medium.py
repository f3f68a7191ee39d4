"""The cache-blocked product of medium sizes (csrc/kernels/gemm_medium.c, Note [medium products]):
mm, addmm, bmm and baddbmm against NumPy in float64 (always) and torch (when installed), on
both sides of every block size, over transposed, sliced, offset and negative-stride operands,
alpha/beta, at one and two threads. tools/run_tests.py runs it once per CPU capability.

A product goes to this kernel when the small kernel refuses it (depth above 512 or more than
256^3 multiply-adds) and m, n >= 2, so the edge shapes below take a depth of 513 or more to get
here however few their rows and columns are. Block sizes (AVX2): tile 6 x 16 float32, 6 x 8
float64 (2 x 16 and 2 x 8 in the default build); MC 144 (float64 72) rows; KC 256 depth,
cut into equal blocks (513 is two of 257, 1025 five of 205); NC 3072 (float64 1536) columns.
"""
import numpy as np
import pytest

import pytensor

from _torch_oracle import requires_torch, torch
from test_small_gemm import close, exact, operands

DTYPES = ["float32", "float64"]
LAYOUTS = ["plain", "a.t", "b.t", "both.t", "sliced", "negative", "offset"]
# (m, n, k): tile edges (MR, NR +-1), MC +-1 for both dtypes, depth blocks, the MLP's products
# and the training loop's, and shapes large enough for two threads whose rectangles end in a
# ragged tile.
SHAPES = [(2, 2, 513), (5, 15, 513), (6, 16, 600), (7, 17, 700), (6, 8, 1025), (13, 31, 1025),
          (71, 9, 520), (72, 8, 520), (73, 9, 520), (143, 17, 520), (144, 16, 520),
          (145, 33, 520), (290, 100, 600), (300, 300, 257), (301, 299, 300), (64, 100, 1000),
          (128, 512, 784), (128, 512, 512), (512, 512, 128), (97, 203, 1030)]


def medium_operands(m, n, k, dtype, layout, seed=0, batch=()):
    """operands() of test_small_gemm, plus "offset": views that start inside a larger tensor."""
    if layout != "offset":
        return operands(m, n, k, dtype, layout, seed, batch)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (m, k)).astype(dtype)
    b = rng.standard_normal(batch + (k, n)).astype(dtype)
    big_a = np.zeros(batch + (m + 3, k + 5), dtype)
    big_a[..., 3:, 5:] = a
    big_b = np.zeros(batch + (k + 1, n + 2), dtype)
    big_b[..., 1:, 2:] = b
    pa = pytensor.from_numpy(big_a)[..., 3:, 5:]
    pb = pytensor.from_numpy(big_b)[..., 1:, 2:]
    return a, b, pa, pb


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mm_matches_float64_numpy(threads, dtype, shape, layout):
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, layout)
    close(pa.mm(pb), exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 3071, 520), (6, 3072, 520), (5, 3073, 520),
                                   (7, 1537, 600), (300, 3100, 40)],
                         ids=lambda s: "x".join(map(str, s)))
def test_column_blocks(threads, dtype, shape):
    """NC +-1 (3072 float32, 1536 float64): a second block of columns, packed A reused."""
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, "b.t", seed=20)
    close(pa.mm(pb), exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 17, 700), (145, 33, 520), (128, 512, 784),
                                   (301, 299, 300)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", [(1, 1), (2.5, 0.5), (-1, 0), (0.25, -2), (1, 0)])
@pytest.mark.parametrize("layout", ["plain", "a.t", "b.t"])
def test_addmm_alpha_beta(threads, dtype, shape, alpha, beta, layout):
    """beta applies once, in the first block of depth; alpha in every block; beta == 0 leaves
    self unread (a NaN there does not spread)."""
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, layout, seed=1)
    c = np.random.default_rng(2).standard_normal((m, n)).astype(dtype)
    if beta == 0:
        c[0, 0] = c[-1, -1] = np.nan
    got = pytensor.addmm(pytensor.from_numpy(c), pa, pb, beta=beta, alpha=alpha)
    want = (0 if beta == 0 else beta * c.astype(np.float64)) + alpha * exact(a, b)
    close(got, want, dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(13, 31, 1025), (128, 512, 784)],
                         ids=lambda s: "x".join(map(str, s)))
def test_results_of_every_layout(threads, dtype, shape):
    """C column-major (the tiles' scalar store), C a strided view, C reversed (to a copy)."""
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, "plain", seed=3)
    c = np.random.default_rng(4).standard_normal((m, n)).astype(dtype)
    ct = pytensor.from_numpy(np.ascontiguousarray(c.T)).t()
    ct.addmm_(pa, pb, beta=0.5, alpha=2)
    close(ct, 0.5 * c + 2 * exact(a, b), dtype, k)
    wide = np.zeros((m, 2 * n), dtype)
    wide[:, 1::2] = c
    pw = pytensor.from_numpy(wide)
    pw[:, 1::2].addmm_(pa, pb, beta=-1, alpha=1)
    close(pw[:, 1::2], -c + exact(a, b), dtype, k)
    assert not pw.numpy()[:, ::2].any()  # the columns between were left alone
    rev = pytensor.from_numpy(np.ascontiguousarray(c[::-1])[::-1])  # negative row stride
    rev.addmm_(pa, pb, beta=1, alpha=1)
    close(rev, c + exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7, 17, 700), (70, 40, 600), (128, 128, 1100)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("layout", ["plain", "a.t", "b.t", "sliced", "negative"])
def test_bmm_matches_float64_numpy(threads, dtype, shape, count, layout):
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, layout, seed=5, batch=(count,))
    close(pytensor.bmm(pa, pb), exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_baddbmm_alpha_beta(threads, dtype):
    m, n, k = 70, 40, 600
    a, b, pa, pb = medium_operands(m, n, k, dtype, "a.t", seed=6, batch=(3,))
    c = np.random.default_rng(7).standard_normal((3, m, n)).astype(dtype)
    got = pytensor.baddbmm(pytensor.from_numpy(c), pa, pb, beta=0.5, alpha=-2)
    close(got, 0.5 * c + -2 * exact(a, b), dtype, k)
    got = pytensor.baddbmm(pytensor.from_numpy(c[:1]), pa, pb, beta=1, alpha=1)  # self broadcasts
    close(got, c[:1] + exact(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_propagate(threads, dtype):
    """inf and NaN in A reach the rows they belong to and no others."""
    m, n, k = 20, 40, 600
    a, b, pa, pb = medium_operands(m, n, k, dtype, "plain", seed=8)
    a[3, 7] = np.inf
    a[11, 500] = np.nan
    got = pytensor.from_numpy(a).mm(pb).numpy()
    want = exact(a, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    rows = [i for i in range(m) if i not in (3, 11)]
    close(got[rows], want[rows], dtype, k)


@requires_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(128, 512, 784), (64, 100, 1000), (1000, 64, 100),
                                   (13, 31, 1025), (300, 300, 257)],
                         ids=lambda s: "x".join(map(str, s)))
def test_matches_torch(threads, dtype, shape):
    m, n, k = shape
    a, b, pa, pb = medium_operands(m, n, k, dtype, "both.t", seed=11)
    c = np.random.default_rng(12).standard_normal((m, n)).astype(dtype)
    ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
    got = pytensor.addmm(pytensor.from_numpy(c), pa, pb, beta=0.5, alpha=1.5)
    want = torch.addmm(tc, ta, tb, beta=0.5, alpha=1.5).to(torch.float64).numpy()
    close(got, want, dtype, k)
