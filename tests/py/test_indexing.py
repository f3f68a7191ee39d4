"""Basic indexing (int, slice, None, Ellipsis, tuples) against NumPy, reads and writes."""

import numpy as np
import pytest

import pytensor


def source(shape=(4, 5, 6), dtype=pytensor.int64):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    return pytensor.tensor(a, dtype=dtype), a


INDICES = [
    0, -1, 3, slice(None), slice(1, 3), slice(None, None, 2), slice(-3, None), slice(1, 100),
    slice(5, 1), slice(-100, 2), None, Ellipsis,
    (0, 1), (0, 1, 2), (-1, -1, -1), (slice(None), 2), (Ellipsis, 1), (1, Ellipsis),
    (None, 0, None), (slice(1, 4, 2), None, slice(None, None, 3)), (Ellipsis, None),
    (0, Ellipsis, slice(2, 5)), (None, Ellipsis, None), (slice(None), slice(None), -2),
    (np.int64(2), slice(1, 2)), (),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_matches_numpy(index):
    t, a = source()
    got = t[index]
    want = a[index]
    assert tuple(got.shape) == want.shape
    assert got.tolist() == want.tolist()
    # Strides of size-1 dims are arbitrary (NumPy writes 0 for None, torch a computed value).
    for size, st, nst in zip(want.shape, got.stride(), want.strides):
        assert size <= 1 or st == nst // a.itemsize


@pytest.mark.parametrize("index", INDICES[:12], ids=repr)
def test_getitem_on_a_non_contiguous_tensor_matches_numpy(index):
    t, a = source((4, 5, 6))
    t = t.permute(2, 0, 1)[:, ::2]
    a = a.transpose(2, 0, 1)[:, ::2]
    assert t[index].tolist() == a[index].tolist()


def test_getitem_returns_a_view_that_writes_through():
    t, _ = source((3, 4))
    row = t[1]
    row[2] = -5
    assert t[1, 2].item() == -5
    col = t[:, 3]
    col.fill_(9)
    assert [r[3] for r in t.tolist()] == [9, 9, 9]


def test_full_slice_index_still_returns_a_new_view():
    t, _ = source((2, 2))
    v = t[:]
    assert v is not t
    assert v.data_ptr() == t.data_ptr()
    w = t[...]
    assert w is not t and w.tolist() == t.tolist()


def test_indexing_a_0d_tensor_with_ellipsis_or_none():
    s = pytensor.tensor(3.5)
    assert s[...].item() == 3.5
    assert s[None].shape == (1,)
    assert s[()].shape == ()


def test_int_index_out_of_range_raises_index_error_naming_dim_and_size():
    t, _ = source((2, 3))
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        t[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        t[0, -4]
    with pytest.raises(IndexError, match="dimension 1 with size 3"):
        t[..., 3]


def test_too_many_indices_raise_index_error():
    t, _ = source((2, 3))
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]


def test_int_index_of_a_0d_tensor_raises_index_error():
    with pytest.raises(IndexError, match="0-dim"):
        pytensor.tensor(1)[0]


def test_two_ellipses_raise_index_error():
    t, _ = source((2, 3))
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]


def test_negative_step_raises_value_error():
    t, _ = source((4,))
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::0]


@pytest.mark.parametrize("bad", [1.5, "a", object()])
def test_invalid_index_types_raise_index_error_naming_the_type(bad):
    t, _ = source((4,))
    with pytest.raises(IndexError, match=type(bad).__name__):
        t[bad]


@pytest.mark.parametrize("adv", [[0, 1], True, pytensor.tensor([0, 1]), np.array([0])],
                         ids=["list", "bool", "tensor", "ndarray"])
def test_advanced_indices_read_and_write_as_numpy_does(adv):
    t, a = source((4,))
    key = adv.numpy() if isinstance(adv, pytensor.Tensor) else adv
    assert t[adv].tolist() == a[key].tolist()
    t[adv] = 1
    a[key] = 1
    assert t.tolist() == a.tolist()


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.int32, pytensor.bool,
                                   pytensor.complex64, pytensor.float16])
def test_setitem_with_a_scalar_fills_the_view(dtype):
    t = pytensor.zeros(3, 4, dtype=dtype)
    t[1] = 1
    t[:, 2] = True
    a = np.zeros((3, 4))
    a[1] = 1
    a[:, 2] = 1
    assert t.tolist() == a.astype(bool if dtype is pytensor.bool else float).tolist()


def test_setitem_with_a_tensor_broadcasts_and_casts():
    t = pytensor.zeros(3, 4)
    t[:, 1:3] = pytensor.tensor([7, 8])
    a = np.zeros((3, 4))
    a[:, 1:3] = [7, 8]
    assert t.tolist() == a.tolist()
    assert t.dtype is pytensor.float32


def test_setitem_with_nested_lists_and_numpy_arrays():
    t = pytensor.zeros(2, 3, dtype=pytensor.int32)
    t[...] = [[1, 2, 3], [4, 5, 6]]
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    t[0] = np.array([9, 9, 9])
    assert t.tolist() == [[9, 9, 9], [4, 5, 6]]
    t[1, ::2] = [0.5, -7.9]
    assert t.tolist() == [[9, 9, 9], [0, 5, -7]]


def test_setitem_drops_leading_unit_dims_of_the_value():
    t = pytensor.zeros(3)
    t[:] = pytensor.tensor([[1.0, 2.0, 3.0]])
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_setitem_with_an_unbroadcastable_value_raises():
    t = pytensor.zeros(3)
    with pytest.raises(RuntimeError):
        t[:] = pytensor.tensor([1.0, 2.0])


def test_setitem_with_a_string_raises_type_error():
    t = pytensor.zeros(3)
    with pytest.raises(TypeError):
        t[0] = "x"


def test_setitem_on_an_overlapping_self_view_reads_before_writing():
    t = pytensor.tensor([0, 1, 2, 3, 4])
    t[1:] = t[:-1]
    assert t.tolist() == [0, 0, 1, 2, 3]


def test_getitem_with_numpy_integers_and_index_objects():
    class Idx:
        def __index__(self):
            return 2

    t, a = source((5,))
    assert t[np.int32(1)].item() == 1
    assert t[Idx()].item() == 2
    assert t[np.int64(1):Idx()].tolist() == [1]


def test_slice_bounds_past_int64_clamp_like_python():
    t, a = source((5,))
    assert t[-(1 << 70):(1 << 70)].tolist() == a.tolist()


def test_iteration_yields_views_along_dim_0():
    t, a = source((3, 2))
    rows = list(t)
    assert [r.tolist() for r in rows] == a.tolist()
    rows[0][0] = 42
    assert t[0, 0].item() == 42
