"""Thunk cases for the order statistics and NaN-aware reductions (see CASES in
test_fast_paths.py): fresh arguments for each call, and the mode ("" here: new results, no
randomness)."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    n = int(pytensor.Size(shape).numel())
    # a scrambled sequence with repeats, so that selections and sorts have work to do
    return pytensor.tensor([(i * 7) % (n // 2 + 3) for i in range(n)], dtype=dtype).reshape(shape)


def _nan(*shape):
    x = _t(*shape)
    x.view(-1)[::3] = float("nan")
    return x


CASES = {
    "median": (lambda: (_t(3, 5),), ""),
    "nanmedian": (lambda: (_nan(3, 5),), ""),
    "msort": (lambda: (_t(4, 3, dtype=pytensor.int32),), ""),
    "logcumsumexp": (lambda: (_t(3, 4), 1), ""),
    "nansum": (lambda: (_nan(3, 4),), ""),
    "nanmean": (lambda: (_nan(3, 4),), ""),
    "count_nonzero_dim_IntList": (lambda: (_t(3, 4), [0]), ""),
    "count_nonzero": (lambda: (_t(3, 4),), ""),
}

_SEQ = lambda: pytensor.tensor([1.0, 2.0, 2.0, 3.0, 5.0])  # noqa: E731

CASES.update({
    "bincount": (lambda: (pytensor.tensor([1, 3, 3, 0]),), ""),
    "histc": (lambda: (_t(3, 4),), ""),
    "searchsorted_Tensor": (lambda: (_SEQ(), pytensor.tensor([2.0, 0.0, 6.0])), ""),
    "searchsorted_Scalar": (lambda: (_SEQ(), 2.5), ""),
    "bucketize_Tensor": (lambda: (pytensor.tensor([[2.0, 0.0], [6.0, 1.0]]), _SEQ()), ""),
    "bucketize_Scalar": (lambda: (3, _SEQ()), ""),
})

CASES.update({
    "diff": (lambda: (_t(3, 5),), ""),
    "trapezoid_x": (lambda: (_t(3, 4), pytensor.tensor([0.0, 1.0, 2.5, 4.0])), ""),
    "trapezoid_dx": (lambda: (_t(3, 4),), ""),
    "trapz_x": (lambda: (_t(2, 4), pytensor.tensor([0.0, 0.5, 2.5, 4.0])), ""),
    "trapz_dx": (lambda: (_t(2, 5),), ""),
    "cumulative_trapezoid_x": (lambda: (_t(3, 4), pytensor.tensor([0.0, 1.0, 2.5, 4.0])), ""),
    "cumulative_trapezoid_dx": (lambda: (_t(3, 4),), ""),
    "cov": (lambda: (_t(3, 6),), ""),
    "corrcoef": (lambda: (_t(3, 6) * _t(3, 6),), ""),
    "dist": (lambda: (_t(3, 4), _t(4) * 0.5), ""),
})

_IX = lambda: pytensor.tensor([2, 0])  # noqa: E731

CASES.update({
    "index_add": (lambda: (_t(3, 4), 0, _IX(), _t(2, 4)), ""),
    "index_add_": (lambda: (_t(3, 4), 1, _IX(), _t(3, 2)), "inplace"),
    "index_copy": (lambda: (_t(3, 4), 0, _IX(), _t(2, 4) + 10), ""),
    "index_copy_": (lambda: (_t(3, 4), 1, _IX(), _t(3, 2) - 5), "inplace"),
    "index_fill_int_Scalar": (lambda: (_t(3, 4), 0, _IX(), -1.5), ""),
    "index_fill__int_Scalar": (lambda: (_t(3, 4), 1, _IX(), 7), "inplace"),
    "index_fill_int_Tensor": (lambda: (_t(3, 4), 0, _IX(), pytensor.tensor(2.5)), ""),
    "index_fill__int_Tensor": (lambda: (_t(3, 4), 1, _IX(), pytensor.tensor(-3.0)), "inplace"),
    "put": (lambda: (_t(3, 4), pytensor.tensor([0, 11, -1]), pytensor.tensor([1.0, 2.0, 3.0])), ""),
    "put_": (lambda: (_t(2, 3), pytensor.tensor([5, 0]), pytensor.tensor([9.0, 8.0])), "inplace"),
})
