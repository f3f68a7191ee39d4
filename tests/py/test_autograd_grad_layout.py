"""The layout of a leaf's .grad (Note [gradient layout contract] in csrc/autograd/variable.c): a
leaf whose strides are dense and non-overlapping gets a gradient with its strides (channels_last
stays channels_last, a permuted leaf keeps its permutation), any other leaf a row-major one; a
second backward accumulates in place and keeps that layout. Each case runs on pytensor and, where
torch is installed, on torch, and the strides are compared; the expected strides written here keep
the checks alive without torch."""
import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]


def _channels_last(L):
    return L.from_numpy(np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)).to(
        memory_format=L.channels_last).requires_grad_()


def _permuted(L):
    return L.from_numpy(np.arange(24, dtype=np.float64).reshape(2, 3, 4)).permute(2, 0, 1) \
        .detach().requires_grad_()


def _strided(L):  # not dense: every other column
    return L.from_numpy(np.arange(40, dtype=np.float32).reshape(4, 10))[:, ::2].detach() \
        .requires_grad_()


def _flipped_size1(L):  # a size-1 dim may have any stride
    return L.from_numpy(np.arange(6, dtype=np.float32).reshape(6, 1)).as_strided(
        (6, 1), (1, 7)).detach().requires_grad_()


CASES = {
    "channels_last": (_channels_last, (60, 1, 15, 3)),
    "permuted": (_permuted, (1, 12, 4)),
    "not_dense": (_strided, (5, 1)),
    "size1_dim": (_flipped_size1, (1, 7)),
}


def _steps(x, L):
    """Gradients that arrive in other layouts: a broadcast one (sum), a contiguous one (a
    contiguous copy's), and one that has the leaf's own layout (elementwise ops keep it)."""
    return [lambda: (x * 2).sum(), lambda: (x.contiguous() * 3).sum(), lambda: (x * x).sum()]


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("step", [0, 1, 2])
def test_first_gradient_takes_the_leaf_layout(L, case, step):
    make, expected = CASES[case]
    x = make(L)
    _steps(x, L)[step]().backward()
    got = tuple(x.grad.stride())
    if case == "size1_dim":  # only the dims of size > 1 are bound
        assert got[0] == expected[0]
    else:
        assert got == expected
    ones = np.ones(tuple(x.shape))
    want = [2 * ones, 3 * ones, 2 * np.asarray(x.detach().tolist())][step]
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), want)


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
@pytest.mark.parametrize("case", list(CASES))
def test_accumulation_keeps_the_layout(L, case):
    make, expected = CASES[case]
    x = make(L)
    (x * 2).sum().backward()
    first = x.grad
    (x.contiguous() * 3).sum().backward()
    assert x.grad is first  # accumulated in place
    if case != "size1_dim":
        assert tuple(x.grad.stride()) == expected
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), 5 * np.ones(tuple(x.shape)))


@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("step", [0, 1, 2])
def test_strides_match_torch(case, step):
    make, _ = CASES[case]
    xs = [make(L) for L in (pytensor, torch)]
    for x, L in zip(xs, (pytensor, torch)):
        _steps(x, L)[step]().backward()
    bound = [d for d, n in enumerate(xs[0].shape) if n != 1]  # a size-1 dim's stride is free
    assert [xs[0].grad.stride()[d] for d in bound] == [xs[1].grad.stride()[d] for d in bound]
