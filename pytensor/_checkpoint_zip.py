"""The zip archives of torch's checkpoints: a writer that lays records out as torch's writer
(miniz) does and a reader of the central directory (pytensor/serialization.py uses both).

Writer: each record is stored (not compressed); its local header carries an "FB" extra field of
"Z" padding so that the data starts on a 64-byte boundary (torch's .storage_alignment), sizes and
CRC-32 go in a data descriptor after the data (none for an empty record), and the archive ends
with a zip64 end-of-central-directory record and locator before the classic end record, as torch
writes them whatever the size. Records and offsets of 4 GiB and more get zip64 extra fields.

Reader: finds the end record in the file's tail (zip64 when present), reads the central
directory and checks every offset against the file, so a truncated or damaged archive raises a
RuntimeError that says what is wrong instead of reading past the end.
"""

from __future__ import annotations

import os
import struct
import zlib

_ALIGNMENT = 64  # torch's default storage alignment (its .storage_alignment record)
_U32 = 0xFFFFFFFF


class _ZipWriter:
    """Writes records the way torch's writer does (stored, data 64-byte aligned, data
    descriptors, zip64 end records), so the bytes match torch.save's apart from the id."""

    def __init__(self, f, archive: str):
        self.f, self.prefix = f, archive + "/"
        self.pos = 0
        self.entries = []  # (name, crc, size, header offset, flags)
        self.crcs = 0

    def _put(self, data) -> None:
        self.f.write(data)
        self.pos += len(data)

    def write_record(self, name: str, data, nbytes: int, skip: bool = False) -> None:
        full = (self.prefix + name).encode("utf-8")
        offset = self.pos
        big_size, big_off = nbytes >= _U32, offset >= _U32
        z64 = b""
        if big_size or big_off:
            fields = (struct.pack("<QQ", nbytes, nbytes) if big_size else b"") + \
                (struct.pack("<Q", offset) if big_off else b"")
            z64 = struct.pack("<HH", 1, len(fields)) + fields
        start = offset + 30 + len(full) + len(z64) + 4
        pad = -start % _ALIGNMENT
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = 0x808 if nbytes else 0x800  # data descriptor follows (non-empty); UTF-8 names
        self._put(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0,
                              len(full), len(extra)) + full + extra)
        crc = 0
        if nbytes:
            if skip:
                crc = _zeros_crc(nbytes, self.f, write=not _seekable(self.f))
                if _seekable(self.f):
                    self.f.seek(nbytes, 1)  # a hole reads as zeros
            else:
                crc = _write_with_crc(self.f, data, nbytes)
            self.pos += nbytes
            if big_size or big_off:
                self._put(struct.pack("<IIQQ", 0x08074B50, crc, nbytes, nbytes))
            else:
                self._put(struct.pack("<IIII", 0x08074B50, crc, nbytes, nbytes))
        self.crcs = zlib.crc32(struct.pack("<I", crc), self.crcs)
        self.entries.append((full, crc, nbytes, offset, flags))

    def close(self) -> None:
        self.write_record("version", b"3\n", 2)
        # 40 digits, as torch's: a random number and one derived from the records' CRCs
        mixed = self.crcs << 32 | len(self.entries)
        ident = f"{int.from_bytes(os.urandom(8), 'little'):020d}{mixed:020d}"
        self.write_record(".data/serialization_id", ident.encode(), 40)
        cd_start = self.pos
        for full, crc, n, off, flags in self.entries:
            fields = (struct.pack("<QQ", n, n) if n >= _U32 else b"") + \
                (struct.pack("<Q", off) if off >= _U32 else b"")
            extra = struct.pack("<HH", 1, len(fields)) + fields if fields else b""
            self._put(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc,
                                  min(n, _U32), min(n, _U32), len(full), len(extra), 0, 0, 0, 0,
                                  min(off, _U32)) + full + extra)
        cd_size, count, z64_at = self.pos - cd_start, len(self.entries), self.pos
        self._put(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count,
                              cd_size, cd_start))
        self._put(struct.pack("<IIQI", 0x07064B50, 0, z64_at, 1))
        self._put(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF),
                              min(count, 0xFFFF), min(cd_size, _U32), min(cd_start, _U32), 0))
        if hasattr(self.f, "flush"):
            self.f.flush()


# A record's bytes go out in pieces this large, each written right after its CRC was taken,
# while it is still in the core's cache: one pass over memory instead of two. Measured on a
# 100 MB state_dict, a new file on tmpfs-backed page cache: 29.7 ms whole, 27.2 with 64 KiB
# pieces, 25.3 with 256 KiB, 27.0 with 1 MiB (past a core's L2).
_CRC_PIECE = 256 << 10


def _write_with_crc(f, data, nbytes: int) -> int:
    """Writes ``data`` (``nbytes`` bytes) to ``f``; returns its CRC-32."""
    if nbytes < 2 * _CRC_PIECE:
        f.write(data)
        return zlib.crc32(data)
    view = memoryview(data).cast("B")
    crc = 0
    for at in range(0, nbytes, _CRC_PIECE):
        piece = view[at:at + _CRC_PIECE]
        crc = zlib.crc32(piece, crc)
        f.write(piece)
    return crc


def _zeros_crc(nbytes: int, f, write: bool) -> int:
    """The CRC-32 of ``nbytes`` zero bytes (written to ``f`` when asked), 1 MiB at a time."""
    zeros, crc = bytes(min(nbytes, 1 << 20)), 0
    while nbytes:
        chunk = memoryview(zeros)[:min(nbytes, len(zeros))]
        crc = zlib.crc32(chunk, crc)
        if write:
            f.write(chunk)
        nbytes -= len(chunk)
    return crc


def _seekable(f) -> bool:
    try:
        return f.seekable()
    except AttributeError:
        return False


# ---------------------------------------------------------------- the zip reader
def _corrupt(what: str) -> RuntimeError:
    return RuntimeError(f"PytorchStreamReader failed reading zip archive: {what}. The file is "
                        "truncated or corrupted.")


class _ZipReader:
    """The records of a torch.save archive: name -> (header offset, size, crc)."""

    def __init__(self, f):
        self.f = f
        f.seek(0, 2)
        self.size = size = f.tell()
        tail_len = min(size, 22 + 0xFFFF + 20 + 56)
        f.seek(size - tail_len)
        tail = f.read(tail_len)
        at = tail.rfind(b"PK\x05\x06")
        if size < 22 or at < 0 or at + 22 > len(tail):
            raise _corrupt("failed finding central directory")
        _, _, _, _, count, cd_size, cd_off, _ = struct.unpack_from("<IHHHHIIH", tail, at)
        if at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":
            z64_at = struct.unpack_from("<Q", tail, at - 12)[0]
            f.seek(z64_at)
            rec = f.read(56)
            if len(rec) != 56 or rec[:4] != b"PK\x06\x06":
                raise _corrupt("failed finding the zip64 end of central directory")
            count, cd_size, cd_off = struct.unpack_from("<QQQ", rec, 32)
        if cd_off + cd_size > size:
            raise _corrupt("the central directory lies beyond the end of the file")
        f.seek(cd_off)
        cd = f.read(cd_size)
        self.records: dict = {}
        pos = 0
        prefix = None
        for _ in range(count):
            if pos + 46 > len(cd) or cd[pos:pos + 4] != b"PK\x01\x02":
                raise _corrupt("invalid central directory entry")
            (crc, csize, usize, nlen, elen, clen) = struct.unpack_from("<IIIHHH", cd, pos + 16)
            off = struct.unpack_from("<I", cd, pos + 42)[0]
            name = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
            extra = cd[pos + 46 + nlen:pos + 46 + nlen + elen]
            usize, csize, off = self._zip64(extra, usize, csize, off)
            if struct.unpack_from("<H", cd, pos + 10)[0] != 0:
                raise RuntimeError(f"PytorchStreamReader: record {name} is compressed; "
                                   "torch.save archives store records uncompressed")
            pos += 46 + nlen + elen + clen
            if prefix is None:
                prefix = name.split("/", 1)[0] + "/"
            if not name.startswith(prefix):
                raise _corrupt(f"record {name} is not in the archive's directory {prefix}")
            self.records[name[len(prefix):]] = (off, usize, crc)
        if prefix is None:
            raise _corrupt("the archive holds no records")
        self.end = cd_off

    @staticmethod
    def _zip64(extra: bytes, usize: int, csize: int, off: int):
        i = 0
        while i + 4 <= len(extra):
            tag, n = struct.unpack_from("<HH", extra, i)
            if tag == 1:
                vals = list(struct.unpack_from(f"<{n // 8}Q", extra, i + 4))
                if usize == _U32 and vals:
                    usize = vals.pop(0)
                if csize == _U32 and vals:
                    csize = vals.pop(0)
                if off == _U32 and vals:
                    off = vals.pop(0)
            i += 4 + n
        return usize, csize, off

    def has_record(self, name: str) -> bool:
        return name in self.records

    def locate(self, name: str):
        """(data offset, size) of a record, checked against the file."""
        if name not in self.records:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        off, size, _ = self.records[name]
        self.f.seek(off)
        hdr = self.f.read(30)
        if len(hdr) != 30 or hdr[:4] != b"PK\x03\x04":
            raise _corrupt(f"invalid local header of record {name}")
        nlen, elen = struct.unpack_from("<HH", hdr, 26)
        start = off + 30 + nlen + elen
        if start + size > self.end:
            raise _corrupt(f"record {name} runs past the central directory")
        return start, size

    def read(self, name: str, check_crc: bool = True) -> bytes:
        start, size = self.locate(name)
        self.f.seek(start)
        data = self.f.read(size)
        if len(data) != size:
            raise _corrupt(f"record {name} is truncated")
        if check_crc and zlib.crc32(data) != self.records[name][2]:
            raise _corrupt(f"record {name} fails its CRC-32 check")
        return data

    def read_into(self, name: str, buf, nbytes: int) -> None:
        start, size = self.locate(name)
        if size != nbytes:
            raise RuntimeError(f"PytorchStreamReader: record {name} holds {size} bytes, but the "
                               f"pickle describes a storage of {nbytes} bytes")
        self.f.seek(start)
        view, done = memoryview(buf), 0
        while done < nbytes:
            got = self.f.readinto(view[done:])
            if not got:
                raise _corrupt(f"record {name} is truncated")
            done += got
