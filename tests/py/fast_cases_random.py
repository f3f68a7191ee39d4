"""Fast-path cases (tests/py/test_fast_paths.py) for the operators of csrc/ops/random.yaml."""
import pytensor


def _probs(*shape, dtype=pytensor.float32):
    """Probabilities in [0.25, 1) of the given shape."""
    n = 1
    for s in shape:
        n *= s
    return pytensor.arange(n, dtype=dtype).reshape(shape) * (0.7 / max(n, 1)) + 0.25


CASES = {
    "bernoulli": (lambda: (_probs(2, 3),), "seeded"),
    "bernoulli__Tensor": (lambda: (pytensor.zeros(2, 3), _probs(3)), "seeded inplace"),
    "bernoulli__float": (lambda: (pytensor.zeros(2, 3, dtype=pytensor.int32),), "seeded inplace"),
    "bernoulli_Tensor": (lambda: (pytensor.zeros(4), _probs(4)), "seeded"),
    "bernoulli_p": (lambda: (pytensor.zeros(5, dtype=pytensor.float64), 0.3), "seeded"),
    "multinomial": (lambda: (_probs(3, 4), 2), "seeded"),
    "normal_Tensor_float": (lambda: (_probs(2, 3),), "seeded"),
    "normal_float_Tensor": (lambda: (1.5, _probs(4)), "seeded"),
    "normal_Tensor_Tensor": (lambda: (_probs(2, 1), _probs(3)), "seeded"),
    "exponential_": (lambda: (pytensor.zeros(6),), "seeded inplace"),
    "cauchy_": (lambda: (pytensor.zeros(6, dtype=pytensor.float64),), "seeded inplace"),
    "log_normal_": (lambda: (pytensor.zeros(6),), "seeded inplace"),
    "geometric_": (lambda: (pytensor.zeros(6, dtype=pytensor.int64), 0.3), "seeded inplace"),
    "dropout": (lambda: (_probs(3, 4), 0.5, True), "seeded"),
    "dropout_": (lambda: (_probs(3, 4), 0.25, True), "seeded inplace"),
}

# Random factories and fills whose required arguments are sizes or numbers.
CASES.update({
    "rand": (lambda: ((2, 3),), "seeded"),
    "randn": (lambda: ([4],), "seeded"),
    "normal_float_float": (lambda: (1.0, 2.0, (3, 2)), "seeded"),
    "random__from": (lambda: (pytensor.zeros(6, dtype=pytensor.int64), -3, 9), "seeded inplace"),
})

CASES.update({
    "native_dropout_backward": (lambda: (pytensor.arange(6.0).reshape(2, 3),
                                         pytensor.tensor([[True, False, True], [False, True, True]]),
                                         2.0), ""),
})
