"""``PixelShuffle`` and ``PixelUnshuffle``: channels to space, (C r^2, H, W) -> (C, H r, W r),
and back.

>>> import pytensor
>>> pytensor.nn.PixelShuffle(2)(pytensor.zeros(1, 8, 3, 3)).shape
pytensor.Size([1, 2, 6, 6])
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearranges (*, C r^2, H, W) into (*, C, H r, W r) with ``r = upscale_factor``."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges (*, C, H r, W r) into (*, C r^2, H, W) with ``r = downscale_factor``."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
