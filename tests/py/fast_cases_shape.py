"""Thunk cases of the shape and indexing operators (csrc/ops/shape.yaml, csrc/ops/indexing.yaml)
for tests/py/test_fast_paths.py: ident -> (argument maker, mode), as its CASES."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


def _mask(*rows):
    return pytensor.tensor(list(rows), dtype=pytensor.bool)


def _index(*rows):
    return pytensor.tensor(list(rows), dtype=pytensor.int64)


CASES = {
    "gather": (lambda: (_t(3, 4), 1, _index([0, 3], [2, 2], [1, 0])), ""),
    "scatter_src": (lambda: (_t(3, 4), 0, _index([2, 0, 1]), _t(1, 3) + 50), ""),
    "scatter__src": (lambda: (_t(3, 4), 0, _index([2, 0, 1]), _t(1, 3) + 50), "inplace"),
    "scatter_add": (lambda: (_t(3, 4), 1, _index([0, 0], [3, 3]), _t(2, 2)), ""),
    "scatter_add_": (lambda: (_t(3, 4), 1, _index([0, 0], [3, 3]), _t(2, 2)), "inplace"),
    "index_select": (lambda: (_t(3, 4), 1, _index(3, 0, 3)), ""),
    "take": (lambda: (_t(3, 4), _index([11, -1], [0, 5])), ""),
    "masked_fill_Tensor": (lambda: (_t(2, 3), _mask(False, True, True), pytensor.tensor(-1.0)), ""),
    "masked_fill__Tensor": (lambda: (_t(2, 3), _mask(True, False, True), pytensor.tensor(-1.0)),
                            "inplace"),
    "masked_select": (lambda: (_t(2, 3), _mask([False], [True])), ""),
    "nonzero": (lambda: (pytensor.tensor([[0, 2, 0], [1, 0, 3]]),), ""),
    "argwhere": (lambda: (pytensor.tensor([[0, 2, 0], [1, 0, 3]]),), ""),
    "diagonal": (lambda: (_t(2, 3, 4),), ""),
    "tril": (lambda: (_t(3, 4),), ""),
    "tril_": (lambda: (_t(3, 4),), "inplace"),
    "triu": (lambda: (_t(2, 3, 4),), ""),
    "triu_": (lambda: (_t(2, 3, 4),), "inplace"),
}

# The int-list operators: t.view(2, 3), t.permute(1, 0), ... (the int-list sugar and tuples).
CASES.update({
    "view": (lambda: (_t(2, 3), (3, -1)), ""),
    "reshape": (lambda: (_t(2, 3).t(), [6]), ""),
    "_unsafe_view": (lambda: (_t(2, 3), (3, 2)), ""),
    "permute": (lambda: (_t(2, 3, 4), (2, 0, 1)), ""),
    "expand": (lambda: (_t(3, 1), (2, 3, 4)), ""),
    "squeeze_dims": (lambda: (_t(1, 3, 1), (0, 2)), ""),
    "as_strided": (lambda: (_t(3, 4), (2, 2), (1, 4)), ""),
    "flip": (lambda: (_t(2, 3), (0, 1)), ""),
    "roll": (lambda: (_t(2, 3), 1), ""),
    "repeat": (lambda: (_t(2, 3), (2, 1, 2)), ""),
    "tile": (lambda: (_t(2, 3), (2,)), ""),
    "resize_": (lambda: (_t(2, 3), (3, 2)), "inplace"),
    "masked_fill_Scalar": (lambda: (_t(2, 3), _mask(False, True, True), 2.5), ""),
    "masked_fill__Scalar": (lambda: (_t(2, 3), _mask(True, False, True), -1), "inplace"),
    "scatter_value": (lambda: (_t(3, 4), 0, _index([2, 0, 1]), 9.0), ""),
    "scatter__value": (lambda: (_t(3, 4), 1, _index([3], [0], [1]), -2), "inplace"),
    "fill__Scalar": (lambda: (_t(2, 3), 4.5), "inplace"),
})
