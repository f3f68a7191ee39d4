"""fill_ and zero_ on contiguous runs (filled 64 bytes at a time from a repeated pattern) against
NumPy: every item size, lengths around the 64-byte block and its multiples, views whose rows are
contiguous runs inside a larger tensor, and values whose bytes are not all zero (-0.0, nan)."""
import numpy as np
import pytest

import pytensor as pt

DTYPES = ["bool", "int8", "int16", "float16", "int32", "float32", "int64", "float64",
          "complex64", "complex128"]
LENGTHS = [1, 3, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4099]


def _value(dtype):
    if dtype == "bool":
        return True
    if dtype.startswith("complex"):
        return complex(1.5, -2.25)
    if dtype.startswith("float"):
        return -2.5
    return -7


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_fill_contiguous_runs(dtype, n):
    t = pt.from_numpy(np.arange(n).astype(dtype))
    t.fill_(_value(dtype))
    np.testing.assert_array_equal(t.numpy(), np.full(n, _value(dtype), dtype=dtype))
    t.zero_()
    np.testing.assert_array_equal(t.numpy(), np.zeros(n, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "complex128"])
def test_fill_inner_runs_leave_the_rest(dtype):
    base = np.arange(7 * 70).astype(dtype).reshape(7, 70)
    t = pt.from_numpy(base.copy())
    t[1:6, 3:68].fill_(_value(dtype))
    want = base.copy()
    want[1:6, 3:68] = _value(dtype)
    np.testing.assert_array_equal(t.numpy(), want)


@pytest.mark.parametrize("value", [-0.0, float("nan"), float("inf")])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_fill_special_values_bit_exact(value, dtype):
    t = pt.empty(131, dtype=getattr(pt, dtype)).fill_(value)
    got = t.numpy()
    want = np.full(131, value, dtype=dtype)
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
