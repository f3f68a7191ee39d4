"""pytensor.nn.utils.rnn: PackedSequence and the pack/pad functions, against exact lists and
against torch.nn.utils.rnn when installed (values, batch sizes, indices, gradients, messages)."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
from pytensor.nn.utils import rnn as R
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.tolist())


# ---- exact references (run without torch)

def test_pack_sequence_orders_steps_then_batch():
    p = R.pack_sequence([pytensor.tensor([1, 2, 3]), pytensor.tensor([4, 5]),
                         pytensor.tensor([6])])
    assert p.data.tolist() == [1, 4, 6, 2, 5, 3]
    assert p.batch_sizes.tolist() == [3, 2, 1]
    assert p.batch_sizes.dtype == pytensor.int64
    assert p.sorted_indices is None and p.unsorted_indices is None
    assert repr(p) == ("PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, "
                       "2, 1]), sorted_indices=None, unsorted_indices=None)")


def test_unsorted_pack_keeps_permutation_and_pad_restores_order():
    seq = pytensor.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    p = R.pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    assert p.data.tolist() == [4, 1, 3, 5, 2, 6]
    assert p.sorted_indices.tolist() == [2, 0, 1]
    assert p.unsorted_indices.tolist() == [1, 2, 0]
    padded, lengths = R.pad_packed_sequence(p, batch_first=True)
    assert padded.tolist() == seq.tolist() and lengths.tolist() == [2, 1, 3]
    padded, _ = R.pad_packed_sequence(p, batch_first=False, padding_value=-1, total_length=4)
    assert padded.tolist() == [[1, 3, 4], [2, -1, 5], [-1, -1, 6], [-1, -1, -1]]
    assert [s.tolist() for s in R.unpack_sequence(p)] == [[1, 2], [3], [4, 5, 6]]


def test_pad_sequence_sides_and_trailing_dims():
    a, b = pytensor.ones(2, 2), pytensor.full((3, 2), 2.0)
    assert R.pad_sequence([a, b]).shape == (3, 2, 2)
    out = R.pad_sequence([a, b], batch_first=True, padding_value=7.0, padding_side="left")
    assert out[:, :, 0].tolist() == [[7.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    padded = R.pad_sequence([pytensor.tensor([1, 2]), pytensor.tensor([3])])
    lengths = pytensor.tensor([2, 1])
    assert [s.tolist() for s in R.unpad_sequence(padded, lengths)] == [[1, 2], [3]]


def test_invert_permutation():
    assert R.invert_permutation(pytensor.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert R.invert_permutation(None) is None


def test_packing_is_differentiable():
    x = pytensor.randn(4, 3, 2, requires_grad=True)
    p = R.pack_padded_sequence(x, [4, 2, 1])
    (p.data * 2).sum().backward()
    mask = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0]], dtype=float)
    np.testing.assert_array_equal(_np(x.grad), 2 * mask[:, :, None].repeat(2, 2))
    d = pytensor.randn(7, 2, requires_grad=True)
    q = R.PackedSequence(d, p.batch_sizes)
    padded, _ = R.pad_packed_sequence(q)
    padded.pow(2).sum().backward()
    np.testing.assert_allclose(_np(d.grad), 2 * _np(d.detach()), rtol=1e-6)


def test_packed_sequence_conversions():
    p = R.pack_sequence([pytensor.tensor([1.0, 2.0]), pytensor.tensor([3.0])])
    assert p.to(pytensor.float32) is p
    assert p.double().data.dtype == pytensor.float64
    assert p.long().data.dtype == pytensor.int64
    assert not p.is_cuda
    assert R.PackedSequence((p.data, p.batch_sizes)).data is p.data


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: R.pad_sequence([]), RuntimeError, "received an empty list of sequences"),
    (lambda: R.pad_sequence([pytensor.ones(2)], padding_side="mid"), RuntimeError,
     "Expected padding_side to be one of left or right, but got mid."),
    (lambda: R.pad_sequence(5), RuntimeError,
     "pad_sequence: Expected iterable for input sequences, but got arg of type: <class 'int'>"),
    (lambda: R.pack_padded_sequence(pytensor.ones(3, 2), [2, 3]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
     "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
     "requirement if you do not need ONNX exportability."),
    (lambda: R.pack_padded_sequence(pytensor.ones(3, 2), [3, 0]), RuntimeError,
     "Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
     "<= 0"),
    (lambda: R.pack_padded_sequence(pytensor.ones(3, 2), [3]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 1 (batch_size=2)"),
    (lambda: R.pack_padded_sequence(pytensor.ones(3, 2), pytensor.tensor([[3, 2]])),
     RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long "
     "tensor"),
    (lambda: R.pad_packed_sequence(R.pack_sequence([pytensor.ones(3)]), total_length=2),
     ValueError, "Expected total_length to be at least the length of the longest sequence in "
     "input, but got total_length=2 and max sequence length being 3"),
    (lambda: R.PackedSequence([1, 2, 3]), AssertionError,
     "Expected data to be a list or tuple of length 2"),
])
def test_bad_input_messages(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == msg


# ---- against torch

@requires_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_pad_roundtrip_matches_torch(batch_first, enforce_sorted):
    from torch.nn.utils import rnn as TR
    lengths = [5, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4]
    x = torch.randn(4, 5, 3) if batch_first else torch.randn(5, 4, 3)
    xt = x.clone().requires_grad_()
    xp = pytensor.tensor(x.numpy()).requires_grad_()
    pt_ = TR.pack_padded_sequence(xt, lengths, batch_first, enforce_sorted)
    pp = R.pack_padded_sequence(xp, lengths, batch_first, enforce_sorted)
    np.testing.assert_array_equal(_np(pp.data), pt_.data.detach().numpy())
    assert pp.batch_sizes.tolist() == pt_.batch_sizes.tolist()
    for a, b in ((pp.sorted_indices, pt_.sorted_indices),
                 (pp.unsorted_indices, pt_.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    ot, lt = TR.pad_packed_sequence(pt_, batch_first, 0.5, 6)
    op, lp = R.pad_packed_sequence(pp, batch_first, 0.5, 6)
    np.testing.assert_array_equal(_np(op), ot.detach().numpy())
    assert lp.tolist() == lt.tolist() and lp.dtype == pytensor.int64
    w = torch.randn(*ot.shape)
    (ot * w).sum().backward()
    (op * pytensor.tensor(w.numpy())).sum().backward()
    np.testing.assert_allclose(_np(xp.grad), xt.grad.numpy(), rtol=1e-6)


@requires_torch
@pytest.mark.parametrize("side", ["left", "right"])
def test_pad_sequence_matches_torch(side):
    from torch.nn.utils import rnn as TR
    seqs = [torch.randn(n, 2, 3) for n in (3, 1, 4)]
    for bf in (False, True):
        ot = TR.pad_sequence(seqs, bf, -2.0, side)
        op = R.pad_sequence([pytensor.tensor(s.numpy()) for s in seqs], bf, -2.0, side)
        np.testing.assert_array_equal(_np(op), ot.numpy())
