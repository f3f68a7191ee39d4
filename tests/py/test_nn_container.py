"""Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict: list and dict behaviour,
renumbering after deletion, state_dict keys, reprs and error messages, against torch where it
is installed."""
from __future__ import annotations

from collections import OrderedDict

import pytest

import pytensor
from pytensor import nn
from _torch_oracle import requires_torch, torch


def _ids(seq):
    return [id(m) for m in seq]


def test_sequential_indexing_and_editing():
    a, b, c = nn.Identity(), nn.Linear(1, 1), nn.Dropout()
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c
    assert isinstance(s[1:], nn.Sequential) and _ids(s[1:]) == _ids([b, c])
    s[1] = nn.Identity()
    assert list(s._modules) == ["0", "1", "2"] and s[1] is not b
    del s[0]
    assert list(s._modules) == ["0", "1"] and s[1] is c
    s.append(b)
    s.insert(0, a)
    assert _ids(s) == _ids([a, s[1], c, b])
    s.insert(-1, nn.Identity())
    assert s[3] is not b and s[4] is b
    assert s.pop(0) is a and len(s) == 4
    s.extend([nn.Identity()])
    del s[1:3]
    assert len(s) == 3 and list(s._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        s[5]
    with pytest.raises(IndexError, match="Index out of range: 9"):
        s.insert(9, nn.Identity())
    with pytest.raises(AssertionError, match="module should be of type"):
        s.insert(0, 3)


def test_sequential_ordered_dict_and_forward():
    s = nn.Sequential(OrderedDict([("first", nn.Linear(2, 3)), ("act", nn.Identity())]))
    assert list(s._modules) == ["first", "act"]
    assert tuple(s(pytensor.ones(4, 2)).shape) == (4, 3)
    assert list(s.state_dict()) == ["first.weight", "first.bias"]
    assert isinstance(s[0:1], nn.Sequential) and list(s[0:1]._modules) == ["first"]


def test_sequential_arithmetic():
    a, b = nn.Identity(), nn.Linear(1, 1)
    s = nn.Sequential(a, b)
    assert _ids(s + nn.Sequential(a)) == _ids([a, b, a])
    assert _ids(s * 2) == _ids([a, b, a, b]) and _ids(2 * s) == _ids([a, b, a, b])
    s2 = nn.Sequential(a)
    s2 += nn.Sequential(b)
    assert _ids(s2) == _ids([a, b])
    s2 *= 2
    assert _ids(s2) == _ids([a, b, a, b])
    assert len(list(s2.parameters())) == 2  # shared modules count once


def _sequential_errors(nn_):
    s = nn_.Sequential(nn_.Identity())
    return [lambda: s + 1, lambda: s * 1.5, lambda: s * 0, lambda: s.__iadd__(3),
            lambda: s.__imul__(-1), lambda: nn_.ModuleList().extend(3),
            lambda: nn_.ModuleList([nn_.Identity()])[3],
            lambda: nn_.ParameterList().extend(5), lambda: nn_.ParameterList()(1),
            lambda: nn_.ParameterDict()(1), lambda: nn_.ParameterDict()[3],
            lambda: nn_.ModuleDict().update(5), lambda: nn_.ModuleDict().update([("a",)]),
            lambda: nn_.ModuleDict().update([3]), lambda: nn_.ParameterDict().update(3),
            lambda: nn_.ParameterDict().update([("a", 1, 2)])]


@requires_torch
def test_container_errors_match_torch():
    for i, (a, b) in enumerate(zip(_sequential_errors(nn), _sequential_errors(torch.nn))):
        with pytest.raises(Exception) as ea:
            a()
        with pytest.raises(Exception) as eb:
            b()
        assert type(ea.value) is type(eb.value), i
        assert str(ea.value) == str(eb.value).replace("torch.", "pytensor."), i


def test_module_list():
    layers = [nn.Linear(2, 2) for _ in range(3)]
    ml = nn.ModuleList(layers)
    assert len(ml) == 3 and ml[-1] is layers[2] and isinstance(ml[:2], nn.ModuleList)
    ml.append(nn.Identity())
    ml.insert(1, nn.Dropout())
    assert isinstance(ml[1], nn.Dropout) and ml[2] is layers[1]
    del ml[0]
    assert list(ml._modules) == [str(i) for i in range(4)]
    ml += [nn.Identity()]
    both = ml + nn.ModuleList([nn.Identity()])
    assert len(both) == 6 and isinstance(both, nn.ModuleList)
    assert isinstance(ml.pop(-1), nn.Identity) and len(ml) == 4
    assert [n for n, _ in ml.named_parameters()] == ["1.weight", "1.bias", "2.weight",
                                                      "2.bias"]
    assert "0" not in dir(ml)
    with pytest.raises(NotImplementedError):
        ml(1)


def test_module_dict():
    md = nn.ModuleDict({"b": nn.Identity(), "a": nn.Linear(1, 1)})
    assert list(md) == ["b", "a"] and "a" in md and len(md) == 2
    md["c"] = nn.Dropout()
    md.update([("d", nn.Identity())])
    md.update(nn.ModuleDict({"e": nn.Identity()}))
    assert list(md.keys()) == ["b", "a", "c", "d", "e"]
    assert isinstance(md.pop("c"), nn.Dropout) and "c" not in md
    del md["d"]
    assert [k for k, _ in md.items()] == ["b", "a", "e"] and len(list(md.values())) == 3
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    pl = nn.ParameterList([pytensor.zeros(2), nn.Parameter(pytensor.ones(3)), "text"])
    assert isinstance(pl[0], nn.Parameter) and pl[2] == "text" and len(pl) == 3
    pl.append(pytensor.ones(1))
    pl[0] = pytensor.full((2,), 5.0)
    assert isinstance(pl[0], nn.Parameter) and pl[0].tolist() == [5.0, 5.0]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "3"]
    assert isinstance(pl[1:], nn.ParameterList) and len(pl[1:]) == 3
    assert list(pl.state_dict()) == ["0", "1", "3"]


def test_parameter_dict():
    pd = nn.ParameterDict({"b": pytensor.zeros(1), "a": pytensor.ones(2)})
    assert list(pd) == ["a", "b"]  # a plain dict is taken in sorted order, as torch's
    pd2 = nn.ParameterDict(OrderedDict([("b", pytensor.zeros(1)), ("a", pytensor.ones(2))]))
    assert list(pd2) == ["b", "a"]
    pd["c"] = "note"
    assert pd["c"] == "note" and isinstance(pd["a"], nn.Parameter)
    assert pd.get("zzz", 3) == 3 and pd.setdefault("d", pytensor.ones(1)) is pd["d"]
    k, v = pd.popitem()
    assert k == "d" and isinstance(v, nn.Parameter)
    assert list(reversed(pd)) == ["c", "b", "a"]
    merged = pd | nn.ParameterDict({"z": pytensor.zeros(1)})
    assert list(merged) == ["a", "b", "c", "z"]
    assert list(pd.fromkeys(["x", "y"], pytensor.zeros(1))) == ["x", "y"]
    assert list(pd.copy()) == ["a", "b", "c"]
    pd.clear()
    assert len(pd) == 0


def _reprs(nn_, lib):
    return [
        nn_.Sequential(nn_.Linear(2, 3), nn_.Sequential(nn_.Identity()), nn_.Dropout()),
        nn_.Sequential(),
        nn_.ModuleList([nn_.Linear(1, 1), nn_.Linear(1, 1), nn_.Linear(1, 2),
                        nn_.Linear(1, 1), nn_.Linear(1, 1), nn_.Linear(1, 1)]),
        nn_.ModuleList(),
        nn_.ModuleDict({"x": nn_.Identity(), "y": nn_.ModuleList([nn_.Identity()] * 2)}),
        nn_.ParameterList([lib.zeros(2, 3), lib.ones(1, dtype=lib.float64), "s"]),
        nn_.ParameterDict({"w": lib.zeros(4), "q": lib.zeros(1, dtype=lib.float64)}),
        nn_.ParameterDict({"w": lib.zeros(4), "s": 3}),
    ]


@requires_torch
def test_reprs_match_torch():
    for ours, theirs in zip(_reprs(nn, pytensor), _reprs(torch.nn, torch)):
        assert repr(ours) == repr(theirs).replace("torch.", "pytensor.")


def test_repr_without_torch():
    assert repr(nn.ModuleList([nn.Identity()] * 3)) == "ModuleList(\n  (0-2): 3 x Identity()\n)"
    assert repr(nn.ParameterList([pytensor.zeros(2, 3)])) == (
        "ParameterList(  (0): Parameter containing: [pytensor.float32 of size 2x3])")
