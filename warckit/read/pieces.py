"""Split one gzip-per-record WARC file into byte ranges that can be read in parallel.

Used by ``warckit index -j`` (:mod:`warckit.cdx.build`) and :func:`warckit.verify_file`,
which run the pieces in forked children (:class:`Forked`); it sits below both, so that
verifying does not import the indexing layer.

A split point is a pair of adjacent gzip members ``(before, at)`` that each hold one WARC
record. Members are found by searching for a gzip header from the wanted position on and
inflating a little: the member must decompress to data starting with ``WARC/``. The
caller may ask more of the record at *before* (*usable*): the indexer wants one it reads
and does not skip, so that its pending capture is that record when the one at *at*
arrives (see :func:`warckit.cdx.indexer.split_points`).

The caller reads the piece before the split up to *at* (and, if it needs to, the record
at *at*), and the piece after it from *before* or *at* on. Files that are not gzip, are
one whole-file gzip stream, or are small are not split. A URL is split the same way, by
ranged reads (:mod:`warckit.io.remote`); each piece then reads its own range.
"""

from __future__ import annotations

import marshal
import os
import zlib
from collections.abc import Callable

from .._util.cpus import job_ended, job_started
from .workers import stop_with_parent
from ..io.compression import GZIP_MEMBER_MAGIC, sniff_compression
from ..io.remote import is_url
from ..io.sources import open_source

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any, BinaryIO
    from ..record.records import WarcRecord

__all__ = ["MIN_SPLIT_SIZE", "Forked", "split_points"]

#: Files smaller than this are indexed in one process.
MIN_SPLIT_SIZE = 16 * 1024 * 1024
#: Give up a split point after searching this many compressed bytes past the wanted offset.
_SEARCH_LIMIT = 64 * 1024 * 1024
_WINDOW = 1 << 20


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


def _readable_start(path: str, offset: int, usable: Callable[[WarcRecord], bool] | None) -> bool:
    """Whether a WARC record starts at *offset* and is one the caller can start after."""
    from ..errors import ParseError
    from .reader import read_record_at

    try:
        record = read_record_at(path, offset)
    except (ParseError, OSError, ValueError):
        return False
    with record:
        if record.offset != offset or record.format != "warc":
            return False
        return usable is None or usable(record)


def _find_point(
    fh: BinaryIO, path: str, wanted: int, limit: int, usable: Callable[[WarcRecord], bool] | None
) -> tuple[int, int] | None:
    """The first good split point ``(before, at)`` with *before* at or after *wanted*."""
    pos = wanted
    stop = min(limit, wanted + _SEARCH_LIMIT)
    while pos < stop:
        fh.seek(pos)
        window = fh.read(min(_WINDOW, stop - pos) + 2)
        if len(window) < 3:
            return None
        i = window.find(GZIP_MEMBER_MAGIC)
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
                    if _readable_start(path, cand, usable):
                        return cand, nxt
                    cand, head, size = nxt, nhead, nsize
                return None
            i = window.find(GZIP_MEMBER_MAGIC, i + 1)
        pos += max(len(window) - 2, 1)
    return None


def split_points(
    path: str,
    parts: int,
    usable: Callable[[WarcRecord], bool] | None = None,
    *,
    min_size: int | None = None,
) -> list[tuple[int, int]]:
    """Split points ``(before, at)`` (ascending) cutting *path* into up to *parts* ranges.

    *usable*: whether the record at *before* will do (default: any WARC record).
    Returns ``[]`` when the file should be read in one piece.
    """
    if parts < 2:
        return []
    remote = "://" in path and is_url(path)
    try:
        # (A URL's size is known once it is open: a HEAD request.)
        size = -1 if remote else os.path.getsize(path)
    except OSError:
        return []
    if size < (MIN_SPLIT_SIZE if min_size is None else min_size) and not remote:
        return []
    points: list[tuple[int, int]] = []
    try:
        with open_source(path) as source:
            fh = source.file
            if remote:
                size = fh.size
                if size < (MIN_SPLIT_SIZE if min_size is None else min_size):
                    return []
            if sniff_compression(fh.read(4)) != "gzip":
                return []
            head, _ = _member_prefix(fh, 0)
            if not head.startswith(b"WARC/"):
                return []  # ARC or not a WARC: one piece
            last = 0
            for k in range(1, parts):
                wanted = max(size * k // parts, last + 1)
                point = _find_point(fh, path, wanted, size, usable)
                if point is None:
                    break
                points.append(point)
                last = point[1]
    except OSError:
        return []
    return points


def _dumps(value: Any) -> bytes:
    """*value* as bytes for the pipe: marshal (built in) when it holds only plain types,
    else pickle (whose import costs a child milliseconds before its piece is done)."""
    try:
        return b"m" + marshal.dumps(value)
    except ValueError:  # (an object marshal does not write: exact built-in types only)
        import pickle

        return b"p" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _loads(data: bytes) -> Any:
    if data[:1] == b"m":
        return marshal.loads(memoryview(data)[1:])
    import pickle

    return pickle.loads(memoryview(data)[1:])


class Forked:
    """``func(*args)`` run in a forked child, its result coming back through a pipe.

    A plain ``fork`` (no process pool): the child starts at once with everything
    imported, and nothing but the pipe is set up. The child leaves with ``os._exit``
    (no atexit handlers, no flushing of the parent's buffers), and gets SIGTERM when
    this process dies, even by SIGKILL (Linux), rather than check or index on unread.
    """

    def __init__(self, func: Callable[..., Any], *args: Any) -> None:
        import signal

        parent = os.getpid()
        read_fd, write_fd = os.pipe()
        # A stop (SIGINT, SIGTERM: both raise) must not land between the fork and this
        # object knowing its child: in the child it would unwind the parent's code, in
        # the parent it would leave a child no one stops. Held off until then.
        stops = {signal.SIGINT, signal.SIGTERM}
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            os.close(read_fd)
            os.close(write_fd)
            raise
        if pid == 0:  # pragma: no cover - runs in the child (exercised by the tests)
            status = 0
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                stop_with_parent(parent)
                os.close(read_fd)
                try:
                    data = _dumps(func(*args))
                except BaseException:  # noqa: BLE001 - any failure: the parent redoes this piece
                    data = b""
                    status = 1
                with os.fdopen(write_fd, "wb") as out:
                    out.write(data)
            finally:
                os._exit(status)
        self.pid: int | None = pid
        self._fd = read_fd
        try:
            os.close(write_fd)
            job_started()  # (a CPU this process's readers leave to the child: no gzip lanes)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a stop held off arrives here)
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            self.cancel()
            raise

    def result(self) -> Any:
        """The piece's result, or ``None`` when the child failed."""
        with os.fdopen(self._fd, "rb") as pipe:
            data = pipe.read()
        self._reap()
        return _loads(data) if data else None

    def _reap(self) -> None:
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None
            job_ended()

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
