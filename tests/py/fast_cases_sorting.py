"""Thunk cases for the sorting, set and distance operators (see CASES in test_fast_paths.py):
fresh arguments for each call, and the mode ("" here: new results, no randomness)."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    n = int(pytensor.Size(shape).numel())
    # a scrambled sequence, so that sorts move elements and distances are not all equal
    return pytensor.tensor([(i * 7) % (n + 3) for i in range(n)], dtype=dtype).reshape(shape)


CASES = {
    "argsort": (lambda: (_t(3, 5),), ""),
    "cross": (lambda: (_t(4, 3), _t(4, 3) + 1), ""),
    "linalg_cross": (lambda: (_t(2, 3), _t(1, 3) - 2), ""),
    "cdist": (lambda: (_t(3, 4), _t(5, 4) * 0.5), ""),
    "pdist": (lambda: (_t(4, 3),), ""),
    "_pdist_forward": (lambda: (_t(5, 2, dtype=pytensor.float64),), ""),
}

CASES.update({
    "_cdist_forward": (lambda: (pytensor.arange(6.0).reshape(3, 2),
                                pytensor.arange(4.0).reshape(2, 2), 2.0, None), ""),
})

CASES.update({
    "_cdist_backward": (lambda: (pytensor.ones(3, 2), _t(3, 4), _t(2, 4) * 0.5, 1.5,
                                 _t(3, 2) + 1.0), ""),
    "_pdist_backward": (lambda: (pytensor.ones(6), _t(4, 3), 3.0, _t(6) + 1.0), ""),
})

CASES.update({
    "_euclidean_dist": (lambda: (_t(3, 4, dtype=pytensor.float64),
                                 _t(5, 4, dtype=pytensor.float64) * 0.5), ""),
})
