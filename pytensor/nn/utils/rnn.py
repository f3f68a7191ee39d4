"""``pytensor.nn.utils.rnn``: packed and padded batches of variable-length sequences.

A PackedSequence holds the time steps of a batch sorted by decreasing length, step after step:
``data`` is ``(sum(lengths), *)``, ``batch_sizes[t]`` is how many sequences are still running at
step ``t``. Packing and unpacking are index operations over the whole batch (one index_select,
one index_put), never a Python loop over elements: the rows of the padded ``(T, B, *)`` input
that belong to a sequence, ``t * B + b`` with ``t < lengths[b]``, taken in row-major order, are
exactly the packed order. Both are differentiable through those operators.

>>> import pytensor
>>> from pytensor.nn.utils.rnn import pack_sequence, pad_packed_sequence
>>> p = pack_sequence([pytensor.tensor([1, 2, 3]), pytensor.tensor([4, 5]), pytensor.tensor([6])])
>>> p.data.tolist(), p.batch_sizes.tolist()
([1, 4, 6, 2, 5, 3], [3, 2, 1])
>>> pad_packed_sequence(p, batch_first=True)[0].tolist()
[[1, 2, 3], [4, 5, 0], [6, 0, 0]]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import List, NamedTuple, Optional, Tuple, Union

import pytensor

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
    "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence",
]

Tensor = pytensor.Tensor


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def _bind(t, fn):
    return None if t is None else fn(t)


class PackedSequence(PackedSequence_):
    """The data and ``batch_sizes`` of a packed batch of sequences (made by
    :func:`pack_padded_sequence` or :func:`pack_sequence`, accepted by the RNN modules).

    ``PackedSequence(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None)``; with
    ``batch_sizes`` None, ``data`` is the pair ``(data, batch_sizes)``. ``unsorted_indices``
    defaults to the inverse of ``sorted_indices``.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_init_args(data, batch_sizes, sorted_indices,
                                                unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``self.data.to(*args, **kwargs)``; the indices follow its device. Returns ``self``
        when ``data`` is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, move),
                          _bind(self.unsorted_indices, move))

    def cuda(self, *args, **kwargs):
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        kwargs.setdefault("device", "cpu")
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=pytensor.double)

    def float(self):
        return self.to(dtype=pytensor.float)

    def half(self):
        return self.to(dtype=pytensor.half)

    def long(self):
        return self.to(dtype=pytensor.long)

    def int(self):
        return self.to(dtype=pytensor.int)

    def short(self):
        return self.to(dtype=pytensor.short)

    def char(self):
        return self.to(dtype=pytensor.int8)

    def byte(self):
        return self.to(dtype=pytensor.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _init_args(data, batch_sizes, sorted_indices, unsorted_indices):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                "created manually. They should be instantiated by functions like pack_sequence "
                "and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """The inverse of the 1-d index tensor ``permutation`` (None for None)."""
    if permutation is None:
        return None
    out = pytensor.empty_like(permutation, memory_format=pytensor.contiguous_format)
    out.scatter_(0, permutation, pytensor.arange(permutation.numel(), device=permutation.device))
    return out


def _packed_rows(lengths: Tensor, T: int, B: int) -> Tuple[Tensor, Tensor]:
    """The flat row indices ``t * B + b`` (``t < lengths[b]``) in packed order, and the batch
    sizes per step."""
    mask = pytensor.arange(T).unsqueeze(1) < lengths.unsqueeze(0)
    batch_sizes = mask.sum(1)
    steps = int((batch_sizes > 0).sum())
    return mask.flatten().nonzero().squeeze(1), batch_sizes[:steps].contiguous()


def pack_padded_sequence(input: Tensor, lengths: Union[Tensor, List[int]],
                         batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded ``T x B x *`` (``B x T x *`` when ``batch_first``) batch whose sequence
    ``b`` has length ``lengths[b]``. With ``enforce_sorted`` the lengths must be decreasing;
    otherwise the batch is sorted first and the permutation kept in the result."""
    if not isinstance(lengths, Tensor):
        lengths = pytensor.as_tensor(lengths, dtype=pytensor.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=pytensor.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = pytensor.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if lengths.numel() != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.numel()} (batch_size={B})")
    if B and int(lengths[B - 1]) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if B > 1 and bool((lengths[1:] > lengths[:-1]).any()):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
            "sidestep this requirement if you do not need ONNX exportability.")
    rows, batch_sizes = _packed_rows(lengths, T, B)
    data = input.reshape(T * B, *input.shape[2:]).index_select(0, rows.to(input.device))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """The inverse of :func:`pack_padded_sequence`: the padded batch (``T x B x *``, or
    ``B x T x *`` when ``batch_first``; ``T`` is ``total_length`` when given) in the original
    order, and the lengths."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    data, batch_sizes = sequence.data, sequence.batch_sizes
    B = int(batch_sizes[0]) if batch_sizes.numel() else 0
    T = max_seq_length
    # sequence b runs while batch_sizes[t] > b: its length counts those steps
    lengths = (batch_sizes.unsqueeze(0) > pytensor.arange(B).unsqueeze(1)).sum(1)
    rows, _ = _packed_rows(lengths, T, B)
    out = data.new_full((T * B, *data.shape[1:]), padding_value)
    out = out.index_put((rows.to(data.device),), data).view(T, B, *data.shape[1:])
    if batch_first:
        out = out.transpose(0, 1)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        return out.index_select(0 if batch_first else 1, unsorted), lengths[unsorted.cpu()]
    return out, lengths


def pad_sequence(sequences: Union[Tensor, List[Tensor]], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stacks the ``L_i x *`` tensors of ``sequences`` along a new batch dim, each padded with
    ``padding_value`` to the longest length on ``padding_side`` (``'right'`` or ``'left'``)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    T = max(s.size(0) for s in sequences)
    out = sequences[0].new_full((len(sequences), T, *sequences[0].shape[1:]), padding_value)
    for i, s in enumerate(sequences):
        n = s.size(0)
        if padding_side == "right":
            out[i, :n] = s
        else:
            out[i, T - n:] = s
    return out if batch_first else out.transpose(0, 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor,
                   batch_first: bool = False) -> List[Tensor]:
    """The inverse of :func:`pad_sequence`: the list of ``lengths[b] x *`` sequences. (torch's
    also leaves ``padded_sequences`` transposed in place when ``batch_first`` is False; this one
    leaves it as it was.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences: List[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of ``L_i x *`` tensors: :func:`pad_sequence` then
    :func:`pack_padded_sequence`."""
    lengths = pytensor.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> List[Tensor]:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
