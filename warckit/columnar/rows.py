"""WARC/ARC records → rows of the columnar index (one dict per capture), and back to CDXJ.

Rows are built from the captures ``warckit index -f cdxj`` makes (same records, same
request/response pairing, the same computed SHA-1 for records without a payload digest),
so every row is one line of the CDXJ index: ``url_surtkey`` is that line's key (a POST/PUT
capture keeps pywb's ``?__wb_method=post&…`` suffix; Common Crawl has no POST captures)
and :func:`cdxj_line` rebuilds the line byte for byte.

The partition values: ``crawl`` is the ``crawl=`` argument, else the ``crawl-data/NAME/``
directory of the file's path, else ``unnamed``. ``subset`` is the directory a Common Crawl path
names (``segments/SEG/{warc,crawldiagnostics,robotstxt}/``); otherwise it is derived as
CC sorts its captures: ``robotstxt`` for a URL path ``/robots.txt``, ``warc`` for a 2xx
status or none (``resource``, ``metadata``…), ``crawldiagnostics`` for any other status
(redirects, 404s…). ``warc_segment`` is the ``segment=`` argument, else the
``segments/SEG/`` directory of the path, else null.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit

from ..cdx import _keys
from ..cdx._timestamps import digits_of
from ..cdx.capture import Capture, escape_not_utf8, extract, repair_not_utf8
from ..record.fields import not_utf8_message, not_utf8_names
from ..cdx.indexer import DEFAULT_TYPES, IndexOptions, iter_captures
from ..cdx.lines import _pywb_digest, _pywb_mime, _ts14
from ..errors import Issue, ParseError, WarckitError
from ..io.sources import InputLike
from ..record.payload import LEGACY, PayloadDigester
from ..record.records import WarcRecord
from . import detect as _detect
from .domains import host_columns
from .schema import COLUMNS

__all__ = ["DEFAULT_MAX_PAYLOAD", "cdxj_line", "iter_rows", "rows_to_batch", "rows_to_table"]

#: Default cap on the ``payload`` bytes of a row (``with_payload=True``).
DEFAULT_MAX_PAYLOAD = 1 << 20

#: The ``crawl`` of rows whose crawl is neither given nor in a Common Crawl path. Not null:
#: pyarrow (and so pandas) cannot read a dataset whose partition values are all null.
DEFAULT_CRAWL = "unnamed"
_CRAWL_RE = re.compile(r"(?:^|/)crawl-data/([^/]+)/")
_SEGMENT_RE = re.compile(r"(?:^|/)segments/([^/]+)/")
_SUBSET_RE = re.compile(r"(?:^|/)segments/[^/]+/(warc|crawldiagnostics|robotstxt)/[^/]+$")
_READ_STEP = 1 << 16


@dataclass(slots=True)
class _Extra:
    """What a row needs from its record beyond the capture, read while it is current."""

    location: str | None = None
    head: bytes = b""
    cut: bool = False
    chunked: bool = False
    encodings: tuple[str, ...] = ()


def _path_of(source: InputLike, filename: str | None) -> str:
    if filename is not None:
        return filename
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", ""))


def iter_rows(
    source: InputLike,
    *,
    filename: str | None = None,
    crawl: str | None = None,
    segment: str | None = None,
    types: Collection[str] = DEFAULT_TYPES,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    detect: bool = True,
    with_payload: bool = False,
    max_payload: int = DEFAULT_MAX_PAYLOAD,
) -> Iterator[dict[str, Any]]:
    """Yield one row per indexed record of one WARC/ARC file, in file order.

    Each row maps every name of :data:`~warckit.columnar.schema.COLUMNS` to a value of the
    type :func:`~warckit.columnar.schema.arrow_schema` declares (``str``, ``int``,
    ``datetime`` in UTC, or ``None``).

    Args:
        source: A path, ``"-"`` or a binary file object.
        filename: ``warc_filename`` (default: the base name of *source*); a Common Crawl
            path (``crawl-data/CC-MAIN-…/segments/…/warc/….warc.gz``) also gives the
            crawl, segment and subset.
        crawl: The ``crawl`` partition value (default: from a Common Crawl path, else
            :data:`DEFAULT_CRAWL`).
        segment: ``warc_segment``.
        types: Record types indexed (as ``warckit index --types``).
        lenient: Read damaged files leniently; every recovery goes to *on_warning*.
        on_warning: Receives lenient-mode recoveries.
        detect: Fill ``content_mime_detected`` and ``content_languages`` (when the
            detectors are installed, see :mod:`warckit.columnar.detect`).
        with_payload: Add ``payload`` (the payload as stored, at most *max_payload*
            bytes) and ``payload_truncated`` (it was longer) to each row.
        max_payload: See *with_payload*.

    Raises:
        ParseError: Damaged input in strict mode (naming the file and offset).
    """
    opts = IndexOptions(format="cdxj", types=frozenset(types), lenient=lenient, filename=filename)
    wanted = opts.types
    path = _path_of(source, filename)
    if crawl is None:
        found = _CRAWL_RE.search(path)
        crawl = found.group(1) if found else DEFAULT_CRAWL
    if segment is None:
        found = _SEGMENT_RE.search(path)
        segment = found.group(1) if found else None
    found = _SUBSET_RE.search(path)
    subset = found.group(1) if found else None
    keep = max(_detect.HEAD_BYTES if detect else 0, max_payload if with_payload else 0)
    extras: dict[int, _Extra] = {}

    def extractor(record: WarcRecord, name: str, compute_digest: bool) -> Capture:
        cap = extract(record, name, False)
        extra = _Extra()
        if cap.type in wanted:
            _read_record(record, cap, extra, compute_digest, keep, detect)
        extras[cap.offset] = extra
        return cap

    for cap in iter_captures(source, opts, on_warning=on_warning, extractor=extractor):
        extra = _Extra()
        while extras:  # records read before this one were skipped or are yielded already
            offset = next(iter(extras))
            if offset > cap.offset:
                break
            got = extras.pop(offset)
            if offset == cap.offset:
                extra = got
        repaired = _repair_capture(cap) if lenient else []
        row = _row(cap, extra, crawl, segment, subset, detect)
        _check_text(row, path, lenient, on_warning, repaired)
        if with_payload:
            row["payload"] = extra.head[:max_payload]
            row["payload_truncated"] = extra.cut or len(extra.head) > max_payload
        yield row


def _read_record(record: WarcRecord, cap: Capture, extra: _Extra, compute_digest: bool,
                 keep: int, detect: bool) -> None:
    """Fill *extra* from the current *record*; compute the digest ``extract`` would have."""
    if cap.has_http and (detect or (cap.status or "")[:1] == "3"):
        try:
            http = record.http  # before the payload is read: the head must still be there
        except WarckitError:
            http = None  # the fast path read the head; the parser disagreeing costs only extras
        if http is not None:
            if (cap.status or "")[:1] == "3":
                extra.location = http.headers.get("location")
            extra.chunked = http.chunked
            extra.encodings = http.content_encodings()
    digester = None
    if compute_digest and cap.payload_digest is None and cap.type not in ("warcinfo", "revisit"):
        # As cdx.capture._sha1_payload: cdxj-indexer's SHA-1 of the payload as stored.
        digester = PayloadDigester("sha1", convention=LEGACY, chunked=False)
    if digester is None and keep <= 0:
        return
    stream = record.payload_stream()
    head = bytearray()
    while True:
        want = _READ_STEP if digester is not None else min(_READ_STEP, keep + 1 - len(head))
        if want <= 0:
            break
        chunk = stream.read(want)
        if not chunk:
            break
        if digester is not None:
            digester.update(chunk)
        if len(head) <= keep:
            head += chunk[: keep + 1 - len(head)]
    if digester is not None:
        cap.computed_digest = digester.text()
    extra.cut = len(head) > keep
    extra.head = bytes(head[:keep])


#: Row columns of the Capture attributes :func:`repair_not_utf8` repairs.
_REPAIRED_COLUMNS = {"url": "url", "key_suffix": "url_surtkey", "request_body": "http_request_body"}


def _repair_capture(cap: Capture) -> list[str]:
    """Lenient: the URL and POST key parts with bytes that are not UTF-8 written as ``%XX``
    before the key is made from them (so the key is a SURT of the repaired URL)."""
    return [_REPAIRED_COLUMNS[attr] for attr in repair_not_utf8(cap)]


def _check_text(row: dict[str, Any], path: str, lenient: bool, on_warning: Callable[[Issue], None] | None,
                repaired: list[str]) -> None:
    """Parquet strings are UTF-8: a field that held bytes that are not (read as surrogate
    escapes) is a damaged record; lenient reading writes those bytes as ``%XX``."""
    bad = not_utf8_names(row.items())
    if bad and not lenient:
        raise ParseError(not_utf8_message(bad, row[bad[0]]), source=path, offset=row["warc_record_offset"])
    for name in bad:
        row[name] = escape_not_utf8(row[name])
    bad = repaired + bad
    if bad and on_warning is not None:
        on_warning(Issue("not-utf8", f"not valid UTF-8, its bytes written as %XX: {', '.join(bad)}",
                         offset=row["warc_record_offset"], source=path, field=bad[0]))


def _fetch_time(date: str) -> datetime | None:
    """WARC-Date (any precision, UTC) → datetime; a leap second rolls into the next minute."""
    try:
        digits = digits_of(date)
    except ValueError:
        return None
    if len(digits) < 4:
        return None
    filled = digits[:14] + "00000101000000"[len(digits[:14]):]
    micro = int((digits[14:] + "000000")[:6])
    second = int(filled[12:14])
    try:
        value = datetime(int(filled[:4]), int(filled[4:6]), int(filled[6:8]), int(filled[8:10]),
                         int(filled[10:12]), min(second, 59), micro, tzinfo=timezone.utc)
    except ValueError:
        return None
    if second == 60:
        value += timedelta(seconds=1)
    return value


def _media(value: str | None) -> tuple[str | None, str | None]:
    """(media type lower-cased, charset as written) of a Content-Type value."""
    if not value:
        return None, None
    parts = value.split(";")
    mime = parts[0].strip().lower() or None
    charset = None
    for param in parts[1:]:
        name, _, val = param.partition("=")
        if name.strip().lower() == "charset":
            charset = val.strip().strip('"').strip() or None
            break
    return mime, charset


def _status(text: str | None) -> int | None:
    if text is None or not text.isdigit() or not text.isascii():
        return None
    value = int(text)
    return value if value <= 32767 else None


def _url_columns(url: str) -> tuple[str | None, int | None, str | None, str | None, str | None]:
    """(protocol, port, path, query, host) of *url*; ``None`` where it has none."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None, None, None, None, None
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port > 2147483647:
        port = None
    return parts.scheme.lower() or None, port, parts.path, parts.query or None, host


def _subset(status: int | None, path: str | None) -> str:
    if path == "/robots.txt":
        return "robotstxt"
    if status is None or 200 <= status < 300:
        return "warc"
    return "crawldiagnostics"


def _row(cap: Capture, extra: _Extra, crawl: str | None, segment: str | None, subset: str | None,
         detect: bool) -> dict[str, Any]:
    url = cap.url
    protocol, port, path, query, host = _url_columns(url) if url else (None, None, None, None, None)
    status = _status(cap.status)
    mime, charset = _media(cap.http_content_type if cap.has_http else cap.content_type)
    digest = _pywb_digest(cap)
    algorithm = None
    value = digest
    if digest is not None and ":" in digest:
        algorithm, value = digest.split(":", 1)
    detected = languages = None
    if detect and extra.head and cap.type in ("response", "resource"):
        content = _detect.decoded_head(extra.head, chunked=extra.chunked, encodings=extra.encodings)
        detected = _detect.detect_mime(content)
        if _detect.is_text(mime or detected):
            languages = _detect.detect_languages(content, charset)
    row: dict[str, Any] = dict(zip(("url_surtkey", "url"), (
        _keys.cdx_key(url + cap.key_suffix) if url else "-", url)))
    row.update(zip(_HOST_NAMES, host_columns(host)))
    row.update(
        url_protocol=protocol,
        url_port=port,
        url_path=path,
        url_query=query,
        fetch_time=_fetch_time(cap.date),
        fetch_status=status,
        fetch_redirect=extra.location,
        content_digest=value,
        content_mime_type=mime,
        content_mime_detected=detected,
        content_charset=charset,
        content_languages=languages,
        content_truncated=cap.truncated,
        warc_filename=cap.filename,
        warc_record_offset=cap.offset,
        warc_record_length=cap.length,
        warc_segment=segment,
        record_type=cap.type,
        record_id=cap.record_id,
        content_digest_algorithm=algorithm,
        cdxj_timestamp=_ts14(cap),
        cdxj_mime=_pywb_mime(cap),
        cdxj_status=cap.status if cap.status is not None and cap.type in ("response", "revisit") else None,
        cdxj_length=cap.stored_length,
        http_method=cap.method,
        http_request_body=(cap.request_body or "") if cap.key_suffix else None,
        crawl=crawl,
        subset=subset or _subset(status, path),
    )
    return row


_HOST_NAMES = COLUMNS[2:13]


def cdxj_line(row: dict[str, Any]) -> str:
    """The CDXJ line (no newline) of *row*: byte for byte the line ``warckit index -f cdxj``
    writes for its record."""
    fields: dict[str, str] = {}
    url = row["url"]
    if url:
        fields["url"] = _keys.escape_field(url)
    if row["cdxj_mime"] is not None:
        fields["mime"] = row["cdxj_mime"]
    if row["cdxj_status"] is not None:
        fields["status"] = row["cdxj_status"]
    digest = row["content_digest"]
    if digest is not None:
        # The CDXJ digest, split into these two columns at its first colon.
        algorithm = row["content_digest_algorithm"]
        fields["digest"] = digest if algorithm is None else f"{algorithm}:{digest}"
    if row["cdxj_length"] is not None:
        fields["length"] = str(row["cdxj_length"])
    fields["offset"] = str(row["warc_record_offset"])
    fields["filename"] = row["warc_filename"]
    if row["http_request_body"] is not None:
        fields["requestBody"] = row["http_request_body"]
        if row["http_method"] is not None:
            fields["method"] = row["http_method"]
    return f"{row['url_surtkey']} {row['cdxj_timestamp']} {json.dumps(fields)}"


def rows_to_table(rows: Iterable[dict[str, Any]], *, partitions: bool = True) -> Any:
    """A :class:`pyarrow.Table` of *rows* with :func:`~warckit.columnar.schema.arrow_schema`
    (extra keys such as ``payload`` are left out)."""
    import pyarrow as pa

    from .schema import arrow_schema

    return pa.Table.from_pylist(list(rows), schema=arrow_schema(partitions=partitions))


def rows_to_batch(rows: Iterable[dict[str, Any]], *, partitions: bool = True) -> Any:
    """A :class:`pyarrow.RecordBatch` of *rows* (see :func:`rows_to_table`)."""
    import pyarrow as pa

    from .schema import arrow_schema

    return pa.RecordBatch.from_pylist(list(rows), schema=arrow_schema(partitions=partitions))
