"""Storages: construction per dtype, element access, fill_/copy_/tolist, resize_, from_buffer,
from_file, sharing between typed and untyped views, pickling."""

import pickle
import warnings

import numpy as np
import pytest

import pytensor
from pytensor import _storage
from pytensor._C import lib

LEGACY = [(cls, cls._fixed_dtype) for cls in _storage._typed_classes.values()]
NUMPY_LEGACY = [(cls, d) for cls, d in LEGACY if d._typestr]
IDS = [cls.__name__ for cls, _ in LEGACY]
NUMPY_IDS = [cls.__name__ for cls, _ in NUMPY_LEGACY]


def _np(d):
    return np.dtype(d._typestr)


def _values_for(d):
    """Values every dtype holds exactly (complex ones get an imaginary part)."""
    if d is pytensor.bool:
        return [True, False, True]
    if d.is_complex:
        return [1 + 2j, -0.5 + 0j, 3.25 - 1j]
    if d.is_floating_point:
        return [1.5, -2.0, 0.25]
    return [1, 0, 7] if not d.is_signed else [1, -3, 7]


def test_legacy_classes_come_from_the_dtype_table():
    names = {cls.__name__ for cls, _ in LEGACY}
    assert {"FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
            "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
            "ComplexFloatStorage", "ComplexDoubleStorage"} <= names
    for cls, d in LEGACY:
        assert getattr(pytensor, cls.__name__) is cls
        assert issubclass(cls, pytensor.TypedStorage)
        assert cls.__module__ == "pytensor"


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_legacy_class_names_match_torch():
    torch = pytest.importorskip("torch")
    for cls, d in LEGACY:
        assert getattr(torch, cls.__name__)(0).dtype == getattr(torch, d._name)


@pytest.mark.parametrize("cls, d", LEGACY, ids=IDS)
def test_new_storage_of_size(cls, d):
    s = cls(5)
    assert (s.size(), len(s), s.element_size(), s.nbytes()) == (5, 5, d.itemsize, 5 * d.itemsize)
    assert s.dtype is d and s.device == pytensor.device("cpu")
    assert s.data_ptr() != 0 and s.resizable() and not s.is_shared() and not s.is_cuda
    assert isinstance(s, pytensor.TypedStorage)


@pytest.mark.parametrize("cls, d", LEGACY, ids=IDS)
def test_empty_storage(cls, d):
    for s in (cls(), cls(0), cls([])):
        assert s.size() == 0 and s.tolist() == [] and s.nbytes() == 0


@pytest.mark.parametrize("cls, d", NUMPY_LEGACY, ids=NUMPY_IDS)
def test_from_sequence_matches_numpy(cls, d):
    values = _values_for(d)
    assert cls(values).tolist() == np.array(values, dtype=_np(d)).tolist()


@pytest.mark.parametrize("cls, d", NUMPY_LEGACY, ids=NUMPY_IDS)
def test_from_sequence_casts_like_numpy(cls, d):
    if d.is_complex or d is pytensor.bool:
        values = [0, 1, 2]
    elif d.is_floating_point:
        values = [True, 3, -4]
    else:
        values = [True, 3, 2.75]
    assert cls(values).tolist() == np.array(values, dtype=_np(d)).tolist()


def test_bfloat16_storage_rounds_to_nearest_even():
    s = pytensor.BFloat16Storage([1.0, 1.00390625, 1.01171875, 3.0])
    assert s.tolist() == [1.0, 1.0, 1.015625, 3.0]


def test_from_sequence_of_a_generator_and_a_tuple():
    assert pytensor.IntStorage(i * i for i in range(4)).tolist() == [0, 1, 4, 9]
    assert pytensor.DoubleStorage((1, 2.5)).tolist() == [1.0, 2.5]


def test_typed_storage_with_dtype_argument():
    s = pytensor.TypedStorage([1, 2], dtype=pytensor.int16)
    assert type(s) is pytensor.TypedStorage and s.dtype is pytensor.int16
    assert s.tolist() == [1, 2]
    assert pytensor.TypedStorage(3, dtype="float64").nbytes() == 24


def test_constructor_errors_name_the_argument():
    with pytest.raises(ValueError, match="size: expected a non-negative number of elements"):
        pytensor.FloatStorage(-1)
    with pytest.raises(TypeError, match="FloatStorage: expected a size"):
        pytensor.FloatStorage(2.5)
    with pytest.raises(TypeError, match="FloatStorage: expected at most one positional"):
        pytensor.FloatStorage(2, 3)
    with pytest.raises(TypeError, match="sequence: expected numbers"):
        pytensor.FloatStorage([1, "a"])
    with pytest.raises(RuntimeError, match="sequence: an element cannot be converted to "
                                           "pytensor.int64 without overflow"):
        pytensor.LongStorage([1 << 70])
    with pytest.raises(RuntimeError, match="cannot be converted to pytensor.float64"):
        pytensor.FloatStorage([1.5, 1 << 2000])
    with pytest.raises(TypeError, match="TypedStorage needs a dtype"):
        pytensor.TypedStorage(2)
    with pytest.raises(RuntimeError, match="dtype cannot be given for FloatStorage"):
        pytensor.FloatStorage(2, dtype=pytensor.int32)
    with pytest.raises(TypeError, match="^dtype: "):
        pytensor.TypedStorage(2, dtype="nope")
    with pytest.raises(RuntimeError):
        pytensor.FloatStorage(2, device="nope")


# ---------------------------------------------------------------- fill_, copy_, elements
@pytest.mark.parametrize("cls, d", NUMPY_LEGACY, ids=NUMPY_IDS)
def test_fill_matches_numpy(cls, d):
    value = _values_for(d)[1]
    s = cls(4)
    assert s.fill_(value) is s
    assert s.tolist() == np.full(4, value, dtype=_np(d)).tolist()


def test_fill_casts_and_accepts_numpy_scalars():
    assert pytensor.IntStorage(2).fill_(3.75).tolist() == [3, 3]
    assert pytensor.BoolStorage(2).fill_(2).tolist() == [True, True]
    assert pytensor.DoubleStorage(1).fill_(np.float32(0.5)).tolist() == [0.5]
    assert pytensor.ComplexFloatStorage(1).fill_(1.5).tolist() == [1.5 + 0j]
    assert pytensor.HalfStorage(2).fill_(65504).tolist() == [65504.0, 65504.0]


def test_fill_of_an_empty_storage_is_a_no_op():
    assert pytensor.FloatStorage(0).fill_(1).tolist() == []


def test_fill_errors():
    with pytest.raises(TypeError, match="value: expected a number, got str"):
        pytensor.FloatStorage(2).fill_("x")
    with pytest.raises(RuntimeError, match="value: .* cannot be converted to int64"):
        pytensor.LongStorage(2).fill_(1 << 64)


@pytest.mark.parametrize("src_cls, src_d", NUMPY_LEGACY, ids=NUMPY_IDS)
@pytest.mark.parametrize("dst_cls, dst_d", NUMPY_LEGACY, ids=NUMPY_IDS)
def test_copy_between_typed_storages_casts_like_numpy(src_cls, src_d, dst_cls, dst_d):
    values = [0, 1, 3]
    src = src_cls(values)
    dst = dst_cls(3)
    assert dst.copy_(src) is dst
    with warnings.catch_warnings():  # complex -> real drops the (zero) imaginary part
        warnings.simplefilter("ignore")
        expected = np.array(values, dtype=_np(src_d)).astype(_np(dst_d)).tolist()
    assert dst.tolist() == expected


def test_copy_with_an_untyped_side_copies_bytes():
    src = pytensor.IntStorage([1, 2])
    u = pytensor.UntypedStorage(8).copy_(src)
    assert u.tolist() == list(np.array([1, 2], dtype=np.int32).tobytes())
    back = pytensor.FloatStorage(2).copy_(u)
    assert back.tolist() == np.array([1, 2], dtype=np.int32).view(np.float32).tolist()


def test_copy_errors():
    with pytest.raises(RuntimeError, match="copy_: source has 3 elements but this storage has 2"):
        pytensor.FloatStorage(2).copy_(pytensor.FloatStorage(3))
    with pytest.raises(RuntimeError, match="copy_: source has 3 bytes but this storage has 4"):
        pytensor.UntypedStorage(4).copy_(pytensor.UntypedStorage(3))
    with pytest.raises(TypeError, match="copy_: source must be a storage, got list"):
        pytensor.FloatStorage(2).copy_([1, 2])


@pytest.mark.parametrize("cls, d", LEGACY, ids=IDS)
def test_getitem_and_setitem(cls, d):
    values = _values_for(d)
    s = cls(3)
    for i, v in enumerate(values):
        s[i] = v
    assert [s[i] for i in range(3)] == values
    assert s[-1] == values[-1] and s[-3] == values[0]
    s[-2] = values[0]
    assert s.tolist() == [values[0], values[0], values[2]]
    assert type(s[0]) is type(values[0])


def test_getitem_accepts_index_like_objects():
    s = pytensor.LongStorage([5, 6])
    assert s[np.int64(1)] == 6


def test_element_access_errors_name_the_index():
    s = pytensor.FloatStorage(3)
    with pytest.raises(IndexError, match="index: index 3 is out of range for a storage of size 3"):
        s[3]
    with pytest.raises(IndexError, match="index: index -4 is out of range"):
        s[-4] = 1.0
    with pytest.raises(TypeError, match="index: storages are indexed by ints, got slice"):
        s[0:2]
    with pytest.raises(TypeError, match="index: storages are indexed by ints, got float"):
        s[1.0]
    with pytest.raises(TypeError, match="value: expected a number"):
        s[0] = None
    with pytest.raises(IndexError, match="out of range for a storage of size 0"):
        pytensor.FloatStorage(0)[0]


def test_iteration_and_repr():
    s = pytensor.IntStorage([1, 2])
    assert list(s) == [1, 2]
    assert repr(s) == " 1\n 2\n[pytensor.IntStorage(dtype=pytensor.int32, device=cpu) of size 2]"
    assert repr(pytensor.UntypedStorage([7])) == \
        " 7\n[pytensor.UntypedStorage(device=cpu) of size 1]"


# ---------------------------------------------------------------- resize_
def test_resize_grows_with_zeros_and_shrinks_keeping_the_prefix():
    s = pytensor.ShortStorage([1, 2, 3])
    assert s.resize_(5) is s
    assert s.tolist() == [1, 2, 3, 0, 0] and s.nbytes() == 10
    s.resize_(2)
    assert s.tolist() == [1, 2]
    s.resize_(0)
    assert s.tolist() == [] and s.nbytes() == 0


def test_resize_of_a_non_resizable_storage_raises_runtime_error():
    s = pytensor.FloatStorage.from_buffer(bytearray(8))
    assert not s.resizable()
    with pytest.raises(RuntimeError, match="not resizable") as info:
        s.resize_(4)
    assert info.value.c_location.startswith("csrc/core/storage.c:")
    assert s.size() == 2


def test_resize_errors_name_the_argument():
    with pytest.raises(ValueError, match="resize_: size must be non-negative, got -1"):
        pytensor.FloatStorage(1).resize_(-1)
    with pytest.raises(TypeError, match="resize_: size must be an int, got float"):
        pytensor.FloatStorage(1).resize_(2.0)


# ---------------------------------------------------------------- from_buffer
@pytest.mark.parametrize("cls, d", NUMPY_LEGACY, ids=NUMPY_IDS)
@pytest.mark.parametrize("order", ["native", "little", "big"])
def test_from_buffer_decodes_like_numpy(cls, d, order):
    values = _values_for(d)
    nd = _np(d)
    if order != "native":
        nd = nd.newbyteorder("<" if order == "little" else ">")
    data = np.array(values, dtype=nd).tobytes()
    s = cls.from_buffer(data, byte_order=order)
    assert s.tolist() == np.frombuffer(data, dtype=nd).tolist()
    assert s.device == pytensor.device("cpu")


def test_from_buffer_count_and_offset():
    data = np.arange(6, dtype=np.int32).tobytes()
    assert pytensor.IntStorage.from_buffer(data, offset=8).tolist() == [2, 3, 4, 5]
    assert pytensor.IntStorage.from_buffer(data, count=2, offset=4).tolist() == [1, 2]
    assert pytensor.IntStorage.from_buffer(data, count=0).tolist() == []
    assert pytensor.IntStorage.from_buffer(data, offset=24).tolist() == []


def test_from_buffer_copies_and_accepts_any_buffer():
    arr = np.arange(4, dtype=np.float64)
    s = pytensor.DoubleStorage.from_buffer(memoryview(arr))
    arr[0] = 99
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0]
    s[1] = 5.0
    assert arr[1] == 1.0
    u = pytensor.UntypedStorage.from_buffer(b"\x01\x02\x03")
    assert u.tolist() == [1, 2, 3] and isinstance(u, pytensor.UntypedStorage)
    t = pytensor.TypedStorage.from_buffer(np.array([1, 2], np.int16).tobytes(), dtype="int16")
    assert t.tolist() == [1, 2] and t.dtype is pytensor.int16


def test_from_buffer_bfloat16_big_endian():
    s = pytensor.BFloat16Storage.from_buffer(b"\x3f\x80\xc0\x00", byte_order="big")
    assert s.tolist() == [1.0, -2.0]


def test_from_buffer_errors_name_the_argument():
    data = bytes(10)
    with pytest.raises(ValueError, match="byte_order: expected 'native', 'little' or 'big'"):
        pytensor.IntStorage.from_buffer(data, byte_order="middle")
    with pytest.raises(ValueError, match=r"offset: must be in \[0, 10\]"):
        pytensor.IntStorage.from_buffer(data, offset=11)
    with pytest.raises(ValueError, match=r"offset: must be in"):
        pytensor.IntStorage.from_buffer(data, offset=-1)
    with pytest.raises(ValueError, match=r"buffer: size after offset \(10 bytes\) must be a "
                                         r"multiple of the element size \(4\)"):
        pytensor.IntStorage.from_buffer(data)
    with pytest.raises(ValueError, match="count: buffer has only 2 elements after offset 0, but "
                                         "count is 3"):
        pytensor.IntStorage.from_buffer(data, count=3)
    with pytest.raises(ValueError, match="count: must be -1 or non-negative, got -2"):
        pytensor.IntStorage.from_buffer(data, count=-2)
    with pytest.raises(TypeError, match="buffer: expected an object with the buffer protocol"):
        pytensor.IntStorage.from_buffer([1, 2])
    with pytest.raises(ValueError, match="buffer: expected a C-contiguous buffer"):
        pytensor.IntStorage.from_buffer(np.zeros((4, 4), np.int32)[:, 1])
    with pytest.raises(TypeError, match="from_buffer: TypedStorage needs a dtype"):
        pytensor.TypedStorage.from_buffer(data)


# ---------------------------------------------------------------- from_file
def test_from_file_shared_writes_through_to_the_file(tmp_path):
    path = tmp_path / "data.bin"
    s = pytensor.FloatStorage.from_file(str(path), shared=True, size=4)
    assert s.is_shared() and s.size() == 4 and not s.resizable()
    s.fill_(1.5)
    s[2] = -3.0
    del s
    assert np.fromfile(path, dtype=np.float32).tolist() == [1.5, 1.5, -3.0, 1.5]


def test_from_file_reads_existing_contents(tmp_path):
    path = tmp_path / "ints.bin"
    np.arange(6, dtype=np.int64).tofile(path)
    s = pytensor.LongStorage.from_file(path, size=6)
    assert s.tolist() == list(range(6)) and not s.is_shared()
    u = pytensor.UntypedStorage.from_file(str(path), size=8)
    assert u.tolist() == list(np.int64(0).tobytes())


def test_from_file_private_mapping_leaves_the_file_alone(tmp_path):
    path = tmp_path / "private.bin"
    np.zeros(3, dtype=np.float64).tofile(path)
    s = pytensor.DoubleStorage.from_file(str(path), shared=False, size=3)
    s.fill_(9.0)
    assert s.tolist() == [9.0] * 3
    del s
    assert np.fromfile(path, dtype=np.float64).tolist() == [0.0] * 3


def test_from_file_shared_grows_the_file(tmp_path):
    path = tmp_path / "grow.bin"
    path.write_bytes(b"\x01\x00")
    s = pytensor.ShortStorage.from_file(str(path), shared=True, size=3)
    assert s.tolist() == [1, 0, 0]
    del s
    assert path.stat().st_size == 6


def test_from_file_errors(tmp_path):
    with pytest.raises(RuntimeError, match="missing.bin") as info:
        pytensor.FloatStorage.from_file(str(tmp_path / "missing.bin"), size=2)
    assert info.value.c_location.startswith("csrc/core/storage.c:")
    with pytest.raises(ValueError, match="size: expected a non-negative number of elements"):
        pytensor.FloatStorage.from_file(str(tmp_path / "x.bin"), shared=True, size=-1)


# ---------------------------------------------------------------- sharing and lifetime
def test_untyped_and_typed_views_share_one_c_storage():
    s = pytensor.IntStorage([1, 2])
    assert lib.pt_storage_refcount(s._h) == 1
    u = s.untyped()
    assert lib.pt_storage_refcount(s._h) == 2 and u.data_ptr() == s.data_ptr()
    assert isinstance(u, pytensor.UntypedStorage) and u.nbytes() == 8 and u.size() == 8
    u[0] = 5
    assert s[0] == 5
    f = pytensor.FloatStorage(wrap_storage=u)
    assert f.size() == 2 and f.data_ptr() == s.data_ptr()
    del u, f
    assert lib.pt_storage_refcount(s._h) == 1


def test_wrap_storage_errors():
    with pytest.raises(RuntimeError, match="wrap_storage: 3 bytes are not a whole number of "
                                           "pytensor.float32 elements"):
        pytensor.FloatStorage(wrap_storage=pytensor.UntypedStorage(3))
    with pytest.raises(TypeError, match="wrap_storage: expected an UntypedStorage"):
        pytensor.FloatStorage(wrap_storage=pytensor.FloatStorage(1))
    with pytest.raises(RuntimeError, match="no positional arguments or device"):
        pytensor.FloatStorage(2, wrap_storage=pytensor.UntypedStorage(8))


def test_new_wrapping_takes_over_a_reference():
    s = pytensor.LongStorage([4])
    lib.pt_storage_retain(s._h)
    w = pytensor.TypedStorage._new_wrapping(s._h)
    assert type(w) is pytensor.TypedStorage and w.dtype is pytensor.int64 and w.tolist() == [4]
    assert lib.pt_storage_refcount(s._h) == 2
    del w
    assert lib.pt_storage_refcount(s._h) == 1


def test_clone_is_independent():
    s = pytensor.DoubleStorage([1, 2])
    c = s.clone()
    c[0] = 7.0
    assert s.tolist() == [1.0, 2.0] and c.tolist() == [7.0, 2.0] and type(c) is type(s)


@pytest.mark.parametrize("cls, d", LEGACY, ids=IDS)
def test_pickle_round_trip(cls, d):
    s = cls(_values_for(d))
    back = pickle.loads(pickle.dumps(s))
    assert type(back) is cls and back.tolist() == s.tolist() and back.dtype is d
    assert pickle.loads(pickle.dumps(cls())).tolist() == []


def test_untyped_storage_bytes():
    u = pytensor.UntypedStorage([0, 1, 255])
    assert u.tolist() == [0, 1, 255] and u.element_size() == 1 and u.dtype is pytensor.uint8
    u.fill_(7)
    assert u.tolist() == [7, 7, 7]
    assert pytensor.UntypedStorage(5).nbytes() == 5


def test_tensor_storage_views_the_same_bytes():
    t = pytensor.zeros(3)
    s = t.untyped_storage()
    assert s.nbytes() == 12 and s.data_ptr() == t.data_ptr()
    typed = t.storage()
    typed[1] = 2.5
    assert t.tolist() == [0.0, 2.5, 0.0]


def test_storage_release_runs_when_the_wrapper_dies():
    before = pytensor.memory_stats()["bytes_in_use"]
    s = pytensor.UntypedStorage(1 << 20)
    assert pytensor.memory_stats()["bytes_in_use"] >= before + (1 << 20)
    del s
    assert pytensor.memory_stats()["bytes_in_use"] == before
