"""``ChannelShuffle``: regroups the channels of (N, g * c, ...) as (N, c * g, ...).

>>> import pytensor
>>> pytensor.nn.ChannelShuffle(2)(pytensor.arange(4.0).view(1, 4, 1)).flatten().tolist()
[0.0, 2.0, 1.0, 3.0]
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Splits the channels into ``groups`` groups and interleaves them."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
