"""Tensor, Parameter and storage pickling (torch's storage + rebuild-function scheme) and
copy.deepcopy: shared storages stay shared and views stay views inside one pickle or one deepcopy,
while a lone deepcopy is independent of its source."""
from __future__ import annotations

import copy
import pickle

import pytest

import pytensor
from pytensor import _utils
from _torch_oracle import requires_torch, torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


def _ptr(t) -> int:
    return t.untyped_storage().data_ptr()


def _rt(obj, protocol=pickle.DEFAULT_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_round_trips(name):
    t = (pytensor.arange(6) % 3).to(getattr(pytensor, name)).reshape(2, 3)
    got = _rt(t)
    assert type(got) is pytensor.Tensor and got.dtype == t.dtype
    assert got.shape == t.shape and got.tolist() == t.tolist()
    assert _ptr(got) != _ptr(t)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_views_and_shared_storage_survive(protocol):
    base = pytensor.arange(12.)
    views = [base, base.view(3, 4)[1:], base.view(3, 4).t(), base[1::4]]
    got = _rt(views, protocol)
    assert len({_ptr(g) for g in got}) == 1
    for g, v in zip(got, views):
        assert g.stride() == v.stride() and g.storage_offset() == v.storage_offset()
        assert g.tolist() == v.tolist()
    got[0][5] = -1.0
    assert got[1][0, 1].item() == -1.0 and got[3][1].item() == -1.0


def test_separate_pickles_do_not_share():
    a = pytensor.arange(3.)
    x, y = _rt(a), _rt(a)
    assert _ptr(x) != _ptr(y)


def test_storage_object_is_one_per_c_storage():
    a = pytensor.arange(4.)
    assert _utils._typed_storage(a) is _utils._typed_storage(a[1:])


def test_requires_grad_attributes_and_subclasses():
    g = _rt(pytensor.ones(2, requires_grad=True))
    assert g.requires_grad and g.is_leaf
    t = pytensor.ones(2)
    t.tag = {"k": 1}
    assert _rt(t).tag == {"k": 1}

    got = _rt(pytensor.zeros(2).as_subclass(_Sub))
    assert type(got) is _Sub and got.tolist() == [0.0, 0.0]


class _Sub(pytensor.Tensor):
    pass


def test_parameter_stays_parameter():
    p = pytensor.nn.Parameter(pytensor.arange(3.))
    got = _rt(p)
    assert type(got) is pytensor.nn.Parameter and got.requires_grad and got.tolist() == [0, 1, 2]
    q = pytensor.nn.Parameter(pytensor.ones(1), requires_grad=False)
    q.note = "x"
    got = _rt(q)
    assert type(got) is pytensor.nn.Parameter and not got.requires_grad and got.note == "x"
    fn, args = p.__reduce_ex__(2)
    assert fn is _utils._rebuild_parameter and args[1] is True


def test_conjugate_view_pickles_its_values():
    t = pytensor.tensor([1 + 2j, 3 - 1j]).conj()
    assert _rt(t).tolist() == [1 - 2j, 3 + 1j]
    assert not _rt(t).is_conj()


def test_storages_pickle():
    s = pytensor.FloatStorage([1.5, 2.5])
    got = _rt(s)
    assert type(got) is pytensor.FloatStorage and got.tolist() == [1.5, 2.5]
    u = _rt(pytensor.UntypedStorage([1, 2]))
    assert type(u) is pytensor.UntypedStorage and u.tolist() == [1, 2]


def test_deepcopy_of_a_tensor_is_independent():
    a = pytensor.arange(4.)
    b = copy.deepcopy(a)
    b[0] = 9.0
    assert a[0].item() == 0.0 and b.tolist() == [9.0, 1.0, 2.0, 3.0]
    v = copy.deepcopy(a[1:])
    assert v.storage_offset() == 1 and v.tolist() == [1.0, 2.0, 3.0]


def test_deepcopy_of_containers_keeps_sharing():
    a = pytensor.arange(6.)
    x, y, z = copy.deepcopy([a, a.view(2, 3).t(), a])
    assert _ptr(x) == _ptr(y) != _ptr(a) and x is z
    assert y.stride() == (1, 3)
    x[1] = 7.0
    assert y[1, 0].item() == 7.0 and a[1].item() == 1.0


def test_deepcopy_grad_rules():
    leaf = pytensor.ones(2, requires_grad=True)
    c = copy.deepcopy(leaf)
    assert c.requires_grad and c.is_leaf
    with pytest.raises(RuntimeError, match="^Only Tensors created explicitly by the user "
                                           r"\(graph leaves\) support the deepcopy protocol"):
        copy.deepcopy(leaf * 2)
    p = pytensor.nn.Parameter(pytensor.ones(2))
    assert type(copy.deepcopy(p)) is pytensor.nn.Parameter


def test_meta_tensor_refuses():
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        pickle.dumps(pytensor.empty(2, device="meta"))


@requires_torch
def test_deepcopy_message_matches_torch():
    with pytest.raises(RuntimeError) as theirs:
        copy.deepcopy(torch.ones(1, requires_grad=True) * 2)
    with pytest.raises(RuntimeError) as ours:
        copy.deepcopy(pytensor.ones(1, requires_grad=True) * 2)
    assert str(ours.value) == str(theirs.value)


@requires_torch
def test_reduce_matches_torch_shape():
    """The rebuild arguments are torch's: (storage, offset, size, stride, requires_grad,
    hooks)."""
    t = torch.arange(6.).view(2, 3)[:, 1:]
    p = pytensor.arange(6.).view(2, 3)[:, 1:]
    (tf, targs), (pf, pargs) = t.__reduce_ex__(2), p.__reduce_ex__(2)
    assert tf.__name__ == pf.__name__ == "_rebuild_tensor_v2"
    assert targs[1:5] == pargs[1:5]
    assert dict(targs[5]) == dict(pargs[5]) == {}
