"""WARC framing read straight from the bytes, as an oracle independent of warckit
(importable as ``warc_bytes``).

Only the simple case is read: records with CRLF heads and a Content-Length, one
after another (an uncompressed file, or one gzip member). Anything else makes the
walk give up (``None``) rather than guess.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import NamedTuple

_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d+)[ \t]*\r?$")
_CRLF2 = b"\r\n\r\n"


class Fault(NamedTuple):
    """The first framing fault: what, the offset of its record, and where it is."""

    kind: str  # "short-trailer" | "missing-trailer" | "no-length" | "not-a-record"
    record: int
    at: int
    records_before: int


def members(path: Path) -> tuple[list[bytes], bool]:
    """The decompressed gzip members of *path* (the whole file if not gzip), and whether
    they are all complete (a damaged or cut member ends the list, with what it gave)."""
    data = path.read_bytes()
    if data[:2] != b"\x1f\x8b":
        return [data], True
    out = []
    while data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(data))
        except zlib.error:
            return out, False
        if not d.eof:
            return out, False
        data = d.unused_data
    return out, True


def walk(data: bytes, one_record: bool = False) -> tuple[list[int], list[Fault]] | None:
    """Record starts and framing faults of *data*; after a bad trailer the walk goes on at
    the next ``WARC/``. None where a head has no Content-Length or is not a WARC head."""
    starts: list[int] = []
    faults: list[Fault] = []
    pos = 0
    while pos < len(data):
        head_end = data.find(_CRLF2, pos)
        m = _CONTENT_LENGTH.search(data, pos, head_end + 2) if head_end > 0 else None
        if not data.startswith((b"WARC/", b"warc/"), pos) or m is None:
            return None
        starts.append(pos)
        end = head_end + 4 + int(m.group(1))
        following = len(data) if one_record else data.find(b"WARC/", end)
        following = len(data) if following < 0 else following
        if data[end : end + 4] == _CRLF2:
            pos = end + 4
        else:
            kind = "short-trailer" if _CRLF2.startswith(data[end:following]) else "missing-trailer"
            faults.append(Fault(kind, pos, end, len(starts)))
            pos = following
        if one_record:
            break
    return starts, faults


class Unreadable(Exception):
    """The bytes are past what this simple walk reads (folded head lines)."""


def first_fault(data: bytes) -> Fault | None:
    """The first place strict reading of uncompressed *data* must stop, or None if clean:
    a head without Content-Length, garbage where a record should start, a block not
    followed by CRLF CRLF. A short trailer (CRLF or nothing) right before the next
    version line or the end is accepted (docs/conformance.rst#short-trailer).

    Raises:
        Unreadable: A head has folded lines.
    """
    pos = 0
    count = 0
    while pos < len(data):
        if not data.startswith((b"WARC/", b"warc/"), pos):
            return Fault("not-a-record", pos, pos, count)
        head_end = data.find(_CRLF2, pos)
        if re.search(rb"\r\n[ \t]", data[pos : head_end + 2] if head_end > 0 else data[pos:]):
            raise Unreadable
        m = _CONTENT_LENGTH.search(data, pos, head_end + 2) if head_end > 0 else None
        if m is None:
            return Fault("no-length", pos, pos, count)
        end = head_end + 4 + int(m.group(1))
        for trailer in (_CRLF2, b"\r\n", b""):
            after = end + len(trailer)
            if data.startswith(trailer, end) and (
                trailer == _CRLF2 or after == len(data) or data.startswith((b"WARC/", b"warc/"), after)
            ):
                pos = after
                break
        else:
            return Fault("trailer", pos, end, count)
        count += 1
    return None
