"""DLPack exchange: capsules both ways, round trips with NumPy (and torch when installed),
versioned and unversioned capsules, read-only data, copies and device requests."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

import pytensor

lib = pytensor._C.lib
NP_TYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
            np.float64, np.complex64, np.complex128]


def capsule_name(capsule) -> str:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


@pytest.mark.parametrize("np_type", NP_TYPES, ids=lambda t: t.__name__)
def test_from_dlpack_of_numpy_arrays_shares_memory_per_dtype(np_type):
    a = (np.arange(12).reshape(3, 4) % 3).astype(np_type)
    t = pytensor.from_dlpack(a)
    assert t.dtype is pytensor._dtype._to_dtype(a.dtype)
    assert t.tolist() == a.tolist() and t.data_ptr() == a.ctypes.data
    t[0, 0] = 1
    assert a[0, 0] == 1


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[:, ::2], np.s_[1:, ::-2], np.s_[...]],
                         ids=str)
def test_numpy_round_trips_keep_strides(index):
    a = np.arange(20.0).reshape(4, 5)[index]
    t = pytensor.from_dlpack(a)
    assert t.tolist() == a.tolist()
    assert t.stride() == tuple(s // 8 for s in a.strides)
    back = np.from_dlpack(t)
    assert back.tolist() == a.tolist() and back.ctypes.data == a.ctypes.data
    assert back.strides == a.strides


@pytest.mark.parametrize("np_type", NP_TYPES, ids=lambda t: t.__name__)
def test_numpy_from_dlpack_of_tensors_per_dtype(np_type):
    t = pytensor.tensor((np.arange(6).reshape(2, 3) % 2).astype(np_type))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(np_type) and a.tolist() == t.tolist()
    assert a.ctypes.data == t.data_ptr()


def test_numpy_from_dlpack_of_a_transposed_0d_and_empty_tensor():
    t = pytensor.tensor([[1, 2], [3, 4]]).t()
    a = np.from_dlpack(t)
    assert a.tolist() == [[1, 3], [2, 4]] and a.strides == (8, 16)
    assert np.from_dlpack(pytensor.tensor(2.5)).shape == ()
    assert np.from_dlpack(pytensor.zeros(0, 3)).shape == (0, 3)


def test_exported_memory_outlives_the_tensor():
    t = pytensor.tensor([1.0, 2.0, 3.0])
    r = weakref.ref(t)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert r() is None
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_dlpack_device_is_cpu_0():
    assert pytensor.zeros(1).__dlpack_device__() == (lib.PT_DL_CPU, 0)


def test_dlpack_capsule_names_follow_max_version():
    t = pytensor.tensor([1, 2])
    assert capsule_name(t.__dlpack__()) == "dltensor"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert capsule_name(t.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(t.__dlpack__(max_version=(2, 3))) == "dltensor_versioned"


@pytest.mark.parametrize("max_version", [None, (1, 1)])
def test_capsules_are_consumed_once_and_renamed(max_version):
    t = pytensor.tensor([5, 6])
    cap = t.__dlpack__(max_version=max_version)
    u = pytensor.from_dlpack(cap)
    assert u.tolist() == [5, 6] and u.data_ptr() == t.data_ptr()
    assert capsule_name(cap).startswith("used_dltensor")
    with pytest.raises(ValueError, match="consumed only once"):
        pytensor.from_dlpack(cap)


def test_unconsumed_capsules_free_their_tensor():
    before = pytensor.memory_stats()["bytes_in_use"]
    t = pytensor.empty(1000)
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    del t
    gc.collect()
    assert pytensor.memory_stats()["bytes_in_use"] > before
    del caps
    gc.collect()
    assert pytensor.memory_stats()["bytes_in_use"] == before


def test_imported_tensors_release_the_producer_when_they_die():
    a = np.arange(5.0)
    r = weakref.ref(a)
    t = pytensor.from_dlpack(a)
    del a
    gc.collect()
    assert r() is not None and t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del t
    gc.collect()
    assert r() is None


def test_read_only_numpy_arrays_import_as_non_writable_tensors():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = pytensor.from_dlpack(a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only"):
        t.fill_(1.0)


def test_read_only_tensors_export_versioned_with_the_flag_and_refuse_unversioned():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = pytensor.from_numpy(a)
    back = np.from_dlpack(t)
    assert not back.flags.writeable and back.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()


def test_copy_true_exports_an_independent_copy():
    t = pytensor.tensor([1, 2, 3])
    a = np.from_dlpack(t, copy=True)
    assert a.tolist() == [1, 2, 3] and a.ctypes.data != t.data_ptr()
    u = pytensor.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    u[0] = 9
    assert t.tolist() == [1, 2, 3]


def test_dl_device_requests():
    t = pytensor.tensor([1, 2])
    same = pytensor.from_dlpack(t.__dlpack__(dl_device=(lib.PT_DL_CPU, 0)))
    assert same.data_ptr() == t.data_ptr()
    assert np.from_dlpack(t, device="cpu").tolist() == [1, 2]
    with pytest.raises(BufferError, match="dl_device"):
        t.__dlpack__(dl_device=(lib.PT_DL_CUDA, 0), copy=False)


def test_from_dlpack_of_objects_without_the_protocol_raises_type_error():
    with pytest.raises(TypeError, match="ext_tensor"):
        pytensor.from_dlpack([1, 2])


def test_from_dlpack_falls_back_to_producers_without_max_version():
    class Old:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = np.arange(4, dtype=np.int16)
    t = pytensor.from_dlpack(Old(a))
    assert t.tolist() == [0, 1, 2, 3] and t.data_ptr() == a.ctypes.data


def test_pytensor_to_pytensor_through_dlpack_shares_memory():
    t = pytensor.tensor([[1, 2, 3], [4, 5, 6]]).t()
    u = pytensor.from_dlpack(t)
    assert u.tolist() == t.tolist() and u.stride() == t.stride()
    assert u.data_ptr() == t.data_ptr()


def test_bfloat16_travels_through_dlpack_to_torch():
    torch = pytest.importorskip("torch")
    t = pytensor.tensor([1.5, -2.0], dtype=pytensor.bfloat16)
    x = torch.from_dlpack(t)
    assert x.dtype == torch.bfloat16 and x.tolist() == [1.5, -2.0]
    back = pytensor.from_dlpack(x)
    assert back.dtype is pytensor.bfloat16 and back.tolist() == [1.5, -2.0]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "float32", "float64", "complex64", "complex128"])
def test_torch_round_trips_per_dtype(dtype):
    torch = pytest.importorskip("torch")
    x = (torch.arange(12).reshape(3, 4) % 3).to(getattr(torch, dtype)).t()[1:]
    t = pytensor.from_dlpack(x)
    assert t.dtype is getattr(pytensor, dtype)
    assert t.tolist() == x.tolist() and t.stride() == x.stride()
    assert t.data_ptr() == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr() and y.stride() == x.stride()
