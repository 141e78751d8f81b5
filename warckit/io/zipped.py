"""ZIP members as byte ranges: the central directory of a ZIP file and its stored members
as seekable sub-files, by seeks and bounded reads only (ZIP64 included).

A WACZ stores its WARCs and its compressed index uncompressed (``ZIP_STORED``), so
a member is a plain byte range of the package: reading a record is a seek into it.
:func:`read_directory` reads the end of central directory record (the last 22 bytes,
or at most 64 KiB more when there is a comment), the ZIP64 locator and record when
present, and the central directory itself; :func:`open_member` then reads the
member's 30-byte local header and gives a :class:`MemberFile` over its data. No step
reads the whole file, so over ranged reads (an HTTP or S3 file object) the cost is
a few requests of a few KiB each.

The parsing is the standard library's :mod:`zipfile` (which already does exactly
these bounded reads); this module adds the stored-member view and typed errors.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from ..errors import ParseError
from .compression import ZIP_LOCAL_MAGIC
from .positioned import Positioned

__all__ = ["MemberFile", "ZipMember", "iter_member", "member_data_offset", "open_member",
           "read_directory", "read_member"]

#: The first bytes of a ZIP file (a local file header).
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
#: Largest member read whole by :func:`read_member` (metadata files, not WARCs).
MAX_SMALL_MEMBER = 64 << 20


@dataclass(frozen=True, slots=True)
class ZipMember:
    """One entry of the central directory.

    Attributes:
        name: The member's path in the package.
        header_offset: File offset of its local header.
        compressed_size: Bytes it occupies (its data, not the header).
        size: Bytes once decompressed.
        stored: Whether it is stored uncompressed (``ZIP_STORED``).
        crc: CRC-32 of the decompressed data.
    """

    name: str
    header_offset: int
    compressed_size: int
    size: int
    stored: bool
    crc: int


def read_directory(f: IO[bytes], name: str = "<zip>") -> list[ZipMember]:
    """The members of the ZIP file *f* (seekable), in central-directory order.

    Raises:
        ParseError: *f* is not a ZIP file, or its directory is damaged.
    """
    import zipfile  # (only when a ZIP is read: it imports shutil, bz2, lzma, threading)

    try:
        zf = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error) as exc:
        raise ParseError(f"not a readable ZIP file ({exc})", source=name) from None
    members = [ZipMember(i.filename, i.header_offset, i.compress_size, i.file_size,
                         i.compress_type == zipfile.ZIP_STORED, i.CRC)
               for i in zf.infolist()]
    # (ZipFile does not close a file object it was given; dropping it is enough.)
    return members


def member_data_offset(f: IO[bytes], member: ZipMember, name: str = "<zip>") -> int:
    """File offset of *member*'s data: after its local header (one 30-byte read)."""
    f.seek(member.header_offset)
    head = f.read(_LOCAL_HEADER.size)
    if len(head) < _LOCAL_HEADER.size or head[:4] != ZIP_LOCAL_MAGIC:
        raise ParseError(f"no local header for {member.name!r}", offset=member.header_offset, source=name)
    fields = _LOCAL_HEADER.unpack(head)
    name_len: int = fields[10]
    extra_len: int = fields[11]
    return member.header_offset + _LOCAL_HEADER.size + name_len + extra_len


class MemberFile(Positioned, io.RawIOBase):
    """A read-only, seekable view of bytes ``[start, start + size)`` of *f*.

    Reads never go past the member; the underlying file is shared, not closed, and is
    positioned before every read (so several views of one file may be used in turn).
    """

    def __init__(self, f: IO[bytes], start: int, size: int, name: str, member: str = "") -> None:
        super().__init__()
        self.member = member
        self._f = f
        self._start = start
        self.size = size
        self.name = name
        self._pos = 0

    def head(self, size: int) -> MemberFile:
        """A view of this one's first *size* bytes (reads then stop there)."""
        return MemberFile(self._f, self._start, max(0, min(size, self.size)), self.name, self.member)

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        n = min(len(view), self.size - self._pos)
        if n <= 0:
            return 0
        self._f.seek(self._start + self._pos)
        data = self._f.read(n)
        got = len(data)
        view[:got] = data
        self._pos += got
        return got

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self.size - self._pos
        n = min(size, self.size - self._pos)
        if n <= 0:
            return b""
        self._f.seek(self._start + self._pos)
        data: bytes = self._f.read(n)
        self._pos += len(data)
        return data

    def readall(self) -> bytes:
        return self.read(-1)


def open_member(f: IO[bytes], member: ZipMember, name: str = "<zip>") -> MemberFile:
    """A seekable view of a stored member's bytes (named ``name#member``).

    Raises:
        ParseError: the member is compressed (only stored members are byte ranges).
    """
    if not member.stored:
        raise ParseError(f"{member.name!r} is compressed in the ZIP, not stored; it cannot be "
                         f"read by ranges", offset=member.header_offset, source=name)
    start = member_data_offset(f, member, name)
    return MemberFile(f, start, member.compressed_size, f"{name}#{member.name}", member.name)


def iter_member(f: IO[bytes], member: ZipMember, name: str = "<zip>",
                chunk: int = 1 << 20) -> Iterator[bytes]:
    """The decompressed bytes of any member (stored or deflated), in chunks."""
    start = member_data_offset(f, member, name)
    left = member.compressed_size
    inflate = None if member.stored else zlib.decompressobj(-zlib.MAX_WBITS)
    pos = start
    while left:
        f.seek(pos)
        data = f.read(min(chunk, left))
        if not data:
            raise ParseError(f"the ZIP file ends inside {member.name!r}", offset=pos, source=name)
        pos += len(data)
        left -= len(data)
        if inflate is None:
            yield data
            continue
        try:
            out = inflate.decompress(data, chunk)
            while out:
                yield out
                out = inflate.decompress(inflate.unconsumed_tail, chunk) if inflate.unconsumed_tail else b""
        except zlib.error as exc:
            raise ParseError(f"{member.name!r}: damaged deflate data ({exc})", offset=pos,
                             source=name) from None
    if inflate is not None:
        tail = inflate.flush()
        if tail:
            yield tail


def read_member(f: IO[bytes], member: ZipMember, name: str = "<zip>") -> bytes:
    """The whole decompressed content of a small member (at most 64 MiB).

    Raises:
        ParseError: the member is larger, damaged, or its CRC-32 does not match.
    """
    if member.size > MAX_SMALL_MEMBER:
        raise ParseError(f"{member.name!r} is {member.size} bytes, more than the "
                         f"{MAX_SMALL_MEMBER} read whole", offset=member.header_offset, source=name)
    parts = []
    total = 0
    for part in iter_member(f, member, name):
        total += len(part)
        if total > MAX_SMALL_MEMBER:
            raise ParseError(f"{member.name!r} inflates past {MAX_SMALL_MEMBER} bytes",
                             offset=member.header_offset, source=name)
        parts.append(part)
    data = b"".join(parts)
    if zlib.crc32(data) != member.crc:
        raise ParseError(f"{member.name!r}: CRC-32 mismatch", offset=member.header_offset, source=name)
    return data
