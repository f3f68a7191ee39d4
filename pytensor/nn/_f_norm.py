"""pytensor.nn.functional: linear, bilinear, normalization (batch_norm, layer_norm, group_norm, ...),
embedding, embedding_bag and one_hot."""

from __future__ import annotations

__all__: list = []
