"""Sums and means over the last dim of many rows (Note [rows back to back] in
csrc/kernels/reduce.c): lengths on both sides of the lane widths (8, 64) and of the pairwise block
(2048), rows back to back and rows spaced apart (a slice of wider rows), float32 and float64,
against math.fsum of the same values; every CPU capability the machine has agrees."""
import math

import numpy as np
import pytest

import pytensor as pt
from pytensor._C import lib

LENGTHS = [1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 49, 63, 64, 65, 71, 100, 127, 129, 2047, 2048,
           2049, 4100]


def _check(x: np.ndarray, got: np.ndarray, mean: bool = False):
    n = x.shape[-1]
    want = np.array([math.fsum(r.astype(np.float64)) / (n if mean else 1) for r in x])
    eps = np.finfo(x.dtype).eps
    scale = np.abs(x).astype(np.float64).sum(axis=-1) / (n if mean else 1)
    bound = (4 * math.log2(n + 1) + 20) * eps * scale + 1e-300
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_back_to_back(n, dtype):
    rows = 37 if n > 1000 else 301
    x = np.random.default_rng(n).standard_normal((rows, n)).astype(dtype)
    t = pt.from_numpy(x)
    _check(x, t.sum(-1).numpy())
    _check(x, t.mean(-1).numpy(), mean=True)
    # the same rows as planes: the two last dims of a 3-d tensor reduce as one run
    if n % 7 == 0:
        p = t.view(rows, n // 7, 7)
        _check(x, p.sum((-1, -2)).numpy())


@pytest.mark.parametrize("n", [5, 49, 100, 2049])
def test_rows_spaced_apart(n):
    x = np.random.default_rng(1).standard_normal((53, n + 11)).astype(np.float32)
    t = pt.from_numpy(x)[:, 3:3 + n]
    assert not t.is_contiguous()
    _check(x[:, 3:3 + n], t.sum(1).numpy())
    # a strided output is written where it belongs
    out = pt.zeros(53, 2)[:, 1]
    pt.sum(t, 1, out=out)
    _check(x[:, 3:3 + n], out.numpy())


def test_rows_with_threads_and_capabilities():
    x = np.random.default_rng(2).standard_normal((20000, 49)).astype(np.float32)
    t = pt.from_numpy(x)
    ref = t.sum(-1).numpy()
    old = pt.get_num_threads()
    try:
        pt.set_num_threads(2)
        np.testing.assert_array_equal(t.sum(-1).numpy(), ref)
    finally:
        pt.set_num_threads(old)
    _check(x, ref)
    best = lib.pt_cpu_capability()
    try:
        for cap in range(lib.pt_cpu_capability_detected() + 1):
            if lib.pt_cpu_capability_select(cap) == 0:
                _check(x, t.sum(-1).numpy())
    finally:
        lib.pt_cpu_capability_select(best)
