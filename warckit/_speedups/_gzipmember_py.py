"""Pure-Python multi-member gzip decoder (the twin of ``_speedups/gzipmember.pyx``).

One ``decompressobj`` per member (isal when available, else zlib), inflated in the
pieces :data:`STEP` describes so that a damaged member gives what the compiled twin
gives; see :mod:`warckit.io.compression` for the decoder protocol.
"""

from __future__ import annotations

import re
import zlib
from collections import deque
from collections.abc import Callable
from types import ModuleType
from typing import Any, BinaryIO

from ..errors import CompressionError

_zlib: ModuleType
try:  # isal is a runtime dependency, but stay usable without it
    from isal import isal_zlib as _zlib
except ImportError:  # pragma: no cover - exercised only where isal is missing
    _zlib = zlib
_ERRORS: tuple[type[BaseException], ...] = (zlib.error, _zlib.error)

GZIP_MAGIC = b"\x1f\x8b"
#: ISA-L's inflate error codes, worded as the compiled twin words them.
_ERROR_TEXT = {
    -1: "invalid deflate block",
    -2: "invalid deflate symbol",
    -3: "invalid lookback distance",
    -4: "invalid gzip wrapper",
    -5: "unsupported compression method",
    -6: "incorrect checksum",
}
_ZLIB_TEXT = {"incorrect data check": -6, "incorrect header check": -4, "header crc mismatch": -4}


def _reason(exc: BaseException) -> str:
    """The inflater's error as the compiled twin words it (same ISA-L codes)."""
    text = str(exc)
    m = re.match(r"Error (-\d+) (?!while)", text)  # isal: "Error -6 Incorrect checksum found"
    if m is not None and _zlib is not zlib:
        return _ERROR_TEXT.get(int(m.group(1)), text)
    return next((_ERROR_TEXT[c] for k, c in _ZLIB_TEXT.items() if k in text), text)


#: Largest decompressed piece returned by one ``read()``.
MAX_CHUNK = 1 << 20
#: Compressed bytes read from the file at a time.
IN_CHUNK = 1 << 18
#: A member is inflated in *pieces*: a piece ends where the member's input reaches a
#: step (every STEP compressed bytes from the member start) and all it gives is out,
#: or where the piece has given PIECE bytes. Every inflate call is given input up to
#: the next step, never more (this twin gives at most FEED bytes a call; random access
#: gives what input there is). What a piece
#: gives is handed out once the piece has ended without error (the rest of the member
#: when it ends with a good CRC), so what a damaged member hands out depends only on
#: the data, never on how input and output were cut nor on how far the inflater looks
#: ahead. The compiled twin inflates in the same pieces. (A step is large: each call
#: costs ISA-L a copy of up to 64 KiB through its own buffer, which at 32 KiB steps
#: was most of the time of a poorly compressible member.)
STEP = 1 << 18
PIECE = 1 << 17
#: ... but nothing of a member is handed out before its end unless its pieces gave at
#: least this much: a damaged member smaller than that gives nothing.
HOLD = 1 << 18
#: The most input one inflate call is given (less than a step is fine: the inflater
#: then sees less, never past the step).
FEED = 1 << 15
#: Random access (``direct`` and ``readahead`` off): the first read is this many bytes,
#: then twice as many each read, up to in_chunk.
SPARSE_FIRST_READ = 1 << 13


class GzipDecoder:
    """Multi-member gzip, one ``decompressobj`` per member (isal when available).

    Args:
        fileobj: Binary file positioned at the first member.
        start: The file offset of that position.
        source: Name for error messages.
        trailing: What to do with non-gzip bytes after a member: ``"error"``
            (strict) or ``"stop"`` (lenient: end the stream; the reader reports it).
        in_chunk: Compressed bytes read from the file at a time.
        readahead: Ask the compiled twin to inflate ahead on a native thread; this
            twin always inflates in the calling thread (:attr:`readahead` is False).
        direct: Let the compiled twin inflate small members whole with libdeflate
            (sequential reading; random access turns it off). Here, without it (and
            without *readahead*), reads start small, as the compiled twin's do.
        mapped: Let the compiled twin read a regular file (with *direct*) through a
            memory map of it rather than copies of it; this twin reads *fileobj*.
    """

    #: Whether a thread inflates ahead of :meth:`read`, and whether the file is read
    #: through a memory map of it (never, in this twin).
    readahead = False
    mapped = False

    compression = "gzip"

    def __init__(
        self,
        fileobj: BinaryIO,
        start: int = 0,
        source: str | None = None,
        trailing: str = "error",
        in_chunk: int = IN_CHUNK,
        readahead: bool = False,
        direct: bool = True,
        mapped: bool = False,
    ) -> None:
        self._f = fileobj
        self._in_chunk = in_chunk
        self._in = b""
        self._view = memoryview(b"")
        self._in_pos = 0  # bytes of self._in already consumed
        self._in_abs = start  # file offset of self._in[0]
        self._d: Any = None
        self._source = source
        self._trailing = trailing
        self._eof = False
        self.member_start = start
        #: Set when the input ended in trailing bytes that are not gzip (lenient stop).
        self.trailing_garbage: int | None = None
        #: Set when the last member was cut off or damaged (lenient stop): its start offset.
        self.truncated_member: int | None = None
        #: Why decoding stopped early (lenient), as the strict error would say it.
        self.stop_reason: str | None = None
        self._error: CompressionError | None = None
        self._next_step = 0  # file offset of the member's next step
        self._fail: BaseException | None = None  # the inflater's error, reported next
        self._win: list[bytes] = []  # what the member gave since its last hand-out ...
        self._kept = 0  # ... of which so many pieces may be handed out
        self._mo = 0  # bytes the member has given so far
        self._piece = 0  # bytes its current piece has given
        self._outq: deque[bytes] = deque()  # bytes being handed out ...
        self._out_bound: int | None = None  # ... and where their member ended, if it did
        self._pending = False
        # Random access (the compiled twin's "sparse" decoder): reads start small and
        # double up to in_chunk.
        self._sparse = not (direct or readahead)
        self._read_size = min(SPARSE_FIRST_READ, in_chunk) if self._sparse else in_chunk

    def _more(self) -> bool:
        size = self._read_size
        if size < self._in_chunk:
            self._read_size = min(2 * size, self._in_chunk)
        data = self._f.read(size)
        if not data:
            self._eof = True
            return False
        rest = self._in[self._in_pos :] if self._in_pos < len(self._in) else b""
        self._in = rest + data if rest else data
        self._view = memoryview(self._in)
        self._in_pos = 0
        return True

    def close(self) -> None:
        """Stop decoding (nothing to release in this twin)."""
        self._eof = True
        self._in = b""
        self._in_pos = 0
        self._d = None
        self._win.clear()
        self._outq.clear()
        self._kept = 0
        self._pending = False

    def skip(self, limit: int) -> tuple[int, int | None]:
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        out, boundary = self.read(min(limit, MAX_CHUNK))
        return len(out), boundary

    def read(self, limit: int = MAX_CHUNK) -> tuple[bytes, int | None]:
        if self._error is not None:
            # Once damage was reported, every later read reports it again.
            raise self._error.with_traceback(None)
        try:
            return self._read(limit)
        except CompressionError as exc:
            self._error = exc
            raise

    def _stop(self, reason: str) -> tuple[bytes, int | None]:
        """Lenient: end the stream at damage (the reader reports it, and may resync)."""
        self.stop_reason = reason
        self._d = None
        self._in = b""
        self._in_pos = 0
        self._eof = True
        return b"", None

    def _hand_out(self, n: int, boundary: int | None) -> None:
        """Hand out the first *n* gathered pieces (and, if it ended, the member end)."""
        win = self._win
        self._outq.extend(win[:n])
        del win[:n]
        self._kept = max(self._kept - n, 0)
        self._out_bound, self._pending = boundary, True

    def _read(self, limit: int) -> tuple[bytes, int | None]:
        while True:
            if self._pending:
                q = self._outq
                piece = q.popleft() if q else b""
                if len(piece) > limit:
                    q.appendleft(piece[limit:])
                    return piece[:limit], None
                if q:
                    return piece, None
                boundary = self._out_bound
                self._out_bound, self._pending = None, False
                return piece, boundary
            if self._fail is not None:
                if self._kept:  # hand out the whole steps first, then report
                    self._hand_out(self._kept, None)
                    continue
                exc, self._fail = self._fail, None
                self._win.clear()  # (what the damaged member gave past its last piece is dropped)
                reason = f"gzip member is damaged ({_reason(exc)})"
                if self._trailing == "stop":
                    self.truncated_member = self.member_start
                    return self._stop(reason)
                raise CompressionError(reason, offset=self.member_start, source=self._source) from None
            if self._d is None:
                if len(self._in) - self._in_pos < 2 and not self._eof:
                    self._more()
                    continue
                if self._in_pos >= len(self._in):
                    return b"", None
                if self._in[self._in_pos : self._in_pos + 2] != GZIP_MAGIC:
                    if self._trailing == "stop":
                        self.trailing_garbage = self._in_abs
                        return self._stop("bytes after the last gzip member are not gzip")
                    raise CompressionError(
                        "bytes after the last gzip member are not gzip",
                        offset=self._in_abs,
                        source=self._source,
                        snippet=self._in[self._in_pos : self._in_pos + 16],
                    )
                self._d = _zlib.decompressobj(31)
                self.member_start = self._in_abs
                self._next_step = self._in_abs + STEP
                self._mo = self._piece = 0
                self._kept = 0
            # (at most FEED bytes a call: zlib copies what follows the member's end
            # back as unused_data, and members are mostly far shorter than a step)
            need = min(self._next_step - self._in_abs, FEED)
            while len(self._in) - self._in_pos < need and not self._eof and not (
                    self._sparse and self._in_pos < len(self._in)):
                # (the call gets the input up to the step: how far the inflater can look
                # ahead must not depend on where the input was cut; random access may
                # give it less, which only makes it see less)
                self._more()
            if need and self._in_pos >= len(self._in) and not self._more():
                # The input is cut, not damaged: all it gives is right, and handed out.
                room = PIECE - self._piece
                try:
                    out = self._d.decompress(b"", room)  # (what the inflater still holds)
                except _ERRORS as exc:
                    self._fail = exc
                    continue
                if out:
                    self._win.append(out)
                    self._mo += len(out)
                    self._piece += len(out)
                    if self._piece == PIECE:
                        self._piece = 0
                        self._kept = len(self._win) if self._mo >= HOLD else self._kept
                    continue
                if self._win:
                    self._hand_out(len(self._win), None)
                    continue
                if self._trailing == "stop":
                    self.truncated_member = self.member_start
                    return self._stop("gzip member is truncated")
                raise CompressionError(
                    "gzip member is truncated", offset=self.member_start, source=self._source
                )
            # Feed the member up to its next step, at most FEED bytes (a slice of a view:
            # what zlib copies back as unused_data / unconsumed_tail is at most that).
            data = self._view[self._in_pos : self._in_pos + need]
            room = PIECE - self._piece
            try:
                out = self._d.decompress(data, room)
            except _ERRORS as exc:
                self._fail = exc
                continue
            d = self._d
            if d.eof:
                used = len(data) - len(d.unused_data)
                self._in_abs += used
                self._in_pos += used
                self._d = None
                if not self._win and len(out) <= limit:
                    return out, self._in_abs  # (a small member, whole in one call)
                if out:
                    self._win.append(out)
                self._hand_out(len(self._win), self._in_abs)
                continue
            used = len(data) - len(d.unconsumed_tail)
            self._in_abs += used
            self._in_pos += used
            self._mo += len(out)
            self._piece += len(out)
            if out:
                self._win.append(out)
            at_step = self._in_abs == self._next_step and len(out) < room  # all its input gave is out
            if at_step or self._piece == PIECE:
                # The piece has ended without error.
                if self._mo >= HOLD:
                    self._kept = len(self._win)
                self._piece = 0
                if at_step:
                    self._next_step += STEP
                if self._kept:
                    self._hand_out(self._kept, None)


#: Lanes: inflated bytes a lane's span aims at, the bounds of a span in compressed
#: bytes, the first span (no ratio seen yet), and how far past a span's end a
#: candidate member start is looked for.
LANE_OUT = 8 << 20  # (the compiled twin: RA_SLOT * LANE_SLOTS)
LANE_MIN = 1 << 18
LANE_MAX = 16 << 20
LANE_FIRST = 1 << 20
LANE_SEARCH = 1 << 18
#: Compressed bytes read at a time when looking for a candidate, and most inflated to check one.
LANE_WINDOW = 1 << 16
LANE_PROBE = 1 << 17
_MEMBER_MAGIC = GZIP_MAGIC + b"\x08"
#: Whether LaneDecoder inflates its lanes on threads (in the compiled twin).
LANES_THREADED = False


def _member_end(read: Callable[[int, int], bytes], at: int) -> int | None:
    """Where the gzip member at *at* ends; 0 when its first LANE_PROBE compressed bytes
    (or LANE_OUT inflated ones) inflate cleanly and it goes on; None when it does not
    inflate (or the file ends inside it). *read(pos, n)* reads the file."""
    d = _zlib.decompressobj(31)
    pos, out = at, 0
    while pos - at < LANE_PROBE:
        data = read(pos, 1 << 14)
        if not data:
            return None  # (cut by the end of the file)
        try:
            out += len(d.decompress(data, 1 << 16))
            while d.unconsumed_tail and not d.eof and out <= LANE_OUT:  # (at eof the tail is the unused data)
                out += len(d.decompress(d.unconsumed_tail, 1 << 16))
        except _ERRORS:
            return None
        if d.eof:
            return pos + len(data) - len(d.unused_data)
        if out > LANE_OUT:
            return 0
        pos += len(data)
    return 0


def _candidate(read: Callable[[int, int], bytes], at: int, stop: int, end: int) -> tuple[int, int]:
    """The first likely member start in ``[at, stop)``: a gzip header whose member
    inflates cleanly and, if it ends within the probe, is followed by another gzip
    header or the end of the file (a gzip stream stored whole inside a member, say, is
    followed by other bytes; a large one passes, and its lane is dropped unused).
    Returns ``(offset, -1)``, or ``(-1, where the search stopped)``."""
    pos = at
    while pos < stop:
        window = read(pos, LANE_WINDOW + 2)
        if len(window) < 3:
            break
        i = window.find(_MEMBER_MAGIC)
        while 0 <= i < len(window) - 2 and pos + i < stop:
            cand = pos + i
            if _likely(read, window, i, cand, end):
                return cand, -1
            i = window.find(_MEMBER_MAGIC, i + 1)
        pos += max(len(window) - 2, 1)
    return -1, pos



def _likely(read: Callable[[int, int], bytes], window: bytes, i: int, cand: int, end: int) -> bool:
    """Whether the gzip header at ``window[i:]`` (file offset *cand*) likely starts a member."""
    if i + 3 < len(window) and window[i + 3] & 0xE0:
        return False  # (reserved FLG bits are never set)
    m_end = _member_end(read, cand)
    return m_end is not None and (m_end in (0, end) or read(m_end, 3) == _MEMBER_MAGIC)


def _candidate_before(read: Callable[[int, int], bytes], lo: int, hi: int, end: int) -> int:
    """The last likely member start in ``[lo, hi)`` (see :func:`_candidate`), or -1."""
    pos = hi
    while pos > lo:
        start = max(lo, pos - LANE_WINDOW)
        window = read(start, pos - start + 2)
        i = window.rfind(_MEMBER_MAGIC, 0, pos - start + 2)
        while i >= 0:
            if _likely(read, window, i, start + i, end):
                return start + i
            i = window.rfind(_MEMBER_MAGIC, 0, i + 2)
        pos = start
    return -1

class LaneDecoder:
    """Multi-member gzip read in *lanes*: GzipDecoders each from a member start (the
    compiled twin inflates the next lane on a thread while one is read; this twin
    reads them in turn, its job is to give the same results).

    A lane's successor starts at a *candidate*, the first likely gzip header about a
    span past the lane's start; it is used only once the lane being read hands out a
    member end exactly there. A lane whose members end past the candidate (the bytes
    only looked like a gzip header) goes on. What a GzipDecoder hands out depends only
    on the bytes from a member start, so the stream, boundaries, member starts, errors
    and lenient stops are those of one GzipDecoder. *span* (compressed bytes) fixes
    the span; by default it follows the compression ratio. Needs a seekable file.
    """

    compression = "gzip"
    readahead = False
    mapped = False

    def __init__(
        self,
        fileobj: BinaryIO,
        start: int = 0,
        source: str | None = None,
        trailing: str = "error",
        in_chunk: int = IN_CHUNK,
        readahead: bool = False,
        direct: bool = True,
        span: int | None = None,
        mapped: bool = False,
    ) -> None:
        self._f = fileobj
        self._source = source
        self._trailing = trailing
        self._in_chunk = in_chunk
        pos = fileobj.tell()
        self._delta = pos - start  # (file position = offset + delta)
        self._end = fileobj.seek(0, 2) - self._delta
        fileobj.seek(pos)
        self._span = 0 if span is None else max(span, 1)
        self._tail = LANE_MIN if span is None else 0  # (no lane for the last bytes)
        self._cand = -1  # where the next lane starts (-1: no next lane)
        self._retry = -1  # ... or where to look for one again
        self._planned = False
        self._lane_start = start
        self._out = 0  # bytes the current lane handed out
        self._cur = GzipDecoder(fileobj, start, source, trailing, in_chunk)
        #: Lanes switched to, and lanes dropped unused (their start was no member start).
        self.switches = 0
        self.dropped = 0

    @property
    def member_start(self) -> int:
        return self._cur.member_start

    @property
    def trailing_garbage(self) -> int | None:
        return self._cur.trailing_garbage

    @property
    def truncated_member(self) -> int | None:
        return self._cur.truncated_member

    @property
    def stop_reason(self) -> str | None:
        return self._cur.stop_reason

    def read(self, limit: int = MAX_CHUNK) -> tuple[bytes, int | None]:
        """Return ``(chunk, boundary)`` (see :meth:`GzipDecoder.read`)."""
        self._before()
        chunk, boundary = self._cur.read(limit)
        self._out += len(chunk)
        if boundary is not None:
            self._after(boundary)
        return chunk, boundary

    def skip(self, limit: int) -> tuple[int, int | None]:
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        self._before()
        count, boundary = self._cur.skip(limit)
        self._out += count
        if boundary is not None:
            self._after(boundary)
        return count, boundary

    def close(self) -> None:
        """Stop decoding."""
        self._cur.close()

    def _before(self) -> None:
        if not self._planned:
            self._planned = True
            self._plan(self._lane_start)

    def _after(self, boundary: int) -> None:
        if boundary == self._cand:
            self._switch()
        elif self._cand >= 0 and boundary > self._cand:
            self._cand = -1  # (not a member start)
            self.dropped += 1
            self._plan(boundary)
        elif self._cand < 0 and 0 <= self._retry <= boundary:
            self._plan(boundary)

    def _span_now(self, at: int) -> int:
        used = at - self._lane_start
        if self._span:
            return self._span
        if used <= 0 or self._out <= 0:
            return LANE_FIRST
        return min(max(LANE_OUT * used // self._out, LANE_MIN), LANE_MAX)

    def _read_at(self, pos: int, n: int) -> bytes:
        self._f.seek(pos + self._delta)
        return self._f.read(n)

    def _find(self, base: int, span: int) -> int:
        """A likely member start about *span* past *base*: the first at or after
        ``base + span``, else the last after ``base + span // 2`` (-1: none near
        enough; then ``_retry`` is where to look again)."""
        back = self._f.tell()  # (the current lane reads on from there)
        at = base + span
        stop = min(at + LANE_SEARCH, self._end - self._tail)
        try:
            cand, where = _candidate(self._read_at, at, stop, self._end)
            if cand < 0:
                # (the span ends inside a large member: the lane starts at one before it)
                cand = _candidate_before(self._read_at, base + span // 2 + 1, min(at, stop), self._end)
        finally:
            self._f.seek(back)
        self._retry = where if cand < 0 and 0 <= where < self._end - self._tail else -1
        return cand

    def _plan(self, after: int) -> None:
        self._cand = self._find(after, self._span_now(after))

    def _switch(self) -> None:
        at, old = self._cand, self._cur
        span = self._span_now(at)
        old.close()
        self._f.seek(at + self._delta)
        lane = GzipDecoder(self._f, at, self._source, self._trailing, self._in_chunk)
        lane.member_start = old.member_start
        self._cur = lane
        self.switches += 1
        self._lane_start = at
        self._out = 0
        self._cand = self._find(at, span)
