"""Writes the .pt files tests/py/test_serialization.py loads without torch (run with torch
installed: ``python3 tests/py/data/make_torch_files.py``; the files it writes are committed).

Every value is arange-based so the tests can rebuild it exactly without torch:
  torch_state_dict.pt  an OrderedDict state dict (with ``_metadata`` as Module.state_dict gives)
                       of one tensor per dtype (``arange(6).reshape(2, 3)`` cast, complex ones
                       ``arange(6) + 1j * arange(6)[::-1]``), a 0-d and an empty tensor, a
                       Parameter, a requires_grad tensor, tensors sharing one storage (a view
                       with an offset, a transposed non-contiguous view), nested containers.
  torch_legacy.pt      the same kind of values in torch's pre-zip format
                       (_use_new_zipfile_serialization=False).
  torch_unsafe.pt      a dict holding ``math.sqrt``: weights_only loading must refuse it.
"""
from __future__ import annotations

import math
import os
from collections import OrderedDict

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


def per_dtype(name: str) -> torch.Tensor:
    dt = getattr(torch, name)
    if dt.is_complex:
        re = torch.arange(6, dtype=torch.float64)
        return torch.complex(re, re.flip(0)).to(dt).reshape(2, 3)
    if dt is torch.bool:
        return (torch.arange(6) % 2 == 1).reshape(2, 3)
    return torch.arange(6).to(dt).reshape(2, 3)


def state_dict() -> OrderedDict:
    sd = OrderedDict()
    for name in DTYPES:
        sd[f"dtype.{name}"] = per_dtype(name)
    base = torch.arange(12, dtype=torch.float32)
    sd["shared.base"] = base
    sd["shared.rows"] = base.view(4, 3)[1:3]          # offset 3, shape (2, 3)
    sd["shared.t"] = base.view(3, 4).t()              # strides (1, 4)
    sd["shared.step"] = base[2::3]                    # offset 2, stride 3
    sd["scalar"] = torch.tensor(7.5, dtype=torch.float64)
    sd["empty"] = torch.empty(0, 3)
    sd["param"] = torch.nn.Parameter(torch.arange(4, dtype=torch.float32))
    sd["frozen"] = torch.nn.Parameter(torch.arange(3, dtype=torch.float32), requires_grad=False)
    sd["grad"] = torch.arange(2, dtype=torch.float32).requires_grad_()
    sd._metadata = OrderedDict([("", {"version": 1}), ("layer", {"version": 2})])
    return sd


def main() -> None:
    torch.save(state_dict(), os.path.join(HERE, "torch_state_dict.pt"))
    t = torch.arange(10, dtype=torch.int64)
    nested = {"list": [t[:4], (t[5:], {"deep": torch.tensor([1.5, -2.0])})], "n": 3,
              "s": "text", "f": 0.25, "none": None}
    torch.save(nested, os.path.join(HERE, "torch_legacy.pt"), _use_new_zipfile_serialization=False)
    torch.save({"fn": math.sqrt, "w": torch.ones(2)}, os.path.join(HERE, "torch_unsafe.pt"))


if __name__ == "__main__":
    main()
