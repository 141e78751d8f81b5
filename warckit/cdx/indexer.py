"""Records → index lines: one :class:`Capture` per indexed record, formatted per output format.

The indexer reads each file once, front to back. A record's entry is emitted when the
*next* record arrives (or at the end of the file), when its length in the file is known
without spooling its body. A ``request`` record with a POST/PUT body is paired with the
adjacent ``response`` it is concurrent to, and both get the body appended to their key
the way pywb does (SPEC-DIGEST §3.2), so POST captures can be looked up.

Output formats: ``cdx`` (new-style CDX, see :mod:`warckit.cdx.formats`), ``cdxj`` (pywb /
cdxj-indexer CDXJ), ``cdx11`` and ``cdx9`` (classic CDX with legend). The pywb formats follow
cdxj-indexer 1.5 byte for byte, including its record selection (``application/warc-fields``
resource/metadata records are skipped) and its payload digest for records that lack one.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .._speedups import load as _load_speedup
from ..errors import Issue, UsageError
from ..read import reader as _reader
from ..record.digests import normalize_algorithm
from ..record.records import WarcRecord
from . import _keys
from ._timestamps import to_14_digits, utc_w3c
from .formats import FORMATS, CdxEntry, FormatName, _dumps, header_line

__all__ = [
    "ALL_TYPES",
    "DEFAULT_TYPES",
    "Capture",
    "IndexOptions",
    "capture_line",
    "index",
    "index_file",
    "iter_captures",
]

#: Record types indexed by default.
DEFAULT_TYPES: frozenset[str] = frozenset({"response", "resource", "revisit", "metadata", "conversion"})
#: Every WARC record type.
ALL_TYPES: frozenset[str] = frozenset(
    {"warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion", "continuation"}
)

_PYWB_FORMATS = frozenset({"cdxj", "cdx11", "cdx9"})
_DIGEST_TYPES = frozenset({"response", "resource", "revisit"})
_MAX_BODY = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class IndexOptions:
    """How files are indexed.

    Attributes:
        format: ``cdx`` (new-style), ``cdxj``, ``cdx11`` or ``cdx9``.
        types: Record types to index (``request`` and ``warcinfo`` are off by default).
        post_append: Append POST/PUT request bodies to the key (pywb's ``__wb_method``).
        unicode_host: New-style keys with IDN hosts in Unicode instead of punycode.
        skip_warc_fields: Skip ``resource``/``metadata`` records of type
            ``application/warc-fields`` (cdxj-indexer's rule). ``None``: on for the pywb
            formats, off for the new-style CDX.
        lenient: Read damaged files leniently (every recovery goes to *on_warning*).
        filename: File name written into the index (default: the base name of the path).
    """

    format: FormatName = "cdx"
    types: frozenset[str] = DEFAULT_TYPES
    post_append: bool = True
    unicode_host: bool = False
    skip_warc_fields: bool | None = None
    lenient: bool = False
    filename: str | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise UsageError(f"unknown index format {self.format!r}; choose one of {', '.join(FORMATS)}")
        unknown = {t.lower() for t in self.types} - ALL_TYPES
        if unknown:
            raise UsageError(f"unknown record type(s): {', '.join(sorted(unknown))}")
        object.__setattr__(self, "types", frozenset(t.lower() for t in self.types))

    @property
    def skips_warc_fields(self) -> bool:
        """Whether ``application/warc-fields`` resource/metadata records are skipped."""
        if self.skip_warc_fields is None:
            return self.format in _PYWB_FORMATS
        return self.skip_warc_fields


@dataclass(slots=True)
class Capture:
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

    url: str
    type: str
    is_arc: bool
    date: str
    filename: str
    offset: int
    length: int | None = None
    record_id: str | None = None
    payload_digest: str | None = None
    block_digest: str | None = None
    computed_digest: str | None = None
    status: str | None = None
    http_content_type: str | None = None
    content_type: str | None = None
    payload_length: int | None = None
    profile: str | None = None
    refers_to: str | None = None
    refers_to_uri: str | None = None
    refers_to_date: str | None = None
    concurrent_to: tuple[str, ...] = field(default_factory=tuple)
    method: str | None = None
    request_body: str | None = None
    key_suffix: str = ""
    truncated: str | None = None
    stored_length: int | None = None
    has_http: bool = False


def _unbracket(value: str | None) -> str | None:
    if value and value[0] == "<" and value[-1] == ">":
        return value[1:-1]
    return value


def _sha1_payload(record: WarcRecord) -> str:
    import hashlib  # (only pywb formats compute digests; keeps start-up quick)

    hasher = hashlib.sha1()
    stream = record.payload_stream()
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        hasher.update(chunk)
    return "sha1:" + base64.b32encode(hasher.digest()).decode("ascii")


def _request_body(record: WarcRecord) -> bytes:
    http = record.http
    limit = 8192
    if http is not None:
        text = http.headers.first("Content-Length")
        if text is not None:
            try:
                limit = min(max(int(text.strip()), 0), _MAX_BODY)
            except ValueError:
                limit = 0
    return record.content_stream().read(limit) or b""


def _field_map(record: WarcRecord) -> tuple[dict[str, str], list[str]]:
    """First value of every WARC header field by lowercased name, and every
    WARC-Concurrent-To value (one pass over the head)."""
    return record.headers._first_values()


def _has_http(h: dict[str, str], rtype: str, size: int) -> bool:
    """:attr:`WarcRecord.has_http` from the field map (no header index built)."""
    if (h.get("content-type") or "").lower().startswith("application/http"):
        return True
    if rtype in ("response", "request", "revisit"):
        uri = h.get("warc-target-uri")
        if uri is None:
            return False
        uri = uri.strip()
        if len(uri) >= 2 and uri[0] == "<" and uri[-1] == ">":
            uri = uri[1:-1]
        return uri.lower().startswith(("http:", "https:")) and size > 0
    return False


def _capture(record: WarcRecord, filename: str, compute_digest: bool) -> Capture:
    """Build the capture of *record* while it is the reader's current record."""
    rtype = record.type
    is_arc = record.format == "arc"
    if is_arc:
        cap = Capture(record.target_uri or "", rtype, True, record.date_string or "", filename, record.offset)
        cap.content_type = record.content_type
    else:
        h, concurrent = _field_map(record)
        url = h.get("warc-target-uri", "")
        if url[:1] == "<" and url[-1:] == ">":
            url = url[1:-1]
        cap = Capture(url, rtype, False, h.get("warc-date", ""), filename, record.offset)
        cap.record_id = _unbracket(h.get("warc-record-id"))
        cap.payload_digest = h.get("warc-payload-digest")
        cap.block_digest = h.get("warc-block-digest")
        cap.content_type = h.get("content-type")
        if "warc-concurrent-to" in h:
            cap.concurrent_to = tuple(v for v in (_unbracket(c) for c in concurrent) if v)
        cap.truncated = h.get("warc-truncated")
        if rtype == "revisit":
            cap.profile = record.profile_name  # type: ignore[attr-defined]
            cap.refers_to = _unbracket(h.get("warc-refers-to"))
            cap.refers_to_uri = _unbracket(h.get("warc-refers-to-target-uri"))
            cap.refers_to_date = h.get("warc-refers-to-date")
        elif rtype in ("metadata", "conversion"):
            cap.refers_to = _unbracket(h.get("warc-refers-to"))
    size = record.content_length
    if rtype in ("response", "revisit", "request") and not is_arc:
        fast = _http_fast(record, size, _has_http(h, rtype, size))
        if fast is not None:
            if fast:
                status, method, ctype, head_len = fast
                cap.has_http = True
                cap.http_content_type = ctype
                cap.status = status
                cap.payload_length = max(size - head_len, 0)
                if rtype == "request":
                    cap.method = method
            else:
                cap.payload_length = size
            if compute_digest and cap.payload_digest is None and rtype not in ("warcinfo", "revisit"):
                cap.computed_digest = _sha1_payload(record)
            return cap
    http = record.http if rtype in ("response", "revisit", "request") else None
    if http is not None:
        cap.has_http = True
        for name, value in http.headers.fields:  # cheaper than building the name index
            if len(name) == 12 and name.lower() == "content-type":
                cap.http_content_type = value
                break
        if http.status is not None:
            cap.status = str(http.status)
        cap.payload_length = max(size - len(http.raw), 0)
        if rtype == "request":
            cap.method = http.method
    else:
        cap.payload_length = size
    if compute_digest and cap.payload_digest is None and rtype not in ("warcinfo", "revisit"):
        cap.computed_digest = _sha1_payload(record)
    return cap


_FAST_HEAD = 16384  # what WarcRecord.http retains first
_clean_http_head = _load_speedup("headers").clean_http_head


def _http_fast(
    record: WarcRecord, size: int, has_http: bool
) -> tuple[str | None, str | None, str | None, int] | tuple[()] | None:
    """Status, method, Content-Type and head length of a clean HTTP head, without parsing it.

    ``()`` when the block is not HTTP, ``None`` when the full parser must decide. Reads
    the same retained prefix :attr:`WarcRecord.http` would, so the parser can still run.
    """
    if not has_http:
        return ()
    if size <= 0:
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


def _is_post_or_put(record: WarcRecord) -> bool:
    """Whether a request record carries a POST or PUT."""
    if record.format != "arc":
        # Most requests are GETs: their method is settled by the first bytes, without
        # reading the WARC or HTTP head (a malformed GET head is not parsed here, so it
        # is not reported when requests are not indexed).
        if record.peek_block(8).startswith((b"GET ", b"HEAD ")):
            return False
        h, _ = _field_map(record)
        size = record.content_length
        fast = _http_fast(record, size, _has_http(h, "request", size))
        if fast is not None:
            if len(fast) == 0:
                return False
            return (fast[1] or "").upper() in ("POST", "PUT")
    http = record.http
    return http is not None and (http.method or "").upper() in ("POST", "PUT")


def _pair(first: Capture, second: Capture) -> tuple[Capture, Capture] | None:
    """``(request, response)`` when two adjacent captures are a request/response pair."""
    if first.url != second.url:
        return None
    if first.type == "request" and second.type == "response":
        req, resp = first, second
    elif first.type == "response" and second.type == "request":
        req, resp = second, first
    else:
        return None
    if not (
        (first.record_id is not None and first.record_id in second.concurrent_to)
        or (second.record_id is not None and second.record_id in first.concurrent_to)
    ):
        return None
    return req, resp


def iter_captures(
    source: str | os.PathLike[str] | IO[bytes],
    options: IndexOptions | None = None,
    *,
    on_warning: Callable[[Issue], None] | None = None,
) -> Iterator[Capture]:
    """Yield the captures of one WARC/ARC file, in file order.

    Args:
        source: Path or binary file object.
        options: What to index; see :class:`IndexOptions`.
        on_warning: Receives every recovery made in lenient mode.

    Raises:
        ParseError: Damaged input in strict mode.
    """
    return _iter_range(source, options or IndexOptions(), on_warning, 0, 0, None, None)


def _iter_range(
    source: str | os.PathLike[str] | IO[bytes],
    opts: IndexOptions,
    on_warning: Callable[[Issue], None] | None,
    start: int,
    emit_from: int,
    end: int | None,
    stopped_at: list[int] | None,
) -> Iterator[Capture]:
    """:func:`iter_captures` of the records that start in ``[emit_from, end)``.

    Reading starts at record offset *start* (``<= emit_from``): the records before
    *emit_from* only give the first ones their request/response pairing (see
    :mod:`warckit.read.pieces`). The first record at or past *end* is read to settle the
    pairing of the last one. The offsets of the last record before *end* and of the first
    one at or past it are appended to *stopped_at* (nothing if the file ends first).
    """
    if opts.filename is not None:
        filename = opts.filename
    elif isinstance(source, (str, os.PathLike)):
        filename = os.path.basename(os.fspath(source))
    else:
        filename = os.path.basename(str(getattr(source, "name", "-")))
    filename = _keys.escape_field(filename)
    wanted = opts.types
    read_types = set(wanted)
    if opts.post_append:
        read_types.add("request")
    compute_digest = opts.format in _PYWB_FORMATS
    skip_fields = opts.skips_warc_fields
    kwargs: dict[str, Any] = {"lenient": opts.lenient, "types": read_types}
    if start:
        kwargs["offset"] = start
    if on_warning is not None:
        kwargs["on_warning"] = on_warning
    pending: Capture | None = None
    pending_rec: WarcRecord | None = None
    pending_body: tuple[str, bytes | None, str | None] | None = None
    last = -1  # offset of the last record read before *end*
    with _reader.open_archive(source, **kwargs) as reader:
        plain = reader.compression == "none"
        for record in reader:
            offset = record.offset
            final = end is not None and offset >= end
            if final:
                # The record after the range: it only settles the pairing of the pending
                # capture, exactly as a one-piece run would.
                if stopped_at is not None:
                    stopped_at.extend((last, offset))
                    stopped_at = None
            else:
                last = offset
            rtype = record.type
            if (
                skip_fields
                and rtype in ("resource", "metadata")
                and record.content_type == "application/warc-fields"
            ):
                continue
            if rtype == "request" and rtype not in wanted and not _is_post_or_put(record):
                # Only POST/PUT requests matter when requests are not indexed; a GET
                # breaks the adjacency of a pending pair just like any other record.
                if pending is not None and pending_rec is not None:
                    _finish(pending, pending_rec, plain)
                    if pending.type in wanted and pending.offset >= emit_from:
                        yield pending
                pending = pending_rec = pending_body = None
                if final:
                    break
                continue
            cap = _capture(record, filename, compute_digest)
            body: tuple[str, bytes | None, str | None] | None = None
            if opts.post_append and rtype == "request" and cap.method is not None:
                method = cap.method.upper()
                if method in ("POST", "PUT"):
                    http = record.http
                    ctype = http.headers.first("Content-Type") if http is not None else None
                    body = (method, _request_body(record), ctype)
            if pending is not None and pending_rec is not None:
                _finish(pending, pending_rec, plain)
                pair = _pair(pending, cap)
                if pair is not None:
                    req_body = pending_body if pending.type == "request" else body
                    if req_body is not None:
                        _apply_post(pair[0], pair[1], req_body)
                if pending.type in wanted and pending.offset >= emit_from:
                    yield pending
            if final:
                pending = None
                break
            pending, pending_rec, pending_body = cap, record, body
        if pending is not None and pending_rec is not None:
            _finish(pending, pending_rec, plain)
            if pending.type in wanted and pending.offset >= emit_from:
                yield pending


def _finish(cap: Capture, record: WarcRecord, plain: bool) -> None:
    """Fill in the lengths once the reader has moved past *record*."""
    cap.length = record.length
    if plain and cap.length is not None:
        cap.stored_length = min(len(record.raw_head) + record.content_length, cap.length)
    else:
        cap.stored_length = cap.length


def _apply_post(req: Capture, resp: Capture, body: tuple[str, bytes | None, str | None]) -> None:
    method, data, ctype = body
    query, suffix = _keys.method_query(method, req.url, ctype, data)
    for cap in (req, resp):
        cap.method = method
        cap.request_body = query
        cap.key_suffix = suffix


# -- formatting ------------------------------------------------------------------------


def _pywb_mime(cap: Capture) -> str | None:
    if cap.type == "revisit":
        return "warc/revisit"
    if cap.is_arc and cap.type != "response":
        return None  # warcio's arc2warc: a non-HTTP ARC record has no media type
    value = cap.http_content_type if cap.type in ("response", "request") else cap.content_type
    if not value:
        return None
    head = value.split(";", 1)[0]
    for i, ch in enumerate(head):
        if ch.isspace():
            head = head[:i]
            break
    return head.strip()


def _pywb_digest(cap: Capture) -> str | None:
    return cap.payload_digest if cap.payload_digest is not None else cap.computed_digest


def _ts14(cap: Capture) -> str:
    try:
        return to_14_digits(cap.date)
    except ValueError:
        return "-"


def _w3c(cap: Capture) -> str:
    try:
        return utc_w3c(cap.date)
    except ValueError:
        return "-"


def _new_style_digest(cap: Capture) -> str:
    value = cap.payload_digest if cap.type in _DIGEST_TYPES else None
    if value is None:
        value = cap.block_digest
    if not value:
        return "-"
    if value[:5] == "sha1:" and value[5:].isalnum() and value.isascii():
        return value  # the common case: already canonical, nothing to escape
    label, sep, rest = value.strip().partition(":")
    if not sep:
        return _keys.escape_field(value.strip())
    return _keys.escape_field(f"{normalize_algorithm(label)}:{rest.strip()}")


def _new_style_extra(cap: Capture) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if cap.length is not None:
        extra["length"] = cap.length
    if cap.record_id:
        extra["id"] = cap.record_id
    if cap.status is not None:
        try:
            extra["status"] = int(cap.status)
        except ValueError:
            extra["status"] = cap.status
    if cap.has_http:
        mime = cap.http_content_type
    else:
        mime = cap.content_type if cap.type != "revisit" else None
    if mime:
        mime = mime.split(";", 1)[0].strip().lower()
        if mime:
            extra["mime"] = mime
    if cap.payload_length is not None and cap.type in ("response", "resource", "revisit", "request"):
        extra["payload_length"] = cap.payload_length
    if cap.type == "revisit":
        if cap.profile:
            extra["profile"] = cap.profile
        if cap.refers_to_uri:
            extra["refers_to_uri"] = cap.refers_to_uri
        if cap.refers_to_date:
            extra["refers_to_date"] = cap.refers_to_date
    if cap.refers_to:
        extra["refers_to"] = cap.refers_to
    if cap.concurrent_to and cap.type in ("metadata", "conversion", "request", "resource"):
        extra["concurrent_to"] = list(cap.concurrent_to)
    if cap.method is not None and (cap.type == "request" or cap.key_suffix):
        extra["method"] = cap.method
    if cap.key_suffix and cap.request_body:
        extra["request_body"] = cap.request_body
    if cap.truncated:
        extra["truncated"] = cap.truncated
    return extra


def new_style_entry(cap: Capture, *, unicode_host: bool = False) -> CdxEntry:
    """The new-style CDX entry of a capture."""
    return CdxEntry.build(*_new_style_values(cap, unicode_host))


def _new_style_values(
    cap: Capture, unicode_host: bool
) -> tuple[str, str, str, str, str, str, int, dict[str, Any]]:
    url = cap.url
    key = _keys.new_style_key(url + cap.key_suffix, unicode_host=unicode_host) if url else "-"
    rtype = ("arc-" + cap.type) if cap.is_arc else cap.type
    return (
        key,
        _w3c(cap),
        _keys.escape_field(url) if url else "-",
        _new_style_digest(cap),
        rtype,
        cap.filename,
        cap.offset,
        _new_style_extra(cap),
    )


def _new_style_line(cap: Capture, unicode_host: bool) -> str:
    """``new_style_entry(cap).format()`` without building the entry."""
    key, ts, url, digest, rtype, filename, offset, extra = _new_style_values(cap, unicode_host)
    return f"{key} {ts} {url} {digest} {rtype} {filename} {offset} {_dumps(extra)}"


def _cdxj_line(cap: Capture) -> str:
    fields: dict[str, str] = {}
    if cap.url:
        fields["url"] = _keys.escape_field(cap.url)
    mime = _pywb_mime(cap)
    if mime is not None:
        fields["mime"] = mime
    if cap.status is not None and cap.type in ("response", "revisit"):
        fields["status"] = cap.status
    digest = _pywb_digest(cap)
    if digest is not None:
        fields["digest"] = digest
    if cap.stored_length is not None:
        fields["length"] = str(cap.stored_length)
    fields["offset"] = str(cap.offset)
    fields["filename"] = cap.filename
    if cap.key_suffix:
        fields["requestBody"] = cap.request_body or ""
        if cap.method is not None:
            fields["method"] = cap.method
    key = _keys.cdx_key(cap.url + cap.key_suffix) if cap.url else "-"
    return f"{key} {_ts14(cap)} {json.dumps(fields)}"


def _classic_line(cap: Capture, eleven: bool) -> str:
    key = _keys.cdx_key(cap.url + cap.key_suffix) if cap.url else "-"
    mime = _pywb_mime(cap)
    status = cap.status if cap.status is not None and cap.type in ("response", "revisit") else None
    digest = _pywb_digest(cap)
    if digest is not None:
        digest = digest.split(":")[-1]
    values = [
        key,
        _ts14(cap),
        _keys.escape_field(cap.url) if cap.url else "-",
        _keys.escape_field(mime) if mime else "-",
        status or "-",
        _keys.escape_field(digest) if digest else "-",
        "-",
    ]
    if eleven:
        values += ["-", str(cap.stored_length) if cap.stored_length is not None else "-"]
    values += [str(cap.offset), cap.filename]
    return " ".join(values)


def capture_line(cap: Capture, fmt: FormatName, *, unicode_host: bool = False) -> str:
    """Format a capture as one index line of *fmt* (no newline)."""
    if fmt == "cdx":
        return _new_style_line(cap, unicode_host)
    if fmt == "cdxj":
        return _cdxj_line(cap)
    return _classic_line(cap, fmt == "cdx11")


def index_file(
    source: str | os.PathLike[str] | IO[bytes],
    options: IndexOptions | None = None,
    *,
    on_warning: Callable[[Issue], None] | None = None,
) -> Iterator[str]:
    """Yield the index lines (no header, no newline, file order) of one WARC/ARC file."""
    return index_range(source, options or IndexOptions(), on_warning=on_warning)


def index_range(
    source: str | os.PathLike[str] | IO[bytes],
    options: IndexOptions,
    start: int = 0,
    end: int | None = None,
    *,
    read_from: int | None = None,
    on_warning: Callable[[Issue], None] | None = None,
    stopped_at: list[int] | None = None,
) -> Iterator[str]:
    """:func:`index_file` restricted to the records that start in ``[start, end)``.

    ``(read_from, start)`` must be a split point from
    :func:`warckit.read.pieces.split_points` (*read_from*: the record before *start*), or
    ``start=0``. The offsets of the last record before *end* and of the first one at or
    past it are appended to *stopped_at* (nothing if the file ends first).
    """
    fmt = options.format
    unicode_host = options.unicode_host
    begin = start if read_from is None else read_from
    for cap in _iter_range(source, options, on_warning, begin, start, end, stopped_at):
        yield capture_line(cap, fmt, unicode_host=unicode_host)


def index(
    sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    format: FormatName = "cdx",
    types: Collection[str] = DEFAULT_TYPES,
    post_append: bool = True,
    unicode_host: bool = False,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
) -> Iterator[str]:
    """Index WARC/ARC files; yield lines in file order (unsorted, no header).

    Use :func:`warckit.cdx.write_index` for a sorted file with its header, or parse the
    lines with :class:`~warckit.cdx.CdxEntry` (new-style) and friends.

    Example:
        >>> for line in index(["crawl.warc.gz"]):  # doctest: +SKIP
        ...     print(line)
    """
    paths = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    for path in paths:
        opts = IndexOptions(
            format=format,
            types=frozenset(types),
            post_append=post_append,
            unicode_host=unicode_host,
            lenient=lenient,
        )
        yield from index_file(path, opts, on_warning=on_warning)


def header_for(fmt: FormatName) -> str | None:
    """The header / legend line of *fmt* (``None`` for CDXJ).

    >>> header_for("cdx11")
    ' CDX N b a m s k r M S V g'
    >>> header_for("cdxj") is None
    True
    """
    return header_line(fmt)
