"""``spawn(fn, args, nprocs, join)``: start nprocs processes running ``fn(i, *args)`` and wait for
them; the first failure is raised in the parent, with the child's traceback
(ProcessRaisedException) or its exit code or signal (ProcessExitedException)."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import traceback
from typing import Optional

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException",
           "ProcessContext", "start_processes", "spawn"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process exited after an exception was raised in it."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero exit code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: Optional[str] = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is handling it
    except Exception:
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` for the processes; True once all have exited successfully.
        The first to fail makes the others terminate and its error is raised here."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            p = self.processes[index]
            p.join()
            if p.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        failed = self.processes[error_index]
        pid = failed.pid
        if not os.path.exists(self.error_files[error_index]) or \
                os.path.getsize(self.error_files[error_index]) == 0:
            code = failed.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    f"process {error_index} terminated with signal {name}", error_index, pid,
                    code, name)
            raise ProcessExitedException(
                f"process {error_index} terminated with exit code {code}", error_index, pid,
                code)
        with open(self.error_files[error_index], "rb") as f:
            original_trace = pickle.load(f)
        msg = f"\n\n-- Process {error_index} terminated with the following error:\n"
        msg += original_trace
        raise ProcessRaisedException(msg, error_index, pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    mp = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        fd, error_file = tempfile.mkstemp(prefix="pytensor-spawn-")
        os.close(fd)
        os.unlink(error_file)
        p = mp.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        p.start()
        error_files.append(error_file)
        processes.append(p)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    try:
        while not context.join():
            pass
    finally:
        for f in error_files:
            try:
                os.unlink(f)
            except OSError:
                pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts ``nprocs`` processes running ``fn(i, *args)`` (``i`` their index) with the
    ``start_method`` context; with ``join`` waits for all and raises the first failure, else
    returns the ProcessContext."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
