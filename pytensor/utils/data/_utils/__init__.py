"""The machinery under DataLoader, as ``torch.utils.data._utils``: collation, fetchers, the worker
loop, the worker-failure signal handling and the shared-memory hand-over of batches.
"""

from __future__ import annotations

import atexit
import multiprocessing.util  # noqa: F401 (see below)
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

# How long a blocking queue read waits before the reader checks that the other side is alive
# (workers check their parent, the main process checks its workers): short enough that a dead
# peer is noticed within seconds, long enough that polling costs nothing measurable.
MP_STATUS_CHECK_INTERVAL = 5.0

# Set when the interpreter starts shutting down: iterators then leave their workers to the daemon
# process clean-up instead of talking to queues whose threads may already be gone.
python_exit_status = False

try:
    import numpy  # noqa: F401
    HAS_NUMPY = True
except ModuleNotFoundError:
    HAS_NUMPY = False


def _set_python_exit_flag() -> None:
    global python_exit_status
    python_exit_status = True


# atexit runs its functions last registered first: multiprocessing.util, imported above, has
# registered the exit function that terminates daemon processes, so this flag is set before it
# runs, and the SIGCHLD handler knows those terminations are no failures.
atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """A message that a KeyError shows as it is (KeyError shows the repr of its argument)."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, carried to another process or thread and raised
    there again with torch's "Caught X in ..." message.

    >>> try:
    ...     raise ValueError("bad")
    ... except ValueError:
    ...     w = ExceptionWrapper(where="in DataLoader worker process 0")
    >>> w.exc_type.__name__
    'ValueError'
    """

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        # The traceback object itself is not kept: it would hold every frame's locals alive.
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


from . import collate, fetch, signal_handling, worker  # noqa: E402,F401
