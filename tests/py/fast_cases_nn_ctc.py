"""Thunk cases of the ctc family (tests/py/test_fast_paths.py reads CASES): the operators whose
arguments the generated C thunks take."""
import pytensor


def _args(tensor_lengths):
    lp = (pytensor.arange(24, dtype=pytensor.float32).reshape(4, 2, 3) * 0.1).log_softmax(2)
    t = pytensor.tensor([[1, 2], [2, 0]])
    il, tl = [4, 3], [2, 1]
    nll, alpha = pytensor._ctc_loss(lp, t, il, tl)
    if tensor_lengths:
        il, tl = pytensor.tensor(il), pytensor.tensor(tl)
    return (pytensor.ones(2), lp, t, il, tl, nll, alpha, 0)


CASES = {
    "_ctc_loss_backward": (lambda: _args(False), ""),
    "_ctc_loss_backward_Tensor": (lambda: _args(True), ""),
}
