"""The multi-process DataLoader iterator (Note [multi-process loading] in dataloader.py)."""

from __future__ import annotations

import atexit
import itertools
import os
import multiprocessing as python_multiprocessing
import queue
import time
import warnings

from . import _utils
from ._utils import ExceptionWrapper, shm
from .dataloader import _BaseDataLoaderIter, _DatasetKind

# What iterators not shut down yet hold: id -> (index queues, workers, shared-memory prefix).
# An iterator caught in a reference cycle (an exception's traceback holds it) is collected
# together with its queues, and the collector may finalize a queue (stopping its feeder thread)
# before the iterator's __del__ sends the workers their final None, which then never leaves:
# each worker would wait out the join timeout. Held here, the queues stay reachable until the
# shutdown is over; at interpreter exit the workers of iterators still alive (persistent ones,
# abandoned ones) are stopped here and their unreceived batches' files removed.
_live = {}


def _clean_up_at_exit() -> None:
    for key, (_, workers, prefix, owner) in list(_live.items()):
        if owner != os.getpid():
            continue
        try:
            _utils.signal_handling._remove_worker_pids(key)
        except ValueError:
            pass
        for w in workers:
            if w.is_alive():
                w.terminate()
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
        if prefix is not None:
            shm.sweep(prefix)
    _live.clear()


atexit.register(_clean_up_at_exit)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context or python_multiprocessing
        # A forked child (a worker of a later loader) inherits this object; only the process
        # that started the workers may shut them down.
        self._owner_pid = os.getpid()
        self._worker_init_fn = loader.worker_init_fn
        self._shm_prefix = shm.new_prefix() if shm.available() else None
        self._worker_result_queue = ctx.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        self._workers_status = []
        for i in range(self._num_workers):
            index_queue = ctx.Queue()
            # Tasks left in an index queue at shutdown are void: never block exit on them.
            index_queue.cancel_join_thread()
            w = ctx.Process(
                target=_utils.worker._worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                      self._workers_done_event, self._auto_collation, self._collate_fn,
                      self._drop_last, self._base_seed, self._worker_init_fn, i,
                      self._num_workers, self._persistent_workers, self._shared_seed,
                      self._shm_prefix))
            w.daemon = True
            from pickle import PicklingError
            try:
                w.start()
            except (TypeError, AttributeError, PicklingError):
                warnings.warn(
                    "Got pickle error when attempting to start a worker Process. This might be "
                    "because the worker Process arguments are not picklable. Python 3.14+ "
                    "changed the multiprocessing start method in non-Mac POSIX platforms to "
                    "'forkserver', which requires the worker Process arguments to be "
                    "picklable. You can also try multiprocessing.set_start_method('fork').",
                    stacklevel=2)
                raise
            self._index_queues.append(index_queue)
            self._workers.append(w)
            self._workers_status.append(True)
        self._data_queue = self._worker_result_queue
        _live[id(self)] = (self._index_queues, self._workers, self._shm_prefix, self._owner_pid)
        _utils.signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        _utils.signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0   # the next task to send
        self._rcvd_idx = 0   # the next task to return
        # task index -> (worker,) while outstanding, (worker, data) once it came early
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_utils.worker._ResumeIteration(self._shared_seed))
            pending = self._num_workers
            while pending > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        try:
            with _utils.signal_handling.waiting_for_workers():
                return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            if not isinstance(e, queue.Empty):
                # A read that broke (EOF, reset) mostly means a worker died while it wrote: its
                # pipes close before the kernel makes it a zombie, so is_alive() may still say
                # True for a moment. Give the dying worker that moment to be seen.
                deadline = time.monotonic() + 2.0
                while (time.monotonic() < deadline
                       and all(w.is_alive() for i, w in enumerate(self._workers)
                               if self._workers_status[i])):
                    time.sleep(0.01)
            failed = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed.append(w)
                    self._mark_worker_as_unavailable(worker_id)
                    _utils.signal_handling._forget_worker_pid(id(self), w.pid)
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip the tasks of workers that ended (IterableDataset copies run out).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks "
                                     "when fetching next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if (self._dataset_kind == _DatasetKind.Iterable
                    and isinstance(data, _utils.worker._IterableDatasetStopIteration)):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next live worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                # Out of order, a slow worker must not hoard the prefetch budget.
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(
                        self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown: bool = False) -> None:
        # The worker may be dead already; None tells a live one to finish (a persistent worker
        # whose dataset copy ended is still waiting for it).
        if (not self._workers_status[worker_id] and not self._persistent_workers
                and not shutdown):
            raise AssertionError("Worker status inconsistent when marking worker as unavailable")
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False
        if self._workers_done_event.is_set() != shutdown:
            raise AssertionError("_workers_done_event state does not match shutdown flag")

    def _shutdown_workers(self) -> None:
        if _utils is None or _utils.python_exit_status is not False:
            # Interpreter exit: the daemon workers are terminated by multiprocessing itself.
            return
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            if self._worker_pids_set:
                _utils.signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            if self._shm_prefix is not None:
                shm.sweep(self._shm_prefix)
            _live.pop(id(self), None)

    def __del__(self) -> None:
        if getattr(self, "_worker_pids_set", None) is not None:
            self._shutdown_workers()
