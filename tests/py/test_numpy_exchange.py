"""Zero-copy exchange with NumPy: from_numpy, Tensor.numpy, __array_interface__ and __array__."""

import gc
import sys
import weakref

import numpy as np
import pytest

import pytensor

NP_TYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
            np.float64, np.complex64, np.complex128]


def sample(np_type, shape=(3, 4)):
    a = (np.arange(int(np.prod(shape))) % 5).reshape(shape)
    if np.issubdtype(np_type, np.complexfloating):
        return (a + 1j * a[::-1]).astype(np_type)
    return a.astype(np_type)


# ------------------------------------------------------------------ from_numpy
@pytest.mark.parametrize("np_type", NP_TYPES, ids=lambda t: t.__name__)
def test_from_numpy_shares_memory_per_dtype(np_type):
    a = sample(np_type)
    t = pytensor.from_numpy(a)
    assert t.dtype is pytensor._dtype._to_dtype(a.dtype)
    assert t.shape == a.shape and t.tolist() == a.tolist()
    assert t.data_ptr() == a.ctypes.data
    t[0, 0] = 1
    assert a[0, 0] == 1


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[:, ::-2], np.s_[::2, 1:], np.s_[1:, ::-1]],
                         ids=str)
def test_from_numpy_keeps_negative_and_sliced_strides(index):
    base = np.arange(30.0).reshape(5, 6)
    a = base[index]
    t = pytensor.from_numpy(a)
    assert t.tolist() == a.tolist()
    assert t.stride() == tuple(s // 8 for s in a.strides)
    assert t.data_ptr() == a.ctypes.data
    t.fill_(-1)
    assert (a == -1).all()


def test_from_numpy_of_broadcast_and_0d_and_empty_arrays():
    b = np.broadcast_to(np.arange(3), (4, 3))
    t = pytensor.from_numpy(b)
    assert t.stride() == (0, 1) and t.tolist() == b.tolist()
    z = pytensor.from_numpy(np.array(2.5))
    assert z.shape == () and z.item() == 2.5
    e = pytensor.from_numpy(np.zeros((0, 3), dtype=np.int32))
    assert e.shape == (0, 3) and e.dtype is pytensor.int32


def test_from_numpy_keeps_the_array_alive_until_the_tensor_dies():
    a = np.arange(4.0)
    r = weakref.ref(a)
    t = pytensor.from_numpy(a)
    del a
    gc.collect()
    assert r() is not None
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    v = t[1:]
    del t
    gc.collect()
    assert r() is not None and v.tolist() == [1.0, 2.0, 3.0]
    del v
    gc.collect()
    assert r() is None


def test_from_numpy_of_a_read_only_array_gives_a_non_writable_tensor():
    a = np.arange(3)
    a.flags.writeable = False
    t = pytensor.from_numpy(a)
    assert t.tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError, match="read-only"):
        t[0] = 7
    assert not t.numpy().flags.writeable


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, object, "U3", "V4", "M8[s]"], ids=str)
def test_from_numpy_of_unsupported_dtypes_raises_type_error_naming_it(dtype):
    a = np.zeros(2, dtype=dtype)
    name = np.dtype(dtype).type.__name__
    with pytest.raises(TypeError, match=f"can't convert np.ndarray of type numpy.{name}"):
        pytensor.from_numpy(a)


def test_from_numpy_of_byte_swapped_or_unaligned_arrays_raises_value_error():
    with pytest.raises(ValueError, match="byte order"):
        pytensor.from_numpy(np.zeros(3, dtype=">f4"))
    raw = np.zeros(13, dtype=np.uint8)
    with pytest.raises(ValueError, match="aligned"):
        pytensor.from_numpy(raw[1:].view(np.float32))


def test_from_numpy_of_strides_that_are_not_whole_elements_raises_value_error():
    rec = np.zeros(3, dtype=[("a", np.int8), ("b", np.float64)])
    with pytest.raises(ValueError, match="strides"):
        pytensor.from_numpy(np.lib.stride_tricks.as_strided(
            np.zeros(16, dtype=np.uint8).view(np.int16), (3,), (3,)))
    with pytest.raises(TypeError):
        pytensor.from_numpy(rec)


def test_from_numpy_of_non_arrays_raises_type_error():
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        pytensor.from_numpy([1, 2])


# ------------------------------------------------------------------ numpy() and the interfaces
@pytest.mark.parametrize("np_type", NP_TYPES, ids=lambda t: t.__name__)
def test_numpy_shares_memory_per_dtype(np_type):
    t = pytensor.tensor(sample(np_type))
    a = t.numpy()
    assert a.dtype == np.dtype(np_type) and a.tolist() == t.tolist()
    assert a.ctypes.data == t.data_ptr()
    a[0, 0] = 1
    assert t[0, 0].item() == 1


def test_numpy_of_views_keeps_strides_and_the_tensor_alive():
    t = pytensor.tensor(np.arange(12).reshape(3, 4)).t()[1:]
    a = t.numpy()
    assert a.strides == (8, 32) and a.tolist() == t.tolist()
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is not None
    assert a.tolist() == np.arange(12).reshape(3, 4).T[1:].tolist()


def test_numpy_of_0d_and_empty_tensors():
    assert pytensor.tensor(3).numpy().shape == ()
    assert pytensor.zeros(0, 2).numpy().shape == (0, 2)


def test_numpy_of_bfloat16_raises_type_error():
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        pytensor.zeros(2, dtype=pytensor.bfloat16).numpy()
    with pytest.raises(TypeError, match="BFloat16"):
        np.asarray(pytensor.zeros(2, dtype=pytensor.bfloat16))


def test_asarray_uses_the_array_interface_without_a_copy():
    t = pytensor.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr() and a.base is t
    ai = t.__array_interface__
    assert ai["shape"] == (2, 2) and ai["typestr"] == "<f4" and ai["strides"] == (8, 4)
    assert ai["data"] == (t.data_ptr(), False)


def test_array_protocol_with_dtype_and_copy():
    t = pytensor.tensor([1, 2, 3], dtype=pytensor.int32)
    a = t.__array__()
    assert a.ctypes.data == t.data_ptr()
    b = t.__array__(np.float64)
    assert b.dtype == np.float64 and b.tolist() == [1.0, 2.0, 3.0]
    c = t.__array__(copy=True)
    assert c.ctypes.data != t.data_ptr() and c.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="copy"):
        t.__array__(np.float64, copy=False)
    assert np.array(t, dtype=np.int64).tolist() == [1, 2, 3]


def test_numpy_functions_accept_tensors():
    t = pytensor.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert np.sum(t) == 10.0
    assert np.allclose(np.asarray(t) @ np.eye(2), np.asarray(t))


def test_borrowed_numpy_memory_is_released_while_an_error_unwinds():
    with pytest.raises(RuntimeError, match="must match the size"):
        pytensor.add(pytensor.from_numpy(np.ones(2)), pytensor.from_numpy(np.ones(3)))


def test_numpy_argument_names_reach_the_reductions():
    t = pytensor.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert np.sum(t, axis=0).tolist() == [4.0, 6.0]
    assert t.sum(axis=1, keepdims=True).tolist() == [[3.0], [7.0]]
    assert np.mean(t).item() == 2.5
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        t.sum(dim=0, axis=1)


def test_round_trip_through_numpy_preserves_values_per_dtype():
    for np_type in NP_TYPES:
        a = sample(np_type, (2, 3, 2))
        back = pytensor.from_numpy(pytensor.from_numpy(a).numpy()).numpy()
        assert back.dtype == a.dtype and (back == a).all()


def test_numpy_force_moves_to_cpu_first():
    t = pytensor.tensor([1, 2])
    assert t.numpy(force=True).tolist() == [1, 2]


def test_importing_pytensor_does_not_import_numpy():
    import subprocess

    code = "import sys, pytensor; pytensor.zeros(2).tolist(); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_no_handles_or_bytes_leak_across_many_exchanges():
    gc.collect()
    keep = len(pytensor._C._keepalive)
    before = pytensor.memory_stats()["bytes_in_use"]
    for _ in range(200):
        a = np.arange(10.0)
        t = pytensor.from_numpy(a)[2:]
        b = t.numpy()
        c = pytensor.tensor(b) if b.size else None
        d = pytensor.from_dlpack(np.from_dlpack(c))
        del a, t, b, c, d
    gc.collect()
    assert len(pytensor._C._keepalive) == keep
    assert pytensor.memory_stats()["bytes_in_use"] == before
