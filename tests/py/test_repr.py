"""repr/str in torch's format: expected strings written out (taken from torch), and torch itself
as an oracle over many values when it is installed."""

import re

import numpy as np
import pytest

import pytensor

T = pytensor.tensor
EXPECTED = [
    (lambda: T([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: T([1.5, 2, 3e-5]), "tensor([1.5000e+00, 2.0000e+00, 3.0000e-05])"),
    (lambda: T([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: T([True, False]), "tensor([ True, False])"),
    (lambda: T([1 + 2j, -3.5 - 1j]), "tensor([ 1.0000+2.j, -3.5000-1.j])"),
    (lambda: T(3.5), "tensor(3.5000)"),
    (lambda: T(7), "tensor(7)"),
    (lambda: T([], dtype=pytensor.int64), "tensor([], dtype=pytensor.int64)"),
    (lambda: T([]), "tensor([])"),
    (lambda: pytensor.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: pytensor.zeros(2, 0, dtype=pytensor.bool),
     "tensor([], size=(2, 0), dtype=pytensor.bool)"),
    (lambda: T([1, 2], dtype=pytensor.int32), "tensor([1, 2], dtype=pytensor.int32)"),
    (lambda: T([float("nan"), 1.0, float("inf")]), "tensor([nan, 1., inf])"),
    (lambda: T(list(range(2000))), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (lambda: T(np.arange(24.0).reshape(2, 3, 4), dtype=pytensor.float32),
     "tensor([[[ 0.,  1.,  2.,  3.],\n         [ 4.,  5.,  6.,  7.],\n         [ 8.,  9., 10., 11.]],"
     "\n\n        [[12., 13., 14., 15.],\n         [16., 17., 18., 19.],\n"
     "         [20., 21., 22., 23.]]])"),
    (lambda: T([-1, 10, -100]), "tensor([  -1,   10, -100])"),
    (lambda: T([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: T([0.1, 0.25], dtype=pytensor.float64), "tensor([0.1000, 0.2500], dtype=pytensor.float64)"),
    (lambda: T(np.arange(3000.0).reshape(30, 100), dtype=pytensor.float32),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,\n"
     "         9.9000e+01],\n"
     "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,\n"
     "         1.9900e+02],\n"
     "        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,\n"
     "         2.9900e+02],\n"
     "        ...,\n"
     "        [2.7000e+03, 2.7010e+03, 2.7020e+03,  ..., 2.7970e+03, 2.7980e+03,\n"
     "         2.7990e+03],\n"
     "        [2.8000e+03, 2.8010e+03, 2.8020e+03,  ..., 2.8970e+03, 2.8980e+03,\n"
     "         2.8990e+03],\n"
     "        [2.9000e+03, 2.9010e+03, 2.9020e+03,  ..., 2.9970e+03, 2.9980e+03,\n"
     "         2.9990e+03]])"),
    (lambda: T([[0.5] * 30]),
     "tensor([[0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000,\n"
     "         0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000,\n"
     "         0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000,\n"
     "         0.5000, 0.5000, 0.5000]])"),
    (lambda: T(complex(1, -0.0)), "tensor(1.-0.j)"),
    (lambda: T([1, 2], dtype=pytensor.float16), "tensor([1., 2.], dtype=pytensor.float16)"),
    (lambda: T([1.5], dtype=pytensor.bfloat16), "tensor([1.5000], dtype=pytensor.bfloat16)"),
]


@pytest.mark.parametrize("make,expected", EXPECTED, ids=[e[1][:40] for e in EXPECTED])
def test_repr_matches_torch_format(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_repr_of_non_contiguous_views_reads_the_view():
    t = T(np.arange(6).reshape(2, 3)).t()
    assert repr(t) == "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])"
    assert repr(T([1.0, 2.0, 3.0, 4.0])[::2]) == "tensor([1., 3.])"


def test_repr_of_a_subclass_uses_its_name():
    assert repr(pytensor.zeros(1)).startswith("tensor(")


@pytest.fixture
def restore_printoptions():
    yield
    pytensor.set_printoptions(profile="default")


def test_set_printoptions_precision_threshold_edgeitems_linewidth(restore_printoptions):
    pytensor.set_printoptions(precision=2)
    assert repr(T([1.125, 2.5])) == "tensor([1.12, 2.50])"
    pytensor.set_printoptions(profile="default", threshold=5, edgeitems=1)
    assert repr(T(list(range(10)))) == "tensor([0,  ..., 9])"
    pytensor.set_printoptions(profile="default", sci_mode=True)
    assert repr(T([1.5])) == "tensor([1.5000e+00])"
    pytensor.set_printoptions(profile="default", linewidth=20)
    assert repr(T(list(range(8)))) == "tensor([0, 1, 2, 3,\n        4, 5, 6, 7])"
    pytensor.set_printoptions(profile="default", edgeitems=0, threshold=3)
    assert repr(T(list(range(10)))) == "tensor([...], size=(10,))"


def test_set_printoptions_rejects_unknown_profiles():
    with pytest.raises(ValueError, match="profile"):
        pytensor.set_printoptions(profile="tiny")


def _same_up_to_suffix_wrap(got: str, want: str) -> bool:
    """"pytensor." is longer than "torch.", which can move a dtype suffix to its own line."""
    def norm(s):
        return re.sub(r",\s+(dtype|size)=", r", \1=", s.replace("pytensor.", "torch."))

    return norm(got) == norm(want)


def _torch_cases():
    rng = np.random.default_rng(1234)
    cases = [[1.5, 2, 3e-5], [0.0, 0.0], [float("nan"), -float("inf")], [-0.0, 1.0],
             [123456789, -5], [1e-10, 2e-10], [1.0, 1e9], list(range(40)),
             (np.arange(1200) / 7).tolist(), np.arange(5000).reshape(10, 20, 25).tolist(),
             [complex(1, -0.0)], [1 + 1j, 2 + 0j], (np.arange(1500) * (1 + 2j)).tolist()]
    for _ in range(40):
        shape = tuple(int(x) for x in rng.integers(1, 6, size=rng.integers(0, 4)))
        a = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 10))
        cases.append((np.round(a) if rng.random() < 0.3 else a).astype(np.float32))
    return cases


@pytest.mark.parametrize("data", _torch_cases(), ids=lambda d: str(np.shape(d)))
def test_repr_agrees_with_torch(data):
    torch = pytest.importorskip("torch")
    for dt in (None, "float64", "int32", "bool", "complex64", "float16"):
        try:
            want = repr(torch.tensor(data, dtype=None if dt is None else getattr(torch, dt)))
        except (RuntimeError, TypeError, ValueError):
            continue
        got = repr(T(data, dtype=None if dt is None else getattr(pytensor, dt)))
        assert _same_up_to_suffix_wrap(got, want)


@pytest.mark.parametrize("opts", [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False),
                                  dict(threshold=5), dict(edgeitems=1, threshold=5),
                                  dict(linewidth=20), dict(profile="short"),
                                  dict(edgeitems=0, threshold=3)], ids=str)
def test_printoptions_agree_with_torch(opts, restore_printoptions):
    torch = pytest.importorskip("torch")
    try:
        torch.set_printoptions(**opts)
        pytensor.set_printoptions(**opts)
        for data in ([1.5, 2.25, 3.125, 4.0, 5.5, 6.0, 7.0], [[1, 2, 3, 4], [5, 6, 7, 8]],
                     list(range(20)), [[0.5] * 8] * 8, [1e-6, 1.0]):
            assert repr(T(data)) == repr(torch.tensor(data)).replace("torch.", "pytensor.")
    finally:
        torch.set_printoptions(profile="default")
