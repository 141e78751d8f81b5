"""Record heads built and checked without a writer: Record-ID, Date, the mandatory
fields of each type, in one order, checked against :mod:`warckit.record.rules`.

The guided writer builds every head here; so can anything else that writes records
(``dedup`` turns responses into revisits with :func:`build_revisit`).

Example:
    >>> from warckit.write.build import build_revisit
    >>> h = build_revisit("https://example.com/", refers_to="<urn:uuid:1>",
    ...                   refers_to_target_uri="https://example.com/",
    ...                   refers_to_date="2024-01-02T03:04:05Z",
    ...                   payload_digest="sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2",
    ...                   record_id="<urn:uuid:2>", date="2024-02-03T04:05:06Z")
    >>> [name for name, _ in h.fields][3:8]
    ['WARC-Target-URI', 'WARC-Refers-To', 'WARC-Refers-To-Target-URI', 'WARC-Refers-To-Date', 'WARC-Profile']
    >>> h.first("Content-Length")
    '0'
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from .._util.dates import format_warc_date, parse_warc_date
from ..errors import HttpParseError, Issue, UsageError, ValidationError
from ..record import rules as _rules
from ..record.digests import Digest, Digester
from ..record.headers import Headers
from ..record.http import HttpHead, parse_http_head

__all__ = [
    "build_revisit",
    "check_headers",
    "checked_http_head",
    "format_date",
    "new_record_id",
    "record_headers",
    "revisit_fields",
    "revisit_profile_uri",
    "segment_headers",
    "warc_fields_block",
    "warcinfo_headers",
]

Fields = list[tuple[str, str]]


def new_record_id() -> str:
    """A fresh ``<urn:uuid:…>`` record ID."""
    return f"<urn:uuid:{uuid.uuid4()}>"


def format_date(when: datetime | str | None = None, version: str = "1.1") -> str:
    """A WARC-Date for *when* (default now) at *version*'s precision (1.1: microseconds);
    a string is taken as written."""
    if isinstance(when, str):
        return when
    when = when or datetime.now(timezone.utc)
    return format_warc_date(when, precision="microseconds" if version == "1.1" else "seconds")


def check_headers(headers: Headers, version: str, block_length: int | None = None) -> None:
    """Raise :class:`~warckit.errors.ValidationError` with every error the rule table
    finds in *headers* (warnings pass)."""
    issues = [i for i in _rules.validate_headers(headers, version, block_length=block_length)
              if i.severity == "error"]
    if issues:
        raise ValidationError(issues)


def warc_fields_block(items: Iterable[tuple[str, str]]) -> bytes:
    """An ``application/warc-fields`` block (warcinfo, metadata).

    Raises:
        ValidationError: a name or value holds CR or LF, or a name a colon.
    """
    lines = []
    for k, v in items:
        if "\n" in k or "\r" in k or "\n" in v or "\r" in v or ":" in k:
            raise ValidationError([Issue("bad-syntax", "warcinfo field names/values must not "
                                         "contain CR/LF (names no colon)", "error", field=k)])
        lines.append(f"{k}: {v}\r\n")
    return "".join(lines).encode() + b"\r\n"


def _http_bytes(http_head: Any) -> bytes:
    if isinstance(http_head, (bytes, bytearray, memoryview)):
        return bytes(http_head)
    raw = getattr(http_head, "raw", None)
    if isinstance(raw, bytes):
        return raw
    raise UsageError("http_head must be the raw HTTP head bytes (ending with an empty line)")


def checked_http_head(http_head: Any, kind: str) -> tuple[bytes, HttpHead]:
    """The bytes and parse of an HTTP *kind* (``request`` / ``response``) head that
    a record block starts with.

    Raises:
        ValidationError: no empty line at its end, not an HTTP head, or the wrong kind.
    """
    raw = _http_bytes(http_head)
    if not raw.endswith((b"\r\n\r\n", b"\n\n")):
        raise ValidationError([Issue("bad-http-head", "the HTTP head must end with an empty "
                                     "line (CRLF CRLF); pass the body separately", "error")])
    try:
        head = parse_http_head(raw, lenient=True)
    except HttpParseError as exc:
        raise ValidationError([Issue("bad-http-head", f"not an HTTP {kind} head: {exc}",
                                     "error")]) from None
    if kind == "response" and not head.is_response:
        raise ValidationError([Issue("bad-http-head", "a response block starts with an HTTP "
                                     "status line", "error")])
    if kind == "request" and head.is_response:
        raise ValidationError([Issue("bad-http-head", "a request block starts with an HTTP "
                                     "request line", "error")])
    return raw, head


def record_headers(
    rtype: str,
    record_id: str,
    date: str,
    target_uri: str | None,
    fields: Sequence[tuple[str, str]],
    *,
    warcinfo_id: str | None,
    extra: Sequence[tuple[str, str]] = (),
    segment: int | None = None,
    block_digest: str,
    payload_digest: str | None,
    content_type: str | None,
    length: int,
    typed_when_empty: bool = False,
) -> Headers:
    """A record head in the writer's field order: type, ID, date, target URI, the
    type's *fields*, warcinfo ID, *extra*, segment number, digests, Content-Type
    (left out of an empty block unless *typed_when_empty*), Content-Length."""
    h: Fields = [("WARC-Type", rtype), ("WARC-Record-ID", record_id), ("WARC-Date", date)]
    if target_uri is not None:
        h.append(("WARC-Target-URI", target_uri))
    h += fields
    if warcinfo_id is not None:
        h.append(("WARC-Warcinfo-ID", warcinfo_id))
    h += extra
    if segment is not None:
        h.append(("WARC-Segment-Number", str(segment)))
    h.append(("WARC-Block-Digest", block_digest))
    if payload_digest is not None:
        h.append(("WARC-Payload-Digest", payload_digest))
    if content_type is not None and (length or typed_when_empty):
        h.append(("Content-Type", content_type))
    h.append(("Content-Length", str(length)))
    return Headers(h)


def segment_headers(origin_id: str, record_id: str, date: str, target_uri: str | None, *,
                    warcinfo_id: str | None, number: int, total_length: int | None,
                    block_digest: str, length: int) -> Headers:
    """The head of continuation segment *number* of record *origin_id* (WARC 1.1 §7);
    *total_length* on the last one."""
    h: Fields = [("WARC-Type", "continuation"), ("WARC-Record-ID", record_id), ("WARC-Date", date)]
    if target_uri is not None:
        h.append(("WARC-Target-URI", target_uri))
    if warcinfo_id is not None:
        h.append(("WARC-Warcinfo-ID", warcinfo_id))
    h += [("WARC-Segment-Origin-ID", origin_id), ("WARC-Segment-Number", str(number))]
    if total_length is not None:
        h.append(("WARC-Segment-Total-Length", str(total_length)))
    h += [("WARC-Block-Digest", block_digest), ("Content-Length", str(length))]
    return Headers(h)


def warcinfo_headers(record_id: str, date: str, filename: str | None, block_digest: str,
                     content_type: str, length: int) -> Headers:
    """The head of a warcinfo record."""
    h: Fields = [("WARC-Type", "warcinfo"), ("WARC-Record-ID", record_id), ("WARC-Date", date)]
    if filename is not None:
        h.append(("WARC-Filename", filename))
    h += [("WARC-Block-Digest", block_digest), ("Content-Type", content_type),
          ("Content-Length", str(length))]
    return Headers(h)


def revisit_profile_uri(profile: str, version: str) -> str:
    """The WARC-Profile URI of *profile* (``identical-payload-digest``,
    ``server-not-modified``, or a URI, taken as is) for *version*.

    Raises:
        UsageError: an unknown profile name.
    """
    uris = _rules.PROFILE_URIS[version]
    if profile in uris:
        return uris[profile]
    if "://" not in profile:
        raise UsageError(f"unknown revisit profile {profile!r}; use one of {sorted(uris)}")
    return profile


def revisit_fields(
    target_uri: str,
    *,
    version: str,
    profile_uri: str,
    refers_to: str | None = None,
    refers_to_target_uri: str | None = None,
    refers_to_date: datetime | str | None = None,
    ip: str | None = None,
    concurrent_to: Sequence[str] = (),
    truncated: bool = False,
) -> Fields:
    """The revisit fields between the target URI and the warcinfo ID."""
    fields: Fields = []
    if refers_to is not None:
        fields.append(("WARC-Refers-To", refers_to))
    # Quirk: WARC-Refers-To-Target-URI / -Date are WARC 1.1 fields; Heritrix writes
    # them into WARC/1.0 revisits too, and so do we (readers ignore unknown fields).
    if refers_to_target_uri is not None and (
            profile_uri.endswith("identical-payload-digest") or refers_to_target_uri != target_uri):
        fields.append(("WARC-Refers-To-Target-URI", refers_to_target_uri))
    if refers_to_date is not None:
        if isinstance(refers_to_date, datetime):
            rdate = format_date(refers_to_date, version)
        else:
            rdate = refers_to_date
            if version == "1.0" and "." in rdate:
                parsed = parse_warc_date(rdate)
                if parsed is not None:
                    rdate = format_date(parsed, version)
        fields.append(("WARC-Refers-To-Date", rdate))
    if ip is not None:
        fields.append(("WARC-IP-Address", ip))
    fields += [("WARC-Concurrent-To", r) for r in concurrent_to]
    fields.append(("WARC-Profile", profile_uri))
    if truncated:
        fields.append(("WARC-Truncated", "length"))
    return fields


def build_revisit(
    target_uri: str,
    *,
    version: str = "1.1",
    profile: str = "identical-payload-digest",
    refers_to: str | None = None,
    refers_to_target_uri: str | None = None,
    refers_to_date: datetime | str | None = None,
    payload_digest: str | Digest | None = None,
    http_head: bytes = b"",
    record_id: str | None = None,
    date: datetime | str | None = None,
    ip: str | None = None,
    concurrent_to: Sequence[str] = (),
    warcinfo_id: str | None = None,
    extra: Sequence[tuple[str, str]] = (),
    digest: str = "sha1",
    digest_encoding: str | None = None,
    validate: bool = True,
) -> Headers:
    """The complete head of a revisit record whose block is *http_head* (kept with
    ``WARC-Truncated: length``; empty: no block), as the guided writer writes it.

    Args:
        target_uri: The URI captured now.
        version: ``"1.1"`` or ``"1.0"`` (the profile URI and the date precision).
        profile: See :func:`revisit_profile_uri`.
        refers_to: The original's record ID.
        refers_to_target_uri: The original's target URI.
        refers_to_date: The original's WARC-Date.
        payload_digest: The original payload's digest.
        http_head: The revisited response's HTTP head (checked).
        record_id: Default: a new one.
        date: Default: now.
        ip: WARC-IP-Address.
        concurrent_to: Record IDs of the same capture event.
        warcinfo_id: WARC-Warcinfo-ID.
        extra: More fields, after the warcinfo ID.
        digest: Algorithm of the block digest.
        digest_encoding: Its encoding.
        validate: Check the head against the rule table.

    Raises:
        ValidationError: e.g. no payload digest for an identical-payload-digest revisit.
        UsageError: an unknown profile.
    """
    profile_uri = revisit_profile_uri(profile, version)
    if http_head:
        http_head, _ = checked_http_head(http_head, "response")
    fields = revisit_fields(target_uri, version=version, profile_uri=profile_uri, refers_to=refers_to,
                            refers_to_target_uri=refers_to_target_uri, refers_to_date=refers_to_date,
                            ip=ip, concurrent_to=concurrent_to, truncated=bool(http_head))
    d = Digester(digest, encoding=digest_encoding)
    d.update(http_head)
    headers = record_headers(
        "revisit", new_record_id() if record_id is None else record_id, format_date(date, version),
        target_uri, fields,
        warcinfo_id=warcinfo_id, extra=extra, block_digest=str(d.digest()),
        payload_digest=str(payload_digest) if payload_digest is not None else None,
        content_type="application/http;msgtype=response" if http_head else None,
        length=len(http_head), typed_when_empty=True)
    if validate:
        check_headers(headers, version, len(http_head))
    return headers
