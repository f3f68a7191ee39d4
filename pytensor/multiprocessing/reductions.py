"""ForkingPickler reductions: tensors and storages cross process boundaries as shared memory.

A storage is moved into shared memory when it is sent (share_memory_ under the current sharing
strategy) and arrives as a storage over the same memory: a duplicated memfd (file_descriptor) or
the segment's name (file_system). ``shared_cache`` maps what identifies the memory (the fd's
inode, the segment's name) to a weak reference to the storage over it, in the sender and the
receiver alike, so the same memory sent twice, or sent back, arrives as the one storage it
already is in that process. A tensor travels as its storage plus offset, sizes, strides and
requires_grad; a non-leaf that requires grad is refused, since its graph cannot follow.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.reduction
import multiprocessing.util
import os
import threading
from multiprocessing.reduction import ForkingPickler

from .. import _storage
from .._args import _int64s
from .._tensor import Tensor, _call
from .._C import lib

__all__ = ["StorageWeakRef", "SharedCache", "shared_cache", "storage_from_cache", "fd_id",
           "rebuild_tensor", "reduce_tensor", "rebuild_meta_tensor", "reduce_storage",
           "rebuild_storage_fd", "rebuild_storage_filename", "rebuild_storage_empty",
           "reduce_typed_storage", "rebuild_typed_storage", "init_reductions"]


class StorageWeakRef:
    """A weak reference to a storage in shared memory (it does not keep the memory alive)."""

    __slots__ = ("cdata", "__weakref__")

    def __init__(self, storage):
        self.cdata = storage._weak_ref()

    @classmethod
    def from_weakref(cls, cdata):
        instance = cls.__new__(cls)
        instance.cdata = cdata
        return instance

    def expired(self) -> bool:
        return _storage.UntypedStorage._expired(self.cdata)

    def __del__(self):
        cdata = getattr(self, "cdata", 0)
        if cdata:
            self.cdata = 0
            _storage.UntypedStorage._free_weak_ref(cdata)

    def __hash__(self):
        return self.cdata

    def __eq__(self, other):
        return isinstance(other, StorageWeakRef) and self.cdata == other.cdata


class SharedCache(dict):
    """key -> StorageWeakRef; dead entries are dropped once the dict grows past ``limit``."""

    def __init__(self):
        super().__init__()
        self.limit = 128
        self.lock = threading.Lock()
        self._after_fork()
        multiprocessing.util.register_after_fork(self, SharedCache._after_fork)

    def _after_fork(self):
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            return dict.get(self, key)

    def __setitem__(self, key, storage_ref):
        with self.lock:
            dict.__setitem__(self, key, storage_ref)
            if len(self) > self.limit:
                self.free_dead_references()

    def free_dead_references(self):
        live = 0
        for key, ref in list(self.items()):
            if ref.expired():
                del self[key]
            else:
                live += 1
        self.limit = max(128, live * 2)


shared_cache = SharedCache()


def storage_from_cache(cls, key):
    ref = shared_cache.get(key)
    if ref is None:
        return None
    return cls._new_with_weak_ptr(ref.cdata)


def fd_id(fd):
    """What identifies the memory behind fd across processes: (inode, device)."""
    st = os.fstat(fd)
    return (st.st_ino, st.st_dev)


# ---------------------------------------------------------------- tensors
def rebuild_tensor(cls, storage, dtype, metadata):
    offset, size, stride, requires_grad = metadata
    t = _call(lib.pt_tensor_from_storage, storage._h, dtype._id, len(size), _int64s(list(size)),
              _int64s(list(stride)), offset)
    if getattr(cls, "_is_param", False):
        return cls(t, requires_grad)
    t.requires_grad = requires_grad
    return t


def rebuild_meta_tensor(cls, dtype, size, stride, offset, requires_grad):
    from .. import _factory
    t = _factory.empty_strided(size, stride, dtype=dtype, device="meta")
    if offset:
        t = t.as_strided(size, stride, offset)
    if getattr(cls, "_is_param", False):
        return cls(t, requires_grad)
    t.requires_grad = requires_grad
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the queue)."
        )
    meta = (tensor.storage_offset(), tuple(tensor.size()), tuple(tensor.stride()),
            tensor.requires_grad)
    if tensor.device.type == "meta":
        return (rebuild_meta_tensor, (type(tensor), tensor.dtype, meta[1], meta[2], meta[0],
                                      meta[3]))
    if tensor.device.type != "cpu":
        raise RuntimeError(f"pytensor.multiprocessing: {tensor.device.type} tensors cannot be "
                           "shared between processes; move them to the CPU first")
    return (rebuild_tensor, (type(tensor), tensor.untyped_storage(), tensor.dtype, meta))


# ---------------------------------------------------------------- storages
def rebuild_storage_fd(cls, df, size):
    fd = df.detach()
    try:
        storage = storage_from_cache(cls, fd_id(fd))
        if storage is not None:
            return storage
        storage = cls._new_shared_fd_cpu(fd, size)
        shared_cache[fd_id(fd)] = StorageWeakRef(storage)
        return storage
    finally:
        os.close(fd)


def rebuild_storage_filename(cls, manager, handle, size, pid):
    # The sender took a reference for the transit (reduce_storage); it is dropped in its slot
    # once this process holds one of its own.
    storage = storage_from_cache(cls, handle)
    if storage is None:
        storage = cls._new_shared_filename_cpu(manager, handle, size)
        shared_cache[handle] = StorageWeakRef(storage)
    else:
        # A storage this process inherited through fork holds a reference of this process's
        # once _shared_decref runs: the manager must know of it.
        from . import _client
        _client.register(manager, handle)
    return storage._shared_decref(pid)


def rebuild_storage_empty(cls):
    return cls()


def reduce_storage(storage):
    from . import get_sharing_strategy
    dev = storage.device.type
    if dev == "cuda":
        raise RuntimeError("Cannot pickle CUDA storage; try pickling a CUDA tensor instead")
    if dev == "meta":
        raise RuntimeError("Cannot pickle meta storage; try pickling a meta tensor instead")
    if get_sharing_strategy() == "file_system":
        manager, handle, size = storage._share_filename_cpu_()
        storage._shared_incref()
        cache_key = handle
        rebuild, metadata = rebuild_storage_filename, (manager, handle, size, os.getpid())
    elif storage.size() == 0:
        return (rebuild_storage_empty, (type(storage),))
    else:
        fd, size = storage._share_fd_cpu_()
        df = multiprocessing.reduction.DupFd(fd)
        cache_key = fd_id(fd)
        rebuild, metadata = rebuild_storage_fd, (df, size)
    shared_cache[cache_key] = StorageWeakRef(storage)
    return (rebuild, (type(storage),) + metadata)


def rebuild_typed_storage(cls, untyped, dtype):
    if cls is _storage.TypedStorage:
        return cls(wrap_storage=untyped, dtype=dtype)
    return cls(wrap_storage=untyped)


def reduce_typed_storage(storage):
    return (rebuild_typed_storage, (type(storage), storage.untyped(), storage.dtype))


def init_reductions():
    """Registers the reductions with ForkingPickler (what multiprocessing's queues, pipes and
    process arguments pickle with)."""
    import pytensor
    from ..nn.parameter import Parameter
    ForkingPickler.register(_storage.UntypedStorage, reduce_storage)
    ForkingPickler.register(_storage.TypedStorage, reduce_typed_storage)
    for cls in _storage._typed_classes.values():
        ForkingPickler.register(cls, reduce_typed_storage)
    for cls in (Tensor, Parameter, pytensor.Tensor):
        ForkingPickler.register(cls, reduce_tensor)
