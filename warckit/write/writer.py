"""Low-level record serializer and compressor: one gzip member or zstd frame per record.

Nothing here decides *what* to write: :mod:`warckit.write.guided` fills the fields and
:mod:`warckit.write.rolling` decides *where*. This module turns a record head and a block
into the exact bytes of one independently decompressible unit, so that every record
offset is a valid random-access offset (WARC 1.1 Annex D "record-at-a-time"
compression).

Gzip records: a block held in memory (up to :data:`SPOOL_MEMORY`) is compressed by
libdeflate together with its head, as one deflate stream, once the head is known. With
a second CPU (``threads``, the default there) :meth:`RecordEncoder.start` hands head and
block to a native worker thread (``_speedups/blockdeflate.pyx``: libdeflate's C library,
no GIL) and :meth:`RecordEncoder.encode` collects the result later; the guided writer
keeps a bounded number of records in flight so that the worker compresses while the
caller prepares the next records, and a caller that has to wait compresses queued
blocks itself. The other backends (and a libdeflate block longer than
:data:`SPOOL_MEMORY`) keep the head apart: the block (plus the closing CRLF CRLF) is
one raw-deflate stream with no history, and the head is deflated separately with a sync
flush and placed in front (two raw-deflate streams, the first ending on a byte-aligned
non-final block, form one valid deflate stream; ~0.5 % larger). Its compression starts
when the block is complete; a large block (:data:`THREAD_MIN`) is compressed on a worker
thread while the writer hashes it and builds the head.

Backends (``GZIP_BACKENDS``): libdeflate (default; level 5 is ~2 % smaller than zlib
level 6 and within 3 % of it on every content type of the benchmark corpus, at ~3x its
speed on one CPU), isal, zlib-ng or zlib. Blocks larger than :data:`SPOOL_MEMORY`
stream through isal (or zlib-ng / zlib) in 1 MiB calls. See ``docs/writing.rst``
("Compression and speed") for measurements.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from typing import IO, BinaryIO, Protocol

from ..errors import ValidationError
from ..record.headers import Headers
from .backends import (
    BACKEND_DEFAULT_LEVEL,
    COMPRESSIONS,
    DEFAULT_GZIP_BACKEND,
    DEFAULT_GZIP_LEVEL,
    GZIP_BACKENDS,
    HAVE_ISAL,
    HAVE_LIBDEFLATE,
    HAVE_ZLIB_NG,
)
from .encode import (
    _COPY,
    SPOOL_MEMORY,
    THREAD_MIN,
    ZSTD_DICT_MAGIC,
    BlockSink,
    EncodedRecord,
    RecordEncoder,
    Spool,
    dictionary_frame,
    file_suffix,
    head_bytes,
)
from .pipeline import THREADS_DEFAULT, _executor  # noqa: F401  (the shared pool, reached here)

__all__ = [
    "BACKEND_DEFAULT_LEVEL",
    "COMPRESSIONS",
    "DEFAULT_GZIP_BACKEND",
    "DEFAULT_GZIP_LEVEL",
    "GZIP_BACKENDS",
    "HAVE_ISAL",
    "HAVE_LIBDEFLATE",
    "HAVE_ZLIB_NG",
    "SPOOL_MEMORY",
    "THREADS_DEFAULT",
    "THREAD_MIN",
    "ZSTD_DICT_MAGIC",
    "BlockSink",
    "EncodedRecord",
    "Readable",
    "RecordEncoder",
    "RecordWriter",
    "Spool",
    "copy_file_to",
    "dictionary_frame",
    "file_suffix",
    "fsync_file",
    "head_bytes",
    "iter_source",
    "now_ns",
    "prepare_given",
]

class Readable(Protocol):
    """A binary stream with ``read(size)``."""

    def read(self, size: int = -1, /) -> bytes: ...


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
    against :mod:`warckit.record.rules` unless told not to.

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
        (0, 214)
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
        head, sink = prepare_given(self.encoder, headers, block, version, validate, raw_head)
        try:
            return self.write_encoded(self.encoder.encode(head, sink))
        finally:
            sink.close()


def prepare_given(
    encoder: RecordEncoder,
    headers: Headers,
    block: bytes | bytearray | memoryview | Readable | Iterable[bytes] | None,
    version: str,
    validate: bool,
    raw_head: bytes | None = None,
) -> tuple[bytes, BlockSink]:
    """The "write this record as is" step shared by every writer: check *headers*
    against the rule table, compress *block* into a sink, and check Content-Length
    against it. Returns the head bytes and the filled sink (the caller closes it).

    Raises:
        ValidationError: a rule is broken or Content-Length does not match the block;
            nothing was written.
    """
    from ..errors import Issue
    from ..record import rules as _validate

    if validate:
        issues = [i for i in _validate.validate_headers(headers, version) if i.severity == "error"]
        if issues:
            raise ValidationError(issues)
    head = raw_head if raw_head is not None else head_bytes(version, headers)
    sink = encoder.sink()
    try:
        for data in iter_source(block):
            sink.write(data)
        declared = headers.first("Content-Length")
        if validate and (
            declared is None or not declared.strip().isdigit() or int(declared) != sink.length
        ):
            raise ValidationError([Issue(
                "content-length-mismatch",
                f"Content-Length {declared!r} does not match the block ({sink.length} bytes)",
                "error", field="Content-Length")])
    except BaseException:
        sink.close()
        raise
    return head, sink


def copy_file_to(src: IO[bytes], dst: IO[bytes]) -> None:
    """Copy a binary stream to another (used by tools that stitch files)."""
    shutil.copyfileobj(src, dst, _COPY)


def fsync_file(f: IO[bytes]) -> None:
    """Flush Python buffers and ``fsync`` the file descriptor (a no-op for devices and pipes)."""
    f.flush()
    try:
        os.fsync(f.fileno())
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise


def now_ns() -> int:
    """Current time in nanoseconds (patched in tests)."""
    return time.time_ns()

