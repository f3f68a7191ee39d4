"""The top-level questions about tensors and dtypes (is_complex, is_floating_point, is_signed,
is_nonzero, is_same_size, numel, result_type) and unravel_index, against the dtype table, exact
arithmetic (np.unravel_index) and torch (answers, promoted dtypes, error types and messages)."""
import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_predicates(name):
    dt = getattr(pt, name)
    x = pt.zeros(2, dtype=dt)
    assert pt.is_complex(x) is dt.is_complex
    assert pt.is_floating_point(x) is dt.is_floating_point
    assert pt.is_signed(x) is x.is_signed() is (name not in ("bool", "uint8"))
    assert pt.numel(pt.zeros(2, 3, dtype=dt)) == 6 and pt.numel(pt.tensor(1, dtype=dt)) == 1


def test_is_nonzero_and_is_same_size():
    assert pt.is_nonzero(pt.tensor([0.5])) and not pt.tensor(0).is_nonzero()
    assert pt.tensor([[float("nan")]]).is_nonzero() and pt.tensor(1j).is_nonzero()
    assert not pt.tensor([False]).is_nonzero()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is "
                       "ambiguous"):
        pt.is_nonzero(pt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        pt.is_nonzero(pt.tensor([]))
    x = pt.ones(2, 3)
    assert pt.is_same_size(x, pt.zeros(2, 3, dtype=pt.int8)) and not x.is_same_size(x.t())
    assert pt.is_same_size(pt.tensor(1), pt.tensor(2.0)) and not pt.is_same_size(pt.tensor(1), x)


def test_result_type_rules():
    i8, u8 = pt.tensor([1], dtype=pt.int8), pt.tensor([1], dtype=pt.uint8)
    assert pt.result_type(i8, u8) == pt.int16
    assert pt.result_type(u8, pt.tensor(3, dtype=pt.int8)) == pt.uint8  # 0-d keeps the category
    assert pt.result_type(i8, 2) == pt.int8 and pt.result_type(i8, 2.5) == pt.float32
    assert pt.result_type(2, pt.ones(1, dtype=pt.float16)) == pt.float16
    assert pt.result_type(1, 2.5) == pt.float32 and pt.result_type(True, 2) == pt.int64
    assert pt.result_type(1j, pt.ones(1)) == pt.complex64
    assert pt.result_type(pt.tensor([True]), False) == pt.bool


def test_unravel_index():
    idx = np.array([0, 5, 11, 23, -1, -24])
    for shape in [(2, 3, 4), (24,), (4, 6)]:
        got = pt.unravel_index(pt.tensor(idx), shape)
        want = np.unravel_index(idx % 24, shape)
        assert len(got) == len(shape)
        for g, w in zip(got, want):
            assert g.dtype == pt.int64 and g.tolist() == w.tolist()
    assert [t.tolist() for t in pt.unravel_index(pt.tensor([[1, 5]]), 5)] == [[[1, 0]]]
    assert pt.unravel_index(pt.tensor(3), ()) == ()
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype, but got "
                       "pytensor.float32"):
        pt.unravel_index(pt.tensor(1.0), (3, 3))
    with pytest.raises(ValueError, match=r"'shape' cannot have negative values, but got \(3, -3\)"):
        pt.unravel_index(pt.tensor(1), (3, -3))
    with pytest.raises(TypeError, match="expected 'shape' sequence to only contain ints"):
        pt.unravel_index(pt.tensor(1), "a")


@requires_torch
def test_queries_match_torch():
    values = [1, 2.5, True, 1j]
    for a in NAMES:
        ta, pa = torch.ones(2, dtype=getattr(torch, a)), pt.ones(2, dtype=getattr(pt, a))
        assert pt.is_signed(pa) == torch.is_signed(ta)
        assert pt.is_complex(pa) == torch.is_complex(ta)
        assert pt.is_floating_point(pa) == torch.is_floating_point(ta)
        for b in NAMES:
            for zero_dim in (False, True):
                tb = torch.ones((), dtype=getattr(torch, b)) if zero_dim else \
                    torch.ones(2, dtype=getattr(torch, b))
                pb = pt.ones((), dtype=getattr(pt, b)) if zero_dim else \
                    pt.ones(2, dtype=getattr(pt, b))
                want = str(torch.result_type(ta, tb)).split(".")[1]
                if want == "complex32":  # pytensor has no complex32: the core promotes further
                    continue
                assert str(pt.result_type(pa, pb)).split(".")[1] == want, (a, b, zero_dim)
        for v in values:
            want = str(torch.result_type(ta, v)).split(".")[1]
            if want == "complex32":
                continue
            assert str(pt.result_type(pa, v)).split(".")[1] == want, (a, v)
            assert str(pt.result_type(v, pa)).split(".")[1] == want, (a, v)
    for v in values:
        for w in values:
            assert str(pt.result_type(v, w)).split(".")[1] == \
                str(torch.result_type(v, w)).split(".")[1], (v, w)
    idx = torch.tensor([[3, -2], [7, 0]])
    got, want = pt.unravel_index(pt.tensor(idx.tolist()), (2, 4)), torch.unravel_index(idx, (2, 4))
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
