"""pytensor.nn.functional: losses (cross_entropy, nll_loss, mse_loss, ...) and distances
(cosine_similarity, pairwise_distance, normalize)."""

from __future__ import annotations

__all__: list = []
