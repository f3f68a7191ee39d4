"""Thunk cases of the linear, normalization, embedding and attention operators
(tests/py/test_fast_paths.py reads CASES), with valid arguments."""
import pytensor


def _t(*shape, shift=0.0):
    n = int(pytensor.Size(shape).numel())
    return ((pytensor.arange(n, dtype=pytensor.float64) * 7 % 11 - shift) * 0.25).reshape(shape)


def _ones(n):
    return pytensor.ones(n, dtype=pytensor.float64)


def _idx(*shape, high=5):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n) * 3 % high).reshape(shape)


CASES = {
    "linear": (lambda: (_t(2, 3), _t(4, 3)), ""),
    "batch_norm": (lambda: (_t(2, 3, 4), _t(3), _t(3), _t(3), _ones(3), False, 0.1, 1e-5, True),
                   ""),
    "instance_norm": (lambda: (_t(2, 3, 4), _t(3), _t(3), None, None, True, 0.1, 1e-5, False),
                      ""),
    "layer_norm": (lambda: (_t(2, 3), [3]), ""),
    "rms_norm": (lambda: (_t(2, 3), [3]), ""),
    "group_norm": (lambda: (_t(2, 4, 3), 2), ""),
    "embedding": (lambda: (_t(5, 3), _idx(2, 3)), ""),
    "embedding_dense_backward": (lambda: (_t(2, 3, 3), _idx(2, 3), 5, -1, False), ""),
    "embedding_renorm_": (lambda: (_t(5, 3), _idx(4), 1.0, 2.0), "inplace"),
    "one_hot": (lambda: (_idx(4),), ""),
    "_safe_softmax": (lambda: (_t(2, 3), 1), ""),
    "scaled_dot_product_attention": (lambda: (_t(1, 2, 3, 4), _t(1, 2, 5, 4, shift=1.0),
                                              _t(1, 2, 5, 4, shift=2.0)), ""),
}
