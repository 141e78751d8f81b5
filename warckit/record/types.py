"""The typed record classes: one per WARC-Type, the registry, and ARC records.

:data:`RECORD_TYPES` maps a lowercase WARC-Type to its class; the reader builds each
record through it (:func:`record_class` for any other type).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import ClassVar

from .._speedups.headers import impl as _hp
from .._util.dates import parse_arc_date
from .base import WarcRecord
from .fields import strip_brackets
from .headers import Headers

__all__ = [
    "RECORD_TYPES",
    "ArcRecord",
    "Continuation",
    "Conversion",
    "Metadata",
    "Request",
    "Resource",
    "Response",
    "Revisit",
    "UnknownRecord",
    "Warcinfo",
    "record_class",
    "register_type",
]


class Warcinfo(WarcRecord):
    """``warcinfo``: describes the records that follow it."""

    type_name = "warcinfo"
    __slots__ = ()

    @property
    def filename(self) -> str | None:
        """WARC-Filename."""
        return self.headers.first("WARC-Filename")

    def info(self) -> Headers:
        """The block parsed as ``application/warc-fields`` (bare LF tolerated)."""
        block = self.read_block() if not self._retained else self._retained
        fields, _ = _hp.parse_fields(block, 0, len(block), True)
        return Headers(fields)


class Request(WarcRecord):
    """``request``: the request that was sent (an HTTP request for http/https)."""

    type_name = "request"
    __slots__ = ()


class Response(WarcRecord):
    """``response``: the full response received (HTTP head and body for http/https)."""

    type_name = "response"
    __slots__ = ()


class Resource(WarcRecord):
    """``resource``: a resource without protocol envelope (the block is the payload)."""

    type_name = "resource"
    __slots__ = ()

    @property
    def has_http(self) -> bool:
        return (self.content_type or "").lower().startswith("application/http")


class Metadata(WarcRecord):
    """``metadata``: information about another record."""

    type_name = "metadata"
    __slots__ = ()


class Revisit(WarcRecord):
    """``revisit``: a capture whose content is not stored again."""

    type_name = "revisit"
    __slots__ = ()

    @property
    def profile(self) -> str | None:
        """WARC-Profile (``<>`` removed)."""
        return strip_brackets(self.headers.first("WARC-Profile"))

    @property
    def profile_name(self) -> str | None:
        """``identical-payload-digest``, ``server-not-modified``, or the last path part.

        Quirk: matched on the path suffix, so the 0.18/1.0/1.1 URIs and pywb's
        ``uri-agnostic-identical-payload-digest`` are all recognised.
        """
        p = self.profile
        if not p:
            return None
        return p.rstrip("/").rsplit("/", 1)[-1].lower()


class Conversion(WarcRecord):
    """``conversion``: an alternative version of another record's content."""

    type_name = "conversion"
    __slots__ = ()


class Continuation(WarcRecord):
    """``continuation``: a later segment of a segmented record."""

    type_name = "continuation"
    __slots__ = ()


class UnknownRecord(WarcRecord):
    """A record of a WARC-Type warckit has no class for (kept and passed through)."""

    __slots__ = ()


RECORD_TYPES: dict[str, type[WarcRecord]] = {}


def register_type(cls: type[WarcRecord]) -> type[WarcRecord]:
    """Register a record class for its ``type_name`` (usable as a decorator)."""
    if not cls.type_name:
        raise ValueError("record class has no type_name")
    RECORD_TYPES[cls.type_name] = cls
    return cls


def record_class(type_name: str) -> type[WarcRecord]:
    """The class for a WARC-Type (case-insensitive); :class:`UnknownRecord` if none."""
    return RECORD_TYPES.get(type_name.strip().lower(), UnknownRecord)


for _cls in (Warcinfo, Request, Response, Resource, Metadata, Revisit, Conversion, Continuation):
    register_type(_cls)


class ArcRecord(WarcRecord):
    """An ARC v1/v2 record, exposed through the WARC record interface.

    :attr:`headers` holds a WARC-equivalent view (WARC-Type, WARC-Target-URI,
    WARC-Date, WARC-IP-Address, Content-Type, Content-Length) derived from the ARC
    URL-record line; :attr:`arc_fields` holds the line's own fields. The
    ``filedesc://`` version block is typed ``warcinfo`` and its text is available
    through :meth:`version_block_text`.
    """

    format: ClassVar[str] = "arc"
    __slots__ = ("arc_fields", "arc_line")

    def __init__(
        self,
        arc_fields: dict[str, str],
        arc_line: bytes,
        *,
        arc_version: str,
        offset: int = 0,
        stream_offset: int | None = None,
        source: str | None = None,
        content_length: int = 0,
        lenient: bool = False,
        block: bytes | None = None,
    ) -> None:
        url = arc_fields.get("url", "")
        if url.startswith("filedesc:"):
            rtype = "warcinfo"
        elif url.lower().startswith(("http:", "https:")):
            rtype = "response"
        else:
            rtype = "resource"
        date = parse_arc_date(arc_fields.get("date", ""))
        fields = [("WARC-Type", rtype), ("WARC-Target-URI", url)]
        if date is not None:
            fields.append(("WARC-Date", date.strftime("%Y-%m-%dT%H:%M:%SZ")))
        ip = arc_fields.get("ip")
        if ip and ip != "-":
            fields.append(("WARC-IP-Address", ip))
        mime = arc_fields.get("mime")
        if mime and mime != "-":
            fields.append(("Content-Type", mime))
        fields.append(("Content-Length", str(content_length)))
        super().__init__(
            arc_version,
            Headers(fields),
            arc_line,
            offset=offset,
            stream_offset=stream_offset,
            source=source,
            content_length=content_length,
            block=block,
            lenient=lenient,
        )
        self.arc_fields = arc_fields
        self.arc_line = arc_line

    @property
    def record_id(self) -> str | None:
        """ARC records have no record ID."""
        return None

    @property
    def arc_date(self) -> str:
        """The archive-date as written (``YYYYMMDDhhmmss``)."""
        return self.arc_fields.get("date", "")

    @property
    def date_string(self) -> str | None:
        return self.headers.first("WARC-Date")

    @property
    def has_http(self) -> bool:
        return self.type == "response" and self._content_length > 0

    def version_block_text(self) -> str:
        """The text of the ``filedesc://`` version block (its whole block)."""
        return self.read_block().decode("utf-8", "replace")

    def _trailer(self) -> bytes:
        return b"\n" if self.trailer is None else self.trailer

    def _build_head(self) -> bytes:
        return self.arc_line
