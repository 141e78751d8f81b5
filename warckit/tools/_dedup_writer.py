"""The guided-writer hook: write a revisit instead of a response when the payload is known.

:class:`DedupWriter` wraps a :class:`~warckit.write.guided.WarcWriter`, computes each
response's payload digest (the HTTP entity with chunking removed) and consults a
:class:`~warckit.tools.dedup.DedupIndex`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..record.digests import Digest
from ..record.http import parse_http_head
from ..record.payload import PayloadDigester
from ..write.writer import iter_source
from ._dedup_index import DedupIndex

__all__ = ["DedupStats", "DedupWriter"]


@dataclass
class DedupStats:
    """Counts kept by :class:`DedupWriter` and :func:`apply`."""

    responses: int = 0
    revisits: int = 0
    by_match: dict[str, int] = field(default_factory=dict)


class DedupWriter:
    """A guided writer that writes a revisit instead of a response when the payload is known.

    Wraps a :class:`~warckit.write.guided.WarcWriter`; every method other than
    :meth:`response` is the writer's own.

    Args:
        writer: The guided writer.
        index: The dedup index to consult.
        uri_agnostic: Also deduplicate against other URLs with the same payload.
        update: Add each response written to the index (later duplicates in the same
            crawl then refer to it).
        min_size: Payloads smaller than this are always written in full.

    Example:
        >>> import tempfile
        >>> from warckit.write.guided import WarcWriter
        >>> idx = DedupIndex()
        >>> with WarcWriter(tempfile.mkdtemp()) as w:
        ...     d = DedupWriter(w, idx)
        ...     a = d.response("http://e.org/", b"HTTP/1.1 200 OK\\r\\n\\r\\n", b"same")
        ...     b = d.response("http://e.org/", b"HTTP/1.1 200 OK\\r\\n\\r\\n", b"same")
        >>> a.type, b.type, d.stats.revisits
        ('response', 'revisit', 1)
    """

    def __init__(self, writer: Any, index: DedupIndex, *, uri_agnostic: bool = True,
                 update: bool = True, min_size: int = 0) -> None:
        self.writer = writer
        self.index = index
        self.uri_agnostic = uri_agnostic
        self.update = update
        self.min_size = min_size
        self.stats = DedupStats()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)

    def response(self, target_uri: str, http_head: bytes | Any, body: Any = b"", *,
                 payload_digest: Digest | str | None = None, **kwargs: Any) -> Any:
        """Write a revisit if the payload is in the index, else the response.

        Args:
            target_uri: The URI fetched.
            http_head: The response head as received.
            body: The body as received (bytes, a stream or an iterable of bytes). A
                stream is spooled to compute the digest first.
            payload_digest: The payload digest, if the caller knows it (skips hashing).
            **kwargs: Passed to :meth:`~warckit.write.guided.WarcWriter.response` (``ip``,
                ``date``, ``concurrent_to``…); ``ip``, ``date`` and ``concurrent_to``
                also go to the revisit.

        Returns:
            The :class:`~warckit.write.guided.WrittenRecord` of whichever record was written.
        """
        raw_head = http_head if isinstance(http_head, (bytes, bytearray)) else http_head.raw
        raw_head = bytes(raw_head)
        if not isinstance(body, (bytes, bytearray, memoryview)) and body is not None:
            spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 - closed below / handed on
            for chunk in iter_source(body):
                spool.write(chunk)
            size = spool.tell()
            spool.seek(0)
            body_bytes: Any = spool
        else:
            body_bytes = bytes(body or b"")
            size = len(body_bytes)
        digest = payload_digest
        if digest is None:
            d = PayloadDigester(self.writer.digest,
                                chunked=parse_http_head(raw_head, lenient=True).chunked)
            if isinstance(body_bytes, bytes):
                d.update(body_bytes)
            else:
                for data in iter(lambda: body_bytes.read(1 << 20), b""):
                    d.update(data)
                body_bytes.seek(0)
            digest = d.digest()
        date = kwargs.get("date")
        original = None
        if size >= self.min_size and size > 0:
            original = self.index.lookup(target_uri, digest, before=date,
                                         uri_agnostic=self.uri_agnostic)
        if original is not None:
            self.stats.revisits += 1
            self.stats.by_match[original.match] = self.stats.by_match.get(original.match, 0) + 1
            rkw = {k: v for k, v in kwargs.items() if k in ("ip", "date", "concurrent_to",
                                                             "extra_headers")}
            return self.writer.revisit(
                target_uri, profile="identical-payload-digest",
                refers_to=original.record_id, refers_to_target_uri=original.url,
                refers_to_date=original.date, payload_digest=str(digest),
                http_head=raw_head, **rkw)
        written = self.writer.response(target_uri, raw_head, body_bytes, **kwargs)
        self.stats.responses += 1
        if self.update and written.payload_digest:
            self.index.add(url=target_uri, digest=written.payload_digest, date=written.date,
                           record_id=written.record_id, filename=written.filename,
                           offset=written.offset, length=written.length, source="writer")
        return written
