"""pytensor.nn.functional: convolutions, conv_transpose, unfold and fold."""

from __future__ import annotations

__all__: list = []
