"""Workers of test_multiprocessing.py, in a module of their own so that a spawned child imports
only pytensor (not pytest or torch) to unpickle them."""
import os
import time

import pytensor
import pytensor.multiprocessing as mp


def _add_one(t):
    t.add_(1)


def _get_mul_put(q, r):
    x = q.get()
    with pytensor.no_grad():
        x.mul_(10)
    r.put(("ok", x.is_shared(), x.requires_grad, type(x).__name__))


def _pipe_child(conn):
    x = conn.recv()
    x.fill_(7)
    conn.send(x.sum().item())


def _pool_add(args):
    t, i = args
    t[i] += i + 1
    return int(t.untyped_storage().data_ptr() != 0)


def _get_twice(q, r):
    a, b = q.get()
    c = q.get()
    same = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() == \
        c.untyped_storage().data_ptr()
    a[0] = 5.0
    r.put((same, b[0, 0].item(), c[1].item(), tuple(b.shape), b.storage_offset()))


def _make_and_wait(r, strategy):
    mp.set_sharing_strategy(strategy)
    t = pytensor.zeros(16).share_memory_()
    r.put(os.getpid())
    time.sleep(60)
    del t


def _hold_and_wait(q, r):
    t = q.get()
    r.put(float(t[0]))
    time.sleep(60)


def _spawn_worker(i, q):
    t = q.get()
    t[i] = 100.0 + i


def _spawn_fail(i):
    if i == 1:
        raise ValueError("worker one failed")


def _spawn_exit(i):
    os._exit(3)


def _get_many_mul_put(q, r, n):
    for _ in range(n):
        x = q.get()
        x.mul_(10)
        r.put(x.is_shared())
