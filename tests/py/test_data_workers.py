"""DataLoader with worker processes: the same batches as num_workers=0, batches handed over in
shared memory (and no file left behind), worker seeds and get_worker_info, worker_init_fn,
IterableDataset sharding, persistent workers, out-of-order delivery, a worker's exception
re-raised with its traceback, a killed worker and a timeout as RuntimeErrors (not hangs), spawn,
and the worker-pid bookkeeping of signal_handling. Few small loaders: each one starts processes."""
from __future__ import annotations

import gc
import os
import queue
import random
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import pytensor
from pytensor.utils import data as D
from pytensor.utils.data._utils import signal_handling, shm
from pytensor.utils.data._utils.worker import _generate_state
from _torch_oracle import requires_torch, torch

pytestmark = pytest.mark.skipif(os.name != "posix", reason="worker tests use fork")


def _shm_files():
    if not os.path.isdir(shm.SHM_DIR):
        return set()
    return {f for f in os.listdir(shm.SHM_DIR) if f.startswith(f"pytensor_dl_{os.getpid()}_")}


def _flat(batches):
    return [[t.tolist() if isinstance(t, pytensor.Tensor) else t for t in b] for b in batches]


def test_workers_give_the_batches_of_one_process():
    x = pytensor.arange(3 * 2 * 5.).view(5 * 3, 2)
    ds = D.TensorDataset(x, pytensor.arange(15))
    for kw in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True},
               {"batch_size": 3, "shuffle": True}):
        ref = _flat(D.DataLoader(ds, generator=pytensor.Generator().manual_seed(3), **kw))
        got = list(D.DataLoader(ds, num_workers=2, generator=pytensor.Generator().manual_seed(3),
                                **kw))
        assert _flat(got) == ref, kw
        assert all(b[0].untyped_storage().is_shared() for b in got)
    assert not _shm_files()


def test_mixed_samples_and_out_of_order():
    samples = [{"i": i, "v": np.full(3, i, dtype=np.float32), "s": str(i)} for i in range(9)]
    ref = list(D.DataLoader(samples, batch_size=2))
    got = list(D.DataLoader(samples, batch_size=2, num_workers=2, prefetch_factor=1))
    assert [b["i"].tolist() for b in got] == [b["i"].tolist() for b in ref]
    assert [b["s"] for b in got] == [b["s"] for b in ref]
    assert got[1]["v"].dtype == pytensor.float32 and got[1]["v"].tolist() == [[2.] * 3, [3.] * 3]
    loose = list(D.DataLoader(samples, batch_size=2, num_workers=2, in_order=False))
    assert sorted(i for b in loose for i in b["i"].tolist()) == list(range(9))


class _Seeds(D.Dataset):
    def __getitem__(self, i):
        info = D.get_worker_info()
        return {"id": info.id, "n": info.num_workers, "seed": info.seed,
                "py": random.random(), "np": float(np.random.rand()),
                "pt": float(pytensor.rand(1)), "same": info.dataset is self,
                "init": os.environ.get("P13_INIT", "")}

    def __len__(self):
        return 2


def _init(worker_id):
    os.environ["P13_INIT"] = f"w{worker_id}:{D.get_worker_info().id}"


def test_worker_seeds_info_and_init_fn():
    g = pytensor.Generator().manual_seed(21)
    got = list(D.DataLoader(_Seeds(), batch_size=None, num_workers=2, worker_init_fn=_init,
                            generator=g))
    ref_g = pytensor.Generator().manual_seed(21)
    base = pytensor.empty((), dtype=pytensor.int64).random_(generator=ref_g).item()
    for wid, item in enumerate(got):
        seed = base + wid
        assert item["id"] == wid and item["n"] == 2 and item["seed"] == seed
        assert item["same"] and item["init"] == f"w{wid}:{wid}"
        assert item["py"] == random.Random(seed).random()
        assert item["np"] == np.random.RandomState(_generate_state(base, wid)).random_sample()
        ref_pt = pytensor.rand(1, generator=pytensor.Generator().manual_seed(seed))
        assert item["pt"] == float(ref_pt)


class _Shards(D.IterableDataset):
    def __init__(self, n, length=None):
        self.n, self.length = n, length

    def __iter__(self):
        info = D.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.length if self.length is not None else self.n


def test_iterable_dataset_sharding_and_length_warning():
    got = [b.tolist() for b in D.DataLoader(_Shards(10), batch_size=3, num_workers=2)]
    assert got == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    loader = D.DataLoader(_Shards(4, length=1), batch_size=None, num_workers=2)
    assert len(loader) == 1
    with pytest.warns(UserWarning, match="For multiprocessing data-loading, this could be caused "
                                         "by not properly configuring the IterableDataset"):
        assert sorted(loader) == [0, 1, 2, 3]


class _Pids(D.Dataset):
    def __getitem__(self, i):
        return os.getpid()

    def __len__(self):
        return 4


def test_persistent_workers_across_epochs():
    loader = D.DataLoader(_Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.tolist() for b in loader]
    it = loader._iterator
    second = [b.tolist() for b in loader]
    assert loader._iterator is it and first == second
    assert {p for b in first for p in b} == {w.pid for w in it._workers}
    shuffled = D.DataLoader(list(range(8)), batch_size=4, shuffle=True, num_workers=2,
                            persistent_workers=True, generator=pytensor.Generator().manual_seed(0))
    epochs = [sorted(i for b in shuffled for i in b.tolist()) for _ in range(2)]
    assert epochs == [list(range(8))] * 2
    del it
    loader._iterator._shutdown_workers()
    assert all(not w.is_alive() for w in loader._iterator._workers)


class _Fails(D.Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __getitem__(self, i):
        if i == 3:
            raise self.exc
        return i

    def __len__(self):
        return 6


def test_worker_exception_reraised_with_traceback():
    with pytest.raises(ValueError) as info:
        list(D.DataLoader(_Fails(ValueError("bad sample 3")), batch_size=2, num_workers=2))
    text = str(info.value)
    assert text.startswith("Caught ValueError in DataLoader worker process 1.\n"
                           "Original Traceback (most recent call last):\n")
    assert "ValueError: bad sample 3" in text and "__getitem__" in text
    with pytest.raises(KeyError) as info:
        list(D.DataLoader(_Fails(KeyError("k")), batch_size=2, num_workers=1))
    assert repr(info.value).startswith("KeyError(Caught KeyError in DataLoader worker process 0.")

    def bad_init(worker_id):
        raise RuntimeError("init failed")
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"):
        list(D.DataLoader([1, 2], num_workers=1, worker_init_fn=bad_init))


class _Killer(D.Dataset):
    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    def __len__(self):
        return 12


def test_killed_worker_is_an_error_not_a_hang():
    # Either torch message may come first: the loader's own check after a failed read, or the
    # SIGCHLD handler's (raised into the read), as in torch. The loader's check chains the
    # handler's error, or the read's queue.Empty where the signal reached another thread and
    # the read waited out its interval.
    t0 = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        list(D.DataLoader(_Killer(), batch_size=2, num_workers=2))
    assert time.monotonic() - t0 < 10
    text = str(info.value)
    if re.fullmatch(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly", text):
        cause = info.value.__cause__
        # ... or the read's EOFError / ConnectionResetError, where the worker died while it wrote
        # a batch into the pipe the read was draining
        assert (isinstance(cause, (queue.Empty, EOFError, ConnectionError))
                or "is killed by signal: Killed." in str(cause))
    else:
        assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed\. ",
                            text), text
    del info
    gc.collect()  # the iterator, held by the exception's frames, shuts down here
    assert not _shm_files()
    assert not any(signal_handling._worker_pids.values())


def test_worker_failure_is_raised_in_the_next_read_not_elsewhere():
    # The worker dies on a prefetched batch while the main thread does something else: that
    # code is not interrupted (torch's handler raises into it); the next read reports the
    # failure at once instead of after its liveness interval.
    it = iter(D.DataLoader(_Killer(), batch_size=2, num_workers=1))
    assert next(it).tolist() == [0, 1]
    pid = it._workers[0].pid
    deadline = time.monotonic() + 10
    while signal_handling._failure(pid) is None and time.monotonic() < deadline:
        time.sleep(0.01)  # (not w.is_alive(): that would reap the worker)
    time.sleep(0.05)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=rf"^DataLoader worker \(pid\(s\) {pid}\) exited "
                                           r"unexpectedly$") as info:
        next(it)
    assert time.monotonic() - t0 < 0.5 * _utils_interval()
    assert str(info.value.__cause__) == (f"DataLoader worker (pid {pid}) is killed by signal: "
                                         f"Killed. ")
    del info, it
    gc.collect()
    assert not any(signal_handling._worker_pids.values())


def _utils_interval():
    from pytensor.utils.data import _utils
    return _utils.MP_STATUS_CHECK_INTERVAL


class _Slow(D.Dataset):
    def __getitem__(self, i):
        time.sleep(0.6)
        return i

    def __len__(self):
        return 2


def test_timeout():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        list(D.DataLoader(_Slow(), num_workers=1, timeout=0.2))
    assert time.monotonic() - t0 < 5


def test_spawn_context():
    got = [b.tolist() for b in D.DataLoader(list(range(5)), batch_size=2, num_workers=1,
                                            multiprocessing_context="spawn")]
    assert got == [[0, 1], [2, 3], [4]]


def test_worker_pid_bookkeeping():
    with pytest.raises(TypeError, match="_set_worker_pids expects a tuple for child_pids, but got "
                                        "list."):
        signal_handling._set_worker_pids(12345, [1])
    # The loaders above installed the SIGCHLD handler: keep it from reporting this child first.
    previous = signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    signal_handling._set_worker_pids(12345, (pid,))
    try:
        with pytest.raises(ValueError, match="_set_worker_pids should be called only once for "
                                             "each _BaseDataLoaderIter."):
            signal_handling._set_worker_pids(12345, (pid,))
        deadline = time.monotonic() + 5
        while signal_handling._failure(pid) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(RuntimeError, match=f"DataLoader worker \\(pid {pid}\\) exited "
                                               f"unexpectedly with exit code 3. Details are lost "
                                               f"due to multiprocessing."):
            signal_handling._error_if_any_worker_fails()
        signal_handling._error_if_any_worker_fails()  # reported once
    finally:
        signal_handling._remove_worker_pids(12345)
        os.waitpid(pid, 0)
        signal.signal(signal.SIGCHLD, previous)
    with pytest.raises(ValueError, match="Cannot find worker information for _BaseDataLoaderIter "
                                         "with id 12345"):
        signal_handling._remove_worker_pids(12345)


@requires_torch
def test_worker_pid_messages_match_torch():
    for fn, args in ((torch._C._set_worker_pids, (777, [1])),
                     (torch._C._remove_worker_pids, (778,))):
        ours = getattr(signal_handling, fn.__name__)
        with pytest.raises(Exception) as theirs_info:
            fn(*args)
        with pytest.raises(type(theirs_info.value), match=str(theirs_info.value)
                           .replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
            ours(*args)


def _scaled_collate(batch):
    return pytensor.stack(batch) * 2  # a new tensor, not the one stacked in shared memory


def test_custom_collate_results_and_small_tensors():
    x = pytensor.arange(64 * 600.).view(64, 600)
    got = list(D.DataLoader(x, batch_size=32, num_workers=1, collate_fn=_scaled_collate))
    assert [b.tolist() for b in got] == [(x[:32] * 2).tolist(), (x[32:] * 2).tolist()]
    assert got[0].untyped_storage().is_shared()  # 75 KiB a batch: copied into a file
    small = list(D.DataLoader(pytensor.arange(6.), batch_size=3, num_workers=1,
                              collate_fn=_scaled_collate))
    assert [b.tolist() for b in small] == [[0., 2., 4.], [6., 8., 10.]]
    # Pickled by value; but once pytensor.multiprocessing is imported its reductions (inherited
    # by the forked worker) share every tensor, as torch.multiprocessing's do.
    registered = "pytensor.multiprocessing" in sys.modules
    assert small[0].untyped_storage().is_shared() == registered
    assert not _shm_files()


_EXIT_SCRIPT = """
import os, pytensor
from pytensor.utils import data as D
loader = D.DataLoader(pytensor.ones(64, 300), batch_size=8, num_workers=2, persistent_workers=True)
it = iter(loader); next(it)
other = iter(D.DataLoader(pytensor.ones(64, 300), batch_size=8, num_workers=2)); next(other)
print(os.getpid())
"""


def test_exit_with_live_workers_is_quiet_and_clean():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(pytensor.__file__))] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    pid = proc.stdout.strip()
    assert not [f for f in os.listdir(shm.SHM_DIR) if f.startswith(f"pytensor_dl_{pid}_")]


class _Unpicklable(D.Dataset):
    def __getitem__(self, i):
        return lambda: i

    def __len__(self):
        return 2


def test_unpicklable_sample_is_an_error_not_a_hang():
    with pytest.raises(AttributeError, match="Caught AttributeError in DataLoader worker process "
                                             "0(.|\n)*Can't pickle local object"):
        list(D.DataLoader(_Unpicklable(), batch_size=None, num_workers=1, timeout=20))

    class LocalError(Exception):
        pass

    class RaisesLocal(D.Dataset):
        def __getitem__(self, i):
            raise LocalError("local")

        def __len__(self):
            return 1
    # Its type cannot be pickled by name: it comes back as a RuntimeError with the traceback.
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"
                                           "(.|\n)*LocalError: local"):
        list(D.DataLoader(RaisesLocal(), num_workers=1, timeout=20))


_COLLECT_UNDER_LOCK_SCRIPT = """
import gc, time, pytensor
from pytensor.utils import data as D
from pytensor.utils.data._utils import signal_handling

class Slow(D.Dataset):
    def __getitem__(self, i):
        time.sleep(0.6)
        return i

    def __len__(self):
        return 2

def abandon():
    try:
        list(D.DataLoader(Slow(), num_workers=1, timeout=0.2))
    except RuntimeError as e:
        err = e  # a cycle: err -> its traceback -> this frame -> err; it holds the iterator

gc.disable()
abandon()
# A collection that runs inside _set_worker_pids (any allocation may start one) finalizes the
# abandoned iterator, whose shutdown removes its pids under the same lock.
with signal_handling._lock:
    gc.collect()
print("done")
"""


def test_iterator_collected_while_the_pid_lock_is_held_is_no_deadlock():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(pytensor.__file__))] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run([sys.executable, "-c", _COLLECT_UNDER_LOCK_SCRIPT],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr
