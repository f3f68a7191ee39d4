"""View operations against NumPy: shapes, strides, offsets, values, and that views share memory."""

import numpy as np
import pytest

import pytensor


def arange_t(*shape, dtype=pytensor.int64):
    n = int(np.prod(shape)) if shape else 1
    return pytensor.tensor(np.arange(n).reshape(shape), dtype=dtype)


def arange_np(*shape):
    n = int(np.prod(shape)) if shape else 1
    return np.arange(n).reshape(shape)


def same(t, a):
    assert tuple(t.shape) == a.shape
    assert t.tolist() == a.tolist()


def np_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def shares_memory(view, base):
    lo = base.data_ptr()
    hi = lo + base.untyped_storage().nbytes()
    return lo <= view.data_ptr() <= hi and view.untyped_storage().data_ptr() == \
        base.untyped_storage().data_ptr()


def test_view_int_list_sugar_and_tuple_form_agree():
    t = arange_t(6)
    assert t.view(2, 3).shape == (2, 3)
    assert t.view((2, 3)).shape == (2, 3)
    assert t.view([3, -1]).shape == (3, 2)
    assert t.view(pytensor.Size([6])).shape == (6,)
    same(t.view(2, 3), arange_np(2, 3))


def test_view_shares_memory_with_its_base():
    t = arange_t(2, 3)
    v = t.view(6)
    v[0] = 100
    assert t[0, 0].item() == 100
    assert shares_memory(v, t)


def test_view_of_a_transposed_tensor_raises_runtime_error_suggesting_reshape():
    with pytest.raises(RuntimeError, match="view"):
        arange_t(2, 3).t().view(6)


def test_view_with_a_wrong_element_count_raises():
    with pytest.raises(RuntimeError):
        arange_t(6).view(4)


def test_view_rejects_non_integer_sizes_naming_the_argument():
    with pytest.raises(TypeError, match="size"):
        arange_t(6).view(2.0, 3)


def test_reshape_copies_only_when_it_must():
    t = arange_t(2, 3)
    r = t.reshape(3, 2)
    assert r.data_ptr() == t.data_ptr()
    tt = t.t()
    r2 = tt.reshape(6)
    same(r2, arange_np(2, 3).T.reshape(6))
    assert r2.data_ptr() != t.data_ptr()


@pytest.mark.parametrize("start,end", [(0, -1), (1, 2), (0, 0), (-2, -1), (1, -1)])
def test_flatten_matches_numpy_reshape(start, end):
    a = arange_np(2, 3, 4)
    t = arange_t(2, 3, 4)
    dims = list(a.shape)
    s, e = start % 3, end % 3
    shape = dims[:s] + [int(np.prod(dims[s:e + 1]))] + dims[e + 1:]
    same(t.flatten(start, end), a.reshape(shape))


def test_flatten_of_a_0d_tensor_is_1d():
    assert pytensor.tensor(5).flatten().shape == (1,)


@pytest.mark.parametrize("d0,d1", [(0, 1), (1, 2), (0, 2), (-1, 0), (1, 1)])
def test_transpose_matches_numpy_swapaxes(d0, d1):
    t = arange_t(2, 3, 4).transpose(d0, d1)
    a = np.swapaxes(arange_np(2, 3, 4), d0, d1)
    same(t, a)
    assert t.stride() == np_strides(a)


def test_transpose_out_of_range_dim_raises_index_error_naming_dim():
    with pytest.raises(IndexError, match="[Dd]im"):
        arange_t(2, 3).transpose(0, 2)


@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, -2, -3)])
def test_permute_matches_numpy_transpose(dims):
    t = arange_t(2, 3, 4)
    a = arange_np(2, 3, 4).transpose(dims)
    same(t.permute(*dims), a)
    same(t.permute(dims), a)
    assert t.permute(dims).stride() == np_strides(a)


def test_permute_with_the_wrong_number_of_dims_raises():
    with pytest.raises((RuntimeError, ValueError)):
        arange_t(2, 3).permute(0)


def test_permute_with_a_repeated_dim_raises():
    with pytest.raises((RuntimeError, ValueError)):
        arange_t(2, 3).permute(0, 0)


def test_t_transposes_2d_and_returns_views_for_1d_and_0d():
    same(arange_t(2, 3).t(), arange_np(2, 3).T)
    v = arange_t(3).t()
    same(v, arange_np(3))
    s = pytensor.tensor(4).t()
    assert s.shape == () and s.item() == 4


def test_t_of_a_3d_tensor_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        arange_t(2, 3, 4).t()


def test_T_reverses_all_dims_and_mT_swaps_the_last_two():
    same(arange_t(2, 3, 4).T, arange_np(2, 3, 4).T)
    same(arange_t(2, 3, 4).mT, np.swapaxes(arange_np(2, 3, 4), -1, -2))
    assert pytensor.tensor(3).T.item() == 3


def test_mT_of_a_1d_tensor_raises():
    with pytest.raises(RuntimeError, match="mT"):
        arange_t(3).mT


def test_expand_broadcasts_with_zero_strides():
    t = arange_t(3, 1)
    e = t.expand(2, 3, 4)
    a = np.broadcast_to(arange_np(3, 1), (2, 3, 4))
    same(e, a)
    assert e.stride() == (0, 1, 0)
    same(t.expand(-1, 5), np.broadcast_to(arange_np(3, 1), (3, 5)))
    same(t.expand((3, 2)), np.broadcast_to(arange_np(3, 1), (3, 2)))


def test_expand_as_takes_the_other_tensors_shape():
    same(arange_t(3).expand_as(pytensor.zeros(2, 3)), np.broadcast_to(arange_np(3), (2, 3)))


def test_expand_to_a_mismatching_size_raises():
    with pytest.raises(RuntimeError):
        arange_t(2).expand(3)


def test_squeeze_all_one_and_several_dims():
    t = arange_t(1, 3, 1, 2)
    a = arange_np(1, 3, 1, 2)
    same(t.squeeze(), a.squeeze())
    same(t.squeeze(0), a.squeeze(0))
    same(t.squeeze(1), a)  # size 3: kept
    same(t.squeeze((0, 2)), a.squeeze((0, 2)))
    same(t.squeeze(-2), a.squeeze(-2))


def test_squeeze_out_of_range_dim_raises_index_error():
    with pytest.raises(IndexError):
        arange_t(1, 3).squeeze(2)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_unsqueeze_matches_numpy_expand_dims(dim):
    same(arange_t(2, 3).unsqueeze(dim), np.expand_dims(arange_np(2, 3), dim))


def test_unsqueeze_out_of_range_dim_raises_index_error():
    with pytest.raises(IndexError):
        arange_t(2, 3).unsqueeze(3)


def test_narrow_and_select_match_numpy_slicing():
    t = arange_t(4, 5)
    a = arange_np(4, 5)
    same(t.narrow(1, 1, 3), a[:, 1:4])
    same(t.narrow(0, -2, 2), a[2:4])
    same(t.select(1, 2), a[:, 2])
    same(t.select(0, -1), a[-1])
    assert t.narrow(1, 1, 3).storage_offset() == 1


def test_narrow_past_the_end_raises():
    with pytest.raises((IndexError, RuntimeError, ValueError)):
        arange_t(4).narrow(0, 2, 3)


def test_select_out_of_range_raises_index_error():
    with pytest.raises(IndexError):
        arange_t(4).select(0, 4)


def test_unfold_matches_numpy_sliding_window_view():
    t = arange_t(2, 7)
    u = t.unfold(1, 3, 2)
    a = np.lib.stride_tricks.sliding_window_view(arange_np(2, 7), 3, axis=1)[:, ::2]
    same(u, a)
    assert u.stride() == (7, 2, 1)


def test_unfold_with_a_window_larger_than_the_dim_raises():
    with pytest.raises((RuntimeError, ValueError)):
        arange_t(3).unfold(0, 4, 1)


def test_as_strided_reads_the_storage_with_the_given_geometry():
    t = arange_t(10)
    v = t.as_strided((3, 3), (1, 1), 2)
    same(v, np.array([[2, 3, 4], [3, 4, 5], [4, 5, 6]]))
    assert v.storage_offset() == 2
    assert t.as_strided((2,), (3,)).tolist() == [0, 3]


def test_as_strided_beyond_the_storage_raises():
    with pytest.raises((RuntimeError, ValueError, IndexError)):
        arange_t(4).as_strided((5,), (1,))


def test_as_strided_with_mismatched_lengths_raises():
    with pytest.raises(RuntimeError, match="mismatch"):
        arange_t(4).as_strided((2, 2), (1,))


def test_views_of_views_compose_like_numpy():
    t = arange_t(4, 5, 6)
    a = arange_np(4, 5, 6)
    v = t.permute(2, 0, 1)[1:5:2].narrow(2, 1, 3).unsqueeze(1).select(3, 2)
    b = np.expand_dims(a.transpose(2, 0, 1)[1:5:2][:, :, 1:4], 1)[:, :, :, 2]
    same(v, b)
    assert v.stride() == np_strides(b)


def test_negative_stride_views_read_backwards():
    t = arange_t(2, 4)
    ptr = pytensor._C.ffi.new("pt_tensor **")
    assert pytensor._C.lib.pt_tensor_flip_view(t._h, 1, ptr) == 0
    from pytensor._tensor import _wrap

    f = _wrap(ptr[0])
    same(f, arange_np(2, 4)[:, ::-1])
    assert f.stride() == (4, -1)
    assert not f.is_contiguous()
    same(f.contiguous(), arange_np(2, 4)[:, ::-1])
    same(f.t(), arange_np(2, 4)[:, ::-1].T)


def test_is_contiguous_tracks_layout():
    t = arange_t(2, 3)
    assert t.is_contiguous()
    assert not t.t().is_contiguous()
    assert t.t().contiguous().is_contiguous()
    assert t.contiguous() is t
    assert pytensor.zeros(2, 4, 5, 3).permute(0, 3, 1, 2).is_contiguous(
        memory_format=pytensor.channels_last)


def test_is_contiguous_rejects_a_non_memory_format():
    with pytest.raises(TypeError, match="memory_format"):
        arange_t(2).is_contiguous(memory_format="channels_last")


def test_unbind_returns_one_view_per_index():
    parts = arange_t(3, 2).unbind(0)
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3], [4, 5]]
    parts = arange_t(3, 2).unbind(1)
    assert [p.tolist() for p in parts] == [[0, 2, 4], [1, 3, 5]]


def test_view_and_reshape_infer_minus_one_and_handle_empty_tensors():
    e = pytensor.zeros(0, 3)
    assert e.reshape(-1).shape == (0,)
    assert e.view(3, 0).shape == (3, 0)
    assert arange_t(2, 3, 4).reshape(-1, 4).shape == (6, 4)
