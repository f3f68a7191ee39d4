"""The client side of the sharing manager (_manager.py): one connection per process and manager.

``manager_handle()`` gives the socket path of this process's manager, starting one on first use;
``register(handle, name)`` tells that manager (connecting first, and again after a fork, since a
child is a client of its own) that this process maps segment ``name``.
"""
import os
import subprocess
import sys
import tempfile
import threading

_lock = threading.RLock()
_handle = None          # bytes: the socket path of the manager this process started or inherited
_conns = {}             # handle -> (pid, socket)


def _manager_path() -> str:
    """The manager's script, run as ``python <path> <socket path>``."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_manager.py")


def manager_handle() -> bytes:
    global _handle
    with _lock:
        if _handle is not None:
            try:
                _connection(_handle)
                return _handle
            except RuntimeError:  # the manager is gone (its clients all went): start another
                _handle = None
        path = os.path.join(tempfile.mkdtemp(prefix="pytensor-shm-dir-"), "manager.sock")
        proc = subprocess.Popen([sys.executable, "-S", _manager_path(), path],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                start_new_session=True, close_fds=True)
        line = proc.stdout.readline()
        proc.stdout.close()
        proc.wait()
        if line.strip() != b"ready":
            raise RuntimeError(f"could not start the sharing manager ({_manager_path()}): it "
                               f"exited with status {proc.returncode}")
        _handle = os.fsencode(path)
        _connection(_handle)
        return _handle


def _connection(handle: bytes):
    import socket
    pid = os.getpid()
    entry = _conns.get(handle)
    if entry is not None and entry[0] == pid:
        return entry[1]
    if entry is not None:
        # Inherited through fork: the parent's connection stays the parent's.
        _conns.pop(handle)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fsdecode(handle))
    except OSError as e:
        sock.close()
        raise RuntimeError(f"could not connect to the sharing manager at "
                           f"{os.fsdecode(handle)!r}: {e}") from None
    os.set_inheritable(sock.fileno(), False)
    sock.sendall(b"P %d\n" % pid)
    _conns[handle] = (pid, sock)
    return sock


def register(handle: bytes, name: bytes) -> None:
    with _lock:
        _connection(handle).sendall(b"R " + name + b"\n")


def _after_fork_in_child() -> None:
    # The parent's connections are the parent's: a child holding them open would keep the manager
    # from seeing the parent die. Closing the child's copies leaves the parent's open.
    global _lock
    _lock = threading.RLock()
    for _, sock in _conns.values():
        sock.close()
    _conns.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
