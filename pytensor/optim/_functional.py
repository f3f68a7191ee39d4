"""The update math of the optimizers, one function per algorithm, over lists of tensors."""

from __future__ import annotations


def zero_grads(grads: list) -> None:
    """Zeroes every tensor of ``grads`` in place."""
    for g in grads:
        g.zero_()
