"""Record encoding: one gzip member, zstd frame or plain record per record.

Nothing here decides *what* to write: :mod:`warckit.write.build` fills the fields and
:mod:`warckit.write.rolling` decides *where*. This module turns a record head and a block
into the exact bytes of one independently decompressible unit, so that every record
offset is a valid random-access offset (WARC 1.1 Annex D "record-at-a-time"
compression). See :mod:`warckit.write.writer` for how the backends are used.
"""

from __future__ import annotations

import io
import struct
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import IO, Any

from .._speedups.blockdeflate import impl as _blockdeflate
from ..errors import UsageError, ValidationError
from ..io.compression import GZIP_MEMBER_MAGIC
from ..record.headers import Headers
from . import pipeline as _pipeline
from .backends import (
    _BACKEND_MAX_LEVEL,
    BACKEND_DEFAULT_LEVEL,
    COMPRESSIONS,
    DEFAULT_GZIP_BACKEND,
    GZIP_BACKENDS,
    _deflate_head,
    _oneshot,
    _stream_level,
    _stream_module,
)
from .crc import crc32 as _crc32
from .crc import crc32_combine as _crc_combine
from .pipeline import THREADS_DEFAULT

__all__ = [
    "SPOOL_MEMORY",
    "THREAD_MIN",
    "ZSTD_DICT_MAGIC",
    "BlockSink",
    "EncodedRecord",
    "RecordEncoder",
    "Spool",
    "dictionary_frame",
    "file_suffix",
    "head_bytes",
]

#: Blocks at least this large are compressed on a worker thread (when the machine has
#: more than one CPU and the encoder was not created with ``threads=False``). Below it
#: the hand-off (waking the worker, waking the caller: ~50 us each on a 2-CPU VM, plus
#: GIL hand-backs) costs more than the overlap with hashing saves; measured: 100 KB
#: blocks 3 % slower threaded, 300 KB 6 % faster, 1-3 MB 10-14 % faster.
THREAD_MIN = 256 << 10
#: Bytes a spool keeps in memory before it moves to a temporary file.
SPOOL_MEMORY = 8 << 20
#: Magic number of the IIPC warc-zstd dictionary skippable frame (little-endian on disk).
ZSTD_DICT_MAGIC = 0x184D2A5D

_TRAILER = b"\r\n\r\n"
_COPY = 1 << 20
# Gzip member header: magic, CM=deflate, no flags, MTIME=0, XFL=0, OS=255 (unknown).
_GZIP_HEADER = GZIP_MEMBER_MAGIC + b"\x00\x00\x00\x00\x00\x00\xff"


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
    fields = headers.fields
    text = "".join([f"{name}: {value}\r\n" for name, value in fields])
    n = len(fields)
    # One CR and one LF per line, and no colon in a name: checked on the joined text
    # (the per-field loop only runs to name the culprit).
    if text.count("\r") != n or text.count("\n") != n or any(":" in name for name, _ in fields):
        for name, value in fields:
            if "\r" in name or "\n" in name or "\r" in value or "\n" in value or ":" in name:
                from ..errors import Issue

                raise ValidationError(
                    [Issue("bad-syntax", "field names and values must not contain CR, LF "
                           "(and names no colon)", "error", field=name)]
                )
    return f"WARC/{version}\r\n{text}\r\n".encode()


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

    A gzip sink holds the block in memory up to :data:`SPOOL_MEMORY` and compresses it
    in one call when it is finished (on a worker thread when it is large enough), so
    the compression overlaps the caller's hashing and head building. A longer block
    is deflated as it streams, in 1 MiB calls, into a spool.

    Args:
        compression: ``"gzip"`` deflates (one raw-deflate stream); ``"zstd"`` and
            ``"none"`` keep the raw bytes (a zstd frame needs its content size first).
        level: gzip level for *backend* (default: the backend's default).
        backend: gzip backend (one of :data:`GZIP_BACKENDS`; default
            :data:`DEFAULT_GZIP_BACKEND`).
        threads: Compress on a worker thread (default :data:`THREADS_DEFAULT`).
        worker: The libdeflate worker to hand blocks to (``libdeflate`` backend with
            *threads*); see :meth:`RecordEncoder.worker`.
    """

    def __init__(self, compression: str, level: int | None = None, *,
                 backend: str | None = None, threads: bool | None = None,
                 worker: Any = None) -> None:
        if compression not in COMPRESSIONS:
            raise UsageError(f"unknown compression {compression!r}")
        self.compression = compression
        self.backend = backend or DEFAULT_GZIP_BACKEND
        self.level = BACKEND_DEFAULT_LEVEL.get(self.backend, 6) if level is None else level
        self.threads = THREADS_DEFAULT if threads is None else threads
        self.length = 0
        self.crc = 0
        self.closed = False
        self._gzip = compression == "gzip"
        # gzip in memory: the chunks so far; None once streaming (or not gzip).
        self._chunks: list[bytes] | None = [] if self._gzip else None
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._deflate: Any = None
        self._data: bytes | None = None
        self._result: Future[bytes | bytearray] | bytes | bytearray | None = None
        self._job: Any = None
        self._job_head: bytes | None = None
        self._worker = worker
        # libdeflate, block in memory: compressed together with its head once the
        # head is known (RecordEncoder.start / encode), as one deflate stream.
        self._joint_parts: list[bytes | memoryview] | None = None
        self.spool: Spool | None = None if self._gzip else Spool()

    @property
    def in_memory(self) -> bool:
        """A gzip sink still holding its raw block in memory (compressed in one call)."""
        return self._chunks is not None or self._data is not None or self._joint_parts is not None

    @property
    def joint(self) -> bool:
        """A finished in-memory block that is deflated together with its head."""
        return self._joint_parts is not None

    def write(self, data: bytes) -> None:
        """Append block bytes."""
        if not data:
            return
        self.length += len(data)
        if not self._gzip:
            assert self.spool is not None
            self.spool.write(data)
            return
        if type(data) is not bytes:
            data = bytes(data)
        chunks = self._chunks
        if chunks is not None:
            chunks.append(data)
            self._pending_size += len(data)
            if self._pending_size > SPOOL_MEMORY:
                self._spill()
            return
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= _COPY:
            self._drain()

    def _spill(self) -> None:
        """Switch from holding the block to deflating it as it streams."""
        assert self._chunks is not None
        self._pending = self._chunks
        self._chunks = None
        mod = _stream_module(self.backend)
        self._stream = mod
        self._deflate = mod.compressobj(_stream_level(self.backend, self.level, mod),
                                        mod.DEFLATED, -15)
        self.spool = Spool()
        self._drain()

    def _drain(self) -> None:
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending = []
        self._pending_size = 0
        self.crc = _crc32(data, self.crc)
        assert self.spool is not None
        self.spool.write(self._deflate.compress(data))

    @property
    def pending(self) -> bool:
        """The block was handed to a worker thread (it may still be compressing it)."""
        return self._job is not None or isinstance(self._result, Future)

    @property
    def done(self) -> bool:
        """No compression of this block is running or queued on a worker thread."""
        if self._job is not None:
            return bool(self._job.done())
        if isinstance(self._result, Future):
            return self._result.done()
        return True

    def finish(self) -> None:
        """Append the CRLF CRLF trailer and close the block (starts its compression,
        except for a libdeflate block in memory: that waits for its head)."""
        if self.closed:
            return
        self.closed = True
        if not self._gzip:
            assert self.spool is not None
            self.spool.write(_TRAILER)
            return
        chunks = self._chunks
        if chunks is not None and self.backend == "libdeflate":
            chunks.append(_TRAILER)
            self._joint_parts = list(chunks)
            self._chunks = None
            self._pending_size = 0
            return
        if chunks is not None:
            chunks.append(_TRAILER)
            data = b"".join(chunks)  # one copy
            self._chunks = None
            self._pending_size = 0
            self._data = data
            compress = _oneshot(self.backend)
            if self.threads and len(data) >= THREAD_MIN:
                self._result = _pipeline._executor().submit(compress, data, self.level)
            else:
                self._result = compress(data, self.level)
            return
        self._pending.append(_TRAILER)
        self._drain()
        assert self.spool is not None
        self.spool.write(self._deflate.flush(self._stream.Z_FINISH))

    def deflated(self) -> bytes | bytearray:
        """The block's raw-deflate stream (in-memory sinks; waits for the worker)."""
        self.finish()
        if self._joint_parts is not None:
            # Only the block (no head): the encoder deflates head and block together.
            return bytes(_blockdeflate.deflate(b"".join(self._joint_parts), self.level))
        if self._job is not None:
            self._result = self._job.result()[0]
            self._job = None
        result = self._result
        if isinstance(result, Future):
            # A worker that has not started yet (all CPUs busy) is not waited for: the
            # block is taken back and compressed here, so a loaded machine costs no
            # scheduling delay.
            if result.cancel():
                assert self._data is not None
                result = _oneshot(self.backend)(self._data, self.level)
            else:
                result = result.result()
            self._result = result
        assert result is not None, "not an in-memory gzip sink"
        return result

    def raw_chunks(self) -> Iterator[bytes]:
        """The raw block bytes (without trailer). Only for ``zstd``/``none`` sinks."""
        if self._gzip:
            raise UsageError("a gzip sink keeps deflated data only")
        assert self.spool is not None
        left = self.length
        for chunk in self.spool.chunks():
            if left <= 0:
                return
            piece = chunk[:left]
            left -= len(piece)
            yield piece

    def close(self) -> None:
        """Release the spool (or the held block)."""
        if self.spool is not None:
            self.spool.close()
        self._chunks = None
        self._pending = []
        self._data = None
        self._result = None
        self._job = None
        self._job_head = None
        self._joint_parts = None


class EncodedRecord:
    """One record's final on-disk bytes (a gzip member, a zstd frame, or plain bytes).

    Attributes:
        size: Number of bytes it will occupy in the file.
    """

    def __init__(self, parts: list[bytes | bytearray], tail: Spool | None, size: int) -> None:
        self._parts = parts
        self._tail = tail
        self.size = size

    def chunks(self) -> Iterator[bytes | bytearray]:
        """Yield the bytes to write, in order."""
        if self._tail is None:
            # One write (and one system call at the flush) per record.
            yield self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
            return
        yield from self._parts[:-1]
        yield from self._tail.chunks()
        yield self._parts[-1]


class RecordEncoder:
    """Turn (head, block sink) into an :class:`EncodedRecord` for one compression.

    Args:
        compression: ``"gzip"``, ``"zstd"`` or ``"none"``.
        level: gzip level for the backend (libdeflate 0-12, isal 0-3, zlib-ng / zlib
            0-9) or zstd level.
        zstd_dictionary: Raw zstd dictionary bytes (magic ``37 A4 30 EC``) used for
            every frame; written once per file as the dictionary frame.
        backend: gzip backend, one of :data:`GZIP_BACKENDS` (default
            :data:`DEFAULT_GZIP_BACKEND`). Every backend writes standard gzip members.
        threads: Compress on a worker thread (default :data:`THREADS_DEFAULT`: when
            there is more than one CPU): libdeflate blocks handed over with
            :meth:`start`, other backends' blocks of :data:`THREAD_MIN` and more.
    """

    def __init__(
        self,
        compression: str = "gzip",
        *,
        level: int | None = None,
        zstd_dictionary: bytes | None = None,
        backend: str | None = None,
        threads: bool | None = None,
    ) -> None:
        if compression not in COMPRESSIONS:
            raise UsageError(f"unknown compression {compression!r}; use one of {COMPRESSIONS}")
        if zstd_dictionary is not None and compression != "zstd":
            raise UsageError("a zstd dictionary needs compression='zstd'")
        if backend is not None and backend not in GZIP_BACKENDS:
            raise UsageError(f"gzip backend {backend!r} is not available; use one of {GZIP_BACKENDS}")
        self.compression = compression
        self.backend = backend or DEFAULT_GZIP_BACKEND
        self.threads = THREADS_DEFAULT if threads is None else threads
        if compression == "gzip":
            self.level = BACKEND_DEFAULT_LEVEL[self.backend] if level is None else level
            top = _BACKEND_MAX_LEVEL[self.backend]
            if not 0 <= self.level <= top:
                raise UsageError(f"gzip level {self.level} is out of range for the "
                                 f"{self.backend} backend (0-{top})")
        else:
            self.level = level or 3
        self._worker: Any = None
        self._worker_lock = threading.Lock()
        self._head_mod = _stream_module(self.backend)
        self._head_level = _stream_level(self.backend, self.level, self._head_mod)
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

    def worker(self) -> Any:
        """The libdeflate worker thread of this encoder (``None`` unless the gzip backend
        is libdeflate and *threads* is on); started on first use, stopped by :meth:`close`."""
        if self._worker is None and self.threads and self.compression == "gzip" \
                and self.backend == "libdeflate":
            with self._worker_lock:  # threads filling sinks at once share one worker
                if self._worker is None:
                    self._worker = _blockdeflate.Worker()
        return self._worker

    def close(self) -> None:
        """Stop the worker thread (if any); a later record starts it again."""
        if self._worker is not None:
            self._worker.close()

    def sink(self) -> BlockSink:
        """A new block sink matching this encoder."""
        return BlockSink(self.compression, self.level, backend=self.backend, threads=self.threads,
                         worker=self.worker())

    def start(self, head: bytes, sink: BlockSink) -> bool:
        """Hand *head* and the block in *sink* to the worker thread now, so that a later
        :meth:`encode` with the same head finds them compressed. Returns whether it did
        (only for a libdeflate sink holding its block in memory, with a worker)."""
        sink.finish()
        parts = sink._joint_parts
        worker = sink._worker
        if parts is None or worker is None or not sink.threads:
            return False
        data = b"".join([head, *parts])
        sink._job = worker.submit(data, sink.level)
        sink._job_head = head
        # Keep the block as a view of the joined bytes: held once, not twice.
        sink._joint_parts = [memoryview(data)[len(head):]]
        return True

    def encode(self, head: bytes, sink: BlockSink) -> EncodedRecord:
        """Encode *head* followed by the block held in *sink* (the sink is finished here).

        The sink is not consumed: :meth:`encode` may be called again with another head
        (the rolling writer does that when a record moves to a new file).
        """
        sink.finish()
        parts = sink._joint_parts
        if parts is not None:
            # Head and block as one deflate stream (libdeflate, in memory).
            total = len(head) + sink.length + 4
            job = sink._job
            if job is not None and sink._job_head == head:
                deflated, crc = job.result()
            else:
                data = b"".join([head, *parts])
                deflated = _blockdeflate.deflate(data, sink.level)
                crc = _crc32(data)
            trailer = struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF)
            return EncodedRecord([_GZIP_HEADER, deflated, trailer], None,
                                 len(_GZIP_HEADER) + len(deflated) + 8)
        if self.compression == "none":
            assert sink.spool is not None
            return EncodedRecord([head, b""], sink.spool, len(head) + sink.spool.size)
        if self.compression == "gzip":
            head_deflated = _deflate_head(self._head_mod, self._head_level, head)
            total = len(head) + sink.length + 4
            if sink.in_memory:
                block = sink.deflated()
                assert sink._data is not None
                crc = _crc32(sink._data, _crc32(head))
                trailer = struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF)
                return EncodedRecord([_GZIP_HEADER + head_deflated, block, trailer], None,
                                     len(_GZIP_HEADER) + len(head_deflated) + len(block) + 8)
            assert sink.spool is not None
            crc = _crc_combine(_crc32(head), sink.crc, sink.length + 4)
            trailer = struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF)
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


