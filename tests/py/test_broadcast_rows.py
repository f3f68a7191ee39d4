"""Rows whose inputs are all broadcast along them (stride 0): an expanded tensor combined with a
number or with another expanded tensor, a unary function of one, and copies out of one (the
gradients a reduction's backward spreads back over the reduced dims). The loops compute one value
per row and store it along the row (csrc/kernels/cpu/elementwise_loops.h, binary_kernels.c;
copy.c's fill_run); checked against NumPy over every dtype, row lengths around the vector widths,
casts and strided destinations."""
import numpy as np
import pytest

import pytensor

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
ROWS = [1, 2, 7, 16, 49, 65, 300]


def _np_dtype(name):
    return np.float32 if name == "bfloat16" else np.dtype(name)


def _column(dtype, n):
    """An (n, 1) tensor of distinct values and its NumPy float64/complex128 twin."""
    base = np.arange(n) % 5 + 1
    if dtype == "bool":
        ref = (base % 2).astype(bool)
    elif dtype.startswith("complex"):
        ref = (base + 0.5j * base).astype(dtype)
    else:
        ref = base.astype(_np_dtype(dtype))
    t = pytensor.from_numpy(np.ascontiguousarray(ref.reshape(n, 1)))
    if dtype == "bfloat16":
        t = t.to(pytensor.bfloat16)
    return t, ref.reshape(n, 1)


def _values(t):
    if t.dtype == pytensor.bfloat16:
        t = t.float()
    return t.numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", ROWS)
def test_copy_of_an_expanded_column(dtype, m):
    col, ref = _column(dtype, 6)
    e = col.expand(6, m)
    want = np.broadcast_to(ref, (6, m))
    np.testing.assert_array_equal(_values(e.contiguous()), want)
    np.testing.assert_array_equal(_values(e.clone()), want)
    # a cast on the way: one element converted per row
    np.testing.assert_array_equal(e.to(pytensor.float64).numpy(), want.astype(np.complex128).real
                                  if dtype.startswith("complex") else want.astype(np.float64))
    # into a transposed destination: the rows there are strided, the general loop's
    dst = pytensor.zeros(m, 6, dtype=col.dtype).t()
    dst.copy_(e)
    np.testing.assert_array_equal(_values(dst), want)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float16", "bfloat16", "float32",
                                   "float64", "complex64", "complex128"])
@pytest.mark.parametrize("m", ROWS)
def test_expanded_column_with_a_number_and_with_another_expanded_column(dtype, m):
    col, ref = _column(dtype, 5)
    other, oref = _column(dtype, 5)
    other = other * 2 + 1
    oref = oref * 2 + 1
    e, f = col.expand(5, m), other.expand(5, m)
    tol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6
    for got, want in [(e * 3, ref * 3), (e + 2, ref + 2), (e - f, ref - oref), (e * f, ref * oref),
                      (2 - e, 2 - ref)]:
        np.testing.assert_allclose(_values(got), np.broadcast_to(want, (5, m)), rtol=tol)
    if not dtype.startswith("int"):
        np.testing.assert_allclose(_values(e / 7), np.broadcast_to(ref / 7, (5, m)), rtol=tol)
        np.testing.assert_allclose(_values(e / f), np.broadcast_to(ref / oref, (5, m)), rtol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m", ROWS)
def test_unary_function_of_an_expanded_column(dtype, m):
    col, ref = _column(dtype, 4)
    e = col.expand(4, m)
    np.testing.assert_allclose(e.exp().numpy(), np.broadcast_to(np.exp(ref), (4, m)), rtol=1e-6)
    np.testing.assert_array_equal((-e).numpy(), np.broadcast_to(-ref, (4, m)))


def test_integer_division_by_zero_in_a_broadcast_row_still_raises():
    e = pytensor.tensor([[3], [4]]).expand(2, 40)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        e // pytensor.tensor([[0], [1]]).expand(2, 40)


def test_mean_backward_spreads_the_gradient():
    x = pytensor.from_numpy(np.arange(2 * 3 * 7 * 7, dtype=np.float32).reshape(2, 3, 7, 7))
    x.requires_grad_()
    g = np.arange(6, dtype=np.float32).reshape(2, 3, 1, 1) + 1
    x.mean((-1, -2), keepdim=True).backward(pytensor.from_numpy(g))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(g / 49, (2, 3, 7, 7)), rtol=1e-7)
