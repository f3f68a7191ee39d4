"""The mapping slots of _TensorBase (Note [indexing in C]): `t[index]` and `t[index] = value`
give what the Python indexing path gives - the same views (shape, strides, offset, storage), the
same values, the same exceptions with the same messages - for every index form, whether C or
Python computes it; they stay visible to dispatch; and they agree with torch where it is
installed."""
import numpy as np
import pytest

import pytensor
import pytensor.library as L
from pytensor import _indexing, _tensor

from _torch_oracle import requires_torch, torch


def source(shape=(4, 5, 6), dtype=pytensor.float32):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return pytensor.tensor(a, dtype=dtype), a


class Sub(pytensor.Tensor):
    """A subclass: every index form takes the Python path."""


def as_sub(t, cls=Sub):
    """An object of cls holding t's tensor."""
    s = pytensor._C._TensorBase.__new__(cls)
    pytensor._C.lib.pt_tensor_retain(t._h)
    s._h = t._h
    return s


# Every index form: those the slot computes in C and those it leaves to Python.
FORMS = [
    0, 3, -1, -4, 4, -5, 2 ** 63, -2 ** 63 - 1, 2 ** 70,
    (0, 1), (0, 1, 2), (-1, -2, -3), (3, 4, 5), (4, 0), (0, 5), (0, -6), (1, 2, 3, 4), (0, 2 ** 64),
    slice(None), slice(1, 3), slice(None, None, 2), slice(-3, None), slice(1, 100), slice(5, 1),
    slice(-100, 2), slice(2 ** 70, None), slice(-2 ** 70, 2 ** 70), slice(None, None, 0),
    slice(None, None, -1), slice(0, 4, 2 ** 70), slice(1.0, 2),
    (slice(None), 2), (1, slice(1, 4)), (slice(1, 3), -1, slice(None, None, 2)),
    (slice(None), slice(None)), (slice(None), slice(None), slice(None)), (0, slice(None), 9),
    (slice(None), slice(None), slice(None), 0),
    None, Ellipsis, (Ellipsis, 1), (None, 0), (0, None, 1), (), (True,), True, False,
    np.int64(2), (np.int64(1), 2), np.int32(-1), (1, np.int16(2)),
    [0, 2], (0, [1, 3]), "a", 1.5, (0, 1.5),
]


def _forms_on(t):
    """FORMS plus the tensor indices, made for t's device."""
    return FORMS + [pytensor.tensor([0, 3]), pytensor.tensor(2), pytensor.tensor([True, False,
                    True, False]), (pytensor.tensor(1), 2)]


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, (type(e), str(e))


def _storage(t):
    return t.untyped_storage().data_ptr()


def _same_view(got, want, base):
    """got is what want is: a view of base's storage (basic indices) or a copy (advanced)."""
    assert type(got) is type(want) is pytensor.Tensor
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
    assert (_storage(got) == _storage(base)) == (_storage(want) == _storage(base))
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("make", [lambda: source()[0], lambda: source()[0].permute(2, 0, 1),
                                  lambda: source()[0][1:, ::2]],
                         ids=["contiguous", "permuted", "sliced"])
def test_every_form_gives_the_python_paths_view_or_error(make):
    t = make()
    for index in _forms_on(t):
        got, got_err = _outcome(lambda: t[index])
        want, want_err = _outcome(lambda: _tensor._getitem(t, index))
        assert got_err == want_err, index
        sub, sub_err = _outcome(lambda: as_sub(t)[index])
        assert sub_err == want_err, index
        if want is not None:
            _same_view(got, want, t)
            _same_view(sub, want, t)


def test_zero_dim_tensors_refuse_every_index_but_the_empty_tuple_and_ellipsis():
    s = pytensor.tensor(2.5)
    for index in (0, -1, (0,), slice(None), (slice(None), 0), (0, 0)):
        _, err = _outcome(lambda: s[index])
        assert err == (IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                                   "Python to convert a 0-dim tensor to a number"), index
        assert err == _outcome(lambda: _tensor._getitem(s, index))[1]
    for index in ((), Ellipsis, None):
        _same_view(s[index], _tensor._getitem(s, index), s)
    assert s[()] is not s and s[()].item() == 2.5


def test_out_of_range_ints_raise_the_indexing_message():
    t, _ = source((3, 4))
    for index, dim, size in ((3, 0, 3), (-4, 0, 3), ((0, 4), 1, 4), ((2, -5), 1, 4),
                             ((slice(None), 4), 1, 4), ((1, slice(1, 3), 7), 1, 4)):
        with pytest.raises(IndexError) as info:
            t[index]
        if index != (1, slice(1, 3), 7):
            assert str(info.value) == f"index {index if type(index) is int else index[-1]} is " \
                                      f"out of bounds for dimension {dim} with size {size}"
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::0]


def test_views_share_storage_and_write_through():
    t, a = source((3, 4, 5))
    for index in (1, -1, (1, 2), (0, -1, 4), slice(1, 3), (slice(None), 2), (1, slice(0, 5, 2))):
        v = t[index]
        assert v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        v.fill_(-7.0)
        a[index] = -7.0
        assert t.tolist() == a.tolist()


def test_results_are_new_objects_with_their_own_handles():
    t, _ = source((3, 4))
    r0, r1 = t[0], t[0]
    assert r0 is not r1 and r0._h != r1._h and r0.data_ptr() == r1.data_ptr()
    assert t[0, 1].shape == () and t[0, 1].item() == 1.0


# ---------------------------------------------------------------- t[index] = value
SET_FORMS = [0, -1, 3, 4, (0, 1), (-1, -1, -1), (0, 6), (1, 2, 3, 4), slice(1, 3), (slice(None), 1),
             None, Ellipsis, (0, [1, 2]), np.int64(1), pytensor.tensor([0, 2]), (), 2 ** 70]
SET_VALUES = [2.5, -3, 2 ** 70, True, 1 + 2j, float("nan"), [1.0] * 6, np.float32(4.0)]


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.int64, pytensor.bool,
                                   pytensor.complex64], ids=str)
def test_setitem_writes_what_the_python_path_writes(dtype):
    for index in SET_FORMS:
        for value in SET_VALUES + [pytensor.tensor(9.0)]:
            got, want = source((4, 5, 6), dtype)[0], source((4, 5, 6), dtype)[0]

            def c_path():
                got[index] = value

            got_r, got_err = _outcome(c_path)
            want_r, want_err = _outcome(lambda: _indexing.setitem(want, index, value))
            assert got_err == want_err, (index, value)
            # assert_array_equal takes nan for nan
            np.testing.assert_array_equal(np.array(got.tolist()), np.array(want.tolist()),
                                          err_msg=repr((index, value)))


def test_setitem_on_a_view_writes_through_to_its_base():
    t, a = source((3, 4))
    row = t[1]
    row[2] = -5.0
    a[1, 2] = -5.0
    t[0, -1] = 8
    a[0, -1] = 8
    t.t()[2, 0] = 0.5
    a.T[2, 0] = 0.5
    assert t.tolist() == a.tolist()


def test_deleting_an_element_is_refused_as_before():
    t, _ = source((3,))
    with pytest.raises(AttributeError, match="__delitem__"):
        del t[0]


# ---------------------------------------------------------------- dispatch and subclasses
def test_an_int_index_stays_visible_to_dispatch():
    seen = []

    def select(x, dim, index):
        seen.append((dim, index))
        return pytensor.full((6,), 100.0)

    lib = L.Library("aten", "IMPL")
    lib.impl("select.int", select, "CPU")
    t, _ = source((4, 6))
    try:
        assert t[1].tolist() == [100.0] * 6 and t[-2].tolist() == [100.0] * 6
    finally:
        lib._destroy()
    assert seen == [(0, 1), (0, -2)]
    assert t[1].tolist() == [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]


def test_item_stays_visible_to_dispatch():
    lib = L.Library("aten", "IMPL")
    lib.impl("item", lambda x: 42.0, "CPU")
    t = pytensor.tensor([1.5])
    try:
        assert t.item() == 42.0
    finally:
        lib._destroy()
    assert t.item() == 1.5


def test_subclasses_take_the_python_path_and_their_overrides():
    class Mine(pytensor.Tensor):
        def __getitem__(self, index):
            return ("mine", super().__getitem__(index).tolist())

    m = as_sub(source((2, 3))[0], Mine)
    assert m[1] == ("mine", [3.0, 4.0, 5.0])
    assert m[0, 2] == ("mine", 2.0)
    assert pytensor.Tensor.__getitem__(m, (1, slice(0, 2))).tolist() == [3.0, 4.0]


# ---------------------------------------------------------------- against torch
@requires_torch
@pytest.mark.filterwarnings("ignore:Truncating the start/stop/step of slice")
def test_forms_match_torch_values_and_errors():
    t, a = source((4, 5, 6))
    tt = torch.tensor(a, dtype=torch.float32)
    def beyond_torch(x):  # torch refuses ints past int64 with its own overflow error
        return isinstance(x, (list, str, float)) or (type(x) is int and not -2 ** 63 <= x < 2 ** 63)

    for index in FORMS:
        entries = index if isinstance(index, tuple) else (index,)
        if any(beyond_torch(x) for x in entries):
            continue
        got, got_err = _outcome(lambda: t[index])
        want, want_err = _outcome(lambda: tt[index])
        assert (got_err is None) == (want_err is None), (index, got_err, want_err)
        if want is not None:
            assert tuple(got.shape) == tuple(want.shape) and got.tolist() == want.tolist(), index
        elif got_err[0] is IndexError and "out of bounds" in got_err[1]:
            assert got_err == want_err, index
