"""PyTorch as an optional test oracle.

pytensor's tests compare against PyTorch where it is installed and against NumPy or exact
arithmetic everywhere, so a machine without torch still checks every kernel. A test file that
compares against torch writes

    from _torch_oracle import torch, requires_torch

    pytestmark = requires_torch          # every test of the file needs torch, or
    @requires_torch                      # one test does
    def test_add_matches_torch(): ...

`torch` is the real module when it imports. Without it, `torch` is a stand-in whose attributes,
calls, indexing and arithmetic give inert placeholders while the test files are imported, so
module-level tables (`DTYPES = [torch.float32, ...]`, parametrize lists, sample tensors) still
build and every test is collected; the parametrize ids stay the ones torch gives
(`str(torch.float32) == "torch.float32"`). Once collection is over, touching the stand-in or a
placeholder skips the running test, so a test that forgot `requires_torch` is skipped, not failed.
tests/py/conftest.py counts these skips into one summary line and, under
PYTENSOR_REQUIRE_TORCH=1 (set by CI), fails the session when torch is missing.
"""
from __future__ import annotations

import os

import pytest

INSTALL_HINT = "pip install torch==2.13.0 to run the torch comparisons"
SKIP_REASON = "torch is not installed"
# What the environment variable asks: CI installs torch and must not let its comparisons be skipped.
REQUIRED = os.environ.get("PYTENSOR_REQUIRE_TORCH", "") not in ("", "0")

_strict = False  # set by conftest.py once collection is over


def _missing():
    pytest.skip(f"{SKIP_REASON} ({INSTALL_HINT})")


class _Placeholder:
    """What the stand-in gives for `torch.<anything>`: lenient during collection, a skip after."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # protocol probes (hasattr, copy, pickle) find nothing
            raise AttributeError(attr)
        if _strict:
            _missing()
        return _Placeholder(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        if _strict:
            _missing()
        return _Placeholder(f"{self._name}(...)")

    def _op(self, *args):
        if _strict:
            _missing()
        return _Placeholder(f"({self._name} op)")

    __getitem__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _op
    __or__ = __ror__ = __and__ = __rand__ = __matmul__ = __invert__ = _op

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return True

    def __repr__(self):
        return self._name

    __str__ = __repr__

    def __hash__(self):
        return hash(self._name)

    def __eq__(self, other):
        return isinstance(other, _Placeholder) and other._name == self._name


try:
    import torch
    HAVE_TORCH = True
except ImportError:
    torch = _Placeholder("torch")
    HAVE_TORCH = False

requires_torch = pytest.mark.skipif(not HAVE_TORCH, reason=f"{SKIP_REASON} ({INSTALL_HINT})")


def is_torch_skip(reason: str) -> bool:
    """Whether a skip's reason says torch was missing (this module's or pytest.importorskip's)."""
    return SKIP_REASON in reason or "could not import 'torch'" in reason


def end_collection() -> None:
    """From here on the stand-in skips whoever touches it (called by conftest.py)."""
    global _strict
    _strict = True
