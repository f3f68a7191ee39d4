"""Worker-failure detection for multi-process loading, in Python.

Note [DataLoader worker failures]
A worker that dies (killed, segfault, out of shared memory) never answers, so the main process
must notice on its own. Each multi-process iterator registers its workers' pids under its id
(``_set_worker_pids``); one SIGCHLD handler per process calls ``_error_if_any_worker_fails``,
which asks waitid (WNOWAIT: the child stays waitable for multiprocessing's own bookkeeping)
whether a registered worker ended by a signal or with a non-zero status, and raises a
RuntimeError naming it. Python runs the handler in the main thread, so the error interrupts the
queue read that would otherwise wait forever; the iterator then reports the dead pids ("exited
unexpectedly"). The messages are torch's. Unlike torch's handler, which raises wherever the main
thread happens to be, this one raises only while the main thread waits in an iterator's read
(``waiting_for_workers``): raised anywhere else, the error broke unrelated code in the middle of
what it was doing (a test runner's report writer, a ``__del__``, a ``with`` block of the user's)
and reported a failure that the iterator itself was about to report. The read checks once more on
entry, after raising the flag, so a failure signalled just before the read is not missed either;
a failure noticed by the iterator's own liveness check forgets that worker's pid, so nothing
reports it twice. In the worker, faulthandler
prints the Python traceback on SIGSEGV, SIGBUS and SIGFPE before the default action, where torch
prints a one-line message from a C handler.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading

from . import IS_WINDOWS

_worker_pids = {}
# Re-entrant: the main thread can enter it again while holding it. The SIGCHLD handler runs
# between any two bytecodes of the main thread, and a garbage collection can run an abandoned
# iterator's __del__ (which removes its pids) at any allocation, both possibly inside
# _set_worker_pids or _remove_worker_pids; with a plain Lock that second acquire waited forever.
_lock = threading.RLock()

_SIGCHLD_handler_set = False

# Reads of the main thread now waiting on workers (Note [DataLoader worker failures]).
_main_waiting = 0


def _set_worker_signal_handlers(*args) -> None:
    """Installs the worker's fatal-signal reporting (a traceback on the process's stderr)."""
    if faulthandler.is_enabled():
        return
    # sys.stderr may be an object without a file descriptor (captured output, notebooks): the
    # report then goes to the stderr the process was started with, or nowhere.
    for stream in (sys.stderr, sys.__stderr__):
        try:
            faulthandler.enable(file=stream, all_threads=False)
            return
        except (AttributeError, ValueError, OSError, RuntimeError):
            continue


def _set_worker_pids(key, child_pids) -> None:
    if not isinstance(child_pids, tuple):
        raise TypeError(f"_set_worker_pids expects a tuple for child_pids, but got "
                        f"{type(child_pids).__name__}.")
    with _lock:
        if key in _worker_pids:
            raise ValueError("_set_worker_pids should be called only once for each "
                             "_BaseDataLoaderIter.")
        _worker_pids[key] = set(child_pids)


def _remove_worker_pids(key) -> None:
    with _lock:
        if _worker_pids.pop(key, None) is None:
            raise ValueError(f"Cannot find worker information for _BaseDataLoaderIter with "
                             f"id {key}")


def _forget_worker_pid(key, pid: int) -> None:
    """Drops one worker of an iterator from the checks (its failure has been reported)."""
    with _lock:
        pids = _worker_pids.get(key)
        if pids is not None:
            pids.discard(pid)


class waiting_for_workers:
    """Marks a blocking read of the main thread on worker results: while it lasts, the SIGCHLD
    handler may raise a worker's failure into it. On entry it checks once itself, for a failure
    signalled before the mark was up. Reads of other threads are not marked: the handler runs in
    the main thread, which they do not own; they rely on the liveness check after each read."""

    __slots__ = ("_main",)

    def __enter__(self):
        self._main = threading.current_thread() is threading.main_thread()
        if self._main:
            global _main_waiting
            _main_waiting += 1
            try:
                _error_if_any_worker_fails()
            except BaseException:
                _main_waiting -= 1
                raise
        return self

    def __exit__(self, *exc):
        if self._main:
            global _main_waiting
            _main_waiting -= 1
        return False


def _failure(pid: int):
    """torch's message for a worker that ended badly, or None while it runs or ended well."""
    flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
    try:
        info = os.waitid(os.P_PID, pid, flags)
    except (ChildProcessError, OSError):  # reaped already, or not our child
        return None
    if info is None or info.si_pid == 0:
        return None
    if info.si_code == os.CLD_EXITED and info.si_status != 0:
        return (f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                f"{info.si_status}. Details are lost due to multiprocessing. Rerunning with "
                f"num_workers=0 may give better error trace.")
    if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
        msg = (f"DataLoader worker (pid {pid}) is killed by signal: "
               f"{signal.strsignal(info.si_status)}. ")
        if info.si_status == signal.SIGBUS:
            msg += ("It is possible that dataloader's workers are out of shared memory. "
                    "Please try to raise your shared memory limit.")
        return msg
    return None


def _error_if_any_worker_fails() -> None:
    """Raises RuntimeError for the first registered worker that was killed or exited with an
    error (each failure is reported once: its iterator's pids are forgotten)."""
    if IS_WINDOWS:
        return
    with _lock:
        groups = list(_worker_pids.values())
    for pids in groups:
        for pid in tuple(pids):
            msg = _failure(pid)
            if msg is not None:
                pids.clear()
                raise RuntimeError(msg)


def _set_SIGCHLD_handler() -> None:
    if IS_WINDOWS or threading.current_thread() is not threading.main_thread():
        return
    global _SIGCHLD_handler_set
    if _SIGCHLD_handler_set:
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame):
        # At interpreter exit multiprocessing terminates the daemon workers itself (persistent
        # workers still held, iterators never finished): that is no failure to report.
        # Outside an iterator's read the error would strike unrelated code; the iterator's own
        # checks report the failure there instead (Note [DataLoader worker failures]).
        if _main_waiting > 0 and not sys.modules[__package__].python_exit_status:
            _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
