"""pytensor.nn.functional: scaled_dot_product_attention (torch._C._nn's operator: the fused CPU
kernel or the math composition, chosen as torch chooses)."""

from __future__ import annotations

from .._C import _nn

__all__ = ["scaled_dot_product_attention"]

scaled_dot_product_attention = _nn.scaled_dot_product_attention
