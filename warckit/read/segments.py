"""Reassembly of segmented records (WARC 1.1 §7) into one logical record.

A segmented record is a first segment (its own WARC-Type, ``WARC-Segment-Number: 1``)
followed by ``continuation`` records carrying ``WARC-Segment-Origin-ID`` (the first
segment's record ID) and increasing segment numbers; the last one carries
``WARC-Segment-Total-Length``. Reassembly appends the blocks in segment-number order;
the logical Content-Length is the total length and the final segment's
WARC-Truncated is adopted.

Segment blocks are not held in memory: :func:`iter_logical_records` remembers where
each segment is (file and offset) and :meth:`LogicalRecord.block_stream` reads them
back one after the other.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import ParseError
from ..record.headers import Headers
from ..record.http import HttpHead, find_head_end, parse_http_head
from .reader import open_archive, read_record_at

__all__ = ["LogicalRecord", "SegmentRef", "iter_logical_records", "reassemble"]

_SEGMENT_FIELDS = ("WARC-Segment-Number", "WARC-Segment-Origin-ID", "WARC-Segment-Total-Length")


@dataclass(frozen=True, slots=True)
class SegmentRef:
    """Where one segment's record is: file, offset, segment number, block length."""

    path: str
    offset: int
    number: int
    length: int


@dataclass
class LogicalRecord:
    """A record reassembled from its segments (or an unsegmented record).

    Attributes:
        version: The first segment's WARC version.
        headers: The first segment's fields with Content-Length set to the total
            length, segment fields removed, and the last segment's WARC-Truncated.
        segments: Where the segments are, in order.
    """

    version: str
    headers: Headers
    segments: list[SegmentRef] = field(default_factory=list)

    @property
    def type(self) -> str:
        """WARC-Type of the first segment."""
        return (self.headers.first("WARC-Type") or "").strip()

    @property
    def record_id(self) -> str | None:
        """The first segment's record ID (the logical record's ID)."""
        return self.headers.first("WARC-Record-ID")

    @property
    def target_uri(self) -> str | None:
        """WARC-Target-URI."""
        return self.headers.first("WARC-Target-URI")

    @property
    def content_length(self) -> int:
        """Length of the reassembled block."""
        return sum(s.length for s in self.segments)

    @property
    def complete(self) -> bool:
        """Segment numbers run 1..n without gaps and the lengths add up."""
        numbers = [s.number for s in self.segments]
        declared = self.headers.first("Content-Length")
        return numbers == list(range(1, len(numbers) + 1)) and (
            declared is None or int(declared) == self.content_length)

    def block_stream(self) -> io.RawIOBase:
        """A stream over the reassembled block (segments read back one by one)."""
        return _ChainStream(self.segments)

    def read_block(self) -> bytes:
        """The whole reassembled block (mind the size)."""
        return self.block_stream().read()

    def http(self) -> HttpHead | None:
        """The HTTP head at the start of an ``application/http`` block, or ``None``."""
        ct = (self.headers.first("Content-Type") or "").lower()
        if not ct.startswith("application/http"):
            return None
        stream = self.block_stream()
        buf = b""
        while True:
            data = stream.read(65536)
            if not data:
                break
            buf += data
            end = find_head_end(buf, True)
            if end >= 0:
                return parse_http_head(buf[:end], lenient=True)
            if len(buf) > 1 << 20:
                break
        return None


class _ChainStream(io.RawIOBase):
    def __init__(self, segments: list[SegmentRef]) -> None:
        self._segments = list(segments)
        self._current: Any = None
        self._record: Any = None

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            parts: list[bytes] = []
            while True:
                piece = self.read(1 << 20)
                if not piece:
                    return b"".join(parts)
                parts.append(piece)
        while True:
            if self._current is None:
                if not self._segments:
                    return b""
                seg = self._segments.pop(0)
                self._record = read_record_at(seg.path, seg.offset)
                self._current = self._record.raw_stream()
            data: bytes = self._current.read(size)
            if data:
                return data
            self._close_record()

    def _close_record(self) -> None:
        reader = getattr(self._record, "_reader", None)
        if reader is not None:
            reader.close()
        self._current = None
        self._record = None

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if self._current is not None:
            self._close_record()
        super().close()


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
