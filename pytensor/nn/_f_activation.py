"""pytensor.nn.functional: activations (relu ... gelu, softmax, softmin, log_softmax,
gumbel_softmax) and dropout."""

from __future__ import annotations

__all__: list = []
