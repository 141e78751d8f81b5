"""Seek-based binary search over sorted text files (the ``look(1)`` technique).

The search works on byte offsets: it seeks into the middle of the file, skips the partial
line, and compares the next whole line with the target. Only O(log size) lines are read.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["bisect_left_line", "previous_line_start"]


def _file_size(fh: IO[bytes]) -> int:
    return os.fstat(fh.fileno()).st_size


def _line_after(fh: IO[bytes], pos: int) -> tuple[int, bytes]:
    """The first line starting at or after byte *pos*: ``(start, line)``; ``b""`` at EOF."""
    if pos == 0:
        fh.seek(0)
    else:
        fh.seek(pos - 1)
        fh.readline()  # the rest of the line *pos* is in (or just the newline before it)
    start = fh.tell()
    return start, fh.readline()


def bisect_left_line(fh: IO[bytes], target: bytes) -> int:
    """Offset of the first line that is ``>= target`` (file size if none).

    Args:
        fh: A seekable binary file of lines sorted bytewise.
        target: Bytes to compare whole lines against (a key prefix works: every line
            that starts with it compares ``>=``).
    """
    lo, hi = 0, _file_size(fh)
    while lo < hi:
        mid = (lo + hi) // 2
        _, line = _line_after(fh, mid)
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
