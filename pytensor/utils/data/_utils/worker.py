"""The worker process of a multi-process DataLoader: its loop, ``get_worker_info`` and seeding.

Each worker seeds itself from the iterator's base seed as torch does: Python's ``random`` and
pytensor's default generator with ``base_seed + worker_id``, NumPy's global generator with the
four words NumPy's SeedSequence hash makes of (worker_id, base_seed) (``_generate_state``), so
NumPy draws in a worker are torch's. The loop reads (task index, sampler output) pairs from its
index queue, fetches and collates, and puts (task index, batch or ExceptionWrapper) on the
shared result queue; ``None`` ends it and ``_ResumeIteration`` restarts a persistent worker for
a new epoch.
"""

from __future__ import annotations

import os
import queue
import random
from dataclasses import dataclass
from typing import Any, Optional

from . import HAS_NUMPY, MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, shm, signal_handling


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive (an orphaned worker is
    re-parented, so its parent pid changes)."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns in a worker.

    >>> WorkerInfo(id=0, num_workers=2, seed=7, dataset=None).num_workers
    2
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Optional[Any] = None
    worker_method: Optional[str] = "multiprocessing"


def get_worker_info() -> Optional[WorkerInfo]:
    """The current DataLoader worker's id, num_workers, seed and dataset copy; None in the main
    process.

    >>> get_worker_info() is None
    True
    """
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose IterableDataset copy is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers to start a new epoch (echoed back once done)."""
    seed: Optional[int] = None


_MASK32 = 0xFFFFFFFF


def _generate_state(base_seed: int, worker_id: int) -> list:
    """NumPy's SeedSequence pool hashing of (worker_id, base_seed) down to four 32-bit words:
    the NumPy seed of a worker, as torch computes it.

    >>> len(_generate_state(0, 0))
    4
    """
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    mix_l, mix_r = 0xCA01F9DD, 0x4973F715
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    const_a = [0x43B0D7E5]

    def hash_a(value):
        value = (value ^ const_a[0]) & _MASK32
        const_a[0] = (const_a[0] * mult_a) & _MASK32
        value = (value * const_a[0]) & _MASK32
        return value ^ (value >> 16)

    def mix(x, y):
        r = ((mix_l * x) - (mix_r * y)) & _MASK32
        return r ^ (r >> 16)

    pool = [hash_a(e) for e in entropy]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hash_a(pool[src]))
    const_b = 0x8B51F9DD
    state = []
    for value in pool:
        value = (value ^ const_b) & _MASK32
        const_b = (const_b * mult_b) & _MASK32
        value = (value * const_b) & _MASK32
        state.append(value ^ (value >> 16))
    return state


def _set_thread_name(name: str) -> None:
    """Names the calling thread as torch names its workers' (seen in /proc/PID/comm, top -H)."""
    if not os.path.exists("/proc/self/comm"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def _seed_worker(base_seed: int, worker_id: int) -> int:
    import pytensor
    seed = base_seed + worker_id
    random.seed(seed)
    pytensor.manual_seed(seed)
    if HAS_NUMPY:
        import numpy as np
        np.random.seed(_generate_state(base_seed, worker_id))
    return seed


def _report_unpicklable(data_queue, worker_id: int) -> None:
    """Makes a batch the result queue cannot pickle come back as that error. (multiprocessing
    would print it and drop the batch, and the main process would wait for it forever.)"""
    def on_error(e, obj):
        idx, data = obj
        if isinstance(data, ExceptionWrapper):
            # An exception of a type pickle cannot name: send its text under RuntimeError.
            wrapper = ExceptionWrapper((RuntimeError, RuntimeError(), None), data.where)
            wrapper.exc_msg = data.exc_msg
        else:
            wrapper = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        data_queue.put((idx, wrapper))
    data_queue._on_queue_feeder_error = on_error


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shared_seed, shm_prefix=None) -> None:
    global _worker_info
    try:
        signal_handling._set_worker_signal_handlers()
        _set_thread_name("pt_data_worker")
        import pytensor
        pytensor.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        shm.start_worker(shm_prefix)
        _report_unpicklable(data_queue, worker_id)
        from ..dataloader import _DatasetKind

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # After an IterableDataset copy ends, the worker only waits for the final None (or a
        # resume): tasks still arriving are dropped, the main process knows they are void.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
