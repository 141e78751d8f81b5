"""Index line formats: new-style CDX, CDXJ (pywb / OutbackCDX) and classic CDX-11 / CDX-9.

Every format is one line per record, sorted bytewise (``LC_ALL=C``), and starts with the
search key and a timestamp separated by single spaces, so sorting, merging and querying
work the same on all of them. Each format has an entry class with ``parse(line)`` and
``format()``; ``format(parse(line)) == line`` for every line the class accepts.

New-style CDX (``warckit index`` default), fields separated by single spaces; the header
says whether the lines are sorted (``sorted`` / ``unsorted``)::

    !warckit-cdx 1.0 sorted urlkey timestamp url digest type filename offset json
    com,example,www,)/ 2026-11-30T09:00:00.123456Z https://www.example.com/ sha1:B2LT… response crawl.warc.gz 0 {"length":1043,…}

No field contains a space: URLs and file names have controls, spaces and DEL
percent-escaped, and spaces inside JSON strings are written ``\\u0020``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._util.frozen import Frozen
from .._util.lazy import typing_aliases
from ..errors import ParseError
from ..record.fields import holds_not_utf8

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing: `warckit index` needs none)
if TYPE_CHECKING:
    from typing import Any, Literal, Protocol

    FormatName = Literal["cdx", "cdxj", "cdx11", "cdx9"]
else:
    Protocol = object  # (a protocol only describes: at run time a plain base does)

# FormatName is made on first use (it needs typing).
__getattr__ = typing_aliases(__name__, globals(),
                             FormatName=lambda t: t.Literal["cdx", "cdxj", "cdx11", "cdx9"])

__all__ = [
    "CDX9_LEGEND",
    "CDX11_LEGEND",
    "FORMATS",
    "NEW_STYLE_FIELDS",
    "NEW_STYLE_HEADER",
    "NEW_STYLE_MAGIC",
    "NEW_STYLE_UNSORTED_HEADER",
    "NEW_STYLE_VERSION",
    "CdxEntry",
    "CdxjEntry",
    "ClassicCdxEntry",
    "FormatName",
    "IndexEntry",
    "detect_format",
    "header_line",
    "header_sorted",
    "parse_line",
]

#: Output formats by CLI name: ``cdx`` is the new-style CDX.
FORMATS: tuple[FormatName, ...] = ("cdx", "cdxj", "cdx11", "cdx9")

NEW_STYLE_MAGIC = "!warckit-cdx"
NEW_STYLE_VERSION = "1.0"
#: The fields of a new-style CDX line, as its header names them.
NEW_STYLE_FIELDS = "urlkey timestamp url digest type filename offset json"
#: The header line of a sorted new-style CDX file; ``!`` sorts before every key.
NEW_STYLE_HEADER = f"{NEW_STYLE_MAGIC} {NEW_STYLE_VERSION} sorted {NEW_STYLE_FIELDS}"
#: The header line of an unsorted one (``warckit index`` without ``--sort``).
NEW_STYLE_UNSORTED_HEADER = f"{NEW_STYLE_MAGIC} {NEW_STYLE_VERSION} unsorted {NEW_STYLE_FIELDS}"
#: Legend of CDX-11 (IA / pywb / cdxj-indexer ``-11``); begins with the delimiter, a space.
CDX11_LEGEND = " CDX N b a m s k r M S V g"
#: Legend of CDX-9 (Wayback 1.x / cdxj-indexer ``-9``).
CDX9_LEGEND = " CDX N b a m s k r V g"


class IndexEntry(Protocol):
    """What every parsed index line offers to queries and callers."""

    @property
    def urlkey(self) -> str:
        """The search key (SURT)."""

    @property
    def timestamp(self) -> str:
        """The timestamp as written in the line."""

    @property
    def original_url(self) -> str:
        """The captured URL."""

    @property
    def status(self) -> str | None:
        """HTTP status code as text, ``None`` when the line has none."""

    @property
    def record_type(self) -> str:
        """WARC record type (``response``, ``revisit`` …); derived for classic formats."""

    def format(self) -> str:
        """The line, without a newline."""


def _dumps(obj: Mapping[str, Any]) -> str:
    """Compact single-line JSON with spaces inside strings written ``\\u0020``."""
    import orjson  # (on first use: indexing writes its JSON itself, see cdx.lines)

    return _spaceless(orjson.dumps(obj).decode("utf-8"))


def _spaceless(json_text: str) -> str:
    """Compact JSON with its spaces (only ever inside strings) written ``\\u0020``, so that
    the JSON field of a line holds none."""
    return json_text.replace(" ", "\\u0020") if " " in json_text else json_text


def _loads(text: str, line: str) -> dict[str, Any]:
    import orjson

    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if not holds_not_utf8(text):
            raise ParseError(f"bad JSON in index line {line[:200]!r}: {exc}") from None
        # Bytes that are not UTF-8 (surrogate escapes), which orjson refuses: the
        # standard library's parser keeps them.
        import json

        try:
            value = json.loads(text)
        except ValueError as exc2:
            raise ParseError(f"bad JSON in index line {line[:200]!r}: {exc2}") from None
    if not isinstance(value, dict):
        raise ParseError(f"JSON field is not an object in index line {line[:200]!r}")
    return value


class CdxEntry(Frozen):
    """One line of a new-style CDX.

    Attributes:
        urlkey: New-style SURT key (``com,example,www,)/path?query``).
        timestamp: WARC-Date as written (W3C-ISO8601 of any precision), converted to
            UTC when it has an offset.
        url: Original URL (spaces and controls ``%XX``-escaped).
        digest: ``algorithm:value`` (payload digest, block digest for other types) or ``-``.
        type: Record type; ARC records are ``arc-response``, ``arc-resource``, ``arc-warcinfo``.
        filename: File name of the WARC/ARC.
        offset: Byte offset of the record in the file.
        json: The JSON field exactly as written; :attr:`extra` is its parsed value.
    """

    __slots__ = (  # noqa: RUF023 (the field order)
        "urlkey", "timestamp", "url", "digest", "type", "filename", "offset", "json", "_extra",
    )
    urlkey: str
    timestamp: str
    url: str
    digest: str
    type: str
    filename: str
    offset: int
    json: str
    _extra: dict[str, Any] | None

    def __init__(self, urlkey: str, timestamp: str, url: str, digest: str, type: str, filename: str,
                 offset: int, json: str = "{}") -> None:
        init = object.__setattr__
        init(self, "urlkey", urlkey)
        init(self, "timestamp", timestamp)
        init(self, "url", url)
        init(self, "digest", digest)
        init(self, "type", type)
        init(self, "filename", filename)
        init(self, "offset", offset)
        init(self, "json", json)
        init(self, "_extra", None)

    @classmethod
    def build(
        cls,
        urlkey: str,
        timestamp: str,
        url: str,
        digest: str,
        type: str,
        filename: str,
        offset: int,
        extra: Mapping[str, Any],
    ) -> CdxEntry:
        """Make an entry from a mapping of extra fields (serialised compactly)."""
        return cls(urlkey, timestamp, url, digest, type, filename, offset, _dumps(extra))

    @classmethod
    def parse(cls, line: str) -> CdxEntry:
        """Parse one line (a trailing newline is ignored).

        Raises:
            ParseError: Not 8 space-separated fields or a bad offset / JSON object.
        """
        text = line.rstrip("\r\n")
        parts = text.split(" ", 7)
        if len(parts) != 8 or text.startswith("!"):
            raise ParseError(f"not a new-style CDX line: {text[:200]!r}")
        try:
            offset = int(parts[6])
        except ValueError:
            raise ParseError(f"bad offset {parts[6]!r} in CDX line {text[:200]!r}") from None
        if not parts[7].startswith("{"):
            raise ParseError(f"JSON field missing in CDX line {text[:200]!r}")
        return cls(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], offset, parts[7])

    def format(self) -> str:
        """The line without its newline."""
        return (
            f"{self.urlkey} {self.timestamp} {self.url} {self.digest} {self.type} "
            f"{self.filename} {self.offset} {self.json}"
        )

    @property
    def extra(self) -> dict[str, Any]:
        """The parsed JSON object (parsed on first use)."""
        if self._extra is None:
            object.__setattr__(self, "_extra", _loads(self.json, self.json))
        assert self._extra is not None
        return self._extra

    @property
    def original_url(self) -> str:
        """The captured URL."""
        return self.url

    @property
    def status(self) -> str | None:
        """HTTP status as text (``"200"``), ``None`` without one."""
        value = self.extra.get("status")
        return None if value is None else str(value)

    @property
    def record_type(self) -> str:
        """The WARC type (``arc-`` prefix removed for ARC records)."""
        return self.type.removeprefix("arc-")

    @property
    def length(self) -> int | None:
        """Bytes of the record in the file (compressed size)."""
        value = self.extra.get("length")
        return None if value is None else int(value)


class CdxjEntry(Frozen):
    """One line of a pywb / OutbackCDX CDXJ: ``urlkey timestamp {json}``.

    Attributes:
        urlkey: IA-style SURT key (``com,example)/``), possibly with ``__wb_method``.
        timestamp: 14-digit timestamp.
        json: The JSON object as written (pywb writes numbers as strings).
    """

    __slots__ = ("urlkey", "timestamp", "json", "_parsed")  # noqa: RUF023 (the field order)
    urlkey: str
    timestamp: str
    json: str
    _parsed: dict[str, Any] | None

    def __init__(self, urlkey: str, timestamp: str, json: str) -> None:
        init = object.__setattr__
        init(self, "urlkey", urlkey)
        init(self, "timestamp", timestamp)
        init(self, "json", json)
        init(self, "_parsed", None)

    @classmethod
    def parse(cls, line: str) -> CdxjEntry:
        """Parse one line, splitting on the first two spaces only.

        Raises:
            ParseError: Fewer than three fields or no JSON object.
        """
        text = line.rstrip("\r\n")
        parts = text.split(" ", 2)
        if len(parts) != 3 or not parts[2].startswith("{"):
            raise ParseError(f"not a CDXJ line: {text[:200]!r}")
        return cls(parts[0], parts[1], parts[2])

    def format(self) -> str:
        """The line without its newline."""
        return f"{self.urlkey} {self.timestamp} {self.json}"

    @property
    def fields(self) -> dict[str, Any]:
        """The parsed JSON object."""
        if self._parsed is None:
            object.__setattr__(self, "_parsed", _loads(self.json, self.json))
        assert self._parsed is not None
        return self._parsed

    @property
    def original_url(self) -> str:
        """The captured URL (``url`` key)."""
        return str(self.fields.get("url", ""))

    @property
    def status(self) -> str | None:
        """HTTP status as text, ``None`` without one."""
        value = self.fields.get("status")
        return None if value in (None, "-") else str(value)

    @property
    def record_type(self) -> str:
        """``revisit`` for ``warc/revisit`` lines, else ``response``."""
        return "revisit" if self.fields.get("mime") == "warc/revisit" else "response"


#: Field letters of the classic formats, by legend.
_CDX11_FIELDS = ("N", "b", "a", "m", "s", "k", "r", "M", "S", "V", "g")
_CDX9_FIELDS = ("N", "b", "a", "m", "s", "k", "r", "V", "g")


class ClassicCdxEntry(Frozen):
    """One line of a classic space-separated CDX (CDX-11 ``N b a m s k r M S V g`` or CDX-9).

    Attributes:
        values: The field values in legend order (``-`` for empty).
        letters: The legend's field letters.
    """

    __slots__ = ("values", "letters")  # noqa: RUF023 (the field order)
    values: tuple[str, ...]
    letters: tuple[str, ...]

    def __init__(self, values: tuple[str, ...], letters: tuple[str, ...] = _CDX11_FIELDS) -> None:
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "letters", letters)

    @classmethod
    def parse(cls, line: str, letters: tuple[str, ...] | None = None) -> ClassicCdxEntry:
        """Parse a line; the legend is CDX-11 or CDX-9 by field count unless given.

        Raises:
            ParseError: The field count matches no known legend.
        """
        values = tuple(line.rstrip("\r\n").split(" "))
        if letters is None:
            if len(values) == 11:
                letters = _CDX11_FIELDS
            elif len(values) == 9:
                letters = _CDX9_FIELDS
            else:
                raise ParseError(f"not a CDX-11/CDX-9 line ({len(values)} fields): {line[:200]!r}")
        elif len(values) != len(letters):
            raise ParseError(
                f"CDX line has {len(values)} fields, legend {len(letters)}: {line[:200]!r}"
            )
        return cls(values, letters)

    def format(self) -> str:
        """The line without its newline."""
        return " ".join(self.values)

    def get(self, letter: str) -> str | None:
        """The value of field *letter* (``None`` when the legend lacks it)."""
        try:
            return self.values[self.letters.index(letter)]
        except ValueError:
            return None

    @property
    def urlkey(self) -> str:
        """Field N."""
        return self.values[0]

    @property
    def timestamp(self) -> str:
        """Field b."""
        return self.values[1]

    @property
    def original_url(self) -> str:
        """Field a."""
        return self.values[2]

    @property
    def status(self) -> str | None:
        """Field s, ``None`` for ``-``."""
        value = self.get("s")
        return None if value in (None, "-") else value

    @property
    def record_type(self) -> str:
        """``revisit`` for mime ``warc/revisit``, else ``response``."""
        return "revisit" if self.get("m") == "warc/revisit" else "response"


AnyEntry = CdxEntry | CdxjEntry | ClassicCdxEntry


def header_line(fmt: FormatName, *, is_sorted: bool = True) -> str | None:
    """The first line a file of *fmt* starts with (``None`` for CDXJ, which has none).

    Only the new-style header says whether the file is sorted (*is_sorted*): the
    CDX-11/9 legend is read field by field by other tools and CDXJ has no header line
    (see ``docs/cdx.rst``).
    """
    if fmt == "cdx":
        return NEW_STYLE_HEADER if is_sorted else NEW_STYLE_UNSORTED_HEADER
    if fmt == "cdx11":
        return CDX11_LEGEND
    if fmt == "cdx9":
        return CDX9_LEGEND
    return None


def header_sorted(first_line: str | bytes) -> bool | None:
    """What a new-style header says about order: ``True`` sorted, ``False`` unsorted,
    ``None`` when the line is no new-style header or one written before warckit
    recorded the order (``!warckit-cdx 1.0 urlkey …``)."""
    text = first_line.decode("utf-8", "replace") if isinstance(first_line, bytes) else first_line
    parts = text.rstrip("\r\n").split(" ", 3)
    if len(parts) < 3 or parts[0] != NEW_STYLE_MAGIC:
        return None
    if parts[2] == "sorted":
        return True
    if parts[2] == "unsorted":
        return False
    return None


def detect_format(first_line: str) -> FormatName:
    """Guess the format of an index from its first line (header or first record).

    >>> detect_format(" CDX N b a m s k r M S V g")
    'cdx11'
    >>> detect_format('com,example)/ 20140101000000 {"url": "http://example.com/"}')
    'cdxj'

    Raises:
        ParseError: The line matches no known format.
    """
    text = first_line.rstrip("\r\n")
    if text.startswith(NEW_STYLE_MAGIC + " "):
        version = text.split(" ", 2)[1]
        if version.split(".")[0] != NEW_STYLE_VERSION.split(".")[0]:
            raise ParseError(f"unsupported new-style CDX version {version!r}")
        return "cdx"
    if text.startswith(" CDX "):
        letters = tuple(text[5:].split(" "))
        if letters == _CDX11_FIELDS:
            return "cdx11"
        if letters == _CDX9_FIELDS:
            return "cdx9"
        raise ParseError(f"unsupported CDX legend {text!r}")
    parts = text.split(" ", 2)
    if len(parts) == 3 and parts[2].startswith("{"):
        return "cdxj"
    count = len(text.split(" "))
    if count == 11:
        return "cdx11"
    if count == 9:
        return "cdx9"
    if count == 8 and text.split(" ", 7)[7].startswith("{"):
        return "cdx"
    shown = text[:60] if text[:60].isprintable() else "binary data (not a text index)"
    raise ParseError(f"unknown index format: {shown!r}")


def parse_line(line: str, fmt: FormatName) -> AnyEntry:
    """Parse *line* as format *fmt*.

    Raises:
        ParseError: The line does not fit the format.
    """
    if fmt == "cdx":
        return CdxEntry.parse(line)
    if fmt == "cdxj":
        return CdxjEntry.parse(line)
    if fmt == "cdx11":
        return ClassicCdxEntry.parse(line, _CDX11_FIELDS)
    return ClassicCdxEntry.parse(line, _CDX9_FIELDS)
