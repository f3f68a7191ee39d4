"""pytensor.nn.functional.embedding and one_hot: rows gathered and gradients scattered (NumPy
references and torch), padding_idx, scale_grad_by_freq, max_norm renormalizing in place,
gradcheck and double backward, and torch's messages (an index out of range is an IndexError)."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(3)


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _w(shape=(10, 4), grad=True):
    return pytensor.tensor(RNG.standard_normal(shape), requires_grad=grad)


def test_embedding_gathers_rows():
    w = _w()
    idx = pytensor.tensor([[1, 2, 1], [9, 0, 2]])
    y = F.embedding(idx, w)
    np.testing.assert_array_equal(_np(y), _np(w)[np.array([[1, 2, 1], [9, 0, 2]])])
    y32 = F.embedding(idx.int(), w)
    np.testing.assert_array_equal(_np(y32), _np(y))


def test_embedding_backward_sums_rows_with_padding_and_frequency():
    w = _w()
    idx = np.array([[1, 2, 1], [9, 0, 2]])
    g = RNG.standard_normal((2, 3, 4))
    F.embedding(pytensor.tensor(idx), w, padding_idx=2, scale_grad_by_freq=True).backward(
        pytensor.tensor(g))
    ref = np.zeros((10, 4))
    counts = np.bincount(idx.ravel(), minlength=10)
    for i, r in enumerate(idx.ravel()):
        if r != 2:
            ref[r] += g.reshape(-1, 4)[i] / counts[r]
    np.testing.assert_allclose(_np(w.grad), ref, rtol=1e-12)


def test_embedding_gradcheck_and_double_backward():
    idx = pytensor.tensor([0, 3, 3, 1])
    w = _w((5, 3))
    assert pytensor.autograd.gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert pytensor.autograd.gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))


def test_embedding_max_norm_renormalizes_in_place():
    w = pytensor.tensor(np.full((4, 2), 3.0))
    F.embedding(pytensor.tensor([1, 1, 3]), w, max_norm=1.0)
    n = np.linalg.norm(_np(w), axis=1)
    assert n[0] == pytest.approx(np.hypot(3, 3)) and n[2] == pytest.approx(np.hypot(3, 3))
    assert n[1] == pytest.approx(1.0, rel=1e-6) and n[3] == pytest.approx(1.0, rel=1e-6)


def test_one_hot():
    assert F.one_hot(pytensor.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    r = F.one_hot(pytensor.tensor([[1], [0]]), 3)
    assert r.dtype == pytensor.int64 and r.tolist() == [[[0, 1, 0]], [[1, 0, 0]]]
    assert tuple(F.one_hot(pytensor.tensor([], dtype=pytensor.int64), 4).shape) == (0, 4)


def test_messages():
    w = _w()
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(pytensor.tensor([10]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(pytensor.tensor([-1]), w)
    with pytest.raises(RuntimeError, match=r"Expected tensor for argument #1 'indices' to have one "
                       r"of the following scalar types: Long, Int; but got torch.FloatTensor"):
        F.embedding(pytensor.tensor([1.0]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(pytensor.tensor([1]), pytensor.ones(10))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(pytensor.tensor([1]), w, padding_idx=10)
    with pytest.raises(NotImplementedError, match="sparse layout"):
        F.embedding(pytensor.tensor([1]), w, sparse=True)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(pytensor.tensor([1, 5]), 3)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(pytensor.tensor([-1]), 3)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type "
                       "LongTensor."):
        F.one_hot(pytensor.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty "
                       "tensor."):
        F.one_hot(pytensor.tensor([], dtype=pytensor.int64))


@requires_torch
def test_embedding_matches_torch():
    wn = RNG.standard_normal((12, 5)).astype(np.float32)
    idx = RNG.integers(0, 12, size=(3, 7))
    pw = pytensor.tensor(wn, requires_grad=True)
    tw = torch.tensor(wn, requires_grad=True)
    py = F.embedding(pytensor.tensor(idx), pw, padding_idx=-2, scale_grad_by_freq=True)
    ty = torch.nn.functional.embedding(torch.tensor(idx), tw, padding_idx=-2,
                                       scale_grad_by_freq=True)
    assert py.grad_fn.name() == type(ty.grad_fn).__name__ == "EmbeddingBackward0"
    np.testing.assert_array_equal(_np(py), ty.detach().double().numpy())
    g = RNG.standard_normal((3, 7, 5)).astype(np.float32)
    py.backward(pytensor.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(pw.grad), tw.grad.double().numpy(), rtol=1e-6, atol=1e-6)
    # max_norm with a non-2 norm
    pw2, tw2 = pytensor.tensor(wn.copy()), torch.tensor(wn.copy())
    F.embedding(pytensor.tensor(idx), pw2, max_norm=0.5, norm_type=3.0)
    torch.nn.functional.embedding(torch.tensor(idx), tw2, max_norm=0.5, norm_type=3.0)
    np.testing.assert_allclose(_np(pw2), tw2.double().numpy(), rtol=1e-5, atol=1e-6)
