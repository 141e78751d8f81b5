"""Removing a content coding (gzip, deflate, br, zstd) from a body while reading, in
bounded memory whatever the compression ratio."""

from __future__ import annotations

import io
import zlib
from typing import Any, Protocol

from ..errors import ChunkedEncodingError, DecompressionBombError, UsageError, WarckitError

__all__ = ["DECODE_STEP", "DecodingReader", "Readable", "read_all"]


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def read_all(stream: Readable, size: int = 1 << 16) -> bytes:
    """Read *stream* to its end in pieces of *size* bytes."""
    parts: list[bytes] = []
    while True:
        part = stream.read(size)
        if not part:
            return b"".join(parts)
        parts.append(part)


#: Largest piece of decoded content one decompression step produces.
DECODE_STEP = 1 << 18
#: Compressed bytes taken from the layer below at a time.
_DECODE_IN = 1 << 16
#: Quirk: RFC 9659 (zstd content coding) caps the window at 8 MiB; larger would let a
#: tiny frame claim a huge window buffer.
_ZSTD_CONTENT_WINDOW = 1 << 23
#: Input piece for brotli bindings without an output limit (brotlipy). Measured: a
#: quality-11 bomb (1.6 KB to 128 MiB) gives at most 32 MiB out of 256 bytes; a brotlipy
#: call costs ~3 ms whatever its size, so smaller pieces get slow (64 bytes: 2.4x).
_BROTLI_PIECE = 256


class _Inflate:
    """gzip / zlib / raw deflate, at most ``DECODE_STEP`` bytes of output per step."""

    def __init__(self, coding: str) -> None:
        self._deflate = coding == "deflate"
        self._d: Any = zlib.decompressobj(15 if self._deflate else 47)  # 47: gzip or zlib header
        # Input kept until output appears, for the raw deflate retry.
        self._first: bytes | None = b"" if self._deflate else None
        self.wants_input = True
        self.finished = False

    def step(self, data: bytes) -> bytes:
        d = self._d
        src = data if self.wants_input else d.unconsumed_tail
        if self._first is not None:
            self._first += data
            if len(self._first) > _DECODE_IN:
                self._first = None  # (a header error shows at once; no retry this late)
        try:
            out: bytes = d.decompress(src, DECODE_STEP)
        except zlib.error:
            # Quirk: many servers send raw deflate (no zlib header) as "deflate".
            if not (self._deflate and self._first is not None):
                raise
            self._d = d = zlib.decompressobj(-15)
            src, self._first = self._first, None
            out = d.decompress(src, DECODE_STEP)
        if out:
            self._first = None
        self.finished = d.eof
        self.wants_input = not d.unconsumed_tail
        return out


class _Brotli:
    """brotli: with ``output_buffer_limit`` when the binding has it (brotli >= 1.1),
    else fed input pieces small enough that the output of one stays bounded."""

    def __init__(self) -> None:
        try:
            import brotli  # type: ignore[import-untyped]
        except ImportError:
            raise UsageError("Content-Encoding br needs the 'brotli' package") from None
        self._d: Any = brotli.Decompressor()
        self._bounded = hasattr(self._d, "can_accept_more_data")
        self._pending = b""
        self._at = 0
        self.wants_input = True
        self.finished = False

    def step(self, data: bytes) -> bytes:
        d = self._d
        if self._bounded:
            out: bytes = d.process(data if self.wants_input else b"", output_buffer_limit=DECODE_STEP)
            self.finished = bool(d.is_finished())
            self.wants_input = bool(d.can_accept_more_data()) and not self.finished
            return out
        # Older bindings (brotlipy) have no output limit: the input goes in pieces
        # of _BROTLI_PIECE bytes (a meta-block holds at most 16 MiB).
        if self.wants_input:
            self._pending, self._at = data, 0
        piece = self._pending[self._at : self._at + _BROTLI_PIECE]
        self._at += len(piece)
        out = bytes(d.decompress(piece))
        self.wants_input = self._at >= len(self._pending)
        return out


class _Zstd:
    """zstd content coding (one or more frames), read through a bounded stream reader."""

    def __init__(self, raw: Readable) -> None:
        import zstandard

        self.error = zstandard.ZstdError
        dctx = zstandard.ZstdDecompressor(max_window_size=_ZSTD_CONTENT_WINDOW)
        self._r = dctx.stream_reader(raw, read_size=_DECODE_IN, read_across_frames=True)  # type: ignore[arg-type]
        self.wants_input = False
        self.finished = False

    def step(self, data: bytes) -> bytes:
        out: bytes = self._r.read(DECODE_STEP)
        self.finished = not out
        return out


class DecodingReader(io.RawIOBase):
    """Remove one content-encoding (gzip, deflate, br, zstd) while reading.

    Memory stays bounded whatever the compression ratio: each decompression step
    yields at most :data:`DECODE_STEP` bytes, and reads take from that piece by index.

    Args:
        raw: The encoded body.
        coding: The content-coding name.
        max_decoded: Raise :class:`~warckit.errors.DecompressionBombError` once more
            than this many decoded bytes come out (``None``: no limit).
        source: File name for error messages.
        offset: Record offset for error messages.
    """

    def __init__(
        self,
        raw: Readable,
        coding: str,
        *,
        max_decoded: int | None = None,
        source: str | None = None,
        offset: int | None = None,
    ) -> None:
        self._raw = raw
        self._coding = coding
        self._max = max_decoded
        self._source = source
        self._offset = offset
        self._d: Any
        if coding in ("gzip", "x-gzip", "deflate"):
            self._d = _Inflate(coding)
        elif coding == "br":
            self._d = _Brotli()
        elif coding == "zstd":
            self._d = _Zstd(raw)
        else:
            # The record's content coding, not the caller, is what cannot be decoded.
            raise ChunkedEncodingError(
                f"unsupported Content-Encoding {coding!r}", source=source, offset=offset
            )
        self._out = b""
        self._at = 0
        self._total = 0
        self._raw_done = False
        self._eof = False

    def readable(self) -> bool:
        return True

    def _fill(self) -> None:
        d = self._d
        while not self._eof:
            data = b""
            if d.wants_input and not self._raw_done:
                data = self._raw.read(_DECODE_IN)
                self._raw_done = not data
            try:
                out = d.step(data)
            except WarckitError:
                raise  # (from the layer below, read by the zstd reader)
            except Exception as exc:  # noqa: BLE001  (each codec raises its own type)
                raise ChunkedEncodingError(
                    f"cannot decode {self._coding} content: {exc}", offset=self._offset, source=self._source
                ) from None
            if d.finished or (self._raw_done and d.wants_input and not out):
                self._eof = True  # (bytes after the end of the encoded data are ignored)
            if out:
                self._total += len(out)
                if self._max is not None and self._total > self._max:
                    self._eof = True
                    raise DecompressionBombError(
                        f"decoded {self._coding} content exceeds max_decoded={self._max} bytes",
                        offset=self._offset, source=self._source,
                    )
                self._out, self._at = out, 0
                return

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return read_all(self)
        if self._at >= len(self._out):
            self._fill()
        out = self._out[self._at : self._at + size]
        self._at += len(out)
        return out

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)
