"""``pytensor.optim``: optimizers with torch's names, arguments, defaults and state_dict layout.

Each optimizer's update runs in C over all parameters of a group at once (the foreach and fused
operators of ``csrc/ops/foreach.yaml``); ``foreach=False`` runs the same math one tensor at a
time.

>>> import pytensor
>>> w = pytensor.tensor([1.0, 2.0], requires_grad=True)
>>> opt = pytensor.optim.SGD([w], lr=0.5)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w.tolist()
[0.0, 0.0]
"""

from __future__ import annotations

from .optimizer import Optimizer  # noqa: F401
from ._algorithms import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam,  # noqa: F401
                          RAdam, RMSprop)
from .lbfgs import LBFGS  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop",
           "Adagrad", "Adadelta", "LBFGS", "lr_scheduler", "swa_utils"]
from . import lr_scheduler, swa_utils  # noqa: F401,E402
