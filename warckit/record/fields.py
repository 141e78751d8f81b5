"""The named WARC fields of a record, as typed accessors over its :class:`Headers`."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from .._util.dates import parse_warc_date
from ..errors import HeaderParseError
from .digests import Digest
from .headers import Headers

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

__all__ = [
    "WarcFields", "escape_not_utf8", "holds_not_utf8", "not_utf8_message", "not_utf8_names", "strip_brackets",
]


def holds_not_utf8(value: str) -> bool:
    """Whether *value* holds bytes that were not UTF-8 (the field scanner decodes them as
    surrogate escapes, U+DC80-U+DCFF)."""
    if value.isascii():
        return False
    try:
        value.encode("utf-8")  # (a surrogate, and only that, cannot be encoded)
    except UnicodeEncodeError:
        return any("\udc80" <= c <= "\udcff" for c in value)
    return False


def escape_not_utf8(value: str) -> str:
    """*value* with the bytes that were not UTF-8 (surrogate escapes) written as ``%XX``.

    >>> escape_not_utf8(b"http://ex\\xe9.com/".decode("utf-8", "surrogateescape"))
    'http://ex%E9.com/'
    """
    if not holds_not_utf8(value):
        return value
    return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in value)


def not_utf8_names(fields: Iterable[tuple[str, object]]) -> list[str]:
    """The names of the ``(name, value)`` pairs whose value (a text, or a tuple of texts)
    holds bytes that were not UTF-8; other values are passed over.

    >>> not_utf8_names([("url", "caf\\udce9"), ("date", "2024"), ("ids", ("a", "\\udcff")), ("n", 3)])
    ['url', 'ids']
    """
    return [
        name for name, value in fields
        if (type(value) is str and not value.isascii() and holds_not_utf8(value))
        or (type(value) is tuple and any(isinstance(v, str) and holds_not_utf8(v) for v in value))
    ]


def not_utf8_message(names: Iterable[str], sample: str) -> str:
    """The strict-mode error text for fields *names* holding bytes that are not UTF-8
    (WARC 1.1 section 4: header fields are UTF-8), quoting *sample* with those bytes as ``%XX``.

    >>> not_utf8_message(["WARC-Target-URI"], "caf\\udce9")
    "a header field holds bytes that are not UTF-8 (WARC-Target-URI, those bytes as %XX: 'caf%E9')"
    """
    shown = ", ".join(dict.fromkeys(names))
    return (f"a header field holds bytes that are not UTF-8 ({shown}, "
            f"those bytes as %XX: {escape_not_utf8(sample)[:200]!r})")


def strip_brackets(value: str | None) -> str | None:
    """Quirk: WARC 1.0's grammar puts ``<>`` around every uri; wget 1.14 wrote them
    around WARC-Target-URI. Stripped on read (docs/conformance.rst#target-uri)."""
    if value is None:
        return None
    value = value.strip()
    if len(value) >= 2 and value[0] == "<" and value[-1] == ">":
        return value[1:-1]
    return value

def _digest(value: str | None) -> Digest | None:
    if not value:
        return None
    try:
        return Digest.parse(value)
    except HeaderParseError:
        return None


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip(" \t")
    return int(value) if value.isdigit() and value.isascii() else None


class WarcFields:
    """Accessors for the WARC-defined fields (WARC 1.1 §5) of a record's :attr:`headers`."""

    __slots__ = ()

    headers: Headers

    @property
    def record_id(self) -> str | None:
        """WARC-Record-ID including its angle brackets, e.g. ``<urn:uuid:…>``."""
        return self.headers.first("WARC-Record-ID")

    @property
    def date_string(self) -> str | None:
        """WARC-Date exactly as written (keeps all fraction digits)."""
        return self.headers.first("WARC-Date")

    @property
    def date(self) -> datetime | None:
        """WARC-Date as a timezone-aware UTC datetime; ``None`` if absent or unparsable."""
        raw = self.headers.first("WARC-Date")
        return parse_warc_date(raw) if raw else None

    @property
    def target_uri(self) -> str | None:
        """WARC-Target-URI with WARC 1.0 ``<angle brackets>`` removed."""
        return strip_brackets(self.headers.first("WARC-Target-URI"))

    @property
    def content_type(self) -> str | None:
        """Content-Type of the block."""
        return self.headers.first("Content-Type")

    @property
    def block_digest(self) -> Digest | None:
        """WARC-Block-Digest; ``None`` if absent or malformed."""
        return _digest(self.headers.first("WARC-Block-Digest"))

    @property
    def payload_digest(self) -> Digest | None:
        """WARC-Payload-Digest; ``None`` if absent or malformed."""
        return _digest(self.headers.first("WARC-Payload-Digest"))

    @property
    def ip_address(self) -> str | None:
        """WARC-IP-Address."""
        return self.headers.first("WARC-IP-Address")

    @property
    def concurrent_to(self) -> tuple[str, ...]:
        """Every WARC-Concurrent-To (the one repeatable field)."""
        return self.headers.all("WARC-Concurrent-To")

    @property
    def refers_to(self) -> str | None:
        """WARC-Refers-To."""
        return self.headers.first("WARC-Refers-To")

    @property
    def refers_to_target_uri(self) -> str | None:
        """WARC-Refers-To-Target-URI (WARC 1.1)."""
        return strip_brackets(self.headers.first("WARC-Refers-To-Target-URI"))

    @property
    def refers_to_date(self) -> str | None:
        """WARC-Refers-To-Date as written (WARC 1.1)."""
        return self.headers.first("WARC-Refers-To-Date")

    @property
    def warcinfo_id(self) -> str | None:
        """WARC-Warcinfo-ID."""
        return self.headers.first("WARC-Warcinfo-ID")

    @property
    def truncated(self) -> str | None:
        """WARC-Truncated reason (``length``, ``time``, ``disconnect``, ``unspecified``)."""
        return self.headers.first("WARC-Truncated")

    @property
    def identified_payload_type(self) -> str | None:
        """WARC-Identified-Payload-Type."""
        return self.headers.first("WARC-Identified-Payload-Type")

    @property
    def segment_number(self) -> int | None:
        """WARC-Segment-Number."""
        return _int(self.headers.first("WARC-Segment-Number"))

    @property
    def segment_origin_id(self) -> str | None:
        """WARC-Segment-Origin-ID."""
        return self.headers.first("WARC-Segment-Origin-ID")

    @property
    def segment_total_length(self) -> int | None:
        """WARC-Segment-Total-Length."""
        return _int(self.headers.first("WARC-Segment-Total-Length"))
