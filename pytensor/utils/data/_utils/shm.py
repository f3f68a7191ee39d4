"""Hand-over of worker batches through shared-memory files.

Note [DataLoader batches in shared memory]
A worker stacks each batch of tensors straight into a file it creates under /dev/shm (a tmpfs:
the file is memory, mapped MAP_SHARED through ``UntypedStorage.from_file``). The batch's tensor
is marked with the file's name; the worker's pickler for the result queue (registered in the
worker only) sends a marked tensor as (name, size, dtype, shape) instead of its bytes. The main
process maps the same file, unlinks its name at once, and wraps the mapping in a tensor: no copy
of the data crosses the pipe, and the memory goes back to the system when the last tensor over
it dies. A batch that never reaches the main process (prefetched when the iterator shuts down,
or written by a worker that died) would leave its file behind, so every file name starts with a
prefix unique to one iterator, and the iterator removes what is left under its prefix once its
workers are gone. Tensors the worker's collate did not make (views, a custom collate_fn's own
results) are copied into a file of their own when they are large enough for the copy to beat
pickling (contiguous, no autograd history); smaller or unusual ones travel pickled by value.
"""

from __future__ import annotations

import itertools
import os

import pytensor
from pytensor._args import _int64s
from pytensor._C import lib
from pytensor._tensor import _call

SHM_DIR = "/dev/shm"
_iterator_ids = itertools.count()

# Set in a worker process by ``start_worker``; None elsewhere (the main process stacks into
# ordinary memory).
_prefix = None
_files = itertools.count()


def available() -> bool:
    return os.name == "posix" and os.path.isdir(SHM_DIR) and os.access(SHM_DIR, os.W_OK)


def new_prefix() -> str:
    """A file-name prefix unique to one iterator of this process."""
    return f"pytensor_dl_{os.getpid()}_{next(_iterator_ids)}_"


def _over(storage, dtype, shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    strides.reverse()
    return _call(lib.pt_tensor_from_storage, storage._h, dtype._id, len(shape),
                 _int64s(list(shape)), _int64s(strides), 0)


# Below this many bytes pickling a tensor by value is cheaper than creating, mapping and
# removing a file for it (measured: ~1.4 us per KiB pickled against ~60 us per file).
_SHARE_MIN_BYTES = 64 * 1024


def _new_file_tensor(dtype, shape, nbytes: int):
    name = f"{_prefix}{os.getpid()}_{next(_files)}"
    storage = pytensor.UntypedStorage.from_file(os.path.join(SHM_DIR, name), shared=True,
                                                size=nbytes)
    out = _over(storage, dtype, shape)
    out._dl_shm_file = (name, storage.data_ptr(), nbytes)
    return out


def empty_shared(n: int, elem):
    """An uninitialized contiguous tensor of ``n`` stacked ``elem``s in a new shared-memory file,
    or None where the caller should allocate normally (outside a worker, empty batches)."""
    if _prefix is None:
        return None
    shape = (n, *elem.shape)
    nbytes = elem.numel() * n * elem.element_size()
    if nbytes == 0:
        return None
    return _new_file_tensor(elem.dtype, shape, nbytes)


def _copy_to_file(t):
    """A copy of a large plain CPU tensor in a new shared-memory file, or None."""
    nbytes = t.numel() * t.element_size()
    if (nbytes < _SHARE_MIN_BYTES or t.device.type != "cpu" or t.requires_grad
            or t.layout is not pytensor.strided or not t.is_contiguous() or t.is_conj()
            or t.is_neg()):
        return None
    out = _new_file_tensor(t.dtype, tuple(t.shape), nbytes)
    out.copy_(t)
    return out


def _rebuild(name: str, nbytes: int, dtype, shape):
    path = os.path.join(SHM_DIR, name)
    storage = pytensor.UntypedStorage.from_file(path, shared=True, size=nbytes)
    os.unlink(path)
    return _over(storage, dtype, shape)


def start_worker(prefix) -> None:
    """Makes this worker stack batches into shared memory and send them by file name."""
    global _prefix
    if prefix is None or not available():
        return
    from multiprocessing.reduction import ForkingPickler
    previous = ForkingPickler._extra_reducers.get(pytensor.Tensor)

    def reduce_tensor(t):
        mark = getattr(t, "_dl_shm_file", None)
        if mark is None and previous is None:
            # (A reduction registered before, pytensor.multiprocessing's, shares other tensors
            # without a copy: it is left to do so.)
            copy = _copy_to_file(t)
            if copy is not None:
                t, mark = copy, copy._dl_shm_file
        if mark is not None:
            name, ptr, nbytes = mark
            # Only a tensor still over the whole file it was made with travels by name.
            if (t.untyped_storage().data_ptr() == ptr and t.is_contiguous()
                    and t.numel() * t.element_size() == nbytes):
                del t._dl_shm_file  # the receiver unlinks the file: it is sent once
                return _rebuild, (name, nbytes, t.dtype, tuple(t.shape))
        if previous is not None:
            return previous(t)
        return t.__reduce_ex__(5)

    ForkingPickler.register(pytensor.Tensor, reduce_tensor)
    _prefix = prefix


def sweep(prefix: str) -> None:
    """Removes the files left under an iterator's prefix (batches never received)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
            except OSError:
                pass
