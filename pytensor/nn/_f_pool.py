"""pytensor.nn.functional: pooling (max, avg, adaptive, lp, unpool)."""

from __future__ import annotations

__all__: list = []
