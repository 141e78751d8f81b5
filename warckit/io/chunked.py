"""Streaming decoders for HTTP chunked transfer-encoding and content-encodings."""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import ChunkedEncodingError, DecompressionBombError, UsageError, WarckitError

__all__ = [
    "BAD_CHUNKED", "NOT_CHUNKED", "ChunkedReader", "Dechunker", "DecodingReader", "Readable", "read_all",
]

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


#: A chunk-size line as RFC 9112 §7.1 writes it: ``1*HEXDIG`` and an optional
#: chunk-ext after ``;`` (BWS allowed before it), CR LF or a bare LF removed.
_STRICT_SIZE = re.compile(rb"([0-9A-Fa-f]+)(?:[ \t]*;.*)?", re.DOTALL)
#: What lenient mode also takes: whitespace around the digits.
_LENIENT_SIZE = re.compile(rb"[ \t]*([0-9A-Fa-f]+)[ \t]*(?:;.*)?", re.DOTALL)
#: Largest chunk size accepted (16 hex digits after leading zeros).
_MAX_CHUNK_SIZE = (1 << 64) - 1

#: Issue codes the chunked decoder reports (docs/conformance.rst#not-chunked).
NOT_CHUNKED = "not-chunked"
BAD_CHUNKED = "bad-chunked"

IssueHandler = Callable[[str, str], None]


class ChunkedReader(io.RawIOBase):
    """Remove chunked transfer-encoding from *raw* while reading.

    Quirk: servers declare ``Transfer-Encoding: chunked`` over bodies that are not
    chunked (pywb's ``iana.warc.gz``, warcio's and browsers' reading of them). The
    line is drawn at the first line of the body: when it is not a chunk-size line
    (hex digits, whitespace around them, an optional ``;`` chunk-ext), the body is
    served as stored in both modes and ``not-chunked`` is reported. Once the first
    chunk-size line parsed, the body is chunked: strict mode raises on any later
    damage (a malformed size line, a missing CRLF after chunk data, an early end),
    lenient mode serves the rest as stored (or stops at the early end) and reports
    ``bad-chunked``.

    Args:
        raw: The chunked body.
        lenient: Recover from damage after the first chunk instead of raising.
        on_issue: Called with ``(code, message)`` for each recovery.
        source: Named by errors.
        offset: Named by errors (the record's offset).
    """

    def __init__(
        self,
        raw: Readable,
        *,
        lenient: bool = False,
        on_issue: IssueHandler | None = None,
        source: str | None = None,
        offset: int | None = None,
    ) -> None:
        self._raw = raw
        self._buf = b""
        self._left = 0  # bytes left in the current chunk
        self._started = False  # the first chunk-size line parsed
        self._after_data = False  # a chunk's data was read; its CRLF comes next
        self._done = False
        self._passthrough = False
        self._lenient = lenient
        self._on_issue = on_issue
        self._source = source
        self._offset = offset
        self.consumed = 0  # bytes of the stored body consumed (position of _buf[0])

    def readable(self) -> bool:
        return True

    def _fill(self, n: int = 8192) -> bool:
        data = self._raw.read(n)
        if not data:
            return False
        self._buf += data
        return True

    def _take(self, n: int) -> None:
        self._buf = self._buf[n:]
        self.consumed += n

    def _report(self, code: str, message: str) -> None:
        if self._on_issue is not None:
            self._on_issue(code, message)

    def _not_chunked(self, why: str) -> None:
        self._report(NOT_CHUNKED, f"Transfer-Encoding is chunked but {why}; the body is served as stored")
        self._passthrough = True

    def _fail(self, message: str, *, stop: bool = False) -> None:
        """Damage after the first chunk: raise, or serve the rest as stored (*stop*: end here)."""
        message = f"{message} at byte {self.consumed} of the body"
        if not self._lenient:
            raise ChunkedEncodingError(message, source=self._source, offset=self._offset)
        if stop:
            self._report(BAD_CHUNKED, f"{message}; the body ends there")
            self._done = True
        else:
            self._report(BAD_CHUNKED, f"{message}; the rest is served as stored")
            self._passthrough = True

    def _line(self) -> bytes | None:
        """The next line (without its line end) if complete; ``None`` at the end of input
        or when it is too long. The line stays in the buffer."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                return self._buf[:nl]
            if len(self._buf) > _MAX_CHUNK_LINE or not self._fill():
                return None

    def _next_chunk(self) -> None:
        """Consume the line end after the previous chunk's data, then a chunk-size line."""
        if self._after_data:
            self._after_data = False
            while len(self._buf) < 2 and self._fill():
                pass
            if self._buf.startswith(b"\r\n"):
                self._take(2)
            elif self._buf.startswith(b"\n"):
                self._take(1)  # RFC 9112 §2.2: a bare LF may be taken as a line end
            elif not self._buf:
                self._fail("chunked body ends without the last chunk", stop=True)
                return
            elif self._buf == b"\r":
                self._fail("chunked body ends inside the CRLF after chunk data", stop=True)
                return
            else:
                self._fail("chunk data is not followed by CRLF")
                return
        blank = 0
        while True:
            line = self._line()
            if line is None:
                if not self._started:
                    self._not_chunked(
                        "the body is empty" if not self._buf else "its first line is not a chunk size"
                    )
                elif len(self._buf) > _MAX_CHUNK_LINE:
                    self._fail("chunk-size line is too long")
                elif not self._buf.strip():
                    self._fail("chunked body ends without the last chunk", stop=True)
                else:
                    self._fail("chunked body ends inside a chunk-size line", stop=True)
                return
            text = line[:-1] if line.endswith(b"\r") else line
            if text.strip(b" \t") or not self._started or not self._lenient:
                break
            # Lenient: blank lines between chunks (bounded work: each is consumed).
            self._take(len(line) + 1)
            blank += 1
        if blank:
            self._report(BAD_CHUNKED, f"skipped {blank} blank line(s) before a chunk-size line")
        m = _LENIENT_SIZE.fullmatch(text)
        if m is None:
            if not self._started:
                self._not_chunked("its first line is not a chunk size")
            else:
                self._fail(f"bad chunk size {text[:20]!r}")
            return
        size = int(m.group(1), 16)
        if size > _MAX_CHUNK_SIZE:
            if not self._started:
                self._not_chunked("its first line is not a chunk size")
            else:
                self._fail(f"chunk size {text[:20]!r} is too large")
            return
        if _STRICT_SIZE.fullmatch(text) is None:
            if not self._lenient:
                self._started = True
                raise ChunkedEncodingError(
                    f"bad chunk size {text[:20]!r} (whitespace around the digits) at byte "
                    f"{self.consumed} of the body",
                    source=self._source,
                    offset=self._offset,
                )
            self._report(BAD_CHUNKED, f"chunk size {text[:20]!r} has whitespace around the digits")
        self._started = True
        self._take(len(line) + 1)
        if size == 0:
            self._done = True  # trailers (if any) are not part of the content
            return
        self._left = size

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        n = len(data)
        b[:n] = data
        return n

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return read_all(self)
        while True:
            if self._passthrough:
                if self._buf:
                    out = self._buf[:size]
                    self._take(len(out))
                    return out
                return self._raw.read(size)
            if self._done:
                return b""
            if self._left == 0:
                self._next_chunk()
                continue
            if not self._buf and not self._fill(max(8192, min(size, self._left))):
                self._fail("chunked body ends inside a chunk", stop=True)
                continue
            take = min(size, self._left, len(self._buf))
            out = self._buf[:take]
            self._take(take)
            self._left -= take
            if self._left == 0:
                self._after_data = True
            if out:
                return out


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


class Dechunker:
    """Push-style chunked transfer-coding decoder: ``feed(data, out)`` passes the
    de-chunked bytes to ``out.update``; ``failed`` is set on malformed input."""

    __slots__ = ("failed", "left", "line", "state")

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
                    m = _LENIENT_SIZE.fullmatch(text)
                    if m is None:  # (int() would take 0x3, 1_0, +3)
                        self.failed = True
                        return
                    self.left = int(m.group(1), 16)
                    self.state = 1 if self.left else 3
                elif not text:
                    self.state = 4
            else:
                return  # bytes after the last chunk are ignored
