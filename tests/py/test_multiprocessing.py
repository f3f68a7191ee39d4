"""pytensor.multiprocessing: tensors and storages shared between processes (fork and spawn),
both sharing strategies, the reductions' cache, the sharing manager's cleanup and spawn()."""
import os
import pickle
import signal
import time

import pytest
from multiprocessing.reduction import ForkingPickler

import pytensor
import pytensor.multiprocessing as mp
from pytensor.multiprocessing import reductions
from _torch_oracle import requires_torch, torch
from mp_workers import (_add_one, _get_many_mul_put, _get_mul_put, _get_twice,
                                          _hold_and_wait, _make_and_wait, _pipe_child, _pool_add,
                                          _spawn_exit, _spawn_fail, _spawn_worker)

STRATEGIES = ["file_descriptor", "file_system"]
FORK = mp.get_context("fork")


@pytest.fixture(params=STRATEGIES)
def strategy(request):
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(old)


def _segments(pid=None):
    prefix = "pytensor_" if pid is None else f"pytensor_{pid}_"
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(prefix))


def _wait_for(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


# ---------------------------------------------------------------- strategies
def test_sharing_strategies_and_bad_name():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError) as e:
        mp.set_sharing_strategy("bad")
    assert str(e.value) == ("invalid sharing strategy 'bad', expected one of "
                            f"{mp.get_all_sharing_strategies()}")
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.Queue is not None and mp.Process is not None and mp.get_context is not None


@requires_torch
def test_bad_strategy_message_matches_torch():
    import torch.multiprocessing as tmp
    with pytest.raises(AssertionError) as e:
        tmp.set_sharing_strategy("bad")
    with pytest.raises(AssertionError) as ours:
        mp.set_sharing_strategy("bad")
    # the set's order follows the string hash of the process: compare the sorted words
    assert sorted(str(ours.value).split()) == sorted(str(e.value).split())


# ---------------------------------------------------------------- share_memory_ / is_shared
def test_share_memory_in_place(strategy):
    t = pytensor.arange(6.0).view(2, 3)
    v = t[1]
    assert not t.is_shared() and not t.untyped_storage().is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and v.is_shared() and t.untyped_storage().is_shared()
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    v.add_(1)  # views follow the moved bytes
    assert t.tolist() == [[0.0, 1.0, 2.0], [4.0, 5.0, 6.0]]
    ptr = t.data_ptr()
    t.share_memory_()  # already shared: nothing moves
    assert t.data_ptr() == ptr
    s = pytensor.FloatStorage([1, 2])
    assert s.share_memory_() is s and s.is_shared() and s.tolist() == [1.0, 2.0]
    e = pytensor.empty(0).share_memory_()
    assert e.is_shared() and e.numel() == 0
    assert not t.untyped_storage().resizable()


@requires_torch
def test_is_shared_matches_torch(strategy):
    for make in (lambda m: m.ones(3), lambda m: m.zeros(2, 2).t()):
        a, b = make(pytensor), make(torch)
        assert a.is_shared() == b.is_shared()
        a.share_memory_(), b.share_memory_()
        assert a.is_shared() == b.is_shared()


def test_share_memory_meta_refused_as_torch():
    m = pytensor.empty(2, device="meta")
    with pytest.raises(RuntimeError, match=r"^_share_fd_: only available on CPU$"):
        m.share_memory_()


def test_share_fd_and_filename_and_new_shared(strategy):
    s = pytensor.UntypedStorage(12)
    fd, size = s._share_fd_cpu_()
    assert isinstance(fd, int) and fd >= 0 and size == 12
    t = pytensor.IntStorage(3)
    manager, name, size = t._share_filename_cpu_()
    assert isinstance(manager, bytes) and name.startswith(b"/pytensor_%d_" % os.getpid())
    assert size == 3 and _segments(os.getpid())
    other = pytensor.IntStorage._new_shared_filename_cpu(manager, name, 3)
    other[1] = 9
    assert t[1] == 9 and other.is_shared()
    dup = pytensor.UntypedStorage._new_shared_fd_cpu(fd, 12)
    dup[3] = 4
    assert s[3] == 4
    n = pytensor.DoubleStorage._new_shared(4)
    assert n.is_shared() and n.tolist() == [0.0] * 4 and n.dtype == pytensor.float64
    u = pytensor.UntypedStorage._new_shared(5)
    assert u.nbytes() == 5 and u.is_shared()
    del t, other, n, u
    assert _wait_for(lambda: not _segments(os.getpid()), 2)


def test_shared_refcount_unlinks_with_last_reference():
    s = pytensor.FloatStorage(4)
    manager, name, size = s._share_filename_cpu_()
    seg = name.decode()[1:]
    s._shared_incref()  # a reference in transit
    del s
    assert seg in _segments()  # the extra reference keeps it
    again = pytensor.FloatStorage._new_shared_filename_cpu(manager, name, size)
    assert again._shared_decref() is again  # drops the one in transit
    assert seg in _segments()
    del again
    assert seg not in _segments()
    with pytest.raises(RuntimeError, match="not in a shared-memory segment shared by name"):
        pytensor.FloatStorage(2)._shared_incref()
    with pytest.raises(RuntimeError, match="cannot open '/pytensor_no_such'"):
        pytensor.FloatStorage._new_shared_filename_cpu(manager, b"/pytensor_no_such", 4)


def test_weak_refs():
    s = pytensor.UntypedStorage(8).share_memory_()
    ref = reductions.StorageWeakRef(s)
    assert not ref.expired()
    again = pytensor.UntypedStorage._new_with_weak_ptr(ref.cdata)
    assert again.data_ptr() == s.data_ptr()
    del s, again
    assert ref.expired()
    assert pytensor.UntypedStorage._new_with_weak_ptr(ref.cdata) is None
    assert pytensor.UntypedStorage(2)._weak_ref() == 0


# ---------------------------------------------------------------- reductions
def test_non_leaf_requires_grad_refused():
    x = pytensor.ones(2, requires_grad=True) * 2
    msg = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
           "does not support crossing process boundaries.  If you just want to transfer the "
           "data, call detach() on the tensor before serializing (e.g., putting it on the queue).")
    with pytest.raises(RuntimeError) as e:
        reductions.reduce_tensor(x)
    assert str(e.value) == msg
    with pytest.raises(RuntimeError):
        ForkingPickler.dumps(x)


@requires_torch
def test_non_leaf_message_matches_torch():
    from torch.multiprocessing import reductions as tred
    with pytest.raises(RuntimeError) as theirs:
        tred.reduce_tensor(torch.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError) as ours:
        reductions.reduce_tensor(pytensor.ones(2, requires_grad=True) * 2)
    assert str(ours.value) == str(theirs.value)


def test_same_process_roundtrip_is_the_same_memory(strategy):
    t = pytensor.arange(4.0)
    p = pytensor.nn.Parameter(pytensor.ones(2))
    ts = pytensor.LongStorage([1, 2, 3])
    data = ForkingPickler.dumps((t, t[1:], p, ts))
    a, b, q, s = pickle.loads(data)
    assert a.data_ptr() == t.data_ptr() and b.storage_offset() == 1
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert type(q) is pytensor.nn.Parameter and q.requires_grad
    assert type(s) is pytensor.LongStorage and s.tolist() == [1, 2, 3] and s.is_shared()
    a[0] = 42
    assert t[0].item() == 42.0 and t.is_shared()


# ---------------------------------------------------------------- fork
def test_fork_argument_modified_in_child(strategy):
    t = pytensor.ones(4).share_memory_()
    p = FORK.Process(target=_add_one, args=(t,))
    p.start()
    p.join(10)
    assert p.exitcode == 0 and t.tolist() == [2.0] * 4


def test_fork_queue(strategy):
    q, r = FORK.Queue(), FORK.Queue()
    p = FORK.Process(target=_get_mul_put, args=(q, r))
    p.start()
    x = pytensor.arange(3.0, requires_grad=True)
    q.put(x)
    assert r.get(timeout=10) == ("ok", True, True, "Tensor")
    p.join(10)
    assert x.tolist() == [0.0, 10.0, 20.0] and x.is_shared()


def test_fork_queue_parameter_and_storage_sent_once(strategy):
    q, r = FORK.Queue(), FORK.Queue()
    p = FORK.Process(target=_get_twice, args=(q, r))
    p.start()
    x = pytensor.arange(6.0)
    q.put((x, x[2:].view(2, 2)))
    q.put(x)
    same, b0, c1, shape, offset = r.get(timeout=10)
    p.join(10)
    assert same and b0 == 2.0 and c1 == 1.0 and shape == (2, 2) and offset == 2
    assert x[0].item() == 5.0
    q2, r2 = FORK.Queue(), FORK.Queue()
    p = FORK.Process(target=_get_mul_put, args=(q2, r2))
    p.start()
    param = pytensor.nn.Parameter(pytensor.ones(2))
    q2.put(param)
    assert r2.get(timeout=10) == ("ok", True, True, "Parameter")
    p.join(10)
    assert param.tolist() == [10.0, 10.0]


def test_fork_pipe(strategy):
    parent, child = FORK.Pipe()
    p = FORK.Process(target=_pipe_child, args=(child,))
    p.start()
    x = pytensor.zeros(3, dtype=pytensor.int32)
    parent.send(x)
    assert parent.recv() == 21
    p.join(10)
    assert x.tolist() == [7, 7, 7]


def test_fork_pool(strategy):
    t = pytensor.zeros(4)
    with FORK.Pool(2) as pool:
        assert pool.map(_pool_add, [(t, i) for i in range(4)]) == [1] * 4
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]


# ---------------------------------------------------------------- cleanup
def test_file_system_no_leftovers_after_children():
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    try:
        before = _segments()
        q, r = FORK.Queue(), FORK.Queue()
        p = FORK.Process(target=_get_mul_put, args=(q, r))
        p.start()
        x = pytensor.ones(3)
        q.put(x)
        r.get(timeout=10)
        p.join(10)
        assert x.tolist() == [10.0] * 3
        del x
        assert _wait_for(lambda: _segments() == before, 5)
    finally:
        mp.set_sharing_strategy(old)


def test_sigkilled_child_segment_is_unlinked_by_manager():
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    try:
        pytensor.UntypedStorage._new_shared(1)  # the manager runs before the child forks
        r = FORK.Queue()
        p = FORK.Process(target=_make_and_wait, args=(r, "file_system"))
        p.start()
        pid = r.get(timeout=10)
        assert _wait_for(lambda: len(_segments(pid)) == 1, 5)
        os.kill(pid, signal.SIGKILL)
        p.join(10)
        assert _wait_for(lambda: not _segments(pid), 10)
    finally:
        mp.set_sharing_strategy(old)


def test_sigkilled_receiver_leaves_parent_segment_alive():
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    try:
        q, r = FORK.Queue(), FORK.Queue()
        p = FORK.Process(target=_hold_and_wait, args=(q, r))
        p.start()
        x = pytensor.full((4,), 3.0)
        q.put(x)
        assert r.get(timeout=10) == 3.0
        seg = _segments(os.getpid())
        assert seg
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        time.sleep(0.3)  # the manager has seen the child go
        assert set(seg) <= set(_segments(os.getpid()))
        x.add_(1)
        assert x.tolist() == [4.0] * 4
        del x
        assert _wait_for(lambda: not (set(seg) & set(_segments(os.getpid()))), 5)
    finally:
        mp.set_sharing_strategy(old)


# ---------------------------------------------------------------- spawn (slow: a few only)
def test_spawn_context_queue_both_strategies():
    ctx = mp.get_context("spawn")
    q, r = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_get_many_mul_put, args=(q, r, 2))
    p.start()
    xs = []
    try:
        for strategy in STRATEGIES:
            mp.set_sharing_strategy(strategy)
            xs.append(pytensor.tensor([1.0, 2.0]))
            q.put(xs[-1])
            assert r.get(timeout=120) is True
    finally:
        mp.set_sharing_strategy("file_descriptor")
    p.join(30)
    assert [x.tolist() for x in xs] == [[10.0, 20.0]] * 2


def test_spawn_helper():
    t = pytensor.zeros(2).share_memory_()
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    q.put(t)
    q.put(t)
    assert mp.spawn(_spawn_worker, args=(q,), nprocs=2) is None
    assert sorted(t.tolist()) == [100.0, 101.0]
    with pytest.raises(mp.ProcessRaisedException) as e:
        mp.spawn(_spawn_fail, nprocs=2, start_method="fork")
    assert e.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(e.value)
    assert "ValueError: worker one failed" in str(e.value)
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.spawn(_spawn_exit, nprocs=1, start_method="fork")
    assert mp.spawn(_spawn_fail, nprocs=0, join=False).join()


def test_meta_empty_and_typed_storages_roundtrip(strategy):
    m = pytensor.empty(2, 3, device="meta", requires_grad=True)
    back = pickle.loads(ForkingPickler.dumps(m))
    assert back.device.type == "meta" and tuple(back.shape) == (2, 3) and back.requires_grad
    e = pytensor.empty(0, dtype=pytensor.int16)
    back = pickle.loads(ForkingPickler.dumps(e))
    assert back.numel() == 0 and back.dtype == pytensor.int16
    ts = pytensor.TypedStorage([1, 2], dtype=pytensor.float64)
    back = pickle.loads(ForkingPickler.dumps(ts))
    assert type(back) is pytensor.TypedStorage and back.dtype == pytensor.float64
    back[0] = 3
    assert ts[0] == 3.0
    with pytest.raises(RuntimeError, match="Cannot pickle meta storage"):
        ForkingPickler.dumps(m.untyped_storage())


def test_sigkilled_child_that_reused_an_inherited_storage():
    # the child finds the segment in the cache it inherited and takes a reference of its own
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    try:
        x = pytensor.full((4,), 3.0)
        y = pickle.loads(ForkingPickler.dumps(x))  # x is in this process's cache now
        assert y.data_ptr() == x.data_ptr()
        seg = _segments(os.getpid())
        q, r = FORK.Queue(), FORK.Queue()
        p = FORK.Process(target=_hold_and_wait, args=(q, r))
        p.start()
        q.put(x)
        assert r.get(timeout=10) == 3.0
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        time.sleep(0.3)
        assert set(seg) <= set(_segments(os.getpid()))
        del x, y
        assert _wait_for(lambda: not (set(seg) & set(_segments(os.getpid()))), 5)
    finally:
        mp.set_sharing_strategy(old)


def test_from_file_shared_is_shared(tmp_path):
    s = pytensor.FloatStorage.from_file(str(tmp_path / "f.bin"), shared=True, size=2)
    assert s.is_shared()
    assert not pytensor.FloatStorage.from_file(str(tmp_path / "f.bin"), shared=False,
                                               size=2).is_shared()
