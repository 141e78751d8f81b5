"""What the proxy writes: each exchange as a response (or revisit) and a request record.

An :class:`Archivist` owns the proxy's writers (one guided :class:`WarcWriter` per
``warc-prefix``), its dedup buckets (one :class:`~warckit.tools.dedup.DedupIndex` each)
and counts its captures in a :class:`~warckit.proxy.stats.Stats`. Every method runs on
the proxy's one archiving thread, so SQLite connections and writers are used by one
thread only and records of a capture are written together.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

import orjson

from ..record.http import MAX_HTTP_HEAD, find_head_end, parse_http_head
from ..errors import ParseError
from ..record.payload import PayloadDigester
from ..tools._dedup_index import DedupIndex
from ..write.guided import WarcWriter
from ..write.rolling import DEFAULT_MAX_BYTES
from ..write.written import WrittenRecord
from .meta import DEFAULT_BUCKET, WarcproxMeta
from .stats import Stats

__all__ = ["Archivist", "Captured", "Exchange"]

_READ = 1 << 20
#: Bytes of WARC head (and HTTP heads beyond the bodies) an exchange adds, for rolling.
_OVERHEAD = 4096
#: New dedup entries written to the database file together (and at close).
COMMIT_EVERY = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass
class Exchange:
    """One request and its response, as they crossed the proxy.

    Attributes:
        url: The full URL requested (``http://`` or ``https://``).
        method: The request method.
        request: The request as sent upstream (head and body), rewound.
        response: The response as received (head and body, chunked / content-encoded as
            sent), rewound; ``None`` when no response head came.
        response_length: Bytes in *response*.
        ip: The server's address.
        date: When the request was sent (WARC-Date).
        truncated: WARC-Truncated reason when the response is incomplete.
        meta: The request's ``Warcprox-Meta`` settings.
    """

    url: str
    method: str
    request: IO[bytes]
    response: IO[bytes]
    response_length: int
    ip: str | None
    date: datetime
    truncated: str | None
    meta: WarcproxMeta


@dataclass(frozen=True)
class Captured:
    """What was written for an exchange (sent back in the ``Warcprox-Meta`` response header)."""

    record_id: str
    type: str
    date: str
    filename: str
    offset: int

    def header(self) -> bytes:
        """The ``Warcprox-Meta`` response header's value."""
        return orjson.dumps({"capture-metadata": {
            "timestamp": self.date, "record-id": self.record_id, "type": self.type,
            "warc-filename": self.filename, "offset": self.offset}})


class Archivist:
    """The writers, dedup buckets and statistics of one proxy.

    Args:
        directory: Where WARC files go.
        prefix: The file series of requests that name none.
        max_bytes: Roll files before this size, between exchanges: the records of an
            exchange stay in one file (one larger than this alone fills a file of its own).
        dedup: Database of the default dedup bucket (other buckets: files beside it named
            ``STEM.BUCKET.SUFFIX``). ``None``: no deduplication.
        writer_options: More :class:`WarcWriter` keyword arguments.
        stats: Where captures are counted (default: a :class:`Stats` of this process).

    Raises:
        ParseError: *dedup* is not a dedup database (checked here, before any request).
    """

    def __init__(self, directory: str | os.PathLike[str], *, prefix: str = "WARC",
                 max_bytes: int | None = None, dedup: str | os.PathLike[str] | None = None,
                 writer_options: dict[str, Any] | None = None, stats: Stats | None = None) -> None:
        self.directory = os.fspath(directory)
        self.prefix = prefix
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        self.dedup = os.fspath(dedup) if dedup is not None else None
        if self.dedup is not None:  # (opened again on the archiving thread: SQLite's rule)
            self._open_index(self.dedup).close()
        self._options = dict(writer_options or {})
        self._writers: dict[str, WarcWriter] = {}
        self._ends: dict[str, int] = {}  # where each writer's current file ends
        self._indexes: dict[str, DedupIndex] = {}
        self.stats = stats if stats is not None else Stats()
        self._pending = 0
        self.files: list[str] = []
        self.issues: list[Any] = []

    # -- writing --------------------------------------------------------------------------

    def _writer(self, prefix: str) -> WarcWriter:
        writer = self._writers.get(prefix)
        if writer is None:
            options = dict(self._options)
            options["max_bytes"] = None  # rolled here, between exchanges
            options.setdefault("warcinfo", {"description": "recorded by warckit proxy"})
            writer = WarcWriter(self.directory, prefix=prefix, **options)
            self._writers[prefix] = writer
        return writer

    def _index(self, bucket: str) -> DedupIndex | None:
        if self.dedup is None:
            return None
        index = self._indexes.get(bucket)
        if index is None:
            path = self.dedup
            if bucket != DEFAULT_BUCKET:
                stem, suffix = os.path.splitext(self.dedup)
                path = f"{stem}.{_UNSAFE.sub(lambda m: f'%{ord(m.group()):02X}', bucket)}{suffix}"
            index = self._indexes[bucket] = self._open_index(path)
        return index

    @staticmethod
    def _open_index(path: str) -> DedupIndex:
        try:
            return DedupIndex(path)
        except sqlite3.DatabaseError as exc:
            raise ParseError(f"not a dedup database ({exc})", source=path) from None

    def file_names(self) -> list[str]:
        """Paths of the files written so far: finished, and open (``….open``)."""
        names: list[str] = list(self.files)
        for writer in list(self._writers.values()):
            names.extend(writer.files)
            names.extend(writer.open_files)
        return names

    def record(self, ex: Exchange) -> Captured:
        """Write *ex*: the response (or a revisit), the request, and its metadata if any."""
        prefix = ex.meta.warc_prefix or self.prefix
        writer = self._writer(prefix)
        ex.request.seek(0, os.SEEK_END)
        size = ex.response_length + ex.request.tell() + _OVERHEAD
        filled = self._ends.get(prefix, 0)
        if filled and filled + size > self.max_bytes:
            writer.roll()
        ex.response.seek(0)
        first = ex.response.read(min(ex.response_length, MAX_HTTP_HEAD))
        end = find_head_end(first, True)
        if end < 0:  # no complete head: the bytes are kept as received, typed so
            end = len(first)
        head = first[:end]
        body_length = ex.response_length - end
        parsed = parse_http_head(head, lenient=True)
        original = None
        digest = None
        if self.dedup is not None and ex.truncated is None and body_length > 0:
            digester = PayloadDigester(writer.digest, chunked=parsed.chunked)
            digester.update(first[end:])
            for data in iter(lambda: ex.response.read(_READ), b""):
                digester.update(data)
            digest = digester.digest()
            for bucket, _mode in ex.meta.dedup_buckets:
                index = self._index(bucket)
                if index is not None:
                    original = index.lookup(ex.url, digest)
                    if original is not None:
                        break
        written: WrittenRecord
        if original is not None:
            written = writer.revisit(
                ex.url, profile="identical-payload-digest", refers_to=original.record_id,
                refers_to_target_uri=original.url, refers_to_date=original.date,
                payload_digest=str(digest), http_head=head, ip=ex.ip, date=ex.date)
        else:
            ex.response.seek(end)
            written = writer.response(ex.url, head, ex.response, body_length=body_length,
                                      ip=ex.ip, date=ex.date, truncated=ex.truncated)
        ex.request.seek(0)
        request_head = ex.request.read(MAX_HTTP_HEAD)
        request_end = find_head_end(request_head, True)
        ex.request.seek(request_end)
        last = writer.request(ex.url, request_head[:request_end], ex.request,
                              concurrent_to=written, ip=ex.ip, date=written.date)
        if ex.meta.metadata:
            fields = [(k, v if isinstance(v, str) else orjson.dumps(v).decode())
                      for k, v in ex.meta.metadata.items()]
            last = writer.metadata(ex.url, fields, refers_to=written, concurrent_to=written,
                                   date=written.date)
        self._ends[prefix] = last.offset + last.length
        captured = Captured(written.record_id, written.type, written.date, written.filename,
                            written.offset)
        if original is None and written.payload_digest and written.type == "response":
            for bucket, mode in ex.meta.dedup_buckets:
                index = self._index(bucket)
                if index is not None and mode == "rw":
                    index.add(url=ex.url, digest=written.payload_digest, date=written.date,
                              record_id=written.record_id, filename=written.filename,
                              offset=written.offset, length=written.length,
                              mime=parsed.content_type or None, status=parsed.status,
                              source="proxy")
                    self._pending += 1
        if self._pending >= COMMIT_EVERY:  # (this connection sees its rows before they are)
            self._commit()
        self.stats.count(ex.meta.stats_buckets, "revisit" if original is not None else "new",
                         ex.response_length)
        return captured

    def flush(self) -> None:
        """Commit new dedup entries and share the statistics (every
        :data:`~warckit.proxy.stats.FLUSH_SECONDS`, so other readers of the databases and
        other workers see them soon)."""
        if self._pending:
            self._commit()
        self.stats.flush(self.file_names())

    def _commit(self) -> None:
        for index in self._indexes.values():
            index.commit()
        self._pending = 0

    def close(self) -> None:
        """Close every writer (no ``.open`` file left) and dedup database."""
        for writer in self._writers.values():
            writer.close()
            self.files.extend(writer.files)
            self.issues.extend(writer.issues)
        self._writers.clear()
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()
        self._pending = 0
        self.stats.flush(self.file_names())
        self.stats.close()
