"""Anomaly detection: nodes remember the Python stack that created them, and a NaN produced in
backward is an error naming the node (torch.autograd.anomaly_mode)."""
from __future__ import annotations

import warnings

from .._C import lib

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    return bool(lib.pt_autograd_is_anomaly_enabled())


def is_anomaly_check_nan_enabled() -> bool:
    return bool(lib.pt_autograd_is_anomaly_check_nan_enabled())


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_nan = is_anomaly_check_nan_enabled()
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        lib.pt_autograd_set_anomaly_enabled(1, int(self.check_nan))

    def __exit__(self, *exc) -> None:
        lib.pt_autograd_set_anomaly_enabled(int(self.prev), int(self.prev_nan))

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off (at once, or for a with-block)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_nan = is_anomaly_check_nan_enabled()
        lib.pt_autograd_set_anomaly_enabled(int(bool(mode)), int(bool(check_nan)))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        lib.pt_autograd_set_anomaly_enabled(int(self.prev), int(self.prev_nan))
