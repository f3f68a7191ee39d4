"""device objects, the device-argument converter, layouts, memory formats, Size, pytensor.cuda."""

import copy
import pickle

import pytest

import pytensor
from pytensor import _device
from pytensor._C import lib

NO_CUDA = not pytensor.cuda.is_available()


# ---------------------------------------------------------------- device
@pytest.mark.parametrize("args, type_, index, text", [
    (("cuda:1",), "cuda", 1, "cuda:1"),
    (("cuda", 1), "cuda", 1, "cuda:1"),
    (("cuda",), "cuda", None, "cuda"),
    (("cpu",), "cpu", None, "cpu"),
    (("cpu", 0), "cpu", 0, "cpu:0"),
    (("meta",), "meta", None, "meta"),
    ((3,), "cuda", 3, "cuda:3"),
    (("cuda:12",), "cuda", 12, "cuda:12"),
])
def test_device_construction(args, type_, index, text):
    d = pytensor.device(*args)
    assert (d.type, d.index, str(d)) == (type_, index, text)


def test_device_repr_matches_torch_format():
    assert repr(pytensor.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert repr(pytensor.device("cpu")) == "device(type='cpu')"


def test_device_from_device_copies_it():
    d = pytensor.device("cuda:2")
    assert pytensor.device(d) == d and pytensor.device(d) is not d


def test_device_equality_and_hash():
    assert pytensor.device("cuda:1") == pytensor.device("cuda", 1)
    assert hash(pytensor.device("cuda:1")) == hash(pytensor.device("cuda", 1))
    assert pytensor.device("cuda") != pytensor.device("cuda:0")
    assert pytensor.device("cpu") != pytensor.device("cuda")
    assert pytensor.device("cpu") != "cpu"
    assert len({pytensor.device("cpu"), pytensor.device("cpu"), pytensor.device("meta")}) == 2


def test_device_attributes_are_read_only():
    d = pytensor.device("cpu")
    with pytest.raises(AttributeError):
        d.type = "cuda"
    with pytest.raises(AttributeError):
        d.index = 1


@pytest.mark.parametrize("d", [pytensor.device("cuda:3"), pytensor.device("cpu"),
                               pytensor.device("cuda")], ids=str)
def test_device_pickles_and_copies(d):
    assert pickle.loads(pickle.dumps(d)) == d
    assert copy.deepcopy(d) == d


def test_device_matches_torch_spellings():
    torch = pytest.importorskip("torch")
    for text in ["cpu", "cuda", "cuda:0", "cuda:5", "meta"]:
        ours, theirs = pytensor.device(text), torch.device(text)
        assert (ours.type, ours.index, str(ours), repr(ours)) == \
            (theirs.type, theirs.index, str(theirs), repr(theirs))


@pytest.mark.parametrize("text", ["blah", "cuda:x", "cuda:-1", "cuda:1:2", "", "cpu:", "CUDA"])
def test_device_rejects_bad_strings_with_a_runtime_error_from_c(text):
    with pytest.raises(RuntimeError) as info:
        pytensor.device(text)
    assert info.value.c_location.startswith("csrc/core/device.c:")
    assert str(info.value)


def test_device_rejects_non_ascii_strings():
    with pytest.raises(RuntimeError, match="device: expected a device string"):
        pytensor.device("cud\u00e4")


def test_device_index_given_twice_raises():
    with pytest.raises(RuntimeError, match="must not include an index"):
        pytensor.device("cuda:1", 1)


def test_device_negative_index_raises():
    with pytest.raises(RuntimeError, match="device: index must not be negative, got -1"):
        pytensor.device("cuda", -1)


@pytest.mark.parametrize("args", [(1.5,), (None,), (["cpu"],), ("cuda", "1"), ("cuda", 1.0),
                                  ("cuda", True), (True,)])
def test_device_rejects_bad_argument_types(args):
    with pytest.raises(TypeError, match="^device: "):
        pytensor.device(*args)


def test_device_object_with_index_raises():
    with pytest.raises(TypeError, match="index must not be given with a device object"):
        pytensor.device(pytensor.device("cuda"), 1)


# ---------------------------------------------------------------- _to_cdevice
@pytest.mark.parametrize("arg", [None, "cpu", pytensor.device("cpu"), "cpu:0"], ids=repr)
def test_to_cdevice_resolves_cpu_arguments(arg):
    c = _device._to_cdevice(arg)
    assert (c.type, c.index) == (lib.PT_DEV_CPU, 0)


def test_to_cdevice_caches_repeated_arguments():
    assert _device._to_cdevice("cpu") is _device._to_cdevice("cpu")
    assert _device._to_cdevice("meta").type == lib.PT_DEV_META


@pytest.mark.skipif(not NO_CUDA, reason="needs a machine without CUDA")
@pytest.mark.parametrize("arg", ["cuda", "cuda:0", "cuda:7", 0, pytensor.device("cuda", 7)],
                         ids=repr)
def test_to_cdevice_fails_for_missing_cuda_devices(arg):
    with pytest.raises(RuntimeError) as info:
        _device._to_cdevice(arg)
    assert "cuda" in str(info.value).lower()


@pytest.mark.skipif(NO_CUDA, reason="needs CUDA")
def test_to_cdevice_resolves_cuda_to_the_current_device():
    c = _device._to_cdevice("cuda")
    assert (c.type, c.index) == (lib.PT_DEV_CUDA, pytensor.cuda.current_device())
    n = pytensor.cuda.device_count()
    with pytest.raises(RuntimeError, match=f"cuda:{n}"):
        _device._to_cdevice(f"cuda:{n}")


@pytest.mark.parametrize("bad", [1.0, True, [0], b"cpu", 2j])
def test_to_cdevice_rejects_other_types_naming_the_argument(bad):
    with pytest.raises(TypeError, match="^where: expected a device string"):
        _device._to_cdevice(bad, "where")


def test_to_cdevice_negative_int_raises():
    with pytest.raises(RuntimeError, match="device: device index must not be negative"):
        _device._to_cdevice(-1)


def test_to_device_gives_index_free_cpu_like_torch_tensors():
    assert _device._to_device("cpu") == pytensor.device("cpu")
    assert _device._to_device(None).index is None


# ---------------------------------------------------------------- layouts and memory formats
def test_layouts_come_from_the_c_enum():
    assert pytensor.strided._id == lib.PT_LAYOUT_STRIDED
    assert pytensor.sparse_coo._id == lib.PT_LAYOUT_SPARSE_COO
    assert repr(pytensor.strided) == "pytensor.strided"
    assert isinstance(pytensor.sparse_coo, pytensor.layout)
    assert len(_device._layouts) == lib.PT_LAYOUT_COUNT


def test_memory_formats_come_from_the_c_enum():
    expected = {"contiguous_format": lib.PT_MEMORY_FORMAT_CONTIGUOUS,
                "preserve_format": lib.PT_MEMORY_FORMAT_PRESERVE,
                "channels_last": lib.PT_MEMORY_FORMAT_CHANNELS_LAST,
                "channels_last_3d": lib.PT_MEMORY_FORMAT_CHANNELS_LAST_3D}
    for name, value in expected.items():
        mf = getattr(pytensor, name)
        assert isinstance(mf, pytensor.memory_format) and mf._id == value
        assert repr(mf) == f"pytensor.{name}"
    assert len(_device._memory_formats) == lib.PT_MEMORY_FORMAT_COUNT


def test_layout_and_memory_format_names_match_torch():
    torch = pytest.importorskip("torch")
    for obj in _device._layouts + _device._memory_formats:
        assert repr(obj).split(".")[1] == repr(getattr(torch, obj._name)).split(".")[1]


@pytest.mark.parametrize("obj", ["strided", "sparse_coo", "channels_last", "preserve_format"])
def test_layouts_and_memory_formats_pickle_as_singletons(obj):
    o = getattr(pytensor, obj)
    assert pickle.loads(pickle.dumps(o)) is o and copy.deepcopy(o) is o


# ---------------------------------------------------------------- Size
def test_size_is_a_tuple_with_numel_and_torch_repr():
    s = pytensor.Size([2, 3])
    assert isinstance(s, tuple) and s == (2, 3)
    assert s.numel() == 6
    assert repr(s) == "pytensor.Size([2, 3])"
    assert pytensor.Size().numel() == 1 and repr(pytensor.Size()) == "pytensor.Size([])"
    assert pytensor.Size([4, 0, 2]).numel() == 0


def test_size_slicing_and_concatenation_stay_sizes():
    s = pytensor.Size([2, 3, 4])
    assert isinstance(s[1:], pytensor.Size) and s[1:] == (3, 4)
    assert s[-1] == 4 and type(s[0]) is int
    assert isinstance(s + (5,), pytensor.Size) and s + (5,) == (2, 3, 4, 5)
    assert isinstance((1,) + s, pytensor.Size) and (1,) + s == (1, 2, 3, 4)


def test_size_accepts_index_like_ints_and_pickles():
    np = pytest.importorskip("numpy")
    s = pytensor.Size([np.int64(2), 3])
    assert s == (2, 3) and type(s[0]) is int
    assert pickle.loads(pickle.dumps(s)) == s and isinstance(pickle.loads(pickle.dumps(s)),
                                                             pytensor.Size)


@pytest.mark.parametrize("bad", [[2.0], ["a"], 3, [None]])
def test_size_rejects_non_ints(bad):
    with pytest.raises(TypeError, match="Size: expected a sequence of ints"):
        pytensor.Size(bad)


def test_size_matches_torch_repr():
    torch = pytest.importorskip("torch")
    assert repr(pytensor.Size([2, 3])).replace("pytensor", "torch") == repr(torch.Size([2, 3]))


# ---------------------------------------------------------------- pytensor.cuda
def test_cuda_availability_matches_device_count():
    assert pytensor.cuda.is_available() == (pytensor.cuda.device_count() > 0)
    assert isinstance(pytensor.cuda.device_count(), int)


@pytest.mark.skipif(not NO_CUDA, reason="needs a machine without CUDA")
def test_cuda_without_devices():
    assert len(pytensor.cuda.default_generators) == 0
    pytensor.cuda.manual_seed(1)
    pytensor.cuda.manual_seed_all(1)
    with pytest.raises(RuntimeError):
        pytensor.cuda.current_device()
    with pytest.raises(RuntimeError):
        pytensor.cuda.synchronize(0)


def test_cuda_set_device_rejects_cpu():
    with pytest.raises(ValueError, match="device: expected a CUDA device, got cpu"):
        pytensor.cuda.set_device("cpu")


@pytest.mark.skipif(NO_CUDA, reason="needs CUDA")
def test_cuda_current_device_and_seeding():
    pytensor.cuda.set_device(0)
    assert pytensor.cuda.current_device() == 0
    pytensor.cuda.synchronize()
    pytensor.cuda.manual_seed_all(5)
    assert all(g.initial_seed() == 5 for g in pytensor.cuda.default_generators)
    assert pytensor.cuda.default_generators[0].device == pytensor.device("cuda", 0)
