"""Cases for the C fast paths of the convolution operators (tests/py/test_fast_paths.py runs them):
ident -> (argument maker, mode), as CASES there."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape) / 10


CASES = {
    "convolution": (lambda: (_t(1, 2, 5, 5), _t(3, 2, 3, 3), _t(3), [1, 1], [1, 1], [1, 1], False,
                             [0, 0], 1), ""),
    "_convolution": (lambda: (_t(1, 2, 5, 5), _t(2, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], True,
                              [1, 1], 1, False, False, True, True), ""),
    "conv_tbc": (lambda: (_t(5, 2, 3), _t(3, 3, 4), _t(4)), ""),
    "conv_tbc_backward": (lambda: (_t(5, 2, 4), _t(5, 2, 3), _t(3, 3, 4), _t(4), 1), ""),
    "im2col": (lambda: (_t(1, 2, 4, 4), [2, 2], [1, 1], [0, 0], [1, 1]), ""),
    "col2im": (lambda: (_t(1, 8, 9), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]), ""),
}
