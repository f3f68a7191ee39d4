"""The Tensor object: metadata, Python scalars and lists, copies and conversions, legacy types."""

import gc
import math
import operator
import weakref

import numpy as np
import pytest

import pytensor

ALL_DTYPES = [pytensor.bool, pytensor.uint8, pytensor.int8, pytensor.int16, pytensor.int32,
              pytensor.int64, pytensor.float16, pytensor.bfloat16, pytensor.float32,
              pytensor.float64, pytensor.complex64, pytensor.complex128]


def values_for(dtype):
    if dtype is pytensor.bool:
        return [[True, False, True], [False, False, True]]
    if dtype.is_complex:
        return [[1 + 2j, -0.5j, 3], [0, 2.25 - 1j, -4]]
    if dtype.is_floating_point:
        return [[1.5, -2.25, 0.0], [3.0, 1024.0, -0.125]]
    if dtype is pytensor.uint8:
        return [[0, 255, 7], [1, 2, 3]]
    return [[1, -2, 0], [100, -128, 127]]


# ------------------------------------------------------------------ metadata
def test_metadata_of_a_contiguous_tensor():
    t = pytensor.zeros(2, 3, 4, dtype=pytensor.float64)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, pytensor.Size)
    assert t.size() == t.shape and t.size(1) == 3 and t.size(-1) == 4
    assert t.stride() == (12, 4, 1) and t.stride(0) == 12 and t.stride(-2) == 4
    assert t.dim() == t.ndim == t.ndimension() == 3
    assert t.numel() == t.nelement() == 24
    assert t.element_size() == t.itemsize == 8
    assert t.nbytes == 192
    assert t.storage_offset() == 0
    assert t.dtype is pytensor.float64
    assert t.device == pytensor.device("cpu") and t.device.index is None
    assert t.layout is pytensor.strided
    assert t.is_cpu and not t.is_cuda and not t.is_meta and not t.is_sparse
    assert t.is_floating_point() and not t.is_complex()
    assert not t.requires_grad


def test_size_and_stride_with_a_bad_dim_raise_index_error():
    t = pytensor.zeros(2, 3)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        t.size(2)
    with pytest.raises(IndexError, match="range"):
        t.stride(-3)
    with pytest.raises(IndexError, match="no dimensions"):
        pytensor.tensor(1.0).size(0)
    with pytest.raises(TypeError, match="dim"):
        t.size("0")


def test_metadata_of_0d_and_empty_tensors():
    s = pytensor.tensor(2.5)
    assert s.shape == () and s.dim() == 0 and s.numel() == 1 and s.stride() == ()
    e = pytensor.empty(0, 3)
    assert e.shape == (0, 3) and e.numel() == 0 and e.nbytes == 0


def test_data_ptr_moves_with_the_storage_offset():
    t = pytensor.zeros(10, dtype=pytensor.int32)
    assert t[3:].data_ptr() == t.data_ptr() + 12
    assert t[3:].storage_offset() == 3


def test_storages_share_memory_with_the_tensor():
    t = pytensor.tensor([1.0, 2.0, 3.0])
    u = t.untyped_storage()
    assert u.nbytes() == 12 and u.data_ptr() == t.data_ptr()
    s = t.storage()
    assert s.dtype is pytensor.float32 and s.size() == 3
    s[1] = 7.0
    assert t.tolist() == [1.0, 7.0, 3.0]


def test_hash_is_by_identity_and_equality_is_elementwise():
    a, b = pytensor.zeros(1), pytensor.zeros(1)
    assert hash(a) == hash(a) and len({a, b}) == 2
    assert (a == b).tolist() == [True] and (a != b).tolist() == [False]


def test_tensor_is_weakly_referenceable_and_released():
    gc.collect()  # earlier tests' garbage must not be freed inside the measurement
    before = pytensor.memory_stats()["bytes_in_use"]
    t = pytensor.empty(1000)
    r = weakref.ref(t)
    assert pytensor.memory_stats()["bytes_in_use"] > before
    del t
    gc.collect()
    assert r() is None
    assert pytensor.memory_stats()["bytes_in_use"] == before


def test_views_keep_the_storage_alive_after_the_base_is_gone():
    t = pytensor.tensor([1, 2, 3, 4])
    v = t[1:3]
    del t
    gc.collect()
    assert v.tolist() == [2, 3]


# ------------------------------------------------------------------ Python scalars and lists
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tolist_round_trips_values_per_dtype(dtype):
    vals = values_for(dtype)
    t = pytensor.tensor(vals, dtype=dtype)
    got = t.tolist()
    assert got == vals
    kind = bool if dtype is pytensor.bool else complex if dtype.is_complex else \
        float if dtype.is_floating_point else int
    assert all(type(x) is kind for row in got for x in row)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_item_returns_the_python_type_of_the_dtype_kind(dtype):
    v = values_for(dtype)[0][1]
    t = pytensor.tensor(v, dtype=dtype)
    assert t.item() == v and t.tolist() == v
    kind = bool if dtype is pytensor.bool else complex if dtype.is_complex else \
        float if dtype.is_floating_point else int
    assert type(t.item()) is kind


def test_tolist_of_non_contiguous_empty_and_nested_empty_tensors():
    a = np.arange(24).reshape(2, 3, 4)
    t = pytensor.tensor(a).permute(2, 0, 1)[1:3]
    assert t.tolist() == a.transpose(2, 0, 1)[1:3].tolist()
    assert pytensor.empty(0).tolist() == []
    assert pytensor.empty(2, 0).tolist() == [[], []]
    assert pytensor.empty(2, 0, 3).tolist() == [[], []]
    assert pytensor.empty(0, 3).tolist() == []


def test_item_of_a_multi_element_tensor_raises_runtime_error():
    with pytest.raises(RuntimeError, match="2 elements"):
        pytensor.zeros(2).item()


def test_bool_of_one_element_and_errors_for_others():
    assert bool(pytensor.tensor([3])) and not bool(pytensor.tensor(0.0))
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(pytensor.zeros(2))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        bool(pytensor.zeros(0))


def test_int_float_complex_of_one_element_tensors():
    assert int(pytensor.tensor(3.9)) == 3 and int(pytensor.tensor(-3.9)) == -3
    assert float(pytensor.tensor(2)) == 2.0
    assert complex(pytensor.tensor(1 + 2j)) == 1 + 2j
    assert complex(pytensor.tensor(1.5)) == 1.5
    with pytest.raises(ValueError, match="only one element tensors"):
        float(pytensor.zeros(2))
    with pytest.raises(ValueError, match="only one element tensors"):
        int(pytensor.zeros(0))
    with pytest.raises(TypeError, match="complex"):
        float(pytensor.tensor(1j))


def test_index_accepts_integer_tensors_only():
    assert operator.index(pytensor.tensor(4)) == 4
    assert [10, 20, 30][pytensor.tensor([2], dtype=pytensor.int8)] == 30
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        operator.index(pytensor.tensor(1.0))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        operator.index(pytensor.tensor([1, 2]))


def test_len_and_iteration_follow_dim_0():
    t = pytensor.zeros(3, 2)
    assert len(t) == 3
    assert [x.shape for x in t] == [(2,), (2,), (2,)]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(pytensor.tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(pytensor.tensor(1))


def test_format_of_0d_tensors_uses_the_number():
    assert f"{pytensor.tensor(2.5):.2f}" == "2.50"
    assert f"{pytensor.tensor(7):>3}" == "  7"
    assert f"{pytensor.tensor([1, 2])}" == "tensor([1, 2])"


# ------------------------------------------------------------------ copies and fills
def test_clone_copies_and_preserves_dense_strides():
    t = pytensor.tensor(np.arange(6.0).reshape(2, 3)).t()
    c = t.clone()
    assert c.tolist() == t.tolist() and c.data_ptr() != t.data_ptr()
    assert c.stride() == (1, 3)
    c2 = t.clone(memory_format=pytensor.contiguous_format)
    assert c2.stride() == (2, 1) and c2.tolist() == t.tolist()


def test_clone_rejects_a_non_memory_format():
    with pytest.raises(TypeError, match="memory_format"):
        pytensor.zeros(2).clone(memory_format=1)


def test_contiguous_copies_only_non_contiguous_tensors():
    t = pytensor.zeros(2, 3)
    assert t.contiguous() is t
    tt = t.t()
    c = tt.contiguous()
    assert c is not tt and c.is_contiguous() and c.tolist() == tt.tolist()


def test_copy_from_tensors_numbers_and_lists_with_broadcast_and_cast():
    t = pytensor.zeros(2, 3, dtype=pytensor.int32)
    assert t.copy_(pytensor.tensor([1.7, -2.7, 3.2])) is t
    assert t.tolist() == [[1, -2, 3], [1, -2, 3]]
    t.copy_(5)
    assert t.tolist() == [[5] * 3] * 2
    t.copy_([[1, 2, 3], [4, 5, 6]])
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    t.copy_(np.array([7, 8, 9]))
    assert t.tolist() == [[7, 8, 9], [7, 8, 9]]


def test_copy_from_an_unbroadcastable_source_raises():
    with pytest.raises(RuntimeError):
        pytensor.zeros(2, 3).copy_(pytensor.zeros(2))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fill_and_zero_per_dtype(dtype):
    t = pytensor.empty(2, 2, dtype=dtype)
    value = True if dtype is pytensor.bool else 3
    t.fill_(value)
    assert t.tolist() == [[value] * 2] * 2
    assert t.zero_().tolist() == [[0] * 2] * 2


def test_fill_accepts_a_0d_tensor_and_refuses_others():
    t = pytensor.zeros(3)
    t.fill_(pytensor.tensor(2.5))
    assert t.tolist() == [2.5] * 3
    with pytest.raises(RuntimeError, match="0-dimension"):
        t.fill_(pytensor.tensor([1.0]))
    with pytest.raises(TypeError, match="value"):
        t.fill_("x")
    with pytest.raises(TypeError, match="value"):
        t.fill_(None)


def test_fill_with_numpy_scalars():
    t = pytensor.zeros(2)
    assert t.fill_(np.float32(1.5)).tolist() == [1.5, 1.5]
    assert t.fill_(np.int64(4)).tolist() == [4.0, 4.0]


# ------------------------------------------------------------------ conversions
def test_to_dtype_device_tensor_and_keyword_forms():
    t = pytensor.tensor([1.5, -2.5])
    assert t.to(pytensor.int32).tolist() == [1, -2]
    assert t.to(dtype=pytensor.float64).dtype is pytensor.float64
    assert t.to("cpu") is t
    assert t.to(pytensor.float32) is t
    assert t.to("cpu", pytensor.float64).dtype is pytensor.float64
    assert t.to(device="cpu", dtype=pytensor.int64).tolist() == [1, -2]
    other = pytensor.zeros(1, dtype=pytensor.int16)
    assert t.to(other).dtype is pytensor.int16
    c = t.to(pytensor.float32, copy=True)
    assert c is not t and c.data_ptr() != t.data_ptr()
    assert t.cpu() is t


def test_to_with_a_bad_dtype_or_device_raises():
    t = pytensor.zeros(1)
    with pytest.raises(TypeError, match="dtype"):
        t.to(dtype="floaty")
    with pytest.raises(RuntimeError, match="device"):
        t.to("gpu")


@pytest.mark.parametrize("method,dtype", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"),
    ("long", "int64"), ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
    ("bool", "bool"), ("cfloat", "complex64"), ("cdouble", "complex128")])
def test_conversion_methods(method, dtype):
    t = pytensor.tensor([0, 1, 2], dtype=pytensor.int16)
    out = getattr(t, method)()
    assert out.dtype is getattr(pytensor, dtype)
    assert out.tolist() == ([False, True, True] if dtype == "bool" else [0, 1, 2])


def test_type_names_and_conversions_by_name_and_class():
    t = pytensor.zeros(2)
    assert t.type() == "pytensor.FloatTensor"
    assert pytensor.zeros(1, dtype=pytensor.int64).type() == "pytensor.LongTensor"
    assert pytensor.zeros(1, dtype=pytensor.complex64).type() == "pytensor.ComplexFloatTensor"
    assert t.type("pytensor.DoubleTensor").dtype is pytensor.float64
    assert t.type("torch.IntTensor").dtype is pytensor.int32
    assert t.type(pytensor.ByteTensor).dtype is pytensor.uint8
    assert t.type(pytensor.int16).dtype is pytensor.int16
    assert t.type_as(pytensor.zeros(1, dtype=pytensor.float64)).dtype is pytensor.float64
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        t.type("foo")


def test_cuda_without_a_device_raises_runtime_error():
    if pytensor.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError):
        pytensor.zeros(1).cuda()


# ------------------------------------------------------------------ new_* and legacy classes
def test_new_factories_inherit_dtype_and_device():
    base = pytensor.zeros(1, dtype=pytensor.int16)
    assert base.new_empty(2, 3).shape == (2, 3) and base.new_empty((2,)).dtype is pytensor.int16
    assert base.new_zeros(2).tolist() == [0, 0]
    assert base.new_ones((2,)).tolist() == [1, 1]
    assert base.new_full((2,), 7).tolist() == [7, 7]
    assert base.new_tensor([1.9, 2]).tolist() == [1, 2]
    assert base.new_tensor([1.5], dtype=pytensor.float64).tolist() == [1.5]
    assert base.new_zeros(2, dtype=pytensor.float32).dtype is pytensor.float32


def test_legacy_classes_check_dtype_and_device_and_construct():
    f = pytensor.zeros(2)
    assert isinstance(f, pytensor.FloatTensor) and isinstance(f, pytensor.Tensor)
    assert not isinstance(f, pytensor.DoubleTensor)
    assert not isinstance(f, pytensor.cuda.FloatTensor)
    assert not isinstance([1.0], pytensor.FloatTensor)
    assert isinstance(pytensor.zeros(1, dtype=pytensor.int64), pytensor.LongTensor)
    t = pytensor.FloatTensor(2, 3)
    assert type(t) is pytensor.Tensor and t.shape == (2, 3) and t.dtype is pytensor.float32
    assert pytensor.LongTensor([1, 2]).tolist() == [1, 2]
    assert pytensor.DoubleTensor(pytensor.Size([4])).shape == (4,)
    assert pytensor.IntTensor().shape == (0,)
    assert pytensor.BoolTensor((1, 0)).tolist() == [True, False]
    assert issubclass(pytensor.FloatTensor, pytensor.Tensor)
    assert repr(pytensor.FloatTensor) == "<class 'pytensor.FloatTensor'>"


def test_legacy_classes_cover_the_real_dtypes_of_the_table():
    for name in ["Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "Bool",
                 "BFloat16"]:
        assert hasattr(pytensor, name + "Tensor")
        assert hasattr(pytensor.cuda, name + "Tensor")


def test_legacy_constructor_over_a_storage_shares_it():
    s = pytensor.FloatStorage([1.0, 2.0, 3.0])
    t = pytensor.FloatTensor(s)
    assert t.tolist() == [1.0, 2.0, 3.0]
    t[0] = 9
    assert s[0] == 9.0


def test_legacy_constructor_of_another_dtype_tensor_raises():
    with pytest.raises(TypeError, match="expected Float but got Long"):
        pytensor.FloatTensor(pytensor.zeros(1, dtype=pytensor.int64))


def test_tensor_constructor_uses_the_default_dtype():
    assert pytensor.Tensor(2, 3).dtype is pytensor.float32
    assert pytensor.Tensor([1, 2]).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="size"):
        pytensor.Tensor(2, "a")


def test_default_dtype_change_reaches_factories():
    pytensor.set_default_dtype(pytensor.float64)
    try:
        assert pytensor.tensor([1.5]).dtype is pytensor.float64
        assert pytensor.zeros(1).dtype is pytensor.float64
        assert pytensor.tensor([1j]).dtype is pytensor.complex128
        assert repr(pytensor.tensor([1.5])) == "tensor([1.5000])"
    finally:
        pytensor.set_default_dtype(pytensor.float32)


def test_non_writable_tensors_refuse_writes():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = pytensor.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError):
        t.fill_(1)
    with pytest.raises(RuntimeError):
        t[0] = 5
    with pytest.raises(RuntimeError):
        t.copy_(pytensor.zeros(3))
    c = t.clone()
    c[0] = 5
    assert c.tolist() == [5.0, 1.0, 2.0] and math.isclose(a[0], 0.0)


@pytest.mark.parametrize("module", ["_tensor", "_tensor_str", "_factory", "_indexing",
                                    "_exchange", "_legacy", "_args"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module("pytensor." + module)
    result = doctest.testmod(mod, extraglobs={"pytensor": pytensor}, verbose=False)
    assert result.failed == 0


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_pickle_and_copy_make_independent_tensors(dtype):
    import copy
    import pickle

    t = pytensor.tensor(values_for(dtype), dtype=dtype).t()
    for c in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert c.dtype is dtype and c.shape == t.shape and c.tolist() == t.tolist()
        assert c.data_ptr() != t.data_ptr()
    # copy.copy rebuilds over the same storage, as torch's does
    c = copy.copy(t)
    assert c.tolist() == t.tolist() and c.data_ptr() == t.data_ptr() and c.stride() == t.stride()
    assert pickle.loads(pickle.dumps(pytensor.zeros(0, 2))).shape == (0, 2)


def test_meta_tensors_have_metadata_but_no_data():
    t = pytensor.empty(2, 3, device="meta")
    assert t.is_meta and t.shape == (2, 3) and t.device == pytensor.device("meta")
    assert repr(t) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(pytensor.empty(2, dtype=pytensor.int32, device="meta")) == \
        "tensor(..., device='meta', size=(2,), dtype=pytensor.int32)"
    with pytest.raises(NotImplementedError):
        t.tolist()
    with pytest.raises(TypeError, match="meta"):
        t.numpy()


cuda = pytest.mark.skipif(not pytensor.cuda.is_available(), reason="no CUDA device")


@cuda
def test_cuda_tensors_convert_print_and_come_back():
    t = pytensor.tensor([[1.5, 2.0], [3.0, 4.0]], device="cuda")
    assert t.is_cuda and t.device == pytensor.device("cuda", 0)
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert repr(t) == "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]], device='cuda:0')"
    assert isinstance(t, pytensor.cuda.FloatTensor) and not isinstance(t, pytensor.FloatTensor)
    assert t.type() == "pytensor.cuda.FloatTensor"
    assert t.cpu().is_cpu and t.cpu().tolist() == t.tolist()
    assert pytensor.zeros(2).cuda().is_cuda
    assert t.t().contiguous().tolist() == [[1.5, 3.0], [2.0, 4.0]]
    t[0, 0] = 9
    assert t[0].tolist() == [9.0, 2.0]
    with pytest.raises(TypeError, match=r"Use Tensor.cpu\(\)"):
        t.numpy()
    assert t.numpy(force=True).tolist() == t.tolist()
    assert t.__dlpack_device__() == (pytensor._C.lib.PT_DL_CUDA, 0)
    u = pytensor.from_dlpack(t)
    assert u.is_cuda and u.data_ptr() == t.data_ptr()
    assert pytensor.rand(3, device="cuda").is_cuda
    assert pytensor.cuda.FloatTensor(2, 3).is_cuda


def test_operations_that_return_self_leave_one_reference():
    lib = pytensor._C.lib
    t = pytensor.zeros(2, 3)
    for op in (lambda: t.to(pytensor.float32), lambda: t.contiguous(), lambda: t.cpu(),
               lambda: t.float(), lambda: pytensor.as_tensor(t)):
        assert op() is t
        gc.collect()
        assert lib.pt_tensor_refcount(t._h) == 1
    views = [t[0], t.t(), t.view(6), t.expand(2, 2, 3), t.unsqueeze(0)]
    assert lib.pt_storage_refcount(lib.pt_tensor_storage(t._h)) == 1 + len(views)
    del views
    gc.collect()
    assert lib.pt_storage_refcount(lib.pt_tensor_storage(t._h)) == 1
