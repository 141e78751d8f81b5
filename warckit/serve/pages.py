"""Paged look-ups in a ZipNum index: ``page``, ``pageSize`` and ``showNumPages`` as pywb's
``ZipNumIndexSource`` answers them.

A page is *pageSize* blocks (default 10) of the ``.idx`` lines that cover the key range,
counted from the block before the first key of the range (which may hold its first lines);
``showNumPages`` says ``{"pages": N, "pageSize": S, "blocks": B}``. pywb's key range is
``[start, end)``: ``K`` to ``K!`` for an exact key, the prefix to the prefix with its last
character incremented for the others.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from itertools import islice
from typing import IO

from ..cdx._bisect import bisect_left_line, previous_line_start
from ..cdx._timestamps import lower_bound, upper_bound
from ..cdx.formats import AnyEntry, parse_line
from ..cdx.query import Index, Query, _matches_filters, key_prefixes
from ..cdx.zipnum import MAX_LINE, ZipNumIndex
from ..errors import ParseError, UsageError

__all__ = ["DEFAULT_PAGE_SIZE", "page_count", "page_lines"]

#: Blocks per page when ``pageSize`` is not given (pywb's ``max_blocks``).
DEFAULT_PAGE_SIZE = 10


def _range(index: Index, req: Query) -> tuple[list[bytes], bytes, bytes]:
    """The line prefixes of the look-up and pywb's ``[start, end)`` over them."""
    prefixes = sorted(p.encode("utf-8") for p in
                      key_prefixes(index.key_of(req.url), req.match, index.key_style, req.url))
    if req.match == "exact":
        start = prefixes[0].rstrip(b" ")
        return prefixes, start, start + b"!"
    last = prefixes[-1]
    return prefixes, prefixes[0], last[:-1] + bytes([last[-1] + 1])


def _lines_from(fh: IO[bytes], pos: int) -> Iterator[bytes]:
    fh.seek(pos)
    while line := fh.readline(MAX_LINE):
        yield line.rstrip()


def _search(fh: IO[bytes], key: bytes) -> Iterator[bytes]:
    """pywb's ``search(reader, key, prev_size=1)``: from the line before the first ``>= key``;
    when no line is, the last line alone (nothing for a one-line file)."""
    size = os.fstat(fh.fileno()).st_size
    pos = bisect_left_line(fh, key)
    if pos < size:
        return _lines_from(fh, previous_line_start(fh, pos) if pos > 0 else 0)
    last = previous_line_start(fh, size)
    return _lines_from(fh, last) if last > 0 else iter(())


def _last_line(fh: IO[bytes]) -> bytes:
    size = os.fstat(fh.fileno()).st_size
    fh.seek(previous_line_start(fh, size) if size else 0)
    return fh.readline(MAX_LINE).rstrip()


class _Plan:
    """The ``.idx`` lines of a look-up and the page arithmetic over them."""

    def __init__(self, index: Index, req: Query, page_size: int | None) -> None:
        assert index.zipnum is not None
        self.zipnum: ZipNumIndex = index.zipnum
        self.prefixes, self.start, self.end = _range(index, req)
        self.page_size = page_size or DEFAULT_PAGE_SIZE
        with open(self.zipnum.idx_path, "rb") as fh:
            end_line = next(_search(fh, self.end), None)
            last_line = _last_line(fh)
            if end_line is None:
                end_line = last_line
            first = next((x for x in _search(fh, self.start) if x < self.end), None)
            if first is None and end_line == last_line and self.start >= last_line:
                first = last_line
        self.first = first
        self.blocks = -1
        self.pages = 0 if first is None else 1
        if first is not None:
            try:
                self.blocks = self._number(end_line) - self._number(first)
                self.pages = self.blocks // self.page_size + 1
            except (IndexError, ValueError):
                self.blocks = -1

    @staticmethod
    def _number(idx_line: bytes) -> int:
        return int(idx_line.split(b"\t")[4])

    def idx_lines(self, page: int) -> Iterator[bytes]:
        """The ``.idx`` lines of *page* (pywb's slice of its range iterator)."""
        first = self.first
        assert first is not None
        start = page * self.page_size
        stop = start + self.page_size
        if self.blocks >= 0:
            stop = min(stop, self.blocks + 1)
        with open(self.zipnum.idx_path, "rb") as fh:
            seq = _search(fh, self.start)
            next(seq, None)  # the first line, already known
            if page == 0:
                yield first
                start += 1
            for line in islice(seq, start - 1, stop - 1):
                if line >= self.end:
                    return
                yield line

    def block_lines(self, idx_line: bytes) -> Iterator[bytes]:
        """The index lines of one block in ``[start, end)``."""
        path, offset, length = self.zipnum._entry(idx_line + b"\n", 0)
        for line in self.zipnum._block_lines(path, offset, length):
            if line < self.start:
                continue
            if line.rstrip(b"\r\n") >= self.end:
                return
            yield line


def page_count(index: Index, q: Query, page_size: int | None) -> bytes:
    """The ``showNumPages`` answer: ``{"pages": …, "pageSize": …, "blocks": …}`` and a newline."""
    plan = _Plan(index, q, page_size)
    pages, blocks = plan.pages, plan.blocks
    if plan.first is not None and blocks == 0 and next(plan.block_lines(plan.first), None) is None:
        pages, blocks = 0, -1
    if plan.first is None:
        blocks = -1
    return (json.dumps({"pages": pages, "pageSize": plan.page_size, "blocks": blocks + 1}) + "\n").encode()


def page_lines(index: Index, q: Query, page: int, page_size: int | None) -> Iterator[tuple[bytes, AnyEntry]]:
    """The ``(line, entry)`` pairs of *page* of the look-up *q* (its match and ``from`` /
    ``to`` applied).

    Raises:
        UsageError: The page is out of range (raised by the call).
    """
    plan = _Plan(index, q, page_size)
    if plan.first is None:
        return iter(())
    if page >= plan.pages:
        raise UsageError(f"page: page {page} invalid: the first page is 0, the last is {plan.pages - 1}")
    return _page(index, q, plan, page)


def _page(index: Index, q: Query, plan: _Plan, page: int) -> Iterator[tuple[bytes, AnyEntry]]:
    low = lower_bound(q.from_) if q.from_ else None
    high = upper_bound(q.to) if q.to else None
    prefixes = tuple(plan.prefixes)
    for idx_line in plan.idx_lines(page):
        for line in plan.block_lines(idx_line):
            if not line.startswith(prefixes):
                continue
            try:
                entry = parse_line(line.decode("utf-8", "replace"), index.format)
            except ParseError as exc:
                raise exc.located(source=index.path) from None
            if _matches_filters(entry, q, low, high):
                yield line, entry
