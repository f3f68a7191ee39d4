"""Factories: pytensor.tensor's inference and conversions, shaped factories, ranges, *_like."""

import numpy as np
import pytest

import pytensor

NP_DTYPES = {pytensor.bool: np.bool_, pytensor.uint8: np.uint8, pytensor.int8: np.int8,
             pytensor.int16: np.int16, pytensor.int32: np.int32, pytensor.int64: np.int64,
             pytensor.float16: np.float16, pytensor.float32: np.float32,
             pytensor.float64: np.float64, pytensor.complex64: np.complex64,
             pytensor.complex128: np.complex128}


# ------------------------------------------------------------------ tensor(): inference
@pytest.mark.parametrize("data,dtype", [
    ([True, False], pytensor.bool),
    ([1, 2], pytensor.int64),
    ([True, 2], pytensor.int64),
    ([1, 2.5], pytensor.float32),
    ([True, 2.5], pytensor.float32),
    ([1, 2j], pytensor.complex64),
    ([1.5, 2j, True], pytensor.complex64),
    ([], pytensor.float32),
    ([[], []], pytensor.float32),
    (3, pytensor.int64),
    (3.0, pytensor.float32),
    (False, pytensor.bool),
    (1j, pytensor.complex64),
    ((1, 2), pytensor.int64),
    ([np.float64(1.0)], pytensor.float64),
    ([np.float32(1.0), 2.0], pytensor.float32),
    ([np.int16(1), np.int16(2)], pytensor.int16),
    ([np.int16(1), 2.5], pytensor.float32),
    ([np.bool_(True)], pytensor.bool),
    ([pytensor.tensor(1, dtype=pytensor.int8), 2], pytensor.int64),
], ids=repr)
def test_tensor_infers_dtype_like_torch(data, dtype):
    t = pytensor.tensor(data)
    assert t.dtype is dtype
    assert t.shape == np.array(data if not isinstance(data, list) or not data or not isinstance(
        data[0], pytensor.Tensor) else [1, 2]).shape


def test_tensor_values_and_shape_match_numpy():
    data = [[[1.5, 2.0], [3.0, -4.25]], [[0.0, 1e-3], [7.0, 8.0]]]
    t = pytensor.tensor(data)
    a = np.array(data, dtype=np.float32)
    assert t.shape == a.shape and t.tolist() == a.tolist()


@pytest.mark.parametrize("dtype", list(NP_DTYPES) + [pytensor.bfloat16], ids=str)
def test_tensor_with_an_explicit_dtype_converts_like_numpy(dtype):
    data = [0, 1, 2, 100]
    t = pytensor.tensor(data, dtype=dtype)
    assert t.dtype is dtype
    want = np.array(data).astype(NP_DTYPES.get(dtype, np.float32)).tolist()
    assert t.tolist() == want


def test_tensor_truncates_floats_into_integer_dtypes_and_marks_nonzero_as_true():
    assert pytensor.tensor([1.9, -1.9], dtype=pytensor.int32).tolist() == [1, -1]
    assert pytensor.tensor([0.0, 0.5, 2], dtype=pytensor.bool).tolist() == [False, True, True]
    assert pytensor.tensor([1 + 2j], dtype=pytensor.complex128).tolist() == [1 + 2j]
    assert pytensor.tensor([1.5, 2], dtype=pytensor.complex64).tolist() == [1.5, 2]


def test_tensor_rounds_float_data_to_float16():
    t = pytensor.tensor([1.0, 1.0009765625, 65504.0, 1e-8], dtype=pytensor.float16)
    assert t.tolist() == np.array([1.0, 1.0009765625, 65504.0, 1e-8],
                                  dtype=np.float16).astype(float).tolist()


def test_tensor_accepts_strings_of_dtypes_and_python_types():
    assert pytensor.tensor([1], dtype="float64").dtype is pytensor.float64
    assert pytensor.tensor([1], dtype=float).dtype is pytensor.float32
    assert pytensor.tensor([1], dtype=np.int16).dtype is pytensor.int16


def test_ragged_sequences_raise_value_error_naming_length_and_dim():
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        pytensor.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got int\)"):
        pytensor.tensor([[1, 2], 3])
    with pytest.raises(ValueError, match="at dim 1"):
        pytensor.tensor([1, [2]])
    with pytest.raises(ValueError, match=r"length 1 at dim 2 \(got 2\)"):
        pytensor.tensor([[[1], [2]], [[3], [4, 5]]])


def test_strings_and_other_objects_raise_type_error():
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        pytensor.tensor("abc")
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        pytensor.tensor(["a", "b"])
    with pytest.raises(TypeError, match="data"):
        pytensor.tensor([object()])
    with pytest.raises(TypeError, match="data"):
        pytensor.tensor(None)


def test_integers_that_do_not_fit_raise():
    with pytest.raises(RuntimeError, match="int8 without overflow"):
        pytensor.tensor([300], dtype=pytensor.int8)
    with pytest.raises(RuntimeError, match="uint8 without overflow"):
        pytensor.tensor([-256], dtype=pytensor.uint8)  # -1 wraps to 255, as in torch
    with pytest.raises(ValueError, match="int64"):
        pytensor.tensor([1 << 64])


def test_floats_that_overflow_float32_become_infinity():
    assert pytensor.tensor([1e300], dtype=pytensor.float32).tolist() == [float("inf")]


def test_multi_element_tensors_inside_lists_raise():
    with pytest.raises(ValueError, match="only one element tensors"):
        pytensor.tensor([pytensor.tensor([1, 2])])


@pytest.mark.parametrize("make", [
    lambda rg: pytensor.tensor([1.0], requires_grad=rg),
    lambda rg: pytensor.zeros(2, requires_grad=rg),
    lambda rg: pytensor.ones(2, 3, requires_grad=rg),
    lambda rg: pytensor.full((2,), 1.5, requires_grad=rg),
    lambda rg: pytensor.arange(3.0, requires_grad=rg),
    lambda rg: pytensor.randn(2, requires_grad=rg),
    lambda rg: pytensor.zeros_like(pytensor.ones(2), requires_grad=rg),
    lambda rg: pytensor.empty(2, requires_grad=rg),
], ids=["tensor", "zeros", "ones", "full", "arange", "randn", "zeros_like", "empty"])
def test_factories_make_leaves_that_require_grad(make):
    t = make(True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert not make(False).requires_grad


def test_factories_refuse_requires_grad_for_integer_dtypes():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        pytensor.tensor([1], requires_grad=True)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        pytensor.zeros(2, dtype=pytensor.int64, requires_grad=True)
    with pytest.raises(TypeError, match="requires_grad must be a bool"):
        pytensor.zeros(2, requires_grad="yes")


# ------------------------------------------------------------------ tensor(): other sources
@pytest.mark.parametrize("np_dtype", list(NP_DTYPES.values()), ids=lambda d: d.__name__)
def test_tensor_from_numpy_arrays_copies_and_keeps_dtype(np_dtype):
    a = (np.arange(6).reshape(2, 3) % 3).astype(np_dtype)
    t = pytensor.tensor(a)
    assert t.dtype is pytensor._dtype._to_dtype(a.dtype)
    assert t.tolist() == a.tolist()
    a[0, 0] = 1
    assert t.tolist()[0][0] == 0


def test_tensor_from_non_contiguous_byteswapped_and_unaligned_arrays():
    a = np.arange(12.0).reshape(3, 4)[::-1, ::2]
    assert pytensor.tensor(a).tolist() == a.tolist()
    assert pytensor.tensor(a).is_contiguous()
    b = np.arange(4, dtype=">i4")
    assert pytensor.tensor(b).tolist() == [0, 1, 2, 3]
    raw = np.zeros(4 * 3 + 1, dtype=np.uint8)
    c = raw[1:].view(np.float32)
    c[:] = [1, 2, 3]
    assert not c.flags.aligned
    assert pytensor.tensor(c).tolist() == [1.0, 2.0, 3.0]


def test_tensor_from_a_numpy_array_with_a_dtype_and_scalars():
    a = np.array([1.5, 2.5])
    assert pytensor.tensor(a, dtype=pytensor.int32).tolist() == [1, 2]
    assert pytensor.tensor(np.float32(2.5)).dtype is pytensor.float32
    assert pytensor.tensor(np.int16(-3)).item() == -3
    assert pytensor.tensor(np.float64(1.0)).dtype is pytensor.float64


def test_tensor_from_object_arrays_raises_type_error_naming_the_dtype():
    with pytest.raises(TypeError, match="object"):
        pytensor.tensor(np.array([1, "a"], dtype=object))
    with pytest.raises(TypeError, match="uint16"):
        pytensor.tensor(np.zeros(2, dtype=np.uint16))


def test_tensor_from_a_tensor_copies():
    t = pytensor.tensor([1, 2])
    c = pytensor.tensor(t)
    assert c.tolist() == [1, 2] and c.data_ptr() != t.data_ptr()
    assert pytensor.tensor(t, dtype=pytensor.float64).tolist() == [1.0, 2.0]


def test_tensor_from_objects_with_the_array_interface_or_dlpack():
    class Interface:
        def __init__(self, a):
            self.a = a
            self.__array_interface__ = a.__array_interface__

    a = np.arange(4, dtype=np.int32)
    assert pytensor.tensor(Interface(a)).tolist() == [0, 1, 2, 3]

    class DL:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    assert pytensor.tensor(DL(a)).tolist() == [0, 1, 2, 3]


def test_as_tensor_shares_memory_when_it_can():
    t = pytensor.tensor([1, 2])
    assert pytensor.as_tensor(t) is t
    assert pytensor.as_tensor(t, dtype=pytensor.int64) is t
    assert pytensor.as_tensor(t, dtype=pytensor.float32).dtype is pytensor.float32
    a = np.arange(3.0)
    s = pytensor.as_tensor(a)
    s[0] = 5
    assert a[0] == 5
    assert pytensor.as_tensor([1, 2]).tolist() == [1, 2]
    assert pytensor.as_tensor(np.arange(3, dtype=">f8")).tolist() == [0.0, 1.0, 2.0]


def test_is_tensor():
    assert pytensor.is_tensor(pytensor.zeros(1))
    assert not pytensor.is_tensor([1])


# ------------------------------------------------------------------ shaped factories
@pytest.mark.parametrize("fn,value", [(pytensor.zeros, 0), (pytensor.ones, 1)])
def test_zeros_and_ones_with_size_forms_and_dtypes(fn, value):
    for args in [(2, 3), ((2, 3),), ([2, 3],), (pytensor.Size([2, 3]),)]:
        t = fn(*args)
        assert t.shape == (2, 3) and t.dtype is pytensor.float32
        assert t.tolist() == [[float(value)] * 3] * 2
    for dtype in NP_DTYPES:
        t = fn(4, dtype=dtype)
        assert t.tolist() == np.full(4, value, dtype=NP_DTYPES[dtype]).tolist()
    assert fn().shape == () and fn(0).shape == (0,)


def test_empty_shapes_and_size_errors():
    assert pytensor.empty(2, 0, 3).shape == (2, 0, 3)
    assert pytensor.empty((), dtype=pytensor.int8).shape == ()
    with pytest.raises(TypeError, match=r"empty\(\): argument 'size' must be tuple of ints, but "
                                        r"found element of type float at pos 0"):
        pytensor.empty(2.0)
    with pytest.raises(TypeError, match="pos 1"):
        pytensor.zeros((2, "a"))
    with pytest.raises(ValueError, match="size"):
        pytensor.empty(-1)


def test_empty_with_channels_last_memory_format():
    t = pytensor.empty(2, 3, 4, 5, memory_format=pytensor.channels_last)
    assert t.shape == (2, 3, 4, 5) and t.stride() == (60, 1, 15, 3)


def test_empty_strided_uses_the_given_strides():
    t = pytensor.empty_strided((2, 3), (1, 2))
    assert t.stride() == (1, 2)
    with pytest.raises(RuntimeError, match="mismatch"):
        pytensor.empty_strided((2, 3), (1,))


def test_empty_refuses_sparse_layout_and_unknown_devices():
    with pytest.raises(NotImplementedError, match="layout"):
        pytensor.empty(2, layout=pytensor.sparse_coo)
    with pytest.raises(RuntimeError, match="device"):
        pytensor.zeros(2, device="tpu")


@pytest.mark.parametrize("value,dtype", [(1, pytensor.int64), (True, pytensor.bool),
                                         (1.5, pytensor.float32), (1j, pytensor.complex64),
                                         (np.int16(3), pytensor.int16)])
def test_full_infers_the_dtype_from_the_fill_value(value, dtype):
    t = pytensor.full((2, 2), value)
    assert t.dtype is dtype and t.tolist() == [[value] * 2] * 2


def test_full_with_an_explicit_dtype_casts_the_value():
    assert pytensor.full((3,), 2.7, dtype=pytensor.int32).tolist() == [2, 2, 2]
    assert pytensor.full([2], 5).tolist() == [5, 5]


# ------------------------------------------------------------------ ranges
@pytest.mark.parametrize("args", [(5,), (2, 7), (0, 10, 3), (10, 0, -2), (0, 1, 0.25),
                                  (-1.5, 2.5, 0.5), (3, 3), (0.0, 1.0, 0.1)])
def test_arange_matches_numpy(args):
    t = pytensor.arange(*args)
    a = np.arange(*args)
    assert t.shape == a.shape
    is_int = all(isinstance(x, int) for x in args)
    assert t.dtype is (pytensor.int64 if is_int else pytensor.float32)
    np.testing.assert_allclose(t.tolist(), a.tolist(), rtol=1e-6)


def test_arange_with_dtype_and_errors():
    assert pytensor.arange(4, dtype=pytensor.float64).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="step"):
        pytensor.arange(0, 5, 0)
    with pytest.raises(ValueError):
        pytensor.arange(0, 5, -1)
    with pytest.raises(TypeError, match="start"):
        pytensor.arange("a", 5)


@pytest.mark.parametrize("start,end,steps", [(0, 1, 5), (-2, 2, 9), (1, 1, 3), (0, 10, 1),
                                             (0, 1, 0), (5, -5, 4)])
def test_linspace_matches_numpy(start, end, steps):
    t = pytensor.linspace(start, end, steps)
    assert t.dtype is pytensor.float32
    np.testing.assert_allclose(t.tolist(), np.linspace(start, end, steps), rtol=1e-6, atol=1e-6)


def test_linspace_errors_and_dtypes():
    with pytest.raises(ValueError, match="steps"):
        pytensor.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="steps"):
        pytensor.linspace(0, 1, 2.5)
    assert pytensor.linspace(0, 4, 5, dtype=pytensor.int64).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("n,m", [(3, None), (2, 4), (4, 2), (0, 3), (1, None)])
def test_eye_matches_numpy(n, m):
    t = pytensor.eye(n, m)
    assert t.tolist() == np.eye(n, m).tolist()
    assert pytensor.eye(n, m, dtype=pytensor.int32).tolist() == np.eye(n, m, dtype=int).tolist()


def test_eye_with_a_negative_size_raises():
    with pytest.raises(ValueError):
        pytensor.eye(-1)


# ------------------------------------------------------------------ *_like
def test_like_factories_copy_shape_dtype_and_memory_order():
    base = pytensor.zeros(2, 3, dtype=pytensor.int16).t()
    for fn, value in [(pytensor.zeros_like, 0), (pytensor.ones_like, 1)]:
        t = fn(base)
        assert t.shape == (3, 2) and t.dtype is pytensor.int16 and t.stride() == (1, 3)
        assert t.tolist() == [[value] * 2] * 3
    e = pytensor.empty_like(base, memory_format=pytensor.contiguous_format)
    assert e.stride() == (2, 1)
    f = pytensor.full_like(base, 7, dtype=pytensor.float64)
    assert f.dtype is pytensor.float64 and f.tolist() == [[7.0] * 2] * 3


def test_empty_like_of_sliced_and_expanded_tensors_gets_dense_strides():
    sliced = pytensor.zeros(4, 6)[:, ::2]
    assert pytensor.empty_like(sliced).stride() == (3, 1)
    expanded = pytensor.zeros(3).expand(2, 3)
    assert pytensor.empty_like(expanded).stride() == (3, 1)
    perm = pytensor.zeros(2, 3, 4)[:, :, ::2].permute(2, 0, 1)
    assert pytensor.empty_like(perm).stride() == (1, 6, 2)


def test_like_factories_refuse_non_tensors():
    with pytest.raises(TypeError, match="input"):
        pytensor.zeros_like([1, 2])
    with pytest.raises(TypeError, match="input"):
        pytensor.rand_like([1.0])


def test_empty_like_with_torch_as_oracle():
    torch = pytest.importorskip("torch")
    for shape, perm, step in [((2, 3, 4), (2, 0, 1), 1), ((4, 6), (1, 0), 2), ((3, 1, 2), (1, 2, 0), 1)]:
        p = pytensor.zeros(*shape)[..., ::step].permute(*perm)
        q = torch.zeros(*shape)[..., ::step].permute(*perm)
        assert pytensor.empty_like(p).stride() == torch.empty_like(q).stride()


@pytest.mark.parametrize("dtype, values", [
    ("uint8", [-1]), ("uint8", [-255]), ("uint8", [-256]), ("uint8", [300]), ("uint8", [-1.0]),
    ("uint8", [255.9]), ("uint8", [3.7, 250.0]), ("uint8", [float("nan")]), ("int8", [-129]),
    ("int8", [128]), ("int8", [2.5, -3.5]), ("int32", [float("inf")]), ("int64", [2**62]),
])
def test_tensor_range_checks_python_numbers_like_torch(dtype, values):
    torch = pytest.importorskip("torch")
    try:
        want = torch.tensor(values, dtype=getattr(torch, dtype)).tolist()
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="without overflow"):
            pytensor.tensor(values, dtype=getattr(pytensor, dtype))
        assert "without overflow" in str(e)
    else:
        assert pytensor.tensor(values, dtype=getattr(pytensor, dtype)).tolist() == want
