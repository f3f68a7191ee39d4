"""pytensor.nn.functional: the connectionist temporal classification loss (ctc_loss).

``ctc_loss`` turns ``reduction`` into torch's enum and calls the operator of the same name
(csrc/ops/nn_ctc.yaml): a composition over ``_ctc_loss``, whose forward (alpha) and backward
(beta) recursions run in C (csrc/kernels/nn/ctc.c), one sample per thread chunk.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> lp = pytensor.full((3, 1, 2), 0.5).log()
>>> round(F.ctc_loss(lp, pytensor.tensor([[1]]), [3], [1], reduction="sum").item(), 4)
0.2877
"""

from __future__ import annotations

import pytensor

from . import _reduction as _Reduction

__all__ = ["ctc_loss"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """The CTC loss of log-probabilities ``log_probs`` ((T, N, C), or (T, C) for one sample)
    against ``targets`` (padded (N, S) or concatenated (sum(target_lengths),)); the lengths are
    int sequences or integer tensors of N elements (0-d for one sample). 'mean' divides each
    sample's loss by its target length (at least 1) before averaging; ``zero_infinity`` replaces
    infinite losses (no alignment fits) and their gradients by zero.

    >>> import pytensor
    >>> lp = pytensor.full((2, 1, 3), 1 / 3).log()
    >>> round(pytensor.nn.functional.ctc_loss(lp, pytensor.tensor([[2]]), [2], [1]).item(), 4)
    1.0986
    """
    return pytensor.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                             _Reduction.get_enum(reduction), zero_infinity)
