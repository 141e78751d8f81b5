"""Pure-Python record stepping for :class:`warckit.read.reader.ArchiveReader` (twin of ``_speedups/readercore.pyx``).

:class:`ReaderCore` is the base class of the reader: it owns the decompressed-stream
buffer and the member-boundary bookkeeping, and does the per-record work that runs
for every record of a file: finish the current record (skip the rest of its block,
take the trailer, learn its compressed length) and parse the next WARC record head.
Everything rare (ARC heads, lenient recovery, damaged trailers, warnings) stays on the
subclass and is called from here as ordinary methods: ``_read_head``, ``_truncated``,
``_consume_warc_trailer``, ``_consume_arc_trailer``, ``_warn``, ``_resync``,
``_at_eof``, ``_only_space_left`` and ``_report_end``.

The core knows no record class: the subclass gives it ``_record_types`` (WARC-Type ->
class) and ``_record_class`` (the class for any other type), and each record gets a
:class:`LengthedBody`, its block as the reader's stream hands it out. Records talk
to that body, never to the reader.
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from ..errors import CompressionError, HeaderParseError, Issue, RecordParseError
from ..record.headers import Headers
from .headers import impl as _hp

__all__ = ["LengthedBody", "ReaderCore"]

_unparsed = Headers._unparsed

_LENIENT_HEAD_END = re.compile(rb"\n\r*\n")
#: Decompressed bytes asked for when the reader needs a record head (the rest of a
#: large block is then skipped inside the decoder, never copied out).
HEAD_CHUNK = 1 << 14
#: Decompressed bytes asked for when a caller reads a block.
BODY_CHUNK = 1 << 20
#: Largest Content-Length accepted (2**62 bytes: more than any file system holds).
MAX_CONTENT_LENGTH = 1 << 62


class _Ghost:
    """What finishing a record needs when the caller has already dropped it."""

    __slots__ = (
        "_content_length",
        "_length",
        "_stream_length",
        "format",
        "issues",
        "member_aligned",
        "offset",
        "stream_offset",
        "trailer",
    )

    def __init__(
        self, offset: int, stream_offset: int, member_aligned: bool, fmt: str, content_length: int
    ) -> None:
        self.offset = offset
        self.stream_offset = stream_offset
        self.member_aligned = member_aligned
        self.format = fmt
        self.trailer: bytes | None = None
        self.issues: list[Issue] = []
        self._content_length = content_length
        self._length: int | None = None
        self._stream_length: int | None = None



class LengthedBody:
    """The block of the reader's current record: *Content-Length* bytes of the reader's
    stream, handed out once, in order, while the reader is still on that record.

    A record holds its body; the body holds the reader. Once the reader has moved on
    (its generation changed) or the record was dropped, the body is stale: reads
    return ``None`` and the record raises :class:`~warckit.errors.StaleRecordError`.
    """

    __slots__ = ("_gen", "_reader")

    #: The bytes go by once: a part not kept cannot be read again.
    rereadable: ClassVar[bool] = False

    def __init__(self, reader: ReaderCore, gen: int) -> None:
        self._reader = reader
        self._gen = gen

    def live(self, record: Any) -> bool:
        """Whether the reader is still on *record* (its unread bytes can be pulled)."""
        reader = self._reader
        ref = reader._current_ref
        return self._gen == reader._gen and ref is not None and ref() is record

    def read(self, record: Any, pos: int, size: int) -> bytes | None:
        """The next at most *size* bytes of the block (``b""`` at its end; *pos*, the
        record's read position, is where the reader is); ``None`` when the body is stale. A file that ends inside the block is the reader's
        truncation rule (strict: raise; lenient: report and cut the record)."""
        reader = self._reader
        ref = reader._current_ref
        if self._gen != reader._gen or ref is None or ref() is not record:
            return None
        return reader._pull_block(record, size)

    def take_whole(self, record: Any) -> bytes | None:
        """The whole block in one piece when none of it was read and it is all buffered."""
        if self._gen != self._reader._gen:
            return None
        return self._reader._take_whole_block(record)

    def finish(self, record: Any) -> None:
        """Let the reader read past the block (the record learns its length and trailer)."""
        if self.live(record):
            self._reader._finish_current()

    def report(self, record: Any, code: str, message: str) -> None:
        """Report a recovery on *record* through the reader (``issues`` and ``on_warning``)."""
        self._reader._warn(code, message, record.offset, record)

    def close(self) -> None:
        """Close the reader if it exists for this record alone (:func:`read_record_at`)."""
        reader: Any = self._reader
        if getattr(reader, "_private", False):
            reader.close()

    @property
    def reader(self) -> Any:
        """The reader the block streams from."""
        return self._reader


class ReaderCore:
    """Buffer, member bookkeeping and the per-record fast path of the reader.

    The subclass sets every attribute below in its ``__init__``.
    """

    _f: Any
    name: str
    lenient: bool
    compression: str
    format: str | None
    _dec: Any
    _dec_skip: Any
    _buf: bytes
    _pos: int
    _base: int
    _bstream: list[int]
    _bfile: list[int]
    _eof: bool
    _current_ref: weakref.ReferenceType[Any] | None
    _cur_info: tuple[int, int, bool, str, int]
    _cur_block_left: int
    _gen: int
    _types: frozenset[str] | None
    _min: int | None
    _max: int | None
    _max_head: int
    _done: bool
    #: A decoder error was raised; the next record is looked for past the damage.
    _broken: bool
    #: WARC-Type (lowercase) -> record class, and the class for any other type.
    _record_types: dict[str, Any]
    _record_class: Callable[[str], Any]

    # Provided by the subclass (rare paths).
    def _read_head(self) -> Any:
        raise NotImplementedError

    def _truncated(self, record: Any) -> None:
        raise NotImplementedError

    def _consume_warc_trailer(self, record: Any) -> None:
        raise NotImplementedError

    def _consume_arc_trailer(self, record: Any) -> None:
        raise NotImplementedError

    def _warn(self, code: str, message: str, offset: int | None, record: Any = None) -> None:
        raise NotImplementedError

    def _resync(self, marker: bytes) -> int:
        raise NotImplementedError

    def _at_eof(self) -> bool:
        raise NotImplementedError

    def _only_space_left(self) -> bool:
        raise NotImplementedError

    def _report_end(self) -> None:
        raise NotImplementedError

    def _file_offset(self, stream_pos: int) -> int:
        raise NotImplementedError

    def _dec_failed(self, exc: CompressionError) -> None:
        raise NotImplementedError

    def _resume(self) -> bool:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        record = self._next_record()
        if record is None:
            raise StopIteration
        return record

    def _fill(self, limit: int = HEAD_CHUNK) -> bool:
        """Append the next decompressed piece (at most about *limit* bytes) to the buffer."""
        if self._eof:
            return False
        try:
            chunk, boundary = self._dec.read(limit)
        except CompressionError as exc:
            self._dec_failed(exc)
            raise
        if not chunk and boundary is None:
            self._eof = True
            return False
        if self._base == 0 and not self._buf and self._bstream == [0]:
            # The first member may start after skipped frames (zstd dictionary).
            self._bfile[0] = self._dec.member_start
        pos = self._pos
        if pos:
            self._base += pos
            self._buf = self._buf[pos:] + chunk
            self._pos = 0
        elif self._buf:
            self._buf += chunk
        else:
            self._buf = chunk
        if boundary is not None:
            end = self._base + len(self._buf)
            if self._bstream[-1] == end:
                self._bfile[-1] = boundary
            else:
                self._bstream.append(end)
                self._bfile.append(boundary)
        return True

    def _ensure(self, n: int) -> bool:
        """Make at least *n* bytes available from the position; False at EOF."""
        while len(self._buf) - self._pos < n:
            if not self._fill():
                return False
        return True

    def _prune_bounds(self, stream_pos: int) -> None:
        if len(self._bstream) < 32:
            return  # cheap enough to keep; prune in batches
        i = bisect.bisect_right(self._bstream, stream_pos) - 1
        if i > 0:
            del self._bstream[:i]
            del self._bfile[:i]

    # -- block access for records ----------------------------------------------------------

    def _pull_block(self, record: Any, size: int) -> bytes:
        left = self._cur_block_left
        if left <= 0:
            return b""
        while self._pos >= len(self._buf):
            # (a loop: an empty gzip member inside the block adds no bytes)
            if not self._fill(min(max(size, HEAD_CHUNK), BODY_CHUNK)):
                self._truncated(record)
                return b""
        take = min(size, left, len(self._buf) - self._pos)
        pos = self._pos
        self._pos = pos + take
        self._cur_block_left = left - take
        if pos == 0 and take == len(self._buf):
            return self._buf
        return self._buf[pos : pos + take]

    def _take_whole_block(self, record: Any) -> bytes | None:
        """The whole block of the current *record*, taken from the buffer in one piece
        when it is all there and none of it has been pulled; ``None`` otherwise."""
        ref = self._current_ref
        left = self._cur_block_left
        size: int = record._content_length
        if ref is None or ref() is not record or left != size:
            return None
        pos = self._pos
        if left > len(self._buf) - pos:
            return None
        self._pos = pos + left
        self._cur_block_left = 0
        return self._buf[pos : pos + left]

    def _skip_block(self, record: Any) -> None:
        left = self._cur_block_left
        skip = self._dec_skip
        while left:
            avail = len(self._buf) - self._pos
            if avail == 0 and skip is not None and not self._eof:
                # Inflate and discard without materializing the bytes.
                try:
                    count, boundary = skip(left)
                except CompressionError as exc:
                    self._dec_failed(exc)
                    raise
                if count or boundary is not None:
                    self._base += self._pos + count
                    self._buf = b""
                    self._pos = 0
                    left -= count
                    if boundary is not None:
                        if self._bstream[-1] == self._base:
                            self._bfile[-1] = boundary
                        else:
                            self._bstream.append(self._base)
                            self._bfile.append(boundary)
                    continue
            if avail == 0:
                if not self._fill(BODY_CHUNK):
                    self._cur_block_left = left
                    self._truncated(record)
                    return
                continue
            take = min(left, avail)
            self._pos += take
            left -= take
        self._cur_block_left = 0

    def _finish_current(self) -> None:
        ref = self._current_ref
        if ref is None:
            return
        record: Any = ref()
        if record is None:
            record = _Ghost(*self._cur_info)
        left = self._cur_block_left
        if left:
            if left <= len(self._buf) - self._pos:  # the rest of the block is buffered
                self._pos += left
                self._cur_block_left = 0
            else:
                self._skip_block(record)
        if record.format == "arc":
            self._consume_arc_trailer(record)
        elif self._buf.startswith(b"\r\n\r\n", self._pos):
            self._pos += 4
        else:
            self._consume_warc_trailer(record)
        end = self._base + self._pos
        record._stream_length = end - record.stream_offset
        if self.compression == "none":
            record._length = end - record.stream_offset
        else:
            if self._pos >= len(self._buf):
                self._fill()  # learn whether a member ends right here
            i = bisect.bisect_left(self._bstream, end)
            aligned_end = i < len(self._bstream) and self._bstream[i] == end
            if not aligned_end and self._eof and self._base + len(self._buf) == end:
                aligned_end = False
            if record.member_aligned and aligned_end:
                record._length = self._bfile[i] - record.offset
            else:
                record.member_aligned = False
        self._gen += 1
        self._current_ref = None

    def _next_record(self) -> Any:
        while True:
            if self._broken:
                # A decoder error was raised: go on at the next member that starts a record.
                if not self._resume():
                    self._done = True
            if self._current_ref is not None:
                self._finish_current()
            if self._done:
                return None
            if self.format == "warc":  # (the common case of _read_head, inlined)
                if self._pos >= len(self._buf) and not self._ensure(1):
                    record = None
                else:
                    record = self._read_warc_head()
            else:
                record = self._read_head()
            if record is None:
                if self._resume():
                    continue  # lenient: the decoder stopped at damage; resynced past it
                self._done = True
                self._report_end()
                return None
            t = self._types
            cl = record._content_length
            if (
                (t is not None and record.type not in t)
                or (self._min is not None and cl < self._min)
                or (self._max is not None and cl > self._max)
            ):
                continue  # _finish_current skips the block without parsing it
            return record

    def _read_warc_head(self) -> Any:
        if len(self._buf) - self._pos < 5:
            self._ensure(5)  # the version line may straddle two decoder pieces
        buf, pos = self._buf, self._pos
        if not buf.startswith(b"WARC/", pos) and buf[pos : pos + 5].upper() != b"WARC/":
            where = self._base + pos
            if buf[pos : pos + 1] in (b"\r", b"\n", b"\x00", b" ") and self._only_space_left():
                return None
            if not self.lenient:
                raise RecordParseError(
                    "expected a WARC record (WARC/ version line)",
                    offset=self._file_offset(where),
                    source=self.name,
                    snippet=buf[pos : pos + 16],
                )
            skipped = self._resync(b"WARC/")
            self._warn("skipped-garbage", f"skipped {skipped} bytes before the next record", where)
            if self._at_eof():
                return None
            buf, pos = self._buf, self._pos
        # (_record_position, inlined: this runs once per record)
        start = self._base + pos
        if self.compression == "none":
            offset, aligned = start, True
        else:
            bstream = self._bstream
            if len(bstream) >= 32:
                self._prune_bounds(start)
                bstream = self._bstream
            k = bisect.bisect_right(bstream, start) - 1
            offset, aligned = self._bfile[k], bstream[k] == start
        # Find the end of the head.
        search = pos
        lenient = self.lenient
        while True:
            end = buf.find(b"\r\n\r\n", search)
            if lenient:
                # Bare LF and CR CR LF line ends (pywb's missing-status-text.warc).
                m = _LENIENT_HEAD_END.search(buf, search)
                if m is not None and (end < 0 or m.end() < end + 4):
                    end = m.end() - 4  # so that end + 4 is just past the empty line
            if end >= 0:
                head_end = end + 4
                break
            if len(buf) - pos > self._max_head:
                raise HeaderParseError(
                    f"record head is larger than {self._max_head} bytes",
                    offset=offset if self.compression != "none" else start,
                    source=self.name,
                )
            search = max(pos, len(buf) - 3)
            if not self._fill():
                if lenient:
                    self._warn("truncated-head", "file ends inside a record head", offset)
                    self._pos = len(self._buf)
                    return None
                raise RecordParseError(
                    "file ends inside a record head", offset=offset, source=self.name
                )
            search -= pos  # (relative to the head: _fill may have rebased the buffer)
            buf, pos = self._buf, self._pos
            search += pos
        if head_end - pos > self._max_head:
            raise HeaderParseError(
                f"record head is larger than {self._max_head} bytes", offset=offset, source=self.name
            )
        try:
            version, version_ok, fields_start, warnings, wtype, cl_text = _hp.scan_head(
                buf, pos, head_end, lenient
            )
        except _hp.HeadError as exc:
            raise HeaderParseError(
                str(exc),
                offset=offset if self.compression != "none" else exc.position - pos + start,
                source=self.name,
                snippet=buf[exc.position : exc.position + 40],
            ) from None
        version_msg = None
        if not version_ok:
            version_msg = f"bad WARC version line {buf[pos : pos + 40].splitlines()[0]!r}"
            if not lenient:
                raise RecordParseError(version_msg, offset=offset, source=self.name)
        raw_head = buf[pos:head_end]
        fields_end = head_end - 2 if buf[head_end - 2] == 13 else head_end - 1
        headers = _unparsed(buf[fields_start:fields_end], lenient)
        self._pos = head_end
        cls = self._record_types.get(wtype) if wtype is not None else None
        if cls is None:
            cls = self._record_class(wtype or "")
        cl_msg = None
        if cl_text is not None and not cl_text.isdigit():
            cl_text = cl_text.strip(" \t")
        # Only ASCII digits are a number in WARC (str.isdigit() also takes "²", "١٢").
        if cl_text is None or not (cl_text.isdigit() and cl_text.isascii()):
            cl_msg = "Content-Length is missing" if cl_text is None else f"Content-Length {cl_text!r} is not a number"
            if not lenient:
                raise RecordParseError(cl_msg, offset=offset, source=self.name)
            cl = 0
        else:
            cl = int(cl_text) if len(cl_text.lstrip("0")) <= 19 else MAX_CONTENT_LENGTH + 1  # (int() takes ≤ 4300 digits)
            if cl > MAX_CONTENT_LENGTH:
                raise RecordParseError(f"Content-Length {cl_text!r} is too large", offset=offset, source=self.name)
        # (_set_current, inlined: the record is made current as it is made)
        record = cls._from_reader(
            version, headers, raw_head, offset, start, self.name, lenient, aligned, cl,
            LengthedBody(self, self._gen),
        )
        if version_msg is not None:
            self._warn("bad-version", version_msg, offset, record)
        if warnings:
            for code, where in warnings:
                self._warn(code, f"record head: {code}", offset, record)
        if cl_msg is not None:
            self._warn("bad-content-length", cl_msg + "; block taken as empty", offset, record)
        self._current_ref = weakref.ref(record)
        self._cur_info = (offset, start, aligned, "warc", cl)
        self._cur_block_left = cl
        return record

