"""Copies between layouts that run contiguously along different dimensions (w.t().contiguous(),
NCHW <-> NHWC permutes, copy_ into a transposed view): the blocked transposing copy of
csrc/kernels/copy.c (Note [blocked transposing copy]) against NumPy, over every element size
(1, 2, 4, 8 bytes; 16-byte complex128 takes the general loop), tile edges, sizes on both sides of
the copy's lower limit, 4 KiB-multiple source strides, negative strides, broadcast sources,
destinations with gaps, and one and two threads."""
import numpy as np
import pytest

import pytensor

DTYPES = ["int8", "float16", "float32", "int32", "float64", "complex64", "complex128", "bool"]
# (shape, permutation): 2-D around the tile sizes and the lower limit (4096 elements), 4 KiB
# strides, NCHW -> NHWC (channels below and above a whole row), and a 3-D rotation
CASES = [((63, 65), (1, 0)), ((64, 64), (1, 0)), ((8, 511), (1, 0)), ((7, 600), (1, 0)),
         ((1024, 16), (1, 0)), ((16, 1024), (1, 0)), ((129, 257), (1, 0)),
         ((2, 64, 9, 11), (0, 2, 3, 1)), ((2, 65, 9, 11), (0, 2, 3, 1)),
         ((2, 9, 11, 70), (0, 3, 1, 2)), ((3, 17, 129), (2, 0, 1)), ((5, 1, 40, 33), (3, 1, 0, 2))]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    v = rng.standard_normal(shape) * 50
    if dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,perm", CASES, ids=lambda c: str(c))
def test_permuted_contiguous_matches_numpy(threads, dtype, shape, perm):
    a = _values(shape, dtype)
    t = pytensor.from_numpy(a)
    got = t.permute(*perm).contiguous()
    assert got.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), a.transpose(perm))
    # the source read backwards along its first dimension (a negative stride)
    back = pytensor.from_numpy(np.ascontiguousarray(a[::-1])).flip(0)
    np.testing.assert_array_equal(back.permute(*perm).contiguous().numpy(), a.transpose(perm))


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape,perm", CASES[:8], ids=lambda c: str(c))
def test_copy_into_a_view_with_gaps_leaves_the_gaps(threads, dtype, shape, perm):
    a = _values(shape, dtype, seed=1)
    want = a.transpose(perm)
    big_np = _values(tuple(s + 3 for s in want.shape), dtype, seed=2)
    big = pytensor.from_numpy(big_np.copy())
    inner = tuple(slice(1, 1 + s) for s in want.shape)
    big[inner].copy_(pytensor.from_numpy(a).permute(*perm))
    expect = big_np.copy()
    expect[inner] = want
    np.testing.assert_array_equal(big.numpy(), expect)


def test_copy_into_a_transposed_destination_and_from_a_broadcast(threads):
    a = _values((300, 257), "float32")
    dst = pytensor.empty(257, 300).t()                 # contiguous along dim 0
    dst.copy_(pytensor.from_numpy(a))
    np.testing.assert_array_equal(dst.numpy(), a)
    row = _values((1, 300), "float32", seed=3)
    dst2 = pytensor.empty(300, 300).t()
    dst2.copy_(pytensor.from_numpy(row).expand(300, 300))
    np.testing.assert_array_equal(dst2.numpy(), np.broadcast_to(row, (300, 300)))
    col = _values((300, 1), "float64", seed=4)
    dst3 = pytensor.empty(300, 300, dtype=pytensor.float64)
    dst3.copy_(pytensor.from_numpy(col).expand(300, 300).t().t())
    np.testing.assert_array_equal(dst3.numpy(), np.broadcast_to(col, (300, 300)))


def test_a_cast_across_layouts_is_still_exact(threads):
    a = _values((70, 90), "float32")
    got = pytensor.empty(90, 70, dtype=pytensor.float64)
    got.copy_(pytensor.from_numpy(a).t())
    np.testing.assert_array_equal(got.numpy(), a.T.astype(np.float64))
