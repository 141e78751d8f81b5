"""Guided WARC writing: one method per record type, mandatory fields filled, rules enforced.

:class:`WarcWriter` takes the caller's intent (a target URI, an HTTP head and a body,
a content type, links to other records), fills every field the standard asks for,
validates the head against :mod:`warckit.record.rules` and writes the record through a
:class:`~warckit.write.rolling.RollingFile`. Each method returns a :class:`WrittenRecord`:
the record's identity and its place on disk (valid CDX offset and length), which can
be passed on as ``concurrent_to=`` / ``refers_to=``.

Example:
    >>> import tempfile, warckit
    >>> from warckit.write.guided import WarcWriter
    >>> out = tempfile.mkdtemp()
    >>> with WarcWriter(out, prefix="demo", warcinfo={"operator": "Ada"}) as w:
    ...     req = w.request("https://example.com/", b"GET / HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n")
    ...     res = w.response("https://example.com/", b"HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\n\\r\\n",
    ...                      b"<p>hi</p>", concurrent_to=req, ip="93.184.215.14")
    >>> [r.type for r in warckit.open(w.files[0])]
    ['warcinfo', 'request', 'response']
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import Issue, UsageError
from ..record.digests import Digest
from ..record.headers import Headers
from . import args as _args
from . import build as _build
from .core import Body, WriterCore, WriterOptions, known_length
from .hybrid import COMPRESSED_TYPES, HybridPolicy
from .pipeline import MAX_PENDING, MAX_PENDING_BYTES
from .rolling import DEFAULT_MAX_BYTES, DEFAULT_TEMPLATE
from .writer import prepare_given
from .written import RecordRef, WrittenRecord, ref_id, refs

if TYPE_CHECKING:
    from ..record.records import WarcRecord

__all__ = [
    "COMPRESSED_TYPES", "MAX_PENDING", "MAX_PENDING_BYTES", "Body", "GuidedWriter", "HybridPolicy",
    "RecordRef", "WarcWriter", "WriterOptions", "WrittenRecord",
]

class WarcWriter(WriterCore):
    """Write valid WARC files: warcinfo first, mandatory fields filled, rules enforced.

    Safe to share between threads (a crawler's workers): each record's body is read
    and hashed in the calling thread, then the record is placed under the writer's
    lock, so records go into the files whole, one after the other (a thread's records
    in its call order), and every :class:`WrittenRecord` location is exact. Not
    fork-safe while records are in flight: :meth:`flush` before forking.

    Args:
        directory: Output directory (created, with its parents, if missing).
        prefix: File-name prefix (``{prefix}`` in the template).
        version: ``"1.1"`` (default; microsecond WARC-Date) or ``"1.0"`` (seconds).
        compression: ``"gzip"`` (default), ``"zstd"`` or ``"none"``.
        level: Compression level: gzip per backend (libdeflate 0-12, default 5; isal
            0-3; zlib-ng / zlib 0-9), zstd 1-22.
        zstd_dictionary: Raw zstd dictionary; written as the IIPC dictionary frame at
            the start of each ``.warc.zst`` file and used for every frame.
        max_bytes: Roll to a new file before this many bytes (on disk) would be
            exceeded. ``None``: no limit.
        max_records: Roll after this many records (warcinfo not counted).
        template: File-name template (see :mod:`warckit.write.rolling`).
        fsync: ``fsync`` each file before dropping its ``.open`` suffix.
        warcinfo: Extra ``application/warc-fields`` for every file's warcinfo record
            (``operator``, ``description``, ``isPartOf``, ``robots``, …). ``software``,
            ``format``, ``conformsTo`` and ``hostname`` are filled unless given.
        digest: ``"sha1"`` (default) or ``"sha256"`` (any hashlib name).
        digest_encoding: ``"base32"`` (sha1 default) or ``"base16"``.
        payload_digest: ``"warc1.1"`` (default: the HTTP entity after removing the
            chunked transfer-coding) or ``"legacy"`` (the body as stored).
        segment_size: Blocks larger than this are written as a first segment plus
            ``continuation`` records (WARC 1.1 §7). ``None``: never segment.
        hybrid: A :class:`HybridPolicy` routing already-compressed payloads to a
            separate uncompressed ``.warc`` series (each series rolls on its own and
            has its own warcinfo). Only with ``compression`` other than ``"none"``.
        host: ``{host}`` in file names and the warcinfo ``hostname``.
        port: ``{port}`` in file names.
        gzip_backend: ``"libdeflate"`` (default when the ``deflate`` package is
            installed), ``"isal"``, ``"zlib-ng"`` or ``"zlib"``
            (:data:`warckit.write.writer.GZIP_BACKENDS`). All write standard gzip members.
        threads: Compress on a worker thread (default: when the machine has more
            than one CPU). With the libdeflate backend every record's head and block
            go to a native worker thread and the method returns at once: the record
            reaches the file, in call order, when its compression is done (checked at
            each call; at most :data:`MAX_PENDING` records or
            :data:`MAX_PENDING_BYTES` in flight), on :meth:`flush` / :meth:`close`,
            or when its :class:`WrittenRecord` location is read. An error writing a
            record in flight surfaces from a later call. Other backends compress
            blocks of 256 KiB and more on a thread while hashing. The output is the
            same either way.
        options: A :class:`~warckit.write.core.WriterOptions` holding all of the above
            (then the other keyword arguments are ignored).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        prefix: str = "WARC",
        version: str = "1.1",
        compression: str = "gzip",
        level: int | None = None,
        zstd_dictionary: bytes | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_records: int | None = None,
        template: str = DEFAULT_TEMPLATE,
        fsync: bool = True,
        warcinfo: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        digest: str = "sha1",
        digest_encoding: str | None = None,
        payload_digest: str = "warc1.1",
        segment_size: int | None = None,
        hybrid: HybridPolicy | None = None,
        host: str | None = None,
        port: int | str = 0,
        gzip_backend: str | None = None,
        threads: bool | None = None,
        options: WriterOptions | None = None,
    ) -> None:
        if options is None:
            options = WriterOptions(
                prefix=prefix, version=version, compression=compression, level=level,
                zstd_dictionary=zstd_dictionary, max_bytes=max_bytes, max_records=max_records,
                template=template, fsync=fsync, warcinfo=warcinfo, digest=digest,
                digest_encoding=digest_encoding, payload_digest=payload_digest,
                segment_size=segment_size, hybrid=hybrid, host=host, port=port,
                gzip_backend=gzip_backend, threads=threads)
        super().__init__(directory, options)

    @property
    def files(self) -> list[str]:
        """Paths of the files finished so far (all of them after :meth:`close`)."""
        with self._lock:
            self._settle()
            out: list[str] = []
            for s in self._series.values():
                out += s.rolling.closed_files
            return out

    @property
    def open_files(self) -> list[str]:
        """Paths (with ``.open``) of the files being written now."""
        with self._lock:
            self._settle()
            return [s.rolling.path + ".open" for s in self._series.values() if s.rolling.path]

    @property
    def issues(self) -> list[Issue]:
        """Records that failed to be written (e.g. disk full), oldest first: what was
        cut off again, and files left with their ``.open`` name (see
        :attr:`abandoned_files`)."""
        with self._lock:
            return [i for s in self._series.values() for i in s.rolling.issues]

    @property
    def abandoned_files(self) -> list[str]:
        """Files left with their ``.open`` name: their last record is torn and could
        not be cut off. Empty unless writing failed and the file could not be cut."""
        with self._lock:
            return [p for s in self._series.values() for p in s.rolling.abandoned_files]

    new_record_id = staticmethod(_build.new_record_id)

    def format_date(self, when: datetime | str | None = None) -> str:
        """A WARC-Date for *when* (default now) at this writer's version's precision."""
        return _build.format_date(when, self.version)

    def _warcinfo_block(self, items: Iterable[tuple[str, str]]) -> bytes:
        return _build.warc_fields_block(items)


    def warcinfo(
        self,
        fields: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        block: bytes | None = None,
        content_type: str = "application/warc-fields",
    ) -> WrittenRecord:
        """Write an additional warcinfo record into the current main file.

        Every file already starts with a warcinfo generated from the writer's
        configuration; use this for extra descriptions (e.g. a crawl-job change).

        Args:
            fields: ``application/warc-fields`` content.
            block: Or the raw block (with another *content_type*).
            content_type: Content-Type of the block.

        Raises:
            UsageError: an argument has the wrong type (named in the message).
        """
        items = _args.check_fields("warcinfo", "fields", fields)
        if block is not None and not isinstance(block, (bytes, bytearray, memoryview)):
            raise UsageError(f"warcinfo(): block must be bytes, not {type(block).__name__}")
        _args.check_str("warcinfo", "content_type", content_type)
        if block is None:
            block = self._warcinfo_block(items or [])
        with self._lock:
            return self._warcinfo_locked(block, content_type)

    # -- per-type methods ---------------------------------------------------------------

    def request(
        self,
        target_uri: str,
        http_head: bytes | Any,
        body: Body = b"",
        *,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``request`` record: the HTTP request head plus its body.

        Args:
            target_uri: The requested URI.
            http_head: The request head as sent, ending with the empty line.
            body: Request body (bytes, stream or iterable of bytes).
            body_length: Length of a streamed body if known (only used for routing).
            concurrent_to: Records of the same capture event (usually the response).
            ip: WARC-IP-Address of the server.
            date: Capture time (default: now; or the linked record's date).
            extra_headers: Additional WARC fields, written as given.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra = _args.check_common("request", target_uri, date=date, ip=ip, concurrent_to=concurrent_to,
                         extra_headers=extra_headers)
        _args.check_http_head("request", http_head)
        body = _args.check_body("request", body)
        _args.check_int("request", "body_length", body_length)
        return self._http_record("request", target_uri, http_head, body, body_length,
                                 concurrent_to, ip, date, extra, None, None)

    def response(
        self,
        target_uri: str,
        http_head: bytes | Any,
        body: Body = b"",
        *,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        truncated: str | None = None,
        identified_payload_type: str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``response`` record: the HTTP response head plus the body as received.

        The payload digest covers the entity: with ``Transfer-Encoding: chunked`` the
        chunk framing is removed first (WARC 1.1), unless the writer was created with
        ``payload_digest="legacy"``.

        Args:
            target_uri: The URI fetched.
            http_head: The response head as received, ending with the empty line.
            body: The body as received (still chunked / content-encoded).
            body_length: Length of a streamed body if known (used for routing).
            concurrent_to: The request record (and others of the capture event).
            ip: WARC-IP-Address of the server.
            date: Capture time (default: now; or the linked record's date).
            truncated: WARC-Truncated reason when the body is incomplete.
            identified_payload_type: WARC-Identified-Payload-Type from sniffing.
            extra_headers: Additional WARC fields, written as given.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra = _args.check_common("response", target_uri, date=date, ip=ip, concurrent_to=concurrent_to,
                         extra_headers=extra_headers)
        _args.check_http_head("response", http_head)
        body = _args.check_body("response", body)
        _args.check_int("response", "body_length", body_length)
        _args.check_str("response", "truncated", truncated, optional=True)
        _args.check_str("response", "identified_payload_type", identified_payload_type,
                        optional=True)
        return self._http_record("response", target_uri, http_head, body, body_length,
                                 concurrent_to, ip, date, extra, truncated,
                                 identified_payload_type)

    def resource(
        self,
        target_uri: str,
        body: Body,
        *,
        content_type: str,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        truncated: str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``resource`` record: content without protocol framing (a file, a DNS answer).

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _args.check_common("resource", target_uri, date=date, ip=ip,
                                 concurrent_to=concurrent_to, extra_headers=extra_headers)
        body = _args.check_body("resource", body)
        _args.check_str("resource", "content_type", content_type)
        _args.check_int("resource", "body_length", body_length)
        _args.check_str("resource", "truncated", truncated, optional=True)
        fields = self._common(concurrent_to, ip)
        if truncated is not None:
            fields.append(("WARC-Truncated", truncated))
        size = known_length(body) if body_length is None else body_length
        return self._emit("resource", target_uri=target_uri, fields=fields, body=body,
                          payload="block", content_type=content_type,
                          date=self._linked_date(date, concurrent_to), extra=extra_headers,
                          series_name=self._route(content_type, size, None))

    def metadata(
        self,
        target_uri: str | None = None,
        fields: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        body: Body = None,
        content_type: str = "application/warc-fields",
        refers_to: RecordRef | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``metadata`` record (``via``, ``hopsFromSeed``, ``outlink``… as warc-fields).

        Args:
            target_uri: The URI the metadata describes.
            fields: ``application/warc-fields`` content (repeated names allowed as pairs).
            body: Or a raw block in another *content_type*.
            content_type: Content-Type of the block.
            refers_to: The record described.
            concurrent_to: Records of the same capture event.
            date: Default now (or the linked record's date).
            extra_headers: Additional WARC fields.

        Raises:
            UsageError: an argument has the wrong type (named in the message), or both
                *fields* and *body* were given.
        """
        extra_headers = _args.check_common("metadata", target_uri, date=date, concurrent_to=concurrent_to,
                                 extra_headers=extra_headers, uri_optional=True)
        items = _args.check_fields("metadata", "fields", fields)
        body = _args.check_body("metadata", body)
        _args.check_str("metadata", "content_type", content_type)
        _args.check_refs("metadata", "refers_to", refers_to, many=False)
        if items is not None and body is not None:
            raise UsageError("metadata(): give fields or body, not both")
        if body is None:
            body = self._warcinfo_block(items or [])
        wfields = self._common(concurrent_to, None)
        if refers_to is not None:
            wfields.append(("WARC-Refers-To", ref_id(refers_to)))
        return self._emit("metadata", target_uri=target_uri, fields=wfields, body=body,
                          payload=None, content_type=content_type,
                          date=self._linked_date(date, concurrent_to or refers_to),
                          extra=extra_headers)

    def conversion(
        self,
        target_uri: str,
        body: Body,
        *,
        content_type: str,
        refers_to: RecordRef | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``conversion`` record: an alternative version of *refers_to*'s content.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _args.check_common("conversion", target_uri, date=date, extra_headers=extra_headers)
        body = _args.check_body("conversion", body)
        _args.check_str("conversion", "content_type", content_type)
        _args.check_refs("conversion", "refers_to", refers_to, many=False)
        fields = [("WARC-Refers-To", ref_id(refers_to))] if refers_to is not None else []
        return self._emit("conversion", target_uri=target_uri, fields=fields, body=body,
                          payload="block", content_type=content_type, date=date,
                          extra=extra_headers)

    def revisit(
        self,
        target_uri: str,
        *,
        profile: str = "identical-payload-digest",
        refers_to: RecordRef | None = None,
        refers_to_target_uri: str | None = None,
        refers_to_date: datetime | str | None = None,
        payload_digest: str | Digest | None = None,
        http_head: bytes | Any | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``revisit`` record: a capture whose payload is not stored again.

        Args:
            target_uri: The URI captured now.
            profile: ``"identical-payload-digest"`` or ``"server-not-modified"``; the
                WARC 1.1 or 1.0 profile URI is written accordingly.
            refers_to: The original record (a :class:`WrittenRecord`, a record read by
                warckit, or its ID). Fills WARC-Refers-To and, unless given,
                the target URI, date and payload digest of the original.
            refers_to_target_uri: The original's target URI (URI-agnostic revisits:
                may differ from *target_uri*).
            refers_to_date: The original's WARC-Date.
            payload_digest: The original payload's digest (mandatory for
                identical-payload-digest, taken from *refers_to* when it has one).
            http_head: The revisited response's HTTP head; kept as the block with
                ``WARC-Truncated: length``.
            concurrent_to: Records of the same capture event.
            ip: WARC-IP-Address.
            date: Capture time.
            extra_headers: Additional WARC fields (e.g. ``WARC-Etag``).

        Raises:
            ValidationError: e.g. no payload digest for an identical-payload-digest revisit.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _args.check_common("revisit", target_uri, date=date, ip=ip,
                                 concurrent_to=concurrent_to, extra_headers=extra_headers)
        _args.check_str("revisit", "profile", profile)
        _args.check_refs("revisit", "refers_to", refers_to, many=False)
        _args.check_str("revisit", "refers_to_target_uri", refers_to_target_uri, optional=True)
        _args.check_date("revisit", refers_to_date, "refers_to_date")
        _args.check_digest("revisit", "payload_digest", payload_digest)
        if http_head is not None:
            _args.check_http_head("revisit", http_head)
        profile_uri = _build.revisit_profile_uri(profile, self.version)
        if refers_to is not None:
            if refers_to_target_uri is None:
                refers_to_target_uri = getattr(refers_to, "target_uri", None)
            if refers_to_date is None:
                refers_to_date = getattr(refers_to, "date_string", None) or (
                    refers_to.date if isinstance(refers_to, WrittenRecord) else None)
            if payload_digest is None:
                pd = getattr(refers_to, "payload_digest", None)
                payload_digest = str(pd) if pd is not None else None
        raw = b""
        if http_head is not None:
            raw, _ = _build.checked_http_head(http_head, "response")
        fields = _build.revisit_fields(
            target_uri, version=self.version, profile_uri=profile_uri,
            refers_to=ref_id(refers_to) if refers_to is not None else None,
            refers_to_target_uri=refers_to_target_uri, refers_to_date=refers_to_date, ip=ip,
            concurrent_to=refs(concurrent_to), truncated=bool(raw))
        return self._emit(
            "revisit", target_uri=target_uri, fields=fields, prefix=raw, body=None, payload=None,
            content_type="application/http;msgtype=response" if raw else None, date=date,
            extra=extra_headers,
            payload_digest=str(payload_digest) if payload_digest is not None else None)

    # -- as-is path ---------------------------------------------------------------------

    def write_record(
        self,
        record: WarcRecord | None = None,
        *,
        headers: Headers | None = None,
        block: Body = b"",
        version: str | None = None,
        validate: bool = True,
    ) -> WrittenRecord:
        """Write a record exactly as given (copying, repair), into the current main file.

        A record read by warckit is written byte-identically (its original head bytes
        and block). Alternatively give *headers* and *block*. The record keeps its own
        fields (including any WARC-Warcinfo-ID); nothing is filled in.

        Args:
            record: A record read by warckit.
            headers: Or the named fields to write...
            block: ...and the block.
            version: Version line for *headers* (default: the writer's).
            validate: Check the rule table and Content-Length first. ``False`` writes
                anything (explicit opt-out for repair work).

        Raises:
            ValidationError: the record breaks a rule; nothing was written.
        """
        series = self._series["main"]
        raw_head: bytes | None = None
        if record is not None:
            headers = record.headers
            version = record.version
            raw_head = record.raw_head or None
            block = record.raw_stream()
        if headers is None:
            raise UsageError("give a record, or headers and a block")
        version = version or self.version
        head, sink = prepare_given(series.encoder, headers, block, version, validate, raw_head)
        try:
            with self._lock:
                if self._closed:
                    raise UsageError("the writer is closed")
                self._settle()
                filename, offset, size = self._place(
                    series, lambda _wid: series.encoder.encode(head, sink))
        finally:
            sink.close()
        pd = headers.first("WARC-Payload-Digest")
        return WrittenRecord(headers.first("WARC-Record-ID") or "", headers.first("WARC-Type") or "",
                             headers.first("WARC-Target-URI"), headers.first("WARC-Date") or "",
                             filename, os.path.join(self.directory, filename), offset, size,
                             headers.first("WARC-Block-Digest"), pd)

    # -- lifecycle ----------------------------------------------------------------------

    def flush(self) -> None:
        """Write the records in flight: every record returned so far is then in its
        file (files are unbuffered)."""
        with self._lock:
            self._settle()
            for s in self._series.values():
                s.rolling.flush()

    def roll(self) -> None:
        """Close the current files now; the next record starts new ones."""
        with self._lock:
            self._settle()
            for s in self._series.values():
                s.rolling.close()

    def close(self) -> None:
        """Finish every file (fsync unless disabled, drop ``.open``).

        Records still in flight are written first. If one of them fails, the records
        behind it are not written (their :class:`WrittenRecord` location raises the
        error), the files are still finished, and the error is raised. A file gets
        its final name only if it ends at a complete record (see :attr:`issues`).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._settle()
            except BaseException as exc:
                self._pending.abandon(exc)
                raise
            finally:
                for s in self._series.values():
                    try:
                        s.rolling.close()
                    finally:
                        s.encoder.close()

    def __del__(self) -> None:
        # A writer dropped without close(): its records in flight still reach the
        # (.open) file, as they would have without the worker thread. Best effort.
        if getattr(self, "_pending", None) and not getattr(self, "_closed", True):
            try:
                self._settle()
            except Exception:  # noqa: BLE001, S110 - nobody to report to in a finalizer
                pass

    def __enter__(self) -> WarcWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Alias: the guided writer.
GuidedWriter = WarcWriter
