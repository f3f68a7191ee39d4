"""dtype objects, the dtype-argument converter, promotion, casting and iinfo/finfo."""

import copy
import pickle

import numpy as np
import pytest

import pytensor
from pytensor import _dtype
from pytensor._C import ffi, lib

ALL = [_dtype._dtypes_by_id[i] for i in range(lib.PT_DTYPE_BUILTIN_COUNT)]
NUMPY_BACKED = [d for d in ALL if d._typestr]
FLOATING = [d for d in ALL if d.is_floating_point]
INTEGER = [d for d in ALL if not (d.is_floating_point or d.is_complex or d is pytensor.bool)]


def _c_info(d):
    out = ffi.new("const pt_dtype_info **")
    assert lib.pt_dtype_get(d._id, out) == 0
    return out[0]


def test_every_table_dtype_is_a_module_attribute_under_its_c_name():
    for i in range(lib.pt_dtype_count()):
        name = ffi.string(_c_info(_dtype._from_id(i)).name).decode()
        d = getattr(pytensor, name)
        assert isinstance(d, pytensor.dtype) and d._id == i and d._name == name


def test_dtype_objects_are_singletons_indexed_by_c_id():
    for i, d in enumerate(ALL):
        assert _dtype._from_id(i) is d and d._id == i


@pytest.mark.parametrize("alias, name", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"),
    ("int", "int32"), ("short", "int16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
])
def test_legacy_aliases_name_the_same_objects(alias, name):
    assert getattr(pytensor, alias) is getattr(pytensor, name)


@pytest.mark.parametrize("d", NUMPY_BACKED, ids=str)
def test_properties_match_numpy(d):
    nd = np.dtype(d._typestr)
    assert d.itemsize == nd.itemsize
    assert d.is_floating_point == (nd.kind == "f")
    assert d.is_complex == (nd.kind == "c")
    assert d.is_signed == (nd.kind in "ifc")


def test_bfloat16_properties():
    b = pytensor.bfloat16
    assert (b.itemsize, b.is_floating_point, b.is_complex, b.is_signed) == (2, True, False, True)


@pytest.mark.parametrize("d", ALL, ids=str)
def test_properties_match_torch(d):
    torch = pytest.importorskip("torch")
    t = getattr(torch, d._name)
    assert (d.itemsize, d.is_floating_point, d.is_complex, d.is_signed) == \
        (t.itemsize, t.is_floating_point, t.is_complex, t.is_signed)


def test_repr_and_str():
    assert repr(pytensor.float32) == "pytensor.float32"
    assert str(pytensor.int64) == "pytensor.int64"
    assert repr(pytensor.float) == "pytensor.float32"


def test_dtype_cannot_be_constructed():
    with pytest.raises(TypeError, match="dtype"):
        pytensor.dtype("float32")


@pytest.mark.parametrize("d", ALL, ids=str)
def test_pickle_and_copy_keep_the_singleton(d):
    assert pickle.loads(pickle.dumps(d)) is d
    assert copy.copy(d) is d and copy.deepcopy(d) is d


def test_to_real_and_to_complex():
    assert pytensor.complex64.to_real() is pytensor.float32
    assert pytensor.complex128.to_real() is pytensor.float64
    assert pytensor.float32.to_complex() is pytensor.complex64
    assert pytensor.float64.to_complex() is pytensor.complex128
    assert pytensor.complex64.to_complex() is pytensor.complex64
    assert pytensor.int32.to_real() is pytensor.int32
    assert pytensor.float16.to_real() is pytensor.float16


def test_to_complex_of_an_integer_dtype_raises():
    with pytest.raises(RuntimeError, match="to_complex: pytensor.int32 is not a floating"):
        pytensor.int32.to_complex()
    with pytest.raises(RuntimeError, match="to_complex: pytensor.bfloat16 has no counterpart"):
        pytensor.bfloat16.to_complex()


# ---------------------------------------------------------------- _to_dtype
@pytest.mark.parametrize("arg, expected", [
    ("float32", "float32"), ("pytensor.float64", "float64"), ("torch.int16", "int16"),
    ("float", "float32"), ("double", "float64"), ("long", "int64"), ("bool", "bool"),
    ("Float", "float32"), ("Long", "int64"), ("bfloat16", "bfloat16"),
])
def test_to_dtype_accepts_names(arg, expected):
    assert _dtype._to_dtype(arg) is getattr(pytensor, expected)


def test_to_dtype_accepts_python_types():
    assert _dtype._to_dtype(bool) is pytensor.bool
    assert _dtype._to_dtype(int) is pytensor.int64
    assert _dtype._to_dtype(float) is pytensor.get_default_dtype()
    assert _dtype._to_dtype(complex) is pytensor.complex64


@pytest.mark.parametrize("d", NUMPY_BACKED, ids=str)
def test_to_dtype_accepts_numpy_dtypes_and_scalar_types(d):
    nd = np.dtype(d._typestr)
    assert _dtype._to_dtype(nd) is d
    assert _dtype._to_dtype(nd.type) is d
    assert _dtype._to_dtype(nd.name) is d


def test_to_dtype_returns_dtypes_unchanged():
    assert _dtype._to_dtype(pytensor.int8) is pytensor.int8


def test_to_dtype_rejects_foreign_byte_order_naming_the_argument():
    foreign = ">f4" if np.little_endian else "<f4"
    with pytest.raises(TypeError, match="out_dtype: NumPy dtype"):
        _dtype._to_dtype(np.dtype(foreign), "out_dtype")


def test_to_dtype_rejects_numpy_dtypes_without_counterpart():
    with pytest.raises(TypeError, match="dtype: NumPy dtype"):
        _dtype._to_dtype(np.dtype("U3"))


@pytest.mark.parametrize("bad", ["flaot32", "", "pytensor.", "f\u00e9"])
def test_to_dtype_rejects_unknown_names(bad):
    with pytest.raises(TypeError, match=r"mydtype: unknown dtype name"):
        _dtype._to_dtype(bad, "mydtype")


@pytest.mark.parametrize("bad", [3, 2.5, None, [1], object, str])
def test_to_dtype_rejects_other_objects(bad):
    with pytest.raises(TypeError, match=r"^dtype: expected a pytensor.dtype"):
        _dtype._to_dtype(bad)


# ---------------------------------------------------------------- default dtype
def test_default_dtype_starts_as_float32_and_can_change():
    assert pytensor.get_default_dtype() is pytensor.float32
    try:
        pytensor.set_default_dtype(pytensor.float64)
        assert pytensor.get_default_dtype() is pytensor.float64
        assert _dtype._to_dtype(float) is pytensor.float64
        assert _dtype._to_dtype(complex) is pytensor.complex128
        pytensor.set_default_dtype("float16")
        assert _dtype._to_dtype(float) is pytensor.float16
        assert _dtype._to_dtype(complex) is pytensor.complex64
    finally:
        pytensor.set_default_dtype(pytensor.float32)
    assert _dtype._to_dtype(complex) is pytensor.complex64


@pytest.mark.parametrize("bad", ["int32", "bool", "complex64"])
def test_default_dtype_must_be_floating(bad):
    with pytest.raises(TypeError, match="set_default_dtype: only floating-point"):
        pytensor.set_default_dtype(bad)
    assert pytensor.get_default_dtype() is pytensor.float32


def test_set_default_dtype_names_its_argument():
    with pytest.raises(TypeError, match="^d: "):
        pytensor.set_default_dtype(3)


# ---------------------------------------------------------------- promotion and casting
@pytest.mark.parametrize("a, b, expected", [
    ("uint8", "int8", "int16"), ("int32", "float16", "float16"), ("int64", "float32", "float32"),
    ("bool", "uint8", "uint8"), ("float16", "bfloat16", "float32"),
    ("float64", "complex64", "complex128"), ("int16", "int16", "int16"),
])
def test_promote_types_known_values(a, b, expected):
    assert pytensor.promote_types(a, b) is getattr(pytensor, expected)
    assert pytensor.promote_types(b, a) is getattr(pytensor, expected)


def test_promote_types_matches_torch_on_every_pair():
    torch = pytest.importorskip("torch")
    for a in ALL:
        for b in ALL:
            expected = torch.promote_types(getattr(torch, a._name), getattr(torch, b._name))
            assert pytensor.promote_types(a, b)._name == str(expected).split(".")[1], (a, b)


def test_can_cast_matches_torch_on_every_pair():
    torch = pytest.importorskip("torch")
    for a in ALL:
        for b in ALL:
            assert pytensor.can_cast(a, b) == torch.can_cast(getattr(torch, a._name),
                                                             getattr(torch, b._name)), (a, b)


def test_can_cast_known_values():
    assert pytensor.can_cast(pytensor.int32, pytensor.float32)
    assert not pytensor.can_cast(pytensor.float64, pytensor.int32)
    assert not pytensor.can_cast(pytensor.complex64, pytensor.float64)


def test_promote_and_cast_name_their_arguments():
    with pytest.raises(TypeError, match="^type2: "):
        pytensor.promote_types(pytensor.float32, "nope")
    with pytest.raises(TypeError, match="^from_: "):
        pytensor.can_cast(None, pytensor.float32)
    with pytest.raises(TypeError, match="^to: "):
        pytensor.can_cast(pytensor.float32, 1)


# ---------------------------------------------------------------- iinfo / finfo
@pytest.mark.parametrize("d", INTEGER, ids=str)
def test_iinfo_matches_numpy(d):
    info, ref = pytensor.iinfo(d), np.iinfo(np.dtype(d._typestr))
    assert (info.bits, info.min, info.max, info.dtype) == (ref.bits, ref.min, ref.max, d._name)
    assert type(info.min) is int
    assert repr(info) == f"iinfo(min={ref.min}, max={ref.max}, dtype={d._name})"


@pytest.mark.parametrize("d", [d for d in FLOATING if d._typestr], ids=str)
def test_finfo_matches_numpy(d):
    info, ref = pytensor.finfo(d), np.finfo(np.dtype(d._typestr))
    assert info.bits == ref.bits
    assert info.max == float(ref.max) and info.min == float(ref.min)
    assert info.eps == float(ref.eps)
    assert info.tiny == info.smallest_normal == float(ref.tiny)
    assert info.resolution == pytest.approx(float(ref.resolution), rel=1e-3)  # NumPy rounds it
    assert info.dtype == d._name


@pytest.mark.parametrize("d", FLOATING + [d for d in ALL if d.is_complex], ids=str)
def test_finfo_matches_torch(d):
    torch = pytest.importorskip("torch")
    info, ref = pytensor.finfo(d), torch.finfo(getattr(torch, d._name))
    assert (info.bits, info.max, info.min, info.eps, info.tiny, info.resolution, info.dtype) == \
        (ref.bits, ref.max, ref.min, ref.eps, ref.tiny, ref.resolution, ref.dtype)


def test_finfo_of_complex_describes_the_real_part():
    assert pytensor.finfo(pytensor.complex128).dtype == "float64"
    assert pytensor.finfo(pytensor.complex64).eps == pytensor.finfo(pytensor.float32).eps


def test_finfo_without_argument_uses_the_default_dtype():
    assert pytensor.finfo().dtype == "float32"
    assert "eps=1.19209e-07" in repr(pytensor.finfo())


def test_bfloat16_finfo_known_values():
    info = pytensor.finfo(pytensor.bfloat16)
    assert (info.bits, info.eps, info.max, info.tiny) == (16, 2.0 ** -7, 3.3895313892515355e38,
                                                         2.0 ** -126)


@pytest.mark.parametrize("d", ["float32", "complex64", "bool"])
def test_iinfo_rejects_non_integer_dtypes(d):
    with pytest.raises(TypeError, match="iinfo: pytensor.* is not an integer dtype"):
        pytensor.iinfo(d)


@pytest.mark.parametrize("d", ["int32", "bool", "uint8"])
def test_finfo_rejects_integer_dtypes(d):
    with pytest.raises(TypeError, match="finfo: pytensor.* is not a floating-point"):
        pytensor.finfo(d)


def test_iinfo_finfo_name_their_argument():
    with pytest.raises(TypeError, match="^type: "):
        pytensor.iinfo("what")
    with pytest.raises(TypeError, match="^type: "):
        pytensor.finfo(12)
