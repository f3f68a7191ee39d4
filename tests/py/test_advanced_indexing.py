"""Advanced indexing against torch: ``t[idx]`` and ``t[idx] = v`` with tensor, list, NumPy and
bool indices mixed with ints, slices, None and Ellipsis (where the indexed dims land), and the
operators under them, aten::index and index_put / index_put_ (accumulate sums duplicates), over
every dtype and input layout, with torch's errors."""
import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch
from test_shape_ops import DTYPES, LAYOUTS, from_torch, make, pdt, random_mask, same

pytestmark = requires_torch


def idx(*v):
    return torch.tensor(list(v))


# Each key: a function building the same index for torch (t=True) and pytensor (t=False).
def _conv(x, t):
    if isinstance(x, torch.Tensor):
        return x if t else from_torch(x)
    if isinstance(x, tuple):
        return tuple(_conv(y, t) for y in x)
    return x


INDICES = {
    "tensor": idx(1, 0, 1),
    "negative": idx(-1, -4),
    "2d_tensor": torch.tensor([[0, 1], [3, 2]]),
    "list": ([0, 2],),
    "int32": idx(2, 0).int(),
    "two_adjacent": (slice(None), idx(0, 2), idx(1, 4)),
    "separated": (idx(0, 3), slice(None), idx(1, 4)),
    "broadcast": (idx(0, 3)[:, None], idx(1, 2, 0)),
    "int_then_tensor": (1, slice(None), idx(0, 4)),
    "tensor_int_slice": (idx(3, 1), 2, slice(1, 4)),
    "ellipsis": (Ellipsis, idx(4, 0)),
    "none": (None, idx(2), None, slice(None, None, 2)),
    "mask": random_mask((4, 6, 5), 3),
    "mask_2d": (random_mask((4, 6), 4),),
    "mask_middle": (slice(None), random_mask((6,), 5)),
    "mask_and_tensor": (random_mask((4,), 6), slice(None), idx(1)),
    "bool_true": (True,),
    "bool_false": (False, 1),
    "0d_int_tensor": (torch.tensor(2), idx(0, 1)),
    "0d_bool_tensor": (torch.tensor(True),),
    "empty_tensor": torch.tensor([], dtype=torch.int64),
    "empty_list": ([],),
    "numpy": (np.array([3, 0]),),
}


def _pair(name):
    key = INDICES[name]
    return _conv(key, False), _conv(key, True)


@pytest.mark.parametrize("name", sorted(INDICES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_getitem_matches_torch(name, layout):
    a, ta = make((4, 6, 5), "float32", layout)
    p, t = _pair(name)
    same(a[p], ta[t])


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_every_dtype(dtype):
    a, ta = make((4, 6, 5), dtype, "transposed")
    for name in ("separated", "mask_2d", "broadcast", "int_then_tensor"):
        p, t = _pair(name)
        same(a[p], ta[t])


def _setitem_value(view_shape, dtype, kind):
    if kind == "number":
        return {"bool": True}.get(dtype, 3), None
    v, tv = make(view_shape, dtype, "contiguous", 9)
    return v, tv


@pytest.mark.parametrize("name", sorted(set(INDICES) - {"negative", "tensor", "2d_tensor",
                                                       "list", "int32", "empty_list",
                                                       "empty_tensor", "numpy"}))
@pytest.mark.parametrize("kind", ["number", "tensor"])
def test_setitem_with_unique_indices_matches_torch(name, kind):
    a, ta = make((4, 6, 5), "float64", "transposed")
    p, t = _pair(name)
    view_shape = tuple(ta[t].shape)
    v, tv = _setitem_value(view_shape, "float64", kind)
    a[p] = v
    ta[t] = v if tv is None else tv
    same(a, ta)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_setitem_every_dtype_and_layout(dtype, layout):
    a, ta = make((4, 6, 5), dtype, layout)
    for name in ("separated", "mask_2d", "int_then_tensor", "empty_tensor"):
        p, t = _pair(name)
        v, tv = make(tuple(ta[t].shape), dtype, "contiguous", 7)
        a[p] = v
        ta[t] = tv
        same(a, ta)
    m = random_mask((4, 6, 5), 8)
    a[from_torch(m)] = {"bool": False}.get(dtype, 1)
    ta[m] = {"bool": False}.get(dtype, 1)
    same(a, ta)


def test_setitem_drops_leading_unit_dims_of_the_value_and_broadcasts():
    a, ta = make((3, 2), "float32")
    v = torch.tensor([[[1.0, 2.0]]])
    a[from_torch(idx(0, 1))] = from_torch(v)
    ta[idx(0, 1)] = v
    same(a, ta)
    a[[2]] = [5.0, 6.0]
    ta[[2]] = torch.tensor([5.0, 6.0])
    same(a, ta)


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_put_accumulate_sums_duplicates(dtype):
    a, ta = make((4, 3), dtype, "transposed")
    i = idx(0, 2, 0, 0, 3)
    v, tv = make((5, 3), dtype, "contiguous", 4)
    r = pytensor.index_put(a, [from_torch(i)], v, accumulate=True)
    same(r, torch.index_put(ta, [i], tv, accumulate=True))
    assert a.index_put_([from_torch(i)], v, True) is a
    same(a, ta.index_put_([i], tv, True))
    j = idx(1, 1, 2, 1, 0)
    same(pytensor.index_put(a, [from_torch(i), from_torch(j)], v[:, 0], accumulate=True),
         torch.index_put(ta, [i, j], tv[:, 0], accumulate=True))


def test_index_put_without_accumulate_keeps_the_last_write():
    a, ta = make((4,), "int64")
    i = idx(1, 1, 1)
    v, tv = make((3,), "int64", "contiguous", 3)
    same(pytensor.index_put(a, [from_torch(i)], v), torch.index_put(ta, [i], tv))


def test_aten_index_with_none_entries():
    a, ta = make((3, 4, 5), "int16")
    i = idx(2, 0)
    same(pytensor.ops.aten.index.Tensor(a, [None, from_torch(i)]),
         torch.ops.aten.index.Tensor(ta, [None, i]))
    out = pytensor.empty(0, dtype=pytensor.int16)
    assert pytensor.ops.aten.index.Tensor_out(a, [None, None, from_torch(i)], out=out) is out
    same(out, torch.ops.aten.index.Tensor(ta, [None, None, i]))


def test_indexing_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        a[pytensor.tensor([5])]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        a[:, [-4]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool "
                       "tensors"):
        a[pytensor.tensor([0.0])]
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match "
                       r"the shape of the indexed tensor \[2, 3\] at index 0"):
        a[pytensor.tensor([True, False, True])]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be "
                       r"broadcast together with shapes \[2\], \[3\]"):
        a[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        a[[0], [0], [0]]
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[4\] cannot be "
                       r"broadcast to indexing result of shape \[1, 3\]"):
        a[pytensor.tensor([0])] = pytensor.ones(4)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes "
                       "match, got Float for the destination and Double for the source."):
        a[pytensor.tensor([0])] = pytensor.ones(3, dtype=pytensor.float64)
    with pytest.raises(IndexError, match="only integers, slices"):
        a[[0], 1.5]


def test_advanced_reads_copy_and_writes_reach_the_base():
    base = pytensor.zeros(3, 4)
    r = base[[0, 2]]
    r.fill_(1.0)
    assert base.tolist() == [[0.0] * 4] * 3
    view = base[:, 1:]
    view[[0, 2], [0, 2]] = 7.0
    assert base.tolist() == [[0, 7, 0, 0], [0, 0, 0, 0], [0, 0, 0, 7]]
