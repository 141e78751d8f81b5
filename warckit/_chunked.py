"""Streaming decoders for HTTP chunked transfer-encoding and content-encodings."""

from __future__ import annotations

import io
import zlib
from typing import Any, Protocol

from .errors import ChunkedEncodingError, UsageError

__all__ = ["ChunkedReader", "Dechunker", "DecodingReader", "Readable", "read_all"]

_MAX_CHUNK_LINE = 4096


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


class ChunkedReader(io.RawIOBase):
    """Remove chunked transfer-encoding from *raw* while reading.

    Args:
        raw: The chunked body.
        lenient: On a malformed chunk header or early end, return the bytes read so
            far as the rest of the body instead of raising (``on_error`` is told).
        on_error: Called with a message when lenient mode recovers.
    """

    def __init__(self, raw: Readable, *, lenient: bool = False, on_error: Any = None) -> None:
        self._raw = raw
        self._buf = b""
        self._left = 0  # bytes left in the current chunk
        self._done = False
        self._passthrough = False
        self._lenient = lenient
        self._on_error = on_error
        self.consumed = 0  # chunked bytes consumed from raw

    def readable(self) -> bool:
        return True

    def _fill(self, n: int = 8192) -> bool:
        data = self._raw.read(n)
        if not data:
            return False
        self._buf += data
        return True

    def _fail(self, message: str) -> None:
        if not self._lenient:
            raise ChunkedEncodingError(message)
        if self._on_error is not None:
            self._on_error(message)
        self._passthrough = True

    def _next_chunk(self) -> None:
        # Consume the CRLF after the previous chunk's data, then the size line.
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                break
            if len(self._buf) > _MAX_CHUNK_LINE:
                self._fail("chunk-size line is too long")
                return
            if not self._fill():
                if self._buf.strip() == b"":
                    self._fail("chunked body ends without the last chunk")
                    self._done = not self._passthrough
                    return
                self._fail("chunked body ends inside a chunk-size line")
                return
        line = self._buf[:nl].strip()
        if not line:  # the CRLF that ends the previous chunk's data
            self._buf = self._buf[nl + 1 :]
            return self._next_chunk()
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
            if size < 0 or not size_text or len(size_text) > 16:
                raise ValueError
        except ValueError:
            self._fail(f"bad chunk size {size_text[:20]!r}")
            return
        self._buf = self._buf[nl + 1 :]
        if size == 0:
            self._done = True  # trailers (if any) are ignored
            return
        self._left = size

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        n = len(data)
        b[:n] = data
        return n

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return read_all(self)
        while True:
            if self._passthrough:
                if self._buf:
                    out, self._buf = self._buf[:size], self._buf[size:]
                    return out
                return self._raw.read(size)
            if self._done:
                return b""
            if self._left == 0:
                self._next_chunk()
                continue
            if not self._buf and not self._fill(max(8192, min(size, self._left))):
                self._fail("chunked body ends inside a chunk")
                if self._passthrough:
                    return b""
            take = min(size, self._left, len(self._buf))
            out = self._buf[:take]
            self._buf = self._buf[take:]
            self._left -= take
            if out:
                return out


def _decompressor(coding: str) -> Any:
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(47)  # gzip or zlib header, auto
    if coding == "deflate":
        return zlib.decompressobj(15)
    if coding == "br":
        try:
            import brotli  # type: ignore[import-untyped]
        except ImportError:
            raise UsageError("Content-Encoding br needs the 'brotli' package") from None
        return brotli.Decompressor()
    if coding == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()
    raise UsageError(f"unsupported Content-Encoding {coding!r}")


class DecodingReader(io.RawIOBase):
    """Remove one content-encoding (gzip, deflate, br, zstd) while reading."""

    def __init__(self, raw: Readable, coding: str) -> None:
        self._raw = raw
        self._coding = coding
        self._d = _decompressor(coding)
        self._buf = b""
        self._eof = False
        self._raw_deflate_tried = False

    def readable(self) -> bool:
        return True

    def _decompress(self, data: bytes) -> bytes:
        d = self._d
        if self._coding == "br":
            # brotli >= 1.1 names it process(); older releases decompress().
            step = getattr(d, "process", None) or d.decompress
            return bytes(step(data))
        try:
            return bytes(d.decompress(data))
        except zlib.error:
            # Quirk: many servers send raw deflate (no zlib header) as "deflate".
            if self._coding == "deflate" and not self._raw_deflate_tried:
                self._raw_deflate_tried = True
                self._d = zlib.decompressobj(-15)
                return bytes(self._d.decompress(data))
            raise

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return read_all(self)
        while not self._buf and not self._eof:
            data = self._raw.read(1 << 16)
            if not data:
                self._eof = True
                break
            try:
                self._buf = self._decompress(data)
            except Exception as exc:  # each codec raises its own type
                raise ChunkedEncodingError(f"cannot decode {self._coding} content: {exc}") from None
        out, self._buf = self._buf[:size], self._buf[size:]
        return out

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


class Dechunker:
    """Push-style chunked transfer-coding decoder: ``feed(data, out)`` passes the
    de-chunked bytes to ``out.update``; ``failed`` is set on malformed input."""

    __slots__ = ("state", "left", "line", "failed")

    def __init__(self) -> None:
        self.state = 0  # 0 size line, 1 data, 2 CRLF after data, 3 trailer, 4 done
        self.left = 0
        self.line = bytearray()
        self.failed = False

    def feed(self, data: bytes, out: Any) -> None:
        i, n = 0, len(data)
        while i < n and not self.failed:
            st = self.state
            if st == 1:
                take = min(self.left, n - i)
                out.update(data[i : i + take])
                i += take
                self.left -= take
                if self.left == 0:
                    self.state = 2
                    self.line.clear()
            elif st in (0, 2, 3):
                j = data.find(b"\n", i)
                if j < 0:
                    self.line += data[i:]
                    if len(self.line) > 4096:
                        self.failed = True
                    return
                self.line += data[i:j]
                i = j + 1
                text = bytes(self.line).rstrip(b"\r")
                self.line.clear()
                if st == 2:
                    if text:
                        self.failed = True
                    self.state = 0
                elif st == 0:
                    size_text = text.split(b";", 1)[0].strip()
                    try:
                        self.left = int(size_text, 16)
                    except ValueError:
                        self.failed = True
                        return
                    self.state = 1 if self.left else 3
                elif not text:
                    self.state = 4
            else:
                return  # bytes after the last chunk are ignored
