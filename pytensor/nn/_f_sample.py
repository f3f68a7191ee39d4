"""pytensor.nn.functional: pad, interpolate, grid_sample, affine_grid and pixel/channel shuffles."""

from __future__ import annotations

__all__: list = []
