"""``pytensor.multiprocessing``: the standard multiprocessing module, with tensors and storages
sent through its queues, pipes and process arguments as shared memory (reductions.py).

Two sharing strategies, torch's: ``'file_descriptor'`` (the default on Linux) sends an open
memfd, which the kernel frees with its last user; ``'file_system'`` sends the name of a POSIX
shared-memory segment, counted per process and cleaned up by the sharing manager (_manager.py)
when a process dies holding one.

>>> import pytensor.multiprocessing as mp
>>> mp.get_sharing_strategy()
'file_descriptor'
"""
import multiprocessing
import sys

from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException, spawn,
                    start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
           "ProcessExitedException"] + list(multiprocessing.__all__)

if sys.platform == "darwin":
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets how CPU tensors are shared: one of get_all_sharing_strategies()."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current sharing strategy."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The sharing strategies this system supports."""
    return _all_sharing_strategies


def _manager_path() -> str:
    """The sharing manager's script (run as ``python <path> <socket path>``)."""
    from ._client import _manager_path as path
    return path()


init_reductions()
