"""pytensor.nn.functional: local_response_norm.

torch composes it in Python from its operators, and so does this module, with the same calls, so
autograd records torch's graph (DivBackward0 over PowBackward0, AvgPool3DBackward0, ...): each
element is divided by (k + alpha * mean of the squares over `size` neighbouring channels) ** beta,
the window centred on the channel (size // 2 before it, (size - 1) // 2 after it) and zero-padded
at the ends. A 3-d input pools its squares with avg_pool2d over (channels, length); higher ranks
view theirs as (N, 1, C, d2, rest) and pool with avg_pool3d.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.local_response_norm(pytensor.ones(1, 2, 1), 2, alpha=2.0, beta=1.0, k=0.0).flatten().tolist()
[1.0, 0.5]
"""

from __future__ import annotations

from ._f_pool import avg_pool2d, avg_pool3d
from ._f_sample import pad

__all__ = ["local_response_norm"]


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0):
    """Normalizes each element by the squares of its neighbours across channels (dim 1)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
