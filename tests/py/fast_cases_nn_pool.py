"""Thunk cases of the pooling family (tests/py/test_fast_paths.py reads CASES): the pooling
operators whose schemas the generated fast callers take, with valid arguments."""
import pytensor


def _t(*shape):
    n = int(pytensor.Size(shape).numel())
    return ((pytensor.arange(n, dtype=pytensor.float64) * 7 % 11) * 0.25).reshape(shape)


def _idx(*shape):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n) % 4).reshape(shape)


CASES = {
    "_adaptive_avg_pool2d": (lambda: (_t(1, 2, 5, 6), [2, 3]), ""),
    "_adaptive_avg_pool2d_backward": (lambda: (_t(1, 2, 2, 3), _t(1, 2, 5, 6)), ""),
    "_adaptive_avg_pool3d": (lambda: (_t(1, 2, 3, 5, 6), [2, 2, 3]), ""),
    "_adaptive_avg_pool3d_backward": (lambda: (_t(1, 2, 2, 2, 3), _t(1, 2, 3, 5, 6)), ""),
    "adaptive_avg_pool1d": (lambda: (_t(2, 3, 7), [3]), ""),
    "adaptive_avg_pool2d": (lambda: (_t(1, 2, 5, 6), [2, 3]), ""),
    "adaptive_avg_pool3d": (lambda: (_t(1, 2, 3, 5, 6), [1, 1, 1]), ""),
    "adaptive_max_pool3d": (lambda: (_t(1, 2, 3, 4, 4), [2, 2, 2]), ""),
    "adaptive_max_pool3d_backward": (lambda: (_t(1, 2, 2, 2, 2), _t(1, 2, 3, 4, 4),
                                              _idx(1, 2, 2, 2, 2)), ""),
    "fractional_max_pool2d": (lambda: (_t(1, 2, 6, 6), [2, 2], [3, 3], _t(1, 2, 2) * 0.3), ""),
    "fractional_max_pool2d_backward": (lambda: (_t(1, 2, 3, 3), _t(1, 2, 6, 6), [2, 2], [3, 3],
                                                _idx(1, 2, 3, 3)), ""),
    "fractional_max_pool3d": (lambda: (_t(1, 2, 4, 5, 6), [2, 2, 2], [2, 3, 3],
                                       _t(1, 2, 3) * 0.3), ""),
    "fractional_max_pool3d_backward": (lambda: (_t(1, 2, 2, 3, 3), _t(1, 2, 4, 5, 6), [2, 2, 2],
                                                [2, 3, 3], _idx(1, 2, 2, 3, 3)), ""),
    "adaptive_max_pool2d_backward": (lambda: (_t(1, 2, 2, 2), _t(1, 2, 4, 4), _idx(1, 2, 2, 2)),
                                     ""),
    "avg_pool2d_backward": (lambda: (_t(1, 2, 2, 3), _t(1, 2, 4, 6), [2, 2], [2, 2], [0, 0],
                                     False, True, None), ""),
    "avg_pool3d_backward": (lambda: (_t(1, 1, 1, 2, 3), _t(1, 1, 2, 4, 6), [2, 2, 2],
                                     [2, 2, 2], [0, 0, 0], False, True, None), ""),
    "max_pool2d_with_indices_backward": (lambda: (_t(1, 2, 2, 2), _t(1, 2, 4, 4), [2, 2], [2, 2],
                                                  [0, 0], [1, 1], False, _idx(1, 2, 2, 2)), ""),
    "max_pool3d_with_indices_backward": (lambda: (_t(1, 1, 1, 2, 2), _t(1, 1, 2, 4, 4),
                                                  [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1],
                                                  False, _idx(1, 1, 1, 2, 2)), ""),
    "max_unpool2d": (lambda: (_t(1, 2, 2, 2), _idx(1, 2, 2, 2), [4, 4]), ""),
    "max_unpool3d": (lambda: (_t(1, 1, 2, 2, 2), _idx(1, 1, 2, 2, 2), [4, 4, 4], [2, 2, 2],
                              [0, 0, 0]), ""),
}
