"""The HTTP chunked transfer-coding decoder: :class:`Dechunker` (push), the only parser,
and :class:`ChunkedReader`, a pull adapter over it. Content codings (gzip, br, zstd)
are removed by :class:`~warckit.io.decoding.DecodingReader` (re-exported here)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any, Literal, Protocol

from ..errors import ChunkedEncodingError, UsageError
from .decoding import DECODE_STEP, DecodingReader, Readable, read_all

__all__ = [
    "BAD_CHUNKED", "DECODE_STEP", "NOT_CHUNKED", "ChunkedReader", "DechunkMode", "Dechunker", "DecodingReader", "Readable",
    "read_all",
]

_MAX_CHUNK_LINE = 4096


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
    """Remove chunked transfer-encoding from *raw* while reading (a pull adapter over
    :class:`Dechunker`, which does the parsing).

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
        self._d = Dechunker(
            mode="lenient" if lenient else "strict", on_issue=on_issue, source=source, offset=offset
        )
        self._out: list[bytes] = []  # decoded pieces not yet returned, oldest last
        self._error: ChunkedEncodingError | None = None  # raised once _out is drained
        self._eof = False

    @property
    def consumed(self) -> int:
        """Bytes of the stored body the decoder has consumed."""
        return self._d.consumed

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        n = len(data)
        b[:n] = data
        return n

    def _pull(self, size: int) -> None:
        """Feed the decoder one read of the layer below (or its end)."""
        d = self._d
        # The same read sizes as a pull decoder: a chunk's data in one read.
        data = self._raw.read(max(8192, min(size, d.left)) if d.state == DATA and not d.buffered else 8192)
        out = self._out
        try:
            if data:
                d.feed(data, out)
            else:
                self._eof = True
                d.finish()
        except ChunkedEncodingError as exc:
            self._error = exc
            self._eof = True
        out.reverse()

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return read_all(self)
        out = self._out
        while not out:
            if self._eof:
                if self._error is not None:
                    raise self._error
                return b""
            if self._d.state == PASSTHROUGH and not self._d.buffered:
                return self._raw.read(size)  # the rest as stored, straight through
            self._pull(size)
            while out and not out[-1]:
                out.pop()
        piece = out.pop()
        if len(piece) > size:
            out.append(piece[size:])
            piece = piece[:size]
        return piece


#: :attr:`Dechunker.state` values.
SIZE_LINE, DATA, AFTER_DATA, TRAILER, DONE, PASSTHROUGH, FAILED = range(7)

#: How a :class:`Dechunker` takes damage.
DechunkMode = Literal["digest", "strict", "lenient"]


class _Sink(Protocol):
    def append(self, data: bytes, /) -> None: ...


class _Hash(Protocol):
    def update(self, data: bytes, /) -> None: ...


class Dechunker:
    """Push-style chunked transfer-coding decoder, the one warckit has: ``feed(data, out)``
    passes the de-chunked bytes on as they come, ``finish()`` marks the end of input.

    Modes:
        ``"digest"`` (default): is the body well-formed chunked coding? Any damage sets
            :attr:`failed` and stops the output; :attr:`done` once the last chunk and the
            trailer section (its empty line) were read. A payload digest over the
            entity exists only then (see :mod:`warckit.record.payload`); the compiled
            verifier (``_speedups/verifyfast.pyx``) draws the same line.
        ``"strict"`` / ``"lenient"``: the reading rules :class:`ChunkedReader` documents
            (``not-chunked`` served as stored, damage after the first chunk raises or is
            served as stored / ends the body and is reported as ``bad-chunked``).

    *out* is anything with ``update`` (a hash) or ``append`` (a list).
    """

    __slots__ = (
        "_blank",
        "_buf",
        "_emit",
        "_pos",
        "_lenient",
        "_mode",
        "_offset",
        "_on_issue",
        "_source",
        "_started",
        "consumed",
        "left",
        "state",
    )

    def __init__(
        self,
        *,
        mode: DechunkMode = "digest",
        on_issue: IssueHandler | None = None,
        source: str | None = None,
        offset: int | None = None,
    ) -> None:
        if mode not in ("digest", "strict", "lenient"):
            raise UsageError(f"Dechunker mode must be 'digest', 'strict' or 'lenient', not {mode!r}")
        self._mode = mode
        self._lenient = mode == "lenient"
        self._on_issue = on_issue
        self._source = source
        self._offset = offset
        # Input not parsed yet is self._buf[self._pos:] (it starts at byte `consumed`): a
        # position, not a fresh slice per step, so a feed holding many chunks is not copied
        # once per chunk.
        self._buf = b""
        self._pos = 0
        self._started = False  # the first chunk-size line parsed
        self._blank = 0  # lenient: blank lines skipped before the next chunk-size line
        self._emit: Any = None
        self.state = SIZE_LINE
        self.left = 0  # bytes left in the current chunk
        self.consumed = 0  # bytes of the stored body consumed (position of the buffer's start)

    @property
    def done(self) -> bool:
        """The last chunk was read (in ``"digest"`` mode: and the trailer section)."""
        return self.state == DONE

    @property
    def failed(self) -> bool:
        """``"digest"`` mode: the body is not well-formed chunked coding."""
        return self.state == FAILED

    @property
    def buffered(self) -> int:
        """Input bytes held (an unfinished line)."""
        return len(self._buf) - self._pos

    def feed(self, data: bytes, out: _Hash | _Sink) -> None:
        """Decode *data*, the next bytes of the body, into *out*.

        Raises:
            ChunkedEncodingError: ``"strict"`` mode and the body breaks after its first chunk.
        """
        st = self.state
        if st >= DONE:
            if st == PASSTHROUGH:
                self._pass(data, out)
            return  # bytes after the last chunk (or the damage) are ignored
        emit = getattr(out, "update", None) or out.append  # type: ignore[union-attr]
        self._emit = emit
        if self._pos < len(self._buf):  # a line begun in an earlier feed (small)
            self._buf = self._buf[self._pos:] + data
            self._pos = 0
            self._run()
            return
        if st == DATA:
            # The common case: the rest of a chunk's data, without copying it first.
            take = self.left
            if take >= len(data):
                emit(data)
                self.left -= len(data)
                self.consumed += len(data)
                if not self.left:
                    self.state = AFTER_DATA
                return
            emit(data[:take])
            self.consumed += take
            self.left = 0
            self.state = AFTER_DATA
        else:
            take = 0
        self._buf = data
        self._pos = take
        self._run()

    def finish(self) -> None:
        """The input ended: a chunked body that is not complete is damage.

        Raises:
            ChunkedEncodingError: ``"strict"`` mode and the body ends early.
        """
        st = self.state
        if st >= DONE or self._mode == "digest":
            if st < DONE:
                self.state = FAILED
            return
        buf = self._buf[self._pos:]
        if st == DATA:
            self._fail("chunked body ends inside a chunk", stop=True)
        elif st == AFTER_DATA:
            if not buf:
                self._fail("chunked body ends without the last chunk", stop=True)
            else:  # (only a lone CR waits for more)
                self._fail("chunked body ends inside the CRLF after chunk data", stop=True)
        elif not self._started:
            self._not_chunked("the body is empty" if not buf else "its first line is not a chunk size")
        elif not buf.strip():
            self._fail("chunked body ends without the last chunk", stop=True)
        else:
            self._fail("chunked body ends inside a chunk-size line", stop=True)
        if self.state == PASSTHROUGH:
            self._flush_passthrough()

    # -- the parser ---------------------------------------------------------------------

    def _run(self) -> None:
        """Parse the buffer as far as it goes."""
        digest = self._mode == "digest"
        while True:
            st = self.state
            buf = self._buf
            pos = self._pos
            if st == DATA:
                if pos >= len(buf):
                    return
                take = min(self.left, len(buf) - pos)
                self._emit(buf[pos:pos + take])
                self._take(take)
                self.left -= take
                if not self.left:
                    self.state = AFTER_DATA
                continue
            if st == AFTER_DATA and not digest:
                if pos >= len(buf):
                    return
                if buf[pos] == 10:
                    self._take(1)  # RFC 9112 §2.2: a bare LF may be taken as a line end
                elif buf[pos] != 13:
                    self._fail("chunk data is not followed by CRLF")
                elif len(buf) - pos < 2:
                    return
                elif buf[pos + 1] == 10:
                    self._take(2)
                else:
                    self._fail("chunk data is not followed by CRLF")
                if self.state == AFTER_DATA:
                    self.state = SIZE_LINE
                continue
            if st >= DONE:
                if st == PASSTHROUGH:
                    self._flush_passthrough()
                else:
                    self._clear()
                return
            nl = buf.find(b"\n", pos)
            if nl < 0:
                if len(buf) - pos > _MAX_CHUNK_LINE:
                    if digest:
                        self._stop()
                    elif not self._started:
                        self._not_chunked("its first line is not a chunk size")
                    else:
                        self._fail("chunk-size line is too long")
                    continue
                return
            line = buf[pos:nl]
            nl -= pos
            if digest:
                text = line.rstrip(b"\r")
                if st == SIZE_LINE:
                    self._size_line_digest(text, nl)
                else:  # after data, or a trailer line: the empty line ends it
                    self._take(nl + 1)
                    if st == AFTER_DATA:
                        if text:
                            self._stop()
                        else:
                            self.state = SIZE_LINE
                    elif not text:
                        self.state = DONE
                continue
            self._size_line(line[:-1] if line.endswith(b"\r") else line, nl)

    def _size_line_digest(self, text: bytes, nl: int) -> None:
        m = _LENIENT_SIZE.fullmatch(text)
        if m is None:  # (int() would take 0x3, 1_0, +3)
            self._stop()
            return
        size = int(m.group(1), 16)
        if size > _MAX_CHUNK_SIZE:  # (more than any input can hold: it would end early)
            self._stop()
            return
        self._take(nl + 1)
        self.left = size
        self.state = DATA if size else TRAILER

    def _size_line(self, text: bytes, nl: int) -> None:
        if not text.strip(b" \t") and self._started and self._lenient:
            # Lenient: blank lines between chunks (bounded work: each is consumed).
            self._take(nl + 1)
            self._blank += 1
            return
        if self._blank:
            self._report(BAD_CHUNKED, f"skipped {self._blank} blank line(s) before a chunk-size line")
            self._blank = 0
        m = _LENIENT_SIZE.fullmatch(text)
        size = int(m.group(1), 16) if m is not None else -1
        if m is None or size > _MAX_CHUNK_SIZE:
            if not self._started:
                self._not_chunked("its first line is not a chunk size")
            elif m is None:
                self._fail(f"bad chunk size {text[:20]!r}")
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
        self._take(nl + 1)
        if size == 0:
            self.state = DONE  # trailers (if any) are not part of the content
            self._clear()
            return
        self.left = size
        self.state = DATA

    # -- small steps --------------------------------------------------------------------

    def _take(self, n: int) -> None:
        self._pos += n
        self.consumed += n
        if self._pos >= len(self._buf):
            self._clear()

    def _clear(self) -> None:
        self._buf = b""
        self._pos = 0

    def _stop(self) -> None:
        """``"digest"`` mode: not well-formed; nothing more comes out."""
        self.state = FAILED
        self._clear()

    def _pass(self, data: bytes, out: Any) -> None:
        if data:
            (getattr(out, "update", None) or out.append)(data)
            self.consumed += len(data)

    def _flush_passthrough(self) -> None:
        buf = self._buf[self._pos:]
        self._clear()
        if buf:
            self._emit(buf)
            self.consumed += len(buf)

    def _report(self, code: str, message: str) -> None:
        if self._on_issue is not None:
            self._on_issue(code, message)

    def _not_chunked(self, why: str) -> None:
        self._report(NOT_CHUNKED, f"Transfer-Encoding is chunked but {why}; the body is served as stored")
        self.state = PASSTHROUGH

    def _fail(self, message: str, *, stop: bool = False) -> None:
        """Damage after the first chunk: raise, or serve the rest as stored (*stop*: end here)."""
        message = f"{message} at byte {self.consumed} of the body"
        if not self._lenient:
            self.state = FAILED
            raise ChunkedEncodingError(message, source=self._source, offset=self._offset)
        if stop:
            self._report(BAD_CHUNKED, f"{message}; the body ends there")
            self.state = DONE
            self._clear()
        else:
            self._report(BAD_CHUNKED, f"{message}; the rest is served as stored")
            self.state = PASSTHROUGH

