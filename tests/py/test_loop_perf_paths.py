"""Paths a training loop runs every step: fresh results reuse memory without page faults, boolean
masks written through ``x[mask] = v`` take the masked-fill path, and small products agree with a
reference whatever their operands' layout."""
import resource

import numpy as np
import pytest

import pytensor

try:
    import torch
except ImportError:
    torch = None


def _minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


@pytest.mark.parametrize("nbytes", [16 << 10, 100 << 10, 400_000, 900 << 10, 4 << 20])
def test_steady_loop_of_fresh_results_has_no_page_faults(nbytes):
    a = pytensor.ones(nbytes // 4)
    for _ in range(5):  # warm-up: the pools fill
        (a * 2.0).sum()
    steps = 50
    before = _minor_faults()
    for _ in range(steps):
        b = a * 2.0
        del b
    faults = _minor_faults() - before
    # A fresh block would fault once per 4 KiB page: 100 per step at 400 KB. Allow stray faults
    # from the interpreter, not one step's worth.
    assert faults < max(8, nbytes // 4096), faults


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int16", "bool"])
def test_bool_mask_assignment_of_a_number_matches_numpy(dtype):
    rng = np.random.default_rng(0)
    base = (rng.standard_normal((64, 100)) * 10).astype(dtype)
    mask = rng.standard_normal((64, 100)) < 0
    t = pytensor.from_numpy(base.copy())
    t[pytensor.from_numpy(mask)] = 0
    want = base.copy()
    want[mask] = 0
    np.testing.assert_array_equal(t.numpy(), want)


def test_bool_mask_assignment_on_strided_views_and_one_element_values():
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    t = pytensor.from_numpy(base.copy())
    view = t.t()  # 8 x 6, not contiguous
    mask = view > 20
    view[mask] = pytensor.tensor([-1.0])
    want = base.copy()
    want.T[want.T > 20] = -1.0
    np.testing.assert_array_equal(t.numpy(), want)
    t2 = pytensor.zeros(3, 4)
    t2[pytensor.ones(3, 4, dtype=pytensor.bool)] = pytensor.tensor(2.5)
    assert (t2.numpy() == 2.5).all()


def test_bool_mask_assignment_keeps_index_put_errors_and_accumulate():
    t = pytensor.zeros(2, 3)
    mask = pytensor.ones(2, 3, dtype=pytensor.bool)
    with pytest.raises(RuntimeError):
        t[mask] = pytensor.tensor([1.0, 2.0])  # 2 values for 6 places
    t.index_put_((mask,), pytensor.tensor(1.0), accumulate=True)
    t.index_put_((mask,), pytensor.tensor(1.0), accumulate=True)
    assert (t.numpy() == 2.0).all()
    if torch is not None:
        a = torch.zeros(2, 3)
        a[torch.ones(2, 3, dtype=torch.bool)] = 7
        b = pytensor.zeros(2, 3)
        b[pytensor.ones(2, 3, dtype=pytensor.bool)] = 7
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_bool_mask_assignment_of_numbers_past_the_dtype_rounds_as_torch():
    for value in (1e39, -1e39, 1e300, float("nan"), float("inf"), 3):
        t = pytensor.zeros(2, 2)
        t[pytensor.ones(2, 2, dtype=pytensor.bool)] = value
        got = t.numpy()
        if torch is not None:
            a = torch.zeros(2, 2)
            try:
                a[torch.ones(2, 2, dtype=torch.bool)] = value
            except (RuntimeError, OverflowError):
                continue
            np.testing.assert_array_equal(got, a.numpy())


@pytest.mark.parametrize("k", [2, 10, 32, 33])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_small_k_products_with_a_transposed_operand_match_numpy(k, dtype):
    rng = np.random.default_rng(k)
    a = rng.standard_normal((64, k)).astype(dtype)
    w = rng.standard_normal((100, k)).astype(dtype)
    c = rng.standard_normal((64, 100)).astype(dtype)
    tol = 1e-4 if dtype != "float64" else 1e-10
    ta, tw, tc = (pytensor.from_numpy(x) for x in (a, w, c))
    np.testing.assert_allclose(ta.mm(tw.t()).numpy(), a @ w.T, rtol=tol, atol=tol)
    np.testing.assert_allclose(pytensor.addmm(tc, ta, tw.t(), beta=0.5, alpha=2).numpy(),
                               0.5 * c + 2 * (a @ w.T), rtol=tol, atol=tol)
    ba = rng.standard_normal((3, 16, k)).astype(dtype)
    bw = rng.standard_normal((3, 20, k)).astype(dtype)
    got = pytensor.bmm(pytensor.from_numpy(ba), pytensor.from_numpy(bw).transpose(1, 2))
    np.testing.assert_allclose(got.numpy(), ba @ bw.transpose(0, 2, 1), rtol=tol, atol=tol)
    # A broadcast (stride-0) batch of B.
    got = pytensor.matmul(pytensor.from_numpy(ba), tw.t()[:k, :20].expand(3, k, 20))
    np.testing.assert_allclose(got.numpy(), ba @ w.T[:k, :20], rtol=tol, atol=tol)
