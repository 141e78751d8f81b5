"""Seek-based binary search over sorted text files (the ``look(1)`` technique).

The search works on byte offsets: it seeks into the middle of the file, skips the partial
line, and compares the next whole line with the target. Only O(log size) lines are read.
"""

from __future__ import annotations

import os
from itertools import pairwise

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO

__all__ = ["bisect_left_line", "ended", "first_disorder", "line_number", "previous_line_start"]


def _file_size(fh: IO[bytes]) -> int:
    try:
        return os.fstat(fh.fileno()).st_size
    except OSError:  # no descriptor: a byte range of another file (a WACZ member)
        here = fh.tell()
        size = fh.seek(0, os.SEEK_END)
        fh.seek(here)
        return size


def _line_after(fh: IO[bytes], pos: int) -> tuple[int, bytes]:
    """The first line starting at or after byte *pos*: ``(start, line)``; ``b""`` at EOF."""
    if pos == 0:
        fh.seek(0)
    else:
        fh.seek(pos - 1)
        fh.readline()  # the rest of the line *pos* is in (or just the newline before it)
    start = fh.tell()
    return start, fh.readline()


def bisect_left_line(fh: IO[bytes], target: bytes,
                     seen: list[tuple[int, bytes]] | None = None) -> int:
    """Offset of the first line that is ``>= target`` (file size if none).

    Args:
        fh: A seekable binary file of lines sorted bytewise.
        target: Bytes to compare whole lines against (a key prefix works: every line
            that starts with it compares ``>=``).
        seen: Receives ``(start, line)`` of every line the search read, and of the
            line after each, so that the caller can check they are in order
            (:func:`first_disorder`).
    """
    lo, hi = 0, _file_size(fh)
    while lo < hi:
        mid = (lo + hi) // 2
        start, line = _line_after(fh, mid)
        if seen is not None and line:
            seen.append((start, line))
            after = fh.readline()  # usually in the same buffer: a second look for free
            if after:
                seen.append((start + len(line), after))
        if not line or line >= target:
            hi = mid
        else:
            lo = mid + 1
    start, _ = _line_after(fh, lo)
    return start


def previous_line_start(fh: IO[bytes], pos: int) -> int:
    """Offset where the line before the line starting at *pos* begins (0 at the top)."""
    if pos <= 0:
        return 0
    end = pos - 1  # the newline that ends the previous line
    step = 4096
    while True:
        begin = max(0, end - step)
        fh.seek(begin)
        chunk = fh.read(end - begin)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            return begin + nl + 1
        if begin == 0:
            return 0
        step *= 2


def first_disorder(seen: list[tuple[int, bytes]]) -> tuple[int, bytes, bytes] | None:
    """The first of the lines *seen* (``(start, line)``, any order) that sorts before a
    line above it in the file: ``(start, line, the line above)``; ``None`` if in order."""
    ordered = sorted({(start, line) for start, line in seen if not line.isspace()})
    for (_, before), (start, line) in pairwise(ordered):
        if ended(line) < ended(before):
            return start, line, before
    return None


def ended(line: bytes) -> bytes:
    """*line* with its newline (the last line of a file may lack one)."""
    return line if line[-1:] == b"\n" else line + b"\n"


def line_number(fh: IO[bytes], offset: int) -> int:
    """1-based number of the line starting at *offset* (reads the file up to it)."""
    fh.seek(0)
    count, left = 1, offset
    while left > 0:
        chunk = fh.read(min(left, 1 << 20))
        if not chunk:
            break
        count += chunk.count(b"\n")
        left -= len(chunk)
    return count
