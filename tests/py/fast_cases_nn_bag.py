"""Thunk cases of the embedding_bag, bilinear and _trilinear operators
(tests/py/test_fast_paths.py reads CASES), with valid arguments."""
import pytensor


def _t(*shape, shift=0.0):
    n = int(pytensor.Size(shape).numel())
    return ((pytensor.arange(n, dtype=pytensor.float64) * 7 % 11 - shift) * 0.25).reshape(shape)


def _idx(*values):
    return pytensor.tensor(list(values))


def _bag():
    return (_t(6, 3), _idx(1, 2, 5, 1, 0), _idx(0, 2, 2))


def _aux():
    """(offset2bag, bag_size, max_indices) of _bag() in mean mode."""
    return (_idx(0, 0, 2, 2, 2), _idx(2, 0, 3), _idx(2, 0, 3))


CASES = {
    "_embedding_bag_forward_only": (lambda: _bag() + (False, 2), ""),
    "embedding_bag": (lambda: _bag() + (False, 1), ""),
    "embedding_bag_padding_idx": (lambda: _bag() + (False, 0, False, None, False, -1), ""),
    "_embedding_bag": (lambda: _bag() + (False, 0, False, _t(5, shift=2.0)), ""),
    "_embedding_bag_backward": (lambda: (_t(3, 3), _idx(1, 2, 5, 1, 0), _idx(0, 2, 2)) + _aux()
                                + (6, False, 1, False, None), ""),
    "_embedding_bag_dense_backward": (lambda: (_t(3, 3), _idx(1, 2, 5, 1, 0)) + _aux()
                                      + (6, True, 1, None), ""),
    "_embedding_bag_per_sample_weights_backward": (
        lambda: (_t(3, 3), _t(6, 3), _idx(1, 2, 5, 1, 0), _idx(0, 2, 2), _aux()[0], 0), ""),
    "bilinear": (lambda: (_t(2, 3), _t(2, 4), _t(5, 3, 4)), ""),
    "_trilinear": (lambda: (_t(2, 3), _t(5, 3, 4), _t(2, 4), [1, 3], [0], [1, 2], [2, 3]), ""),
}
