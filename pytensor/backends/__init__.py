"""``pytensor.backends``: switches and facts of the libraries the kernels may run on, as
``torch.backends`` (``pytensor.backends.onednn`` is torch.backends.mkldnn's counterpart).

>>> import pytensor.backends.onednn
>>> isinstance(pytensor.backends.onednn.is_available(), bool)
True
"""

from __future__ import annotations

from . import onednn

__all__ = ["onednn"]
