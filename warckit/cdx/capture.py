"""Record → :class:`Capture`: the fields an index line is made of, read through the record API.

Every rule about a record (its target URI without ``<>``, whether its block is HTTP, the
revisit profile) is the record layer's: this module only picks the fields.

One job: extraction. Which records are indexed is :mod:`warckit.cdx.indexer`'s rule, the
POST/PUT pairing is :mod:`warckit.cdx.pairing`'s, and the line layouts are
:mod:`warckit.cdx.lines`'.
"""

from __future__ import annotations

from .._speedups.headers import impl as _hp
from .._util.frozen import Value
from ..record.base import is_http_block
from ..record.fields import escape_not_utf8, holds_not_utf8, not_utf8_names, strip_brackets
from ..record.records import WarcRecord

__all__ = [
    "TEXT_FIELDS", "Capture", "escape_not_utf8", "extract", "finish", "http_fast", "not_utf8_fields",
    "repair_not_utf8", "repair_text",
]

#: Record types whose block is an HTTP message when it is one at all.
_HTTP_TYPES = ("response", "revisit", "request")


class Capture(Value):
    """Everything the index formats need to know about one record.

    Attributes:
        url: WARC-Target-URI (ARC: the URL of the header line), ``""`` if none.
        type: WARC record type (ARC records: the WARC equivalent).
        is_arc: Whether the record comes from an ARC file.
        date: WARC-Date as written (ARC: converted to W3C form), ``""`` if none.
        filename: The file name written into the index.
        offset: Offset of the record in the file.
        length: Bytes the record occupies in the file (``None`` if not member-aligned).
        record_id: WARC-Record-ID without angle brackets.
        payload_digest: WARC-Payload-Digest as written.
        block_digest: WARC-Block-Digest as written.
        computed_digest: ``sha1:…`` of the payload, computed for pywb formats when the
            record has no payload digest (as cdxj-indexer does).
        status: HTTP status code text.
        http_content_type: Content-Type of the HTTP head.
        content_type: Content-Type of the record.
        payload_length: Bytes of payload (block minus HTTP head).
        profile: Revisit profile name.
        refers_to: WARC-Refers-To without brackets.
        refers_to_uri: WARC-Refers-To-Target-URI.
        refers_to_date: WARC-Refers-To-Date.
        concurrent_to: WARC-Concurrent-To values without brackets.
        method: HTTP method of a POST/PUT capture (or of a request record).
        request_body: The request body as a query (POST/PUT captures).
        key_suffix: Text appended to the URL before the key is made (``?__wb_method=POST…``).
        truncated: WARC-Truncated.
        has_http: Whether the block is (or starts with) a parsed HTTP head.
        stored_length: The length pywb formats record: as :attr:`length` for compressed
            files; for uncompressed files warcio's convention, head plus block without the
            record trailer.
    """

    __slots__ = (  # noqa: RUF023 (the field order)
        "url", "type", "is_arc", "date", "filename", "offset", "length", "record_id",
        "payload_digest", "block_digest", "computed_digest", "status", "http_content_type",
        "content_type", "payload_length", "profile", "refers_to", "refers_to_uri", "refers_to_date",
        "concurrent_to", "method", "request_body", "key_suffix", "truncated", "stored_length",
        "has_http",
    )

    def __init__(
        self,
        url: str,
        type: str,
        is_arc: bool,
        date: str,
        filename: str,
        offset: int,
        length: int | None = None,
        record_id: str | None = None,
        payload_digest: str | None = None,
        block_digest: str | None = None,
        computed_digest: str | None = None,
        status: str | None = None,
        http_content_type: str | None = None,
        content_type: str | None = None,
        payload_length: int | None = None,
        profile: str | None = None,
        refers_to: str | None = None,
        refers_to_uri: str | None = None,
        refers_to_date: str | None = None,
        concurrent_to: tuple[str, ...] = (),
        method: str | None = None,
        request_body: str | None = None,
        key_suffix: str = "",
        truncated: str | None = None,
        stored_length: int | None = None,
        has_http: bool = False,
    ) -> None:
        self.url = url
        self.type = type
        self.is_arc = is_arc
        self.date = date
        self.filename = filename
        self.offset = offset
        self.length = length
        self.record_id = record_id
        self.payload_digest = payload_digest
        self.block_digest = block_digest
        self.computed_digest = computed_digest
        self.status = status
        self.http_content_type = http_content_type
        self.content_type = content_type
        self.payload_length = payload_length
        self.profile = profile
        self.refers_to = refers_to
        self.refers_to_uri = refers_to_uri
        self.refers_to_date = refers_to_date
        self.concurrent_to = concurrent_to
        self.method = method
        self.request_body = request_body
        self.key_suffix = key_suffix
        self.truncated = truncated
        self.stored_length = stored_length
        self.has_http = has_http


def _bare(uri: str | None) -> str | None:
    """A record ID (WARC-Record-ID, -Refers-To, -Concurrent-To: ``<uri>``) as the bare URI
    the index writes; the record API gives them as written."""
    if uri and uri[0] == "<" and uri[-1] == ">":
        return uri[1:-1]
    return uri


def extract(record: WarcRecord, filename: str, compute_digest: bool) -> Capture:
    """The capture of *record*, read while it is the reader's current record.

    Its lengths are filled in by :func:`finish` once the reader has moved past it.
    """
    rtype = record.type
    if record.format == "arc":
        cap = Capture(record.target_uri or "", rtype, True, record.date_string or "", filename, record.offset)
        cap.content_type = record.content_type
        _http_fields_parsed(cap, record)
    else:
        # The head's one-pass name -> first value map (what the record properties read
        # too), a dictionary access per field: this runs for every record indexed.
        values, concurrent = record.headers.first_values()
        get = values.get
        uri = get("warc-target-uri")
        if uri is not None:
            uri = strip_brackets(uri)
        cap = Capture(uri or "", rtype, False, get("warc-date") or "", filename, record.offset)
        cap.content_type = get("content-type")
        cap.record_id = _bare(get("warc-record-id"))
        cap.payload_digest = get("warc-payload-digest")
        cap.block_digest = get("warc-block-digest")
        if concurrent:
            cap.concurrent_to = tuple([v for v in map(_bare, concurrent) if v])
        cap.truncated = get("warc-truncated")
        if rtype == "revisit":
            cap.profile = record.profile_name  # type: ignore[attr-defined]
            cap.refers_to = _bare(get("warc-refers-to"))
            cap.refers_to_uri = record.refers_to_target_uri
            cap.refers_to_date = get("warc-refers-to-date")
        elif rtype in ("metadata", "conversion"):
            cap.refers_to = _bare(get("warc-refers-to"))
        if rtype in _HTTP_TYPES:
            _http_fields(cap, record, is_http_block(cap.content_type, rtype, uri, record.content_length))
        else:
            cap.payload_length = record.content_length
    if compute_digest and cap.payload_digest is None and rtype not in ("warcinfo", "revisit"):
        cap.computed_digest = _sha1_payload(record)
    return cap


def _http_fields(cap: Capture, record: WarcRecord, has_http: bool) -> None:
    """Status, method, Content-Type and payload length of a WARC HTTP block."""
    size = record.content_length
    fast = http_fast(record, has_http)
    if fast is None:
        _http_fields_parsed(cap, record)
    elif fast:
        status, method, ctype, head_len = fast
        cap.has_http = True
        cap.http_content_type = ctype
        cap.status = status
        cap.payload_length = max(size - head_len, 0)
        if cap.type == "request":
            cap.method = method
    else:
        cap.payload_length = size


def _http_fields_parsed(cap: Capture, record: WarcRecord) -> None:
    """:func:`_http_fields` through the HTTP head parser (ARC records, unusual heads)."""
    size = record.content_length
    http = record.http if cap.type in _HTTP_TYPES else None
    if http is None:
        cap.payload_length = size
        return
    cap.has_http = True
    for name, value in http.headers.fields:  # cheaper than building the name index
        if len(name) == 12 and name.lower() == "content-type":
            cap.http_content_type = value
            break
    if http.status is not None:
        cap.status = str(http.status)
    cap.payload_length = max(size - len(http.raw), 0)
    if cap.type == "request":
        cap.method = http.method


def _sha1_payload(record: WarcRecord) -> str:
    """cdxj-indexer's digest of a record without WARC-Payload-Digest: SHA-1 of the
    payload as stored (the legacy convention: a chunked body is not de-chunked)."""
    from ..record.payload import (  # (only pywb formats: start-up stays quick)
        LEGACY,
        PayloadDigester,
    )

    digester = PayloadDigester("sha1", convention=LEGACY, chunked=False)
    stream = record.payload_stream()
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        digester.update(chunk)
    return digester.text()


def finish(cap: Capture, record: WarcRecord, plain: bool) -> None:
    """Fill in the lengths of *cap* once the reader has moved past *record*.

    *plain*: the file is uncompressed (the pywb formats then record warcio's length).
    """
    cap.length = record.length
    if plain and cap.length is not None:
        cap.stored_length = min(len(record.raw_head) + record.content_length, cap.length)
    else:
        cap.stored_length = cap.length


_FAST_HEAD = 16384  # what WarcRecord.http retains first
_FIRST_HEAD = 4096  # most HTTP heads are shorter: copy less of a large block first
_clean_http_head = _hp.clean_http_head


def http_fast(
    record: WarcRecord, has_http: bool | None = None
) -> tuple[str | None, str | None, str | None, int] | tuple[()] | None:
    """Status, method, Content-Type and head length of a clean HTTP head, without parsing it.

    ``()`` when the block is not HTTP, ``None`` when the full parser must decide. Reads
    the same retained prefix :attr:`WarcRecord.http` would, so the parser can still run.
    *has_http*: :attr:`WarcRecord.has_http` when the caller knows it already.
    """
    if not (record.has_http if has_http is None else has_http):
        return ()
    if record.content_length <= 0:
        return None
    buf = record.peek_block(_FIRST_HEAD)
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        if len(buf) >= record.content_length:
            return None
        buf = record.peek_block(_FAST_HEAD)
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return None
    end += 4
    # A clean head (status or request line, token:value lines, CRLF line ends): anything
    # else (folded or bare-LF lines, malformed names, odd start lines) takes the full
    # parser, so the fast path never accepts what the parser would reject or read differently.
    clean = _clean_http_head(buf, end)
    if clean is None:
        return None
    status, method, ctype = clean
    return status, method, ctype, end


def repair_not_utf8(cap: Capture) -> list[str]:
    """Lenient indexing: write the not-UTF-8 bytes of the URL and of the POST key parts as
    ``%XX``, before the key is made from them (so the key is the SURT of the repaired URL).
    Returns the names of the attributes repaired."""
    repaired = []
    for attr in ("url", "key_suffix", "request_body"):
        value = getattr(cap, attr)
        if value and holds_not_utf8(value):
            setattr(cap, attr, escape_not_utf8(value))
            repaired.append(attr)
    return repaired


#: The text attributes of a capture and the fields they are read from (ARC records: the
#: URL, date and content type of the header line).
TEXT_FIELDS = {
    "url": "WARC-Target-URI", "date": "WARC-Date", "record_id": "WARC-Record-ID",
    "payload_digest": "WARC-Payload-Digest", "block_digest": "WARC-Block-Digest",
    "content_type": "Content-Type", "status": "HTTP status", "method": "HTTP method",
    "http_content_type": "HTTP Content-Type", "profile": "WARC-Profile",
    "refers_to": "WARC-Refers-To", "refers_to_uri": "WARC-Refers-To-Target-URI",
    "refers_to_date": "WARC-Refers-To-Date", "concurrent_to": "WARC-Concurrent-To",
    "truncated": "WARC-Truncated", "key_suffix": "POST/PUT body", "request_body": "POST/PUT body",
}


def not_utf8_fields(cap: Capture) -> list[str]:
    """The text attributes of *cap* that hold bytes that were not UTF-8 (surrogate
    escapes), in :data:`TEXT_FIELDS` order."""
    return not_utf8_names((attr, getattr(cap, attr)) for attr in TEXT_FIELDS)


def repair_text(cap: Capture) -> list[str]:
    """Lenient indexing: :func:`repair_not_utf8`, and the same for every other text
    attribute of *cap*. Returns the names of the attributes repaired."""
    repaired = []
    for attr in not_utf8_fields(cap):
        value = getattr(cap, attr)
        if isinstance(value, tuple):
            setattr(cap, attr, tuple(escape_not_utf8(v) for v in value))
        else:
            setattr(cap, attr, escape_not_utf8(value))
        repaired.append(attr)
    return repaired
