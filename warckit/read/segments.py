"""Reassembly of segmented records (WARC 1.1 §7) into one logical record.

A segmented record is a first segment (its own WARC-Type, ``WARC-Segment-Number: 1``)
followed by ``continuation`` records carrying ``WARC-Segment-Origin-ID`` (the first
segment's record ID) and increasing segment numbers; the last one carries
``WARC-Segment-Total-Length``. Reassembly appends the blocks in segment-number order;
the logical Content-Length is the total length and the final segment's
WARC-Truncated is adopted.

Segment blocks are not held in memory: :func:`iter_logical_records` remembers where
each segment is (file and offset), and a :class:`LogicalRecord` is an ordinary
:class:`~warckit.record.records.WarcRecord` whose body, a :class:`ChainedBody`, reads the
segments back one after the other (any part, any number of times).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import Issue, ParseError
from ..record.headers import Headers
from ..record.http import HttpHead
from ..record.records import WarcRecord
from .reader import open_archive, read_record_at

__all__ = ["ChainedBody", "LogicalRecord", "SegmentRef", "iter_logical_records", "reassemble"]

_SEGMENT_FIELDS = ("WARC-Segment-Number", "WARC-Segment-Origin-ID", "WARC-Segment-Total-Length")


@dataclass(frozen=True, slots=True)
class SegmentRef:
    """Where one segment's record is: file, offset, segment number, block length."""

    path: str
    offset: int
    number: int
    length: int


class ChainedBody:
    """A block made of the blocks of several records (the segments, in order).

    Each segment's record is opened with :func:`~warckit.read.reader.read_record_at`
    when its bytes are needed and closed when they are used up (or on :meth:`close`);
    any position can be read again (the segment holding it is reopened).
    """

    __slots__ = ("_index", "_pos", "_record", "_segments", "_stream")

    rereadable: ClassVar[bool] = True

    def __init__(self, segments: list[SegmentRef]) -> None:
        self._segments = list(segments)
        self._index = 0  # the segment the stream is in
        self._pos = 0  # position in the chained block
        self._record: WarcRecord | None = None
        self._stream: Any = None

    def live(self, record: Any) -> bool:
        return True

    def read(self, record: Any, pos: int, size: int) -> bytes | None:
        if pos != self._pos:
            self._seek(pos)
        while True:
            if self._stream is None:
                if self._index >= len(self._segments):
                    return b""
                seg = self._segments[self._index]
                self._record = read_record_at(seg.path, seg.offset)
                self._stream = self._record.raw_stream()
            data: bytes = self._stream.read(size)
            if data:
                self._pos += len(data)
                return data
            self._close_segment()
            self._index += 1

    def _seek(self, pos: int) -> None:
        self._close_segment()
        start = 0
        for i, seg in enumerate(self._segments):
            if pos < start + seg.length:
                self._index = i
                self._pos = start
                skip = pos - start
                while skip:
                    data = self.read(None, self._pos, min(skip, 1 << 20))
                    if not data:
                        break
                    skip -= len(data)
                return
            start += seg.length
        self._index = len(self._segments)
        self._pos = pos

    def _close_segment(self) -> None:
        if self._record is not None:
            self._record.close()
        self._record = None
        self._stream = None

    def take_whole(self, record: Any) -> bytes | None:
        return None

    def finish(self, record: Any) -> None:
        """Nothing to go past: the segments are read on demand."""

    def report(self, record: Any, code: str, message: str) -> None:
        record.issues.append(Issue(code, message, "warning", record.offset, record.source))

    def close(self) -> None:
        self._close_segment()


class LogicalRecord(WarcRecord):
    """A record reassembled from its segments (or an unsegmented record): an ordinary
    record whose block is its segments' blocks, read back on demand.

    Attributes:
        version: The first segment's WARC version.
        headers: The first segment's fields with Content-Length set to the total
            length, segment fields removed, and the last segment's WARC-Truncated.
        segments: Where the segments are, in order.
        offset: The first segment's offset; ``source`` its file.
    """

    __slots__ = ("segments",)

    def __init__(self, version: str, headers: Headers, segments: list[SegmentRef] | None = None) -> None:
        segments = list(segments or [])
        first = segments[0] if segments else None
        super().__init__(
            version, headers, offset=first.offset if first else 0,
            source=first.path if first else None,
            content_length=sum(s.length for s in segments), body=ChainedBody(segments),
        )
        self.segments = segments

    @property
    def complete(self) -> bool:
        """Segment numbers run 1..n without gaps and the lengths add up."""
        numbers = [s.number for s in self.segments]
        declared = self.headers.first("Content-Length")
        return numbers == list(range(1, len(numbers) + 1)) and (
            declared is None or int(declared) == self.content_length)

    def block_stream(self) -> Any:
        """The reassembled block: the same as :meth:`raw_stream` (the former name)."""
        return self.raw_stream()

    def http(self) -> HttpHead | None:  # type: ignore[override]
        """The HTTP head at the start of the block, or ``None``.

        Kept a method here for callers of the former ``LogicalRecord.http()``; it
        returns what :attr:`WarcRecord.http` returns for any other record.
        """
        return self._http_head()


def _logical_headers(first: Headers, total: int, truncated: str | None) -> Headers:
    h = first
    for name in _SEGMENT_FIELDS:
        h = h.without(name)
    h = h.with_replaced("Content-Length", str(total))
    if truncated is not None:
        h = h.with_replaced("WARC-Truncated", truncated) if "WARC-Truncated" in h \
            else h.with_added("WARC-Truncated", truncated)
    return h


def iter_logical_records(
    sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    **options: Any,
) -> Iterator[LogicalRecord]:
    """Yield every record of *sources* as a :class:`LogicalRecord`, segments reassembled.

    Unsegmented records are yielded in file order; a segmented record is yielded
    when its last segment (the one with WARC-Segment-Total-Length) has been seen.
    Segments may span several files given in order. Incomplete segmented records
    (no last segment) are yielded at the end with ``complete == False``.

    Args:
        sources: One path or several paths, in order.
        **options: Passed to :func:`warckit.open` (e.g. ``lenient=True``).
    """
    paths = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    pending: dict[str, tuple[str, Headers, list[SegmentRef], str | None]] = {}
    for path in paths:
        p = os.fspath(path)
        with open_archive(p, **options) as reader:
            for rec in reader:
                number = rec.segment_number
                if rec.type == "continuation":
                    origin = rec.segment_origin_id
                    if origin is None or origin not in pending:
                        continue  # a lonely continuation: nothing to attach it to
                    version, first, segs, _ = pending[origin]
                    segs.append(SegmentRef(p, rec.offset, number or 0, rec.content_length))
                    if rec.segment_total_length is not None:
                        del pending[origin]
                        segs.sort(key=lambda s: s.number)
                        yield LogicalRecord(version, _logical_headers(
                            first, rec.segment_total_length, rec.truncated), segs)
                    else:
                        pending[origin] = (version, first, segs, rec.truncated)
                    continue
                ref = SegmentRef(p, rec.offset, number or 1, rec.content_length)
                if number is not None and rec.record_id is not None:
                    pending[rec.record_id] = (rec.version, rec.headers, [ref], None)
                    continue
                yield LogicalRecord(rec.version, rec.headers, [ref])
    for version, first, segs, truncated in pending.values():
        total = sum(s.length for s in segs)
        yield LogicalRecord(version, _logical_headers(first, total, truncated), segs)


def reassemble(sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
               record_id: str, **options: Any) -> LogicalRecord:
    """The logical record whose first segment has *record_id*.

    Raises:
        ParseError: no such record in *sources*.
    """
    for logical in iter_logical_records(sources, **options):
        if logical.record_id == record_id:
            return logical
    raise ParseError(f"no record {record_id} in the given files")
