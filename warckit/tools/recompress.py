"""Recompress a WARC or ARC file: one gzip member (or zstd frame) per record.

Whole-file gzip, uncompressed files, and files whose gzip members do not line up
with records become record-at-a-time files (WARC 1.1 Annex D), so that every record
gets a random-access offset. Each record is written exactly as stored: head, block
and the trailer actually read (a Heritrix short trailer, an ARC's single newline)
are kept byte for byte; only the compression changes. Bytes between records that
belong to no record (garbage a lenient read skipped) are dropped and reported.

Example:
    >>> import io, gzip, tempfile, os
    >>> src = os.path.join(tempfile.mkdtemp(), "in.warc")
    >>> rec = (b"WARC/1.0\\r\\nWARC-Type: resource\\r\\nWARC-Record-ID: <urn:uuid:1>\\r\\n"
    ...        b"WARC-Date: 2024-01-01T00:00:00Z\\r\\nContent-Length: 2\\r\\n\\r\\nhi\\r\\n\\r\\n")
    >>> _ = open(src, "wb").write(rec * 2)
    >>> stats = recompress(src, src + ".gz")
    >>> stats.records, len(stats.members), gzip.open(src + ".gz").read() == rec * 2
    (2, 2, True)
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import Issue, UsageError
from ..io.atomic import replacing
from ..io.remote import is_url
from ..io.sources import open_source
from ..read.reader import open_archive
from ..write.encode import _GZIP_HEADER
from ..write.writer import DEFAULT_GZIP_LEVEL, HAVE_ISAL, Spool, fsync_file

if HAVE_ISAL:  # pragma: no branch - depends on the environment
    from isal import isal_zlib as _zlib
else:  # pragma: no cover
    import zlib as _zlib  # type: ignore[no-redef]

__all__ = ["GzipMemberWriter", "RecompressStats", "recompress"]


@dataclass
class RecompressStats:
    """What :func:`recompress` did.

    Attributes:
        records: Records written.
        format: ``"warc"`` or ``"arc"`` (of the first record).
        bytes_in: Size of the input file.
        bytes_out: Size of the output file.
        members: ``(offset, length)`` of each record in the output.
        issues: Recoveries the lenient reader reported (dropped bytes among them).
    """

    records: int = 0
    format: str = "warc"
    bytes_in: int = 0
    bytes_out: int = 0
    members: list[tuple[int, int]] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)


class GzipMemberWriter:
    """A file-like sink that deflates everything written into one gzip member.

    Args:
        out: Where the member goes.
        level: Compression level.
    """

    def __init__(self, out: IO[bytes], level: int = DEFAULT_GZIP_LEVEL) -> None:
        self._out = out
        self._deflate: Any = _zlib.compressobj(level, _zlib.DEFLATED, -15)
        self._crc = 0
        self._size = 0
        self.written = len(_GZIP_HEADER)
        out.write(_GZIP_HEADER)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Compress *data*; return its length."""
        data = bytes(data)
        self._crc = _zlib.crc32(data, self._crc)
        self._size += len(data)
        compressed = self._deflate.compress(data)
        if compressed:
            self._out.write(compressed)
            self.written += len(compressed)
        return len(data)

    def close(self) -> int:
        """Finish the member; return its total size in bytes."""
        tail = self._deflate.flush(_zlib.Z_FINISH) + struct.pack(
            "<II", self._crc & 0xFFFFFFFF, self._size & 0xFFFFFFFF)
        self._out.write(tail)
        self.written += len(tail)
        return self.written


class _SpoolSink:
    def __init__(self) -> None:
        self.spool = Spool()

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self.spool.write(data)
        return len(data)


class _CountingSink:
    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.written = 0

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self.out.write(data)
        self.written += len(data)
        return len(data)


def recompress(
    source: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    compression: str = "gzip",
    level: int | None = None,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    overwrite: bool = False,
    fsync: bool = True,
) -> RecompressStats:
    """Rewrite *source* into *dest* with one gzip member / zstd frame per record.

    The output is written under a temporary name next to *dest* and renamed when
    complete.

    Args:
        source: A WARC or ARC file in any compression warckit reads.
        dest: The output file.
        compression: ``"gzip"`` (default), ``"zstd"`` (frames with content size and
            checksum) or ``"none"``.
        level: Compression level (gzip: isal 0-3 / zlib 0-9; zstd 1-22).
        lenient: Read damaged input leniently (recoveries go to *on_warning* and
            :attr:`RecompressStats.issues`).
        on_warning: Receives each :class:`~warckit.errors.Issue`.
        overwrite: Replace an existing *dest* (default: refuse).
        fsync: ``fsync`` the output before renaming it.

    Raises:
        UsageError: *dest* exists (and not *overwrite*), or it is *source*.
        ParseError: strict reading and the input is damaged.
    """
    if compression not in ("gzip", "zstd", "none"):
        raise UsageError(f"unknown compression {compression!r}; use gzip, zstd or none")
    src, dst = os.fspath(source), os.fspath(dest)
    if os.path.exists(dst):
        if os.path.exists(src) and os.path.samefile(src, dst):
            raise UsageError("the output must not be the input file")
        if not overwrite:
            raise UsageError(f"{dst} exists; choose another name or overwrite")
    if is_url(src):
        with open_source(src) as opened:
            bytes_in = int(opened.file.size)
    else:
        bytes_in = os.path.getsize(src)
    stats = RecompressStats(bytes_in=bytes_in)

    def warn(issue: Issue) -> None:
        stats.issues.append(issue)
        if on_warning is not None:
            on_warning(issue)

    zc: Any = None
    if compression == "zstd":
        import zstandard

        zc = zstandard.ZstdCompressor(level=level or 3, write_checksum=True, write_content_size=True)
    gz_level = DEFAULT_GZIP_LEVEL if level is None else level
    with replacing(dst) as out, open_archive(
        src, lenient=lenient, on_warning=warn
    ) as reader:
        position = 0
        for record in reader:
            if stats.records == 0:
                stats.format = record.format
            if compression == "gzip":
                member = GzipMemberWriter(out, gz_level)
                record.write_to(member)  # type: ignore[arg-type]
                size = member.close()
            elif compression == "zstd":
                sink = _SpoolSink()
                record.write_to(sink)  # type: ignore[arg-type]
                counter = _CountingSink(out)
                with zc.stream_writer(counter, size=sink.spool.size, closefd=False) as zw:
                    for chunk in sink.spool.chunks():
                        zw.write(chunk)
                sink.spool.close()
                size = counter.written
            else:
                counting = _CountingSink(out)
                record.write_to(counting)  # type: ignore[arg-type]
                size = counting.written
            stats.members.append((position, size))
            position += size
            stats.records += 1
        if fsync:
            fsync_file(out)
    stats.bytes_out = os.path.getsize(dst)
    return stats
