"""The WARC record: its head, and a lazy, bounded view of its block.

A record owns its head (version, :class:`~warckit.record.headers.Headers`, the exact head
bytes) and a *body* (:mod:`warckit.record.bodies`) its maker handed it. A record
streamed by the reader reads its block from the reader's stream; once the reader has
moved on, touching an unread part of the block raises
:class:`~warckit.errors.StaleRecordError` unless the record was
:meth:`frozen <WarcRecord.freeze>` first.
"""

from __future__ import annotations

import io
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO, Any, ClassVar

from ..errors import HttpParseError, Issue, StaleRecordError
from .bodies import BlockStream, Body
from .fields import WarcFields
from .headers import Headers
from .http import MAX_HTTP_HEAD, HttpHead, find_head_end, parse_http_head

__all__ = ["WarcRecord", "is_http_block"]

_SPOOL_MEMORY = 1 << 20


_new = object.__new__


class WarcRecord(WarcFields):
    """A WARC record. Subclasses add accessors for their WARC-Type.

    Attributes:
        version: The version from the first line (``"1.0"``, ``"1.1"``, ``"0.17"``…).
        headers: The named fields.
        raw_head: The exact bytes of the head: version line, fields, empty line.
        offset: File offset of the record: where its gzip member / zstd frame starts,
            or its first byte in an uncompressed file. In a whole-file gzip (several
            records in one member) this is the start of the member that holds the
            record's first byte, and :attr:`member_aligned` is False.
        stream_offset: Offset of the record's first byte in the decompressed stream.
        source: Name of the file or stream the record came from.
        issues: Recoveries lenient mode made while reading this record.
    """

    type_name: ClassVar[str | None] = None
    format: ClassVar[str] = "warc"
    #: What :meth:`_from_reader` makes a record of this class as: this base class when
    #: the class has its layout (no slots or ``__dict__`` of its own), else the class.
    _made_as: ClassVar[type[WarcRecord]]

    __slots__ = (
        "__weakref__",
        "_body",
        "_content_length",
        "_http",
        "_http_done",
        "_length",
        "_lenient",
        "_pulled",
        "_retained",
        "_spool",
        "_spool_start",
        "_stream_length",
        "headers",
        "issues",
        "member_aligned",
        "offset",
        "raw_head",
        "source",
        "stream_offset",
        "trailer",
        "version",
    )

    def __init__(
        self,
        version: str,
        headers: Headers,
        raw_head: bytes = b"",
        *,
        offset: int = 0,
        stream_offset: int | None = None,
        source: str | None = None,
        content_length: int | None = None,
        block: bytes | None = None,
        body: Body | None = None,
        lenient: bool = False,
    ) -> None:
        self.version = version
        self.headers = headers
        self.raw_head = raw_head
        self.offset = offset
        self.stream_offset = offset if stream_offset is None else stream_offset
        self.source = source
        self.issues: list[Issue] = []
        self.member_aligned = True
        self._length: int | None = None
        self._stream_length: int | None = None
        if content_length is None:
            content_length = len(block) if block is not None else _content_length(headers)
        self._content_length = content_length
        self._body: Body | None = body
        self._retained = b""
        self._pulled = 0
        self._spool: IO[bytes] | None = None
        self._spool_start = 0
        self._http: HttpHead | None = None
        self._http_done = False
        self._lenient = lenient
        #: The bytes that ended the record in the file (``None``: the standard ones).
        self.trailer: bytes | None = None
        if block is not None:
            self._retained = block
            self._pulled = len(block)

    @classmethod
    def _from_reader(
        cls,
        version: str,
        headers: Headers,
        raw_head: bytes,
        offset: int,
        stream_offset: int,
        source: str | None,
        lenient: bool,
        member_aligned: bool = True,
        content_length: int = 0,
        body: Body | None = None,
    ) -> WarcRecord:
        """The reader's constructor: the same state as ``__init__``, without its options.

        The compiled reader core fills the same slots itself (``_record`` in
        ``_speedups/readercore.pyx``): a slot added here goes in its ``_RECORD_SLOTS``
        too, or that core falls back to this method (``test_records_are_made_alike``
        compares the two).
        """
        # Made a WarcRecord and given its type at the end: the attribute stores specialise
        # on the type they see (CPython 3.11+), so with one type here rather than one per
        # WARC-Type they take the fast path (0.30 against 0.56 µs per record).
        self = _new(cls._made_as)
        self.version = version
        self.headers = headers
        self.raw_head = raw_head
        self.offset = offset
        self.stream_offset = stream_offset
        self.source = source
        self.issues = []
        self.member_aligned = member_aligned
        self._length = self._stream_length = None
        self._content_length = content_length
        self._body = body
        self._retained = b""
        self._pulled = 0
        self._spool = None
        self._spool_start = 0
        self._http = None
        self._http_done = False
        self._lenient = lenient
        self.trailer = None
        if self.__class__ is not cls:
            self.__class__ = cls
        return self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        same = (cls.__basicsize__, cls.__dictoffset__, cls.__weakrefoffset__) == (
            WarcRecord.__basicsize__, WarcRecord.__dictoffset__, WarcRecord.__weakrefoffset__)
        cls._made_as = WarcRecord if same else cls

    # -- identity -----------------------------------------------------------------

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.type!r} {self.target_uri!r} "
            f"offset={self.offset} id={self.record_id!r}>"
        )

    @property
    def type(self) -> str:
        """WARC-Type, lowercased (Quirk: JWAT's ``RESPONSE`` is read as ``response``)."""
        name = self.type_name
        if name is not None:
            return name
        t = self.headers.first("WARC-Type")
        return t.strip().lower() if t else ""

    @property
    def content_length(self) -> int:
        """Content-Length: size of the block in bytes."""
        return self._content_length

    # -- position -------------------------------------------------------------------

    @property
    def length(self) -> int | None:
        """Bytes the record occupies in the file, trailer included (compressed size
        for compressed files). ``None`` when the record does not start and end on
        member boundaries (whole-file gzip).

        Asking before the reader has passed the end of the record makes the reader
        finish it now; the rest of the block is kept in a spooled temporary file so
        the body can still be read.
        """
        body = self._body
        if self._length is None and self._stream_length is None and body is not None:
            if not body.rereadable and body.live(self):
                self._spool_rest()
                body.finish(self)
        return self._length

    @property
    def stream_length(self) -> int | None:
        """Bytes the record occupies in the decompressed stream (head+block+trailer)."""
        if self._stream_length is None:
            self.length  # noqa: B018 - finishes the record
        return self._stream_length

    # -- body -------------------------------------------------------------------------

    def _read_block_at(self, pos: int, size: int) -> bytes:
        if size <= 0 or pos >= self._content_length:
            return b""
        size = min(size, self._content_length - pos)
        retained = self._retained
        if pos < len(retained):
            return retained[pos : pos + size]
        spool = self._spool
        if spool is not None and pos >= self._spool_start:
            spool.seek(pos - self._spool_start)
            return spool.read(size)
        body = self._body
        if body is not None:
            if pos == self._pulled:
                data = body.read(self, pos, size)
                if data is not None:
                    self._pulled += len(data)
                    return data
            elif body.rereadable:
                data = body.read(self, pos, size)
                if data is not None:
                    return data
        raise StaleRecordError(
            f"record at offset {self.offset} of {self.source}: that part of the block was "
            "already consumed or the reader has moved on; call record.freeze() before "
            "advancing, or read the body before the next record",
            source=self.source,
            offset=self.offset,
        )

    def _retain_until(self, size: int) -> None:
        """Pull block bytes into the retained prefix until it has *size* bytes (or the end)."""
        size = min(size, self._content_length)
        pos = len(self._retained)
        more: list[bytes] = []  # (joined once: a block kept in many pieces is not copied for each)
        try:
            while pos < size:
                spooled = self._spool is not None and pos >= self._spool_start
                rereadable = self._body is not None and self._body.rereadable
                if self._pulled != pos and not spooled and not rereadable:
                    raise StaleRecordError(
                        f"record at offset {self.offset} of {self.source}: the block was partly "
                        "consumed already",
                        source=self.source,
                        offset=self.offset,
                    )
                data = self._read_block_at(pos, max(size - pos, 8192))
                if not data:
                    break
                if self._retained or more:
                    more.append(data)
                else:
                    self._retained = data  # (the common case: one piece, kept as it is)
                pos += len(data)
        finally:
            if more:
                self._retained = b"".join([self._retained, *more])

    def peek_block(self, size: int) -> bytes:
        """Return the first *size* bytes of the block (more if already kept), keeping them.

        The bytes stay available to :attr:`http` and the streams, so peeking does not
        consume the body (the block must not have been consumed past them yet).
        """
        body = self._body
        if not self._pulled and body is not None:
            if size >= self._content_length:
                # The common case: the whole block, all in the reader's buffer, in one piece.
                block = body.take_whole(self)
                if block is not None:
                    self._retained = block
                    self._pulled = len(block)
                    return block
            elif not self._retained:
                # The other common case, an HTTP head: one read from the block's start
                # (what _retain_until would read first, without its bookkeeping).
                data = body.read(self, 0, min(max(size, 8192), self._content_length))
                if data is not None:
                    self._retained = data
                    self._pulled = len(data)
                    if len(data) >= size:
                        return data
        self._retain_until(size)
        return self._retained

    def _spool_rest(self) -> None:
        """Copy the unread rest of the block into a temporary spool, detaching it from the reader."""
        if self._spool is not None or self._pulled >= self._content_length:
            return
        body = self._body
        if body is None or body.rereadable or not body.live(self):
            return
        import tempfile  # only needed when a body is spooled

        spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_MEMORY)
        start = self._pulled
        while True:
            data = body.read(self, self._pulled, 1 << 20)
            if not data:
                break
            spool.write(data)
            self._pulled += len(data)
        self._spool = spool
        self._spool_start = start

    def freeze(self) -> WarcRecord:
        """Detach the block from the reader (spooling it), so it stays readable later.

        Returns:
            The record itself.

        Raises:
            StaleRecordError: part of the block was consumed already without being kept.
        """
        if self._pulled > len(self._retained) and self._spool is None:
            raise StaleRecordError(
                f"record at offset {self.offset} of {self.source}: cannot freeze, the block "
                "was partly consumed",
                source=self.source,
                offset=self.offset,
            )
        self._spool_rest()
        if self._body is not None:
            self._body.finish(self)
        return self

    def close(self) -> None:
        """Release what the record holds: its spooled block and, for a record from
        :func:`~warckit.read_record_at`, the file (idempotent). The unread part of the
        block is no longer readable afterwards."""
        spool, self._spool = self._spool, None
        if spool is not None:
            spool.close()
        if self._body is not None:
            self._body.close()

    def __enter__(self) -> WarcRecord:  # noqa: PYI034 - subclasses keep the base type
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def raw_stream(self) -> BlockStream:
        """A stream over the whole block as stored (for a response: HTTP head and body)."""
        return BlockStream(self, 0)

    def read_block(self) -> bytes:
        """Read the whole block into memory (explicit; prefer :meth:`raw_stream`)."""
        return self.raw_stream().read()

    @property
    def has_http(self) -> bool:
        """True when the block is (or should be) an HTTP message."""
        return is_http_block(self.content_type, self.type, self.target_uri, self._content_length)

    @property
    def http(self) -> HttpHead | None:
        """The parsed HTTP head of an ``application/http`` block, or ``None``.

        Parsed on first access (the block must not have been consumed yet).

        Raises:
            HttpParseError: strict reading and the head is malformed.
        """
        return self._http_head()

    def _http_head(self) -> HttpHead | None:
        if self._http_done:
            return self._http
        self._http_done = True
        if not self.has_http:
            return None
        if self.format == "arc":
            self._retain_until(5)
            if not self._retained.startswith(b"HTTP/"):
                return None  # ARC http record whose block is not an HTTP message
        limit = min(self._content_length, MAX_HTTP_HEAD)
        have = 0
        end = -1
        while True:
            self._retain_until(have + 16384)
            buf = self._retained
            end = find_head_end(buf[:limit], self._lenient)
            if end >= 0 or len(buf) >= limit or len(buf) == have:
                break
            have = len(buf)
        buf = self._retained
        if end < 0 and len(buf) == self._content_length and buf.endswith(b"\n"):
            # Quirk: request blocks without a body often omit the final empty line.
            end = len(buf)
        if end < 0:
            if self.type == "revisit" or self._lenient:
                # A revisit may keep only part of a head, or the block is not HTTP.
                if buf.startswith(b"HTTP/") and self._lenient:
                    end = len(buf[:limit])
                    self._report("bad-http-head", "the HTTP head does not end within the block; "
                                 "the block is taken as the head")
                else:
                    if self.type != "revisit":
                        self._report("bad-http-head", "the HTTP head does not end within the block")
                    return None
            else:
                raise HttpParseError(
                    "HTTP head does not end within the block",
                    offset=self.offset,
                    source=self.source,
                    snippet=buf[:40],
                )
        try:
            self._http = parse_http_head(buf[:end])
        except HttpParseError as exc:
            if not self._lenient:
                exc.source, exc.offset = self.source, self.offset  # the record, not the head
                raise exc from None
            try:
                self._http = parse_http_head(buf[:end], lenient=True)
            except HttpParseError as exc2:
                self._report("bad-http-head", f"the HTTP head does not parse: {exc2.message}")
                return None
            self._report("bad-http-head", f"the HTTP head is malformed ({exc.message}); read leniently")
        return self._http

    @property
    def http_status(self) -> int | None:
        """HTTP status code of a response, else ``None``."""
        h = self._http_head()
        return h.status if h is not None else None

    def payload_offset(self) -> int:
        """Index in the block where the payload starts (after the HTTP head, if any)."""
        h = self._http_head()
        return len(h.raw) if h is not None else 0

    def payload_stream(self) -> BlockStream:
        """The payload as stored: the block after the HTTP head (still chunked, if it was)."""
        return BlockStream(self, self.payload_offset())

    def content_stream(
        self, *, decode_content: bool = False, max_decoded: int | None = None
    ) -> io.RawIOBase:
        """The payload with chunked transfer-encoding removed.

        Decoding streams in bounded memory whatever the compression ratio.

        A body declared chunked whose first line is not a chunk size is served as
        stored and reported as ``not-chunked`` (both modes); damage after a valid
        first chunk raises in strict mode and is reported as ``bad-chunked`` in
        lenient mode (see :ref:`chunked bodies that are not chunked <not-chunked>`).
        Reports go to ``record.issues`` and the reader's ``on_warning``.

        Args:
            decode_content: Also remove Content-Encoding (gzip, deflate, br, zstd).
            max_decoded: With *decode_content*, raise
                :class:`~warckit.errors.DecompressionBombError` once a decoded layer
                grows past this many bytes (default: no limit).

        Raises:
            ChunkedEncodingError: strict reading and the chunked coding breaks after its
                first chunk, or the content coding cannot be decoded; like every
                error raised while a body streams, it names the record's source and offset.
            DecompressionBombError: a decoded layer grew past *max_decoded*.
        """
        from ..io.chunked import ChunkedReader, DecodingReader

        stream: Any = self.payload_stream()
        h = self._http_head()
        if h is None:
            return stream  # type: ignore[no-any-return]
        if h.chunked:
            stream = ChunkedReader(
                stream, lenient=self._lenient, on_issue=self._report, source=self.source,
                offset=self.offset,
            )
        if decode_content:
            for coding in reversed(h.content_encodings()):
                stream = DecodingReader(
                    stream, coding, max_decoded=max_decoded, source=self.source, offset=self.offset
                )
        return stream  # type: ignore[no-any-return]

    def _report(self, code: str, message: str) -> None:
        """Report a recovery on this record: to ``issues`` and through its reader's
        ``on_warning`` (once, however often the body is read)."""
        for known in self.issues:
            if known.code == code and known.message == message:
                return
        if self._body is not None:
            self._body.report(self, code, message)
        else:
            self.issues.append(Issue(code, message, "warning", self.offset, self.source))

    def write_to(self, out: IO[bytes]) -> int:
        """Write the record as stored (head, block, CRLFCRLF) to *out*; return bytes written.

        A record read from a file and written back this way is byte-identical.
        """
        n = out.write(self.raw_head or self._build_head())
        stream = self.raw_stream()
        while True:
            chunk = stream.read(1 << 20)
            if not chunk:
                break
            n += out.write(chunk)
        if self._body is not None:
            self._body.finish(self)  # learn the trailer the file actually has
        n += out.write(self._trailer())
        return n

    def _trailer(self) -> bytes:
        return b"\r\n\r\n" if self.trailer is None else self.trailer

    def _build_head(self) -> bytes:
        return (
            b"WARC/" + self.version.encode("ascii") + b"\r\n" + self.headers.to_bytes() + b"\r\n"
        )


def _content_length(headers: Headers) -> int:
    value = headers.first("Content-Length")
    if value is None:
        return 0
    value = value.strip(" \t")
    return int(value) if value.isdigit() and value.isascii() else 0


def is_http_block(content_type: str | None, rtype: str, target_uri: str | None, content_length: int) -> bool:
    """Whether a record's block is (or should be) an HTTP message (:attr:`WarcRecord.has_http`),
    from its fields: an ``application/http`` Content-Type, or a response, request or
    revisit of an ``http(s):`` target with a non-empty block."""
    if content_type is not None and content_type.lower().startswith("application/http"):
        return True
    if rtype in ("response", "request", "revisit"):
        return (target_uri or "").lower().startswith(("http:", "https:")) and content_length > 0
    return False


WarcRecord._made_as = WarcRecord  # (its subclasses get theirs from __init_subclass__)
