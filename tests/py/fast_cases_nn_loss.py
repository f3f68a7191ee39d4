"""Thunk cases of the loss family (tests/py/test_fast_paths.py reads CASES): the loss operators
and backward kernels whose arguments the generated C thunks take."""
import pytensor


def _t(*shape, shift=0.0):
    n = int(pytensor.Size(shape).numel())
    ramp = (pytensor.arange(n, dtype=pytensor.float64) - (n / 2 - shift)) * (1 / n)
    return ramp.to(pytensor.float32).reshape(shape)


def _nll_args(x_shape, t_shape):
    x, t = _t(*x_shape), pytensor.zeros(t_shape, dtype=pytensor.int64)
    return (pytensor.tensor(1.0), x, t, None, 1, -100, pytensor.tensor(float(t.numel())))


CASES = {
    "cosine_similarity": (lambda: (_t(2, 3, shift=1.0), _t(2, 3, shift=2.0)), ""),
    "pairwise_distance": (lambda: (_t(2, 3), _t(3, shift=1.0)), ""),
    "poisson_nll_loss": (lambda: (_t(2, 3), _t(2, 3, shift=3.0), True, False, 1e-8, 1), ""),
    "mse_loss_backward": (lambda: (pytensor.tensor(1.0), _t(2, 3), _t(3), 1), ""),
    "huber_loss_backward": (lambda: (_t(2, 3), _t(2, 3), _t(2, 3, shift=1.0), 0, 0.5), ""),
    "smooth_l1_loss_backward": (lambda: (pytensor.tensor(2.0), _t(2, 3), _t(2, 3, shift=1.0),
                                         2, 0.5), ""),
    "soft_margin_loss_backward": (lambda: (pytensor.tensor(1.0), _t(2, 3), _t(2, 3).sign(), 1),
                                  ""),
    "nll_loss_backward": (lambda: _nll_args((4, 3), (4,)), ""),
    "nll_loss2d_backward": (lambda: _nll_args((2, 3, 2, 2), (2, 2, 2)), ""),
    "multilabel_margin_loss_backward": (
        lambda: (pytensor.tensor(1.0), _t(2, 3), pytensor.tensor([[1, -1, 0], [2, 0, -1]]), 1,
                 pytensor.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])), ""),
}
