"""Low-level record serializer and compressor: one gzip member or zstd frame per record.

Nothing here decides *what* to write: :mod:`warckit.guided` fills the fields and
:mod:`warckit.rolling` decides *where*. This module turns a record head and a block
into the exact bytes of one independently decompressible unit, so that every record
offset is a valid random-access offset (WARC 1.1 Annex D "record-at-a-time"
compression).

Gzip records are built in one pass without holding the block in memory: the block
is deflated into a spool as it streams in (raw deflate, no history), and once the
head is known it is deflated separately with a sync flush and placed in front.
Two raw-deflate streams, the first ending on a byte-aligned non-final block, form
one valid deflate stream; the member CRC is combined with ``crc32_combine``.
"""

from __future__ import annotations

import io
import os
import shutil
import struct
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, BinaryIO, Protocol

from .errors import UsageError, ValidationError
from .headers import Headers

try:  # pragma: no cover - depends on the environment
    from isal import isal_zlib as _zlib

    HAVE_ISAL = True
except ImportError:  # pragma: no cover
    import zlib as _zlib  # type: ignore[no-redef]

    HAVE_ISAL = False

import zlib as _stdzlib

__all__ = [
    "COMPRESSIONS",
    "DEFAULT_GZIP_LEVEL",
    "SPOOL_MEMORY",
    "ZSTD_DICT_MAGIC",
    "Spool",
    "BlockSink",
    "EncodedRecord",
    "RecordEncoder",
    "RecordWriter",
    "dictionary_frame",
    "file_suffix",
    "head_bytes",
]

#: Compression names accepted everywhere: ``"gzip"``, ``"zstd"``, ``"none"``.
COMPRESSIONS = ("gzip", "zstd", "none")
#: Default gzip level. With isal the levels are 0-3; level 3 comes within 1-2 % of
#: zlib level 6 on web content at several times the speed (see benchmarks/bench_write.py).
DEFAULT_GZIP_LEVEL = 3 if HAVE_ISAL else 6
#: Bytes a spool keeps in memory before it moves to a temporary file.
SPOOL_MEMORY = 8 << 20
#: Magic number of the IIPC warc-zstd dictionary skippable frame (little-endian on disk).
ZSTD_DICT_MAGIC = 0x184D2A5D

_TRAILER = b"\r\n\r\n"
_COPY = 1 << 20
# Gzip member header: magic, CM=deflate, no flags, MTIME=0, XFL=0, OS=255 (unknown).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


class Readable(Protocol):
    """A binary stream with ``read(size)``."""

    def read(self, size: int = -1, /) -> bytes: ...


def file_suffix(compression: str) -> str:
    """The file-name extension for *compression* (``.warc.gz``, ``.warc.zst``, ``.warc``)."""
    try:
        return {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}[compression]
    except KeyError:
        raise UsageError(f"unknown compression {compression!r}; use one of {COMPRESSIONS}") from None


def head_bytes(version: str, headers: Headers) -> bytes:
    """Serialize a record head: version line, fields, empty line.

    Raises:
        ValidationError: a name or value contains CR or LF (header injection).
    """
    out = [f"WARC/{version}\r\n".encode("ascii")]
    for name, value in headers:
        if "\r" in name or "\n" in name or "\r" in value or "\n" in value or ":" in name:
            from .errors import Issue

            raise ValidationError(
                [Issue("bad-syntax", "field names and values must not contain CR, LF "
                       "(and names no colon)", "error", field=name)]
            )
        out.append(f"{name}: {value}\r\n".encode())
    out.append(b"\r\n")
    return b"".join(out)


def dictionary_frame(dictionary: bytes) -> bytes:
    """The IIPC warc-zstd dictionary frame: skippable frame 0x184D2A5D holding *dictionary*."""
    return struct.pack("<II", ZSTD_DICT_MAGIC, len(dictionary)) + dictionary


class Spool:
    """Bytes held in memory up to :data:`SPOOL_MEMORY`, then in an anonymous temp file."""

    __slots__ = ("_file", "size")

    def __init__(self, memory: int = SPOOL_MEMORY) -> None:
        self._file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=memory)  # noqa: SIM115
        self.size = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Append *data*."""
        if data:
            self._file.write(data)
            self.size += len(data)

    def chunks(self, size: int = _COPY) -> Iterator[bytes]:
        """Yield the content from the start, *size* bytes at a time."""
        self._file.seek(0)
        while True:
            data = self._file.read(size)
            if not data:
                return
            yield data

    def read_all(self) -> bytes:
        """The whole content (only for small spools)."""
        return b"".join(self.chunks())

    def close(self) -> None:
        """Release the memory or temporary file."""
        self._file.close()


class BlockSink:
    """Receives a record block as it streams; keeps it (deflated for gzip) for later.

    Args:
        compression: ``"gzip"`` deflates as it goes (one pass); ``"zstd"`` and
            ``"none"`` keep the raw bytes (a zstd frame needs its content size first).
        level: gzip level.
    """

    def __init__(self, compression: str, level: int = DEFAULT_GZIP_LEVEL) -> None:
        if compression not in COMPRESSIONS:
            raise UsageError(f"unknown compression {compression!r}")
        self.compression = compression
        self.level = level
        self.spool = Spool()
        self.length = 0
        self.crc = 0
        self._deflate: Any = (
            _zlib.compressobj(level, _zlib.DEFLATED, -15) if compression == "gzip" else None
        )
        self.closed = False

    def write(self, data: bytes) -> None:
        """Append block bytes."""
        if not data:
            return
        self.length += len(data)
        if self._deflate is not None:
            self.crc = _zlib.crc32(data, self.crc)
            self.spool.write(self._deflate.compress(data))
        else:
            self.spool.write(data)

    def finish(self) -> None:
        """Append the CRLF CRLF trailer and close the deflate stream."""
        if self.closed:
            return
        self.closed = True
        if self._deflate is not None:
            self.crc = _zlib.crc32(_TRAILER, self.crc)
            self.spool.write(self._deflate.compress(_TRAILER))
            self.spool.write(self._deflate.flush(_zlib.Z_FINISH))
        else:
            self.spool.write(_TRAILER)

    def raw_chunks(self) -> Iterator[bytes]:
        """The raw block bytes (without trailer). Only for ``zstd``/``none`` sinks."""
        if self._deflate is not None:
            raise UsageError("a gzip sink keeps deflated data only")
        left = self.length
        for chunk in self.spool.chunks():
            if left <= 0:
                return
            piece = chunk[:left]
            left -= len(piece)
            yield piece

    def close(self) -> None:
        """Release the spool."""
        self.spool.close()


class EncodedRecord:
    """One record's final on-disk bytes (a gzip member, a zstd frame, or plain bytes).

    Attributes:
        size: Number of bytes it will occupy in the file.
    """

    def __init__(self, parts: list[bytes], tail: Spool | None, size: int) -> None:
        self._parts = parts
        self._tail = tail
        self.size = size

    def chunks(self) -> Iterator[bytes]:
        """Yield the bytes to write, in order."""
        yield from self._parts[:-1] if self._tail is not None else self._parts
        if self._tail is not None:
            yield from self._tail.chunks()
            yield self._parts[-1]


class RecordEncoder:
    """Turn (head, block sink) into an :class:`EncodedRecord` for one compression.

    Args:
        compression: ``"gzip"``, ``"zstd"`` or ``"none"``.
        level: gzip level (isal 0-3, zlib 0-9) or zstd level.
        zstd_dictionary: Raw zstd dictionary bytes (magic ``37 A4 30 EC``) used for
            every frame; written once per file as the dictionary frame.
    """

    def __init__(
        self,
        compression: str = "gzip",
        *,
        level: int | None = None,
        zstd_dictionary: bytes | None = None,
    ) -> None:
        if compression not in COMPRESSIONS:
            raise UsageError(f"unknown compression {compression!r}; use one of {COMPRESSIONS}")
        if zstd_dictionary is not None and compression != "zstd":
            raise UsageError("a zstd dictionary needs compression='zstd'")
        self.compression = compression
        self.level = DEFAULT_GZIP_LEVEL if level is None and compression == "gzip" else (level or 3)
        self.zstd_dictionary = zstd_dictionary
        self._zc: Any = None
        if compression == "zstd":
            import zstandard

            kwargs: dict[str, Any] = {
                "level": self.level,
                "write_checksum": True,
                "write_content_size": True,
            }
            if zstd_dictionary is not None:
                kwargs["dict_data"] = zstandard.ZstdCompressionDict(zstd_dictionary)
                kwargs["write_dict_id"] = True
            self._zc = zstandard.ZstdCompressor(**kwargs)

    def preamble(self) -> bytes:
        """Bytes every new file starts with (the zstd dictionary frame, or nothing)."""
        if self.zstd_dictionary is not None:
            return dictionary_frame(self.zstd_dictionary)
        return b""

    def sink(self) -> BlockSink:
        """A new block sink matching this encoder."""
        return BlockSink(self.compression, self.level)

    def encode(self, head: bytes, sink: BlockSink) -> EncodedRecord:
        """Encode *head* followed by the block held in *sink* (the sink is finished here).

        The sink is not consumed: :meth:`encode` may be called again with another head
        (the rolling writer does that when a record moves to a new file).
        """
        sink.finish()
        if self.compression == "none":
            return EncodedRecord([head, b""], sink.spool, len(head) + sink.spool.size)
        if self.compression == "gzip":
            d = _zlib.compressobj(self.level, _zlib.DEFLATED, -15)
            head_deflated = d.compress(head) + d.flush(_zlib.Z_SYNC_FLUSH)
            crc = _zlib.crc32_combine(_zlib.crc32(head), sink.crc, sink.length + 4) if HAVE_ISAL \
                else _crc32_combine(_stdzlib.crc32(head), sink.crc, sink.length + 4)
            total = (len(head) + sink.length + 4) & 0xFFFFFFFF
            trailer = struct.pack("<II", crc & 0xFFFFFFFF, total)
            size = len(_GZIP_HEADER) + len(head_deflated) + sink.spool.size + 8
            return EncodedRecord([_GZIP_HEADER + head_deflated, trailer], sink.spool, size)
        # zstd: one frame per record, content size and checksum in the frame.
        out = Spool()
        writer = self._zc.stream_writer(_SpoolWriter(out), size=len(head) + sink.length + 4,
                                        closefd=False)
        writer.write(head)
        for chunk in sink.raw_chunks():
            writer.write(chunk)
        writer.write(_TRAILER)
        writer.close()
        return EncodedRecord([b""], out, out.size)

    def encode_bytes(self, head: bytes, block: bytes) -> EncodedRecord:
        """Convenience: encode a record whose block is in memory."""
        sink = self.sink()
        sink.write(block)
        return self.encode(head, sink)


class _SpoolWriter(io.RawIOBase):
    def __init__(self, spool: Spool) -> None:
        self._spool = spool

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self._spool.write(bytes(b))
        return len(b)


def _gf2_times(mat: list[int], vec: int) -> int:
    total = 0
    i = 0
    while vec:
        if vec & 1:
            total ^= mat[i]
        vec >>= 1
        i += 1
    return total


def _crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """zlib's crc32_combine for the stdlib fallback (stdlib zlib does not export it)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << i for i in range(31)]
    even = [_gf2_times(odd, odd[i]) for i in range(32)]
    odd = [_gf2_times(even, even[i]) for i in range(32)]
    while True:
        even = [_gf2_times(odd, odd[i]) for i in range(32)]
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = [_gf2_times(even, even[i]) for i in range(32)]
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def iter_source(source: bytes | bytearray | memoryview | Readable | Iterable[bytes] | None,
                chunk: int = _COPY) -> Iterator[bytes]:
    """Yield the bytes of a body given as bytes, a binary stream or an iterable of bytes."""
    if source is None:
        return
    if isinstance(source, (bytes, bytearray, memoryview)):
        if len(source):
            yield bytes(source)
        return
    read = getattr(source, "read", None)
    if read is not None:
        while True:
            data = read(chunk)
            if not data:
                return
            yield data
    else:
        for data in source:  # type: ignore[union-attr]
            if data:
                yield bytes(data)


class RecordWriter:
    """Append records, each as its own gzip member / zstd frame, to one binary file.

    The dumb writer: no record IDs, no rolling, no warcinfo. It validates each record
    against :mod:`warckit.validate` unless told not to.

    Args:
        fileobj: A binary file open for writing (appending at its current position).
        compression: ``"gzip"`` (default), ``"zstd"`` or ``"none"``.
        level: Compression level.
        zstd_dictionary: Optional raw zstd dictionary; its frame is written first if the
            file is empty.

    Example:
        >>> import io, warckit
        >>> out = io.BytesIO()
        >>> w = RecordWriter(out, compression="none")
        >>> h = warckit.Headers([("WARC-Type", "resource"),
        ...     ("WARC-Record-ID", "<urn:uuid:3e4a3e50-8e3a-4c7b-a2a2-3f2b0c6f1d11>"),
        ...     ("WARC-Date", "2024-01-02T03:04:05Z"), ("WARC-Target-URI", "file:///a.txt"),
        ...     ("Content-Type", "text/plain"), ("Content-Length", "2")])
        >>> w.write_record(h, b"hi", version="1.0")
        (0, 251)
    """

    def __init__(
        self,
        fileobj: BinaryIO | IO[bytes],
        *,
        compression: str = "gzip",
        level: int | None = None,
        zstd_dictionary: bytes | None = None,
    ) -> None:
        self._f = fileobj
        self.encoder = RecordEncoder(compression, level=level, zstd_dictionary=zstd_dictionary)
        try:
            self.position = fileobj.tell()
        except (OSError, AttributeError):
            self.position = 0
        pre = self.encoder.preamble()
        if pre and self.position == 0:
            fileobj.write(pre)
            self.position += len(pre)

    def write_encoded(self, record: EncodedRecord) -> tuple[int, int]:
        """Write an already encoded record; return its ``(offset, length)``."""
        offset = self.position
        for chunk in record.chunks():
            self._f.write(chunk)
        self.position += record.size
        return offset, record.size

    def write_record(
        self,
        headers: Headers,
        block: bytes | Readable | Iterable[bytes] = b"",
        *,
        version: str = "1.1",
        validate: bool = True,
        raw_head: bytes | None = None,
    ) -> tuple[int, int]:
        """Write one record exactly as given: *headers* (or *raw_head*) then *block*.

        Content-Length must already be right: it is checked against the block, and a
        mismatch is refused before anything is written.

        Args:
            headers: The record's named fields, in the order to write them.
            block: The block, as bytes, a binary stream or an iterable of bytes.
            version: ``"1.1"`` or ``"1.0"`` (the version line).
            validate: Check the rule table first (``False`` writes anything).
            raw_head: Exact head bytes to write instead of serializing *headers*
                (byte-identical copies).

        Returns:
            ``(offset, length)`` of the record in the file.

        Raises:
            ValidationError: the record breaks a rule; nothing was written.
        """
        from . import validate as _validate

        if validate:
            issues = [i for i in _validate.validate_headers(headers, version) if i.severity == "error"]
            if issues:
                raise ValidationError(issues)
        head = raw_head if raw_head is not None else head_bytes(version, headers)
        sink = self.encoder.sink()
        try:
            for data in iter_source(block):
                sink.write(data)
            declared = headers.first("Content-Length")
            if validate and declared is not None and declared.strip().isdigit() \
                    and int(declared) != sink.length:
                from .errors import Issue

                raise ValidationError([Issue(
                    "content-length-mismatch",
                    f"Content-Length says {int(declared)} but the block has {sink.length} bytes",
                    "error", field="Content-Length")])
            return self.write_encoded(self.encoder.encode(head, sink))
        finally:
            sink.close()


def copy_file_to(src: IO[bytes], dst: IO[bytes]) -> None:
    """Copy a binary stream to another (used by tools that stitch files)."""
    shutil.copyfileobj(src, dst, _COPY)


def fsync_file(f: IO[bytes]) -> None:
    """Flush Python buffers and ``fsync`` the file descriptor."""
    f.flush()
    os.fsync(f.fileno())


def now_ns() -> int:
    """Current time in nanoseconds (patched in tests)."""
    return time.time_ns()
