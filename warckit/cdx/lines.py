"""Capture → index line, for each of the four formats (the writer side of :mod:`warckit.cdx.formats`).

``cdx``: new-style CDX (:class:`~warckit.cdx.formats.CdxEntry`); ``cdxj``: pywb /
cdxj-indexer CDXJ; ``cdx11`` and ``cdx9``: classic CDX. The pywb formats follow
cdxj-indexer 1.5 byte for byte.
"""

from __future__ import annotations

import json

from ..record.digests import normalize_algorithm
from . import _keys
from ._timestamps import to_14_digits, utc_w3c
from .capture import Capture
from .formats import CdxEntry, _spaceless, header_line

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from .formats import FormatName

__all__ = ["capture_line", "header_for", "new_style_entry"]

#: A JSON string literal, as orjson writes it (``"`` ``\\`` and controls escaped, the rest as is).
_string = json.encoder.encode_basestring

#: Types whose WARC-Payload-Digest is the new-style digest (others: the block digest).
_DIGEST_TYPES = frozenset({"response", "resource", "revisit"})


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


def _new_style_json(cap: Capture) -> str:
    """The JSON field of a capture's new-style line, written directly (compact, keys in a
    fixed order, spaces in strings as ``\\u0020``): the bytes ``formats._dumps`` writes for
    the same object (``tests/cdx/test_cdx_formats.py`` holds them together), without
    building the object or importing orjson."""
    parts = []
    if cap.length is not None:
        parts.append(f'"length":{cap.length}')
    if cap.record_id:
        parts.append('"id":' + _string(cap.record_id))
    if cap.status is not None:
        try:
            parts.append(f'"status":{int(cap.status)}')
        except ValueError:
            parts.append('"status":' + _string(cap.status))
    if cap.has_http:
        mime = cap.http_content_type
    else:
        mime = cap.content_type if cap.type != "revisit" else None
    if mime:
        mime = mime.split(";", 1)[0].strip().lower()
        if mime:
            parts.append('"mime":' + _string(mime))
    if cap.payload_length is not None and cap.type in ("response", "resource", "revisit", "request"):
        parts.append(f'"payload_length":{cap.payload_length}')
    if cap.type == "revisit":
        if cap.profile:
            parts.append('"profile":' + _string(cap.profile))
        if cap.refers_to_uri:
            parts.append('"refers_to_uri":' + _string(cap.refers_to_uri))
        if cap.refers_to_date:
            parts.append('"refers_to_date":' + _string(cap.refers_to_date))
    if cap.refers_to:
        parts.append('"refers_to":' + _string(cap.refers_to))
    if cap.concurrent_to and cap.type in ("metadata", "conversion", "request", "resource"):
        parts.append('"concurrent_to":[' + ",".join(map(_string, cap.concurrent_to)) + "]")
    if cap.method is not None and (cap.type == "request" or cap.key_suffix):
        parts.append('"method":' + _string(cap.method))
    if cap.key_suffix and cap.request_body:
        parts.append('"request_body":' + _string(cap.request_body))
    if cap.truncated:
        parts.append('"truncated":' + _string(cap.truncated))
    return _spaceless("{" + ",".join(parts) + "}")


def new_style_entry(cap: Capture, *, unicode_host: bool = False) -> CdxEntry:
    """The new-style CDX entry of a capture."""
    return CdxEntry(*_new_style_values(cap, unicode_host))


def _new_style_values(cap: Capture, unicode_host: bool) -> tuple[str, str, str, str, str, str, int, str]:
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
        _new_style_json(cap),
    )


def _new_style_line(cap: Capture, unicode_host: bool) -> str:
    """``new_style_entry(cap).format()`` without building the entry."""
    key, ts, url, digest, rtype, filename, offset, extra = _new_style_values(cap, unicode_host)
    return f"{key} {ts} {url} {digest} {rtype} {filename} {offset} {extra}"


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


def header_for(fmt: FormatName) -> str | None:
    """The header / legend line of *fmt* (``None`` for CDXJ).

    >>> header_for("cdx11")
    ' CDX N b a m s k r M S V g'
    >>> header_for("cdxj") is None
    True
    """
    return header_line(fmt)
