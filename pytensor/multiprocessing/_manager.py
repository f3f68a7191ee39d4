"""The sharing manager: unlinks the named segments of processes that died holding them.

Run as a script (``python <path of this file> <socket path>``), never imported by the package:
it stays a small process that does not load pytensor's core. It listens on a Unix socket; each
client process connects once and sends lines ``P <pid>`` (first) and ``R <segment name>`` (one per
segment it maps). When a client's connection closes — at exit, or when the kernel closes it after
a SIGKILL — the manager clears that process's slot in each of its segments' headers (Note [shared
segment header], csrc/core/shm.h) and unlinks the segments no live process holds a reference to.
When the last client is gone it unlinks every segment it was told of and exits. It prints
``ready`` on stdout once it listens (from a child of its own, detached from the process that
started it).

Why a Python script rather than a C executable (torch_shm_manager): it needs no build step or
install location of its own, and its work — a few socket events per process — is far from any
hot path. It starts in about 30 ms.
"""
import mmap
import os
import selectors
import socket
import struct
import sys

import _posixshmem

# The header's layout (csrc/core/shm.h; the slot count is read from the header itself).
HEADER_BYTES, SLOTS_OFFSET = 4096, 64
MAGIC = 0x31304D4853545050
FIRST_CLIENT_WAIT_S = 30.0


def reclaim(name: str, pid: int) -> None:
    """Drops the references of the dead process ``pid`` on segment ``name``; unlinks it when no
    other process holds one."""
    try:
        fd = _posixshmem.shm_open(name, os.O_RDWR, 0)
    except OSError:
        return  # already unlinked
    try:
        if os.fstat(fd).st_size < HEADER_BYTES:
            return
        m = mmap.mmap(fd, HEADER_BYTES)
    finally:
        os.close(fd)
    try:
        if struct.unpack_from("<Q", m, 0)[0] != MAGIC:
            return
        total = 0
        nslots = min(struct.unpack_from("<i", m, 16)[0], (HEADER_BYTES - SLOTS_OFFSET) // 8)
        for i in range(nslots):
            off = SLOTS_OFFSET + 8 * i
            p, c = struct.unpack_from("<ii", m, off)
            if p == pid:
                struct.pack_into("<i", m, off + 4, 0)
                struct.pack_into("<i", m, off, 0)
            elif p != 0:
                total += c
    finally:
        m.close()
    if total <= 0:
        unlink(name)


def unlink(name: str) -> None:
    try:
        _posixshmem.shm_unlink(name)
    except OSError:
        pass


def serve(path: str) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    # Detach: the process that started this one waits for the first process only, so no zombie
    # is left behind when the manager exits before it.
    if os.fork() > 0:
        os._exit(0)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    clients = {}  # socket -> [pid, set of names, pending bytes]
    everything = set()
    print("ready", flush=True)
    seen_client = False
    try:
        while True:
            events = sel.select(timeout=None if seen_client else FIRST_CLIENT_WAIT_S)
            if not events and not seen_client:
                break
            for key, _ in events:
                sock = key.fileobj
                if sock is listener:
                    conn, _ = listener.accept()
                    sel.register(conn, selectors.EVENT_READ)
                    clients[conn] = [0, set(), b""]
                    seen_client = True
                    continue
                state = clients[sock]
                data = sock.recv(65536)
                if data:
                    lines = (state[2] + data).split(b"\n")
                    state[2] = lines.pop()
                    for line in lines:
                        kind, _, arg = line.partition(b" ")
                        if kind == b"P":
                            state[0] = int(arg)
                        elif kind == b"R":
                            name = arg.decode()
                            state[1].add(name)
                            everything.add(name)
                    continue
                sel.unregister(sock)
                sock.close()
                pid, names, _ = clients.pop(sock)
                for name in names:
                    reclaim(name, pid)
            if seen_client and not clients:
                break
    finally:
        for name in everything:
            unlink(name)
        listener.close()
        try:
            os.unlink(path)
            os.rmdir(os.path.dirname(path))
        except OSError:
            pass


if __name__ == "__main__":
    serve(sys.argv[1])
