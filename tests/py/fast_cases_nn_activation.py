"""Thunk cases of the nn activation family (tests/py/test_fast_paths.py reads CASES): the
activations, their in-place forms, their backward operators, prelu, rrelu and the dropout
variants."""
import pytensor


def _t(*shape, shift=0.0):
    n = int(pytensor.Size(shape).numel())
    ramp = (pytensor.arange(n, dtype=pytensor.float64) - (n / 2 - shift)) * (4 / n)
    return ramp.to(pytensor.float32).reshape(shape)


def _x():
    return (_t(2, 3, shift=0.5),)


def _gx():
    return (_t(2, 3, shift=1.0), _t(2, 3, shift=0.5))


CASES = {}
for _name in ("celu", "elu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu",
              "log_sigmoid", "mish", "relu6", "rrelu", "selu", "softplus", "softshrink"):
    CASES[_name] = (_x, "")
for _name in ("celu_", "elu_", "hardsigmoid_", "hardswish_", "hardtanh_", "leaky_relu_",
              "mish_", "relu6_", "rrelu_", "selu_"):
    CASES[_name] = (_x, "inplace")
for _name in ("hardsigmoid_backward", "hardswish_backward", "mish_backward", "silu_backward"):
    CASES[_name] = (_gx, "")
CASES.update({
    "glu": (lambda: (_t(2, 4),), ""),
    "glu_backward": (lambda: (_t(2, 2), _t(2, 4), 1), ""),
    "hardtanh_backward": (lambda: _gx() + (-0.5, 0.5), ""),
    "leaky_relu_backward": (lambda: _gx() + (0.1, False), ""),
    "softplus_backward": (lambda: _gx() + (1.0, 20), ""),
    "softshrink_backward": (lambda: _gx() + (0.5,), ""),
    "hardshrink_backward": (lambda: _gx() + (0.5,), ""),
    "threshold_backward": (lambda: _gx() + (0.1,), ""),
    "log_sigmoid_backward": (lambda: _gx() + (_t(2, 3).abs().neg().exp(),), ""),
    "elu_backward": (lambda: (_t(2, 3), 1.0, 1.0, 1.0, False, _t(2, 3, shift=0.5)), ""),
    "rrelu_with_noise_backward": (lambda: _gx() + (_t(2, 3), 0.1, 0.3, False, False), ""),
    "rrelu_with_noise": (lambda: (_t(2, 3), pytensor.empty(2, 3)), ""),
    "rrelu_with_noise_": (lambda: (_t(2, 3), pytensor.empty(2, 3)), "inplace"),
    "prelu": (lambda: (_t(2, 3), pytensor.tensor([0.1, 0.2, 0.3])), ""),
    "_prelu_kernel": (lambda: (_t(2, 3), pytensor.tensor([[0.1, 0.2, 0.3]])), ""),
    "_softmax_backward_data": (lambda: (_t(2, 3), _t(2, 3).softmax(1), 1, pytensor.float32),
                               ""),
    "_log_softmax_backward_data": (lambda: (_t(2, 3), _t(2, 3).log_softmax(0), 0,
                                            pytensor.float32), ""),
})
for _name in ("feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
    CASES[_name] = (lambda: (_t(2, 3, 2), 0.5, True), "seeded")
    CASES[_name + "_"] = (lambda: (_t(2, 3, 2), 0.5, True), "seeded inplace")
