"""Split one gzip-per-record WARC file into byte ranges that can be read in parallel.

Used by ``warckit index -j`` (:mod:`warckit.cdx.build`) and :func:`warckit.verify_file`,
which run the pieces in forked children (:class:`Forked`); it sits below both, so that
verifying does not import the indexing layer.

A split point is a pair of adjacent gzip members ``(before, at)`` that each hold one WARC
record. Members are found by searching for a gzip header (``1f 8b 08``) from the wanted
position on and inflating a little: the member must decompress to data starting with
``WARC/``. The record at *before* must be one the indexer reads and does not skip (its
type is read, and it is not a skipped ``application/warc-fields`` record), so that it is
the indexer's pending capture when the record at *at* arrives.

The piece before the split indexes the records before *at* and reads the record at *at*
only to settle request/response pairing (POST key suffixes); the piece after it starts
reading at *before* for the same reason and emits the records from *at* on (see
:func:`warckit.cdx.indexer.index_range`). The piece before must see *before* and then *at*
as consecutive records (the indexer reports them), otherwise the caller indexes the rest
of the file in one process. Files that are not gzip, are one whole-file gzip stream, or
are small are not split.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

__all__ = ["MIN_SPLIT_SIZE", "Forked", "split_points"]

#: Files smaller than this are indexed in one process.
MIN_SPLIT_SIZE = 16 * 1024 * 1024
#: Give up a split point after searching this many compressed bytes past the wanted offset.
_SEARCH_LIMIT = 64 * 1024 * 1024
_WINDOW = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b\x08"


def _member_prefix(fh, offset: int, want: int = 16384) -> tuple[bytes, int | None]:  # type: ignore[no-untyped-def]
    """Inflate the gzip member at *offset*: its first *want* bytes and its compressed size.

    The size is ``None`` unless the member was inflated to its end (bounded effort: the
    whole member is inflated only to learn where the next one starts).
    """
    fh.seek(offset)
    dec = zlib.decompressobj(31)
    out = b""
    used = 0
    try:
        while True:
            data = fh.read(1 << 16)
            if not data:
                return out, None
            if len(out) < want:
                out += dec.decompress(data, want - len(out))
                while dec.unconsumed_tail and len(out) < want:
                    out += dec.decompress(dec.unconsumed_tail, want - len(out))
                if not out.startswith(b"WARC/"[: len(out)]):
                    return out, None
                tail = dec.unconsumed_tail
                if tail:
                    while tail and not dec.eof:
                        dec.decompress(tail, 1 << 20)
                        tail = dec.unconsumed_tail
            else:
                dec.decompress(data, 0)
                tail = dec.unconsumed_tail
                while tail and not dec.eof:
                    dec.decompress(tail, 1 << 20)
                    tail = dec.unconsumed_tail
            used += len(data)
            if dec.eof:
                return out, used - len(dec.unused_data)
    except zlib.error:
        return b"", None


def _header_value(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        if not line:
            break
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == name:
            return value.strip()
    return None


def _readable_start(path: str, offset: int, read_types: frozenset[str], skip_fields: bool) -> bool:
    """Whether the record at *offset* is one the indexer reads and does not skip."""
    from ..errors import ParseError
    from .reader import read_record_at

    try:
        record = read_record_at(path, offset)
    except (ParseError, OSError, ValueError):
        return False
    with record:
        if record.offset != offset or record.format != "warc":
            return False
        rtype = record.type
        if rtype not in read_types:
            return False
        if skip_fields and rtype in ("resource", "metadata") and record.content_type == "application/warc-fields":
            return False  # skipped by the indexer: transparent for pairing
        return True


def _find_point(
    fh: BinaryIO, path: str, wanted: int, limit: int, read_types: frozenset[str], skip_fields: bool
) -> tuple[int, int] | None:
    """The first good split point ``(before, at)`` with *before* at or after *wanted*."""
    pos = wanted
    stop = min(limit, wanted + _SEARCH_LIMIT)
    while pos < stop:
        fh.seek(pos)
        window = fh.read(min(_WINDOW, stop - pos) + 2)
        if len(window) < 3:
            return None
        i = window.find(_GZIP_MAGIC)
        while 0 <= i < len(window) - 2:
            cand = pos + i
            head, size = _member_prefix(fh, cand)
            if head.startswith(b"WARC/"):
                # A record starts here; walk member by member to a usable pair.
                while cand < stop and size is not None:
                    nxt = cand + size
                    nhead, nsize = _member_prefix(fh, nxt)
                    if not nhead.startswith(b"WARC/"):
                        return None
                    rtype = (_header_value(head, b"warc-type") or b"").decode("latin-1").lower()
                    if rtype in read_types and _readable_start(path, cand, read_types, skip_fields):
                        return cand, nxt
                    cand, head, size = nxt, nhead, nsize
                return None
            i = window.find(_GZIP_MAGIC, i + 1)
        pos += max(len(window) - 2, 1)
    return None


def split_points(
    path: str, parts: int, read_types: frozenset[str], skip_fields: bool, *, min_size: int | None = None
) -> list[tuple[int, int]]:
    """Split points ``(before, at)`` (ascending) cutting *path* into up to *parts* ranges.

    Returns ``[]`` when the file should be indexed in one piece.
    """
    if parts < 2:
        return []
    try:
        size = os.path.getsize(path)
    except OSError:
        return []
    if size < (MIN_SPLIT_SIZE if min_size is None else min_size):
        return []
    points: list[tuple[int, int]] = []
    try:
        with open(path, "rb") as fh:
            if fh.read(3) != _GZIP_MAGIC:
                return []
            head, _ = _member_prefix(fh, 0)
            if not head.startswith(b"WARC/"):
                return []  # ARC or not a WARC: one piece
            last = 0
            for k in range(1, parts):
                wanted = max(size * k // parts, last + 1)
                point = _find_point(fh, path, wanted, size, read_types, skip_fields)
                if point is None:
                    break
                points.append(point)
                last = point[1]
    except OSError:
        return []
    return points


class Forked:
    """``func(*args)`` run in a forked child, its pickled result coming back through a pipe.

    A plain ``fork`` (no process pool): the child starts at once with everything
    imported, and nothing but the pipe is set up. The child leaves with ``os._exit``
    (no atexit handlers, no flushing of the parent's buffers).
    """

    def __init__(self, func: Callable[..., Any], *args: Any) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child (exercised by the tests)
            status = 0
            try:
                os.close(read_fd)
                import pickle

                try:
                    data = pickle.dumps(func(*args), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:  # noqa: BLE001 - any failure: the parent redoes this piece
                    data = b""
                    status = 1
                with os.fdopen(write_fd, "wb") as out:
                    out.write(data)
            finally:
                os._exit(status)
        os.close(write_fd)
        self.pid: int | None = pid
        self._fd = read_fd

    def result(self) -> Any:
        """The piece's result, or ``None`` when the child failed."""
        import pickle

        with os.fdopen(self._fd, "rb") as pipe:
            data = pipe.read()
        self._reap()
        return pickle.loads(data) if data else None

    def _reap(self) -> None:
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None

    def cancel(self) -> None:
        """Stop the child if it still runs (the caller stopped early)."""
        if self.pid is not None:
            import signal

            try:
                os.kill(self.pid, signal.SIGTERM)
            except OSError:
                pass
            self._reap()
            try:
                os.close(self._fd)
            except OSError:
                pass
