"""Pure-Python record-head parser (the twin of ``_speedups/headers.pyx``).

Sans-IO: bytes in, parsed fields out. Grammar (WARC 1.1 §4, RFC 2616 §2.2)::

    named-field = field-name ":" [ field-value ]
    field-name  = token
    LWS         = [CRLF] 1*( SP | HT )      ; folded continuation lines

Field values are decoded as UTF-8 (WARC 1.1 allows UTF-8); undecodable bytes are
kept through ``surrogateescape`` so nothing is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# token = 1*<any CHAR except CTLs or separators> (RFC 2616 §2.2)
_SEPARATORS = frozenset(b'()<>@,;:\\"/[]?={} \t')
_TOKEN = frozenset(c for c in range(33, 127) if c not in _SEPARATORS)

#: Warning codes returned by :func:`parse_fields` in lenient mode.
BARE_LF = "bare-lf"
NO_COLON = "no-colon"
BAD_NAME = "bad-field-name"


class HeadError(Exception):
    """Raised by the parser; the caller turns it into a located HeaderParseError."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


def _is_token(name: bytes) -> bool:
    if not name:
        return False
    for c in name:
        if c not in _TOKEN:
            return False
    return True


def parse_fields(
    buf: bytes, start: int, end: int, lenient: bool
) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    """Parse the named fields in ``buf[start:end]``.

    ``buf[start:end]`` holds the field lines after the version line, up to (not
    including) the empty line that ends the head. Lines end with CRLF; in lenient
    mode a bare LF is accepted too.

    Args:
        buf: The buffer.
        start: Index of the first field line.
        end: Index just past the last field line's line ending.
        lenient: Accept bare LF line ends, skip lines without a colon and field
            names that are not tokens; each relaxation is reported.

    Returns:
        ``(fields, warnings)``: fields as ``(name, value)`` strings in file order,
        values stripped of surrounding whitespace with folded lines joined by one
        space; warnings as ``(code, position)`` pairs (empty in strict mode).

    Raises:
        HeadError: strict mode and the block is malformed (position = index in buf).
    """
    fields: list[tuple[str, str]] = []
    warnings: list[tuple[str, int]] = []
    fold: list[str] | None = None  # the last field's value and continuation lines so far
    pos = start
    while pos < end:
        nl = buf.find(b"\n", pos, end)
        if nl < 0:
            nl = end
            line_end = end
        elif nl > pos and buf[nl - 1] == 13:
            line_end = nl - 1
        else:
            if not lenient:
                raise HeadError("header line does not end with CRLF", pos)
            warnings.append((BARE_LF, pos))
            line_end = nl
        line = buf[pos:line_end]
        first = buf[pos] if pos < end else 0
        if first == 32 or first == 9:
            # Folded continuation of the previous field (LWS).
            if not fields:
                if not lenient:
                    raise HeadError("continuation line before any field", pos)
                warnings.append((NO_COLON, pos))
            else:
                if fold is None:
                    fold = [fields[-1][1]]
                fold.append(line.strip(b" \t\r").decode("utf-8", "surrogateescape"))
            pos = nl + 1
            continue
        colon = line.find(b":")
        if colon < 0:
            if not lenient:
                raise HeadError("header line has no colon", pos)
            warnings.append((NO_COLON, pos))
            pos = nl + 1
            continue
        name_b = line[:colon]
        if not _is_token(name_b):
            if not lenient:
                raise HeadError("header field name is not a token", pos)
            warnings.append((BAD_NAME, pos))
            name_b = name_b.strip(b" \t\r")
            if not name_b:
                pos = nl + 1
                continue
        if fold is not None:
            fields[-1] = (fields[-1][0], join_folded(fold))
            fold = None
        fields.append(
            (
                name_b.decode("ascii", "surrogateescape"),
                line[colon + 1 :].strip(b" \t\r").decode("utf-8", "surrogateescape"),
            )
        )
        pos = nl + 1
    if fold is not None:
        fields[-1] = (fields[-1][0], join_folded(fold))
    return fields, warnings


def join_folded(pieces: list[str]) -> str:
    """A value and its continuation lines: joined by one space, once the value is not empty.

    Joining once at the end keeps a field of many folded lines linear.
    """
    i = 0
    while i < len(pieces) and not pieces[i]:
        i += 1
    return " ".join(pieces[i:])


def _valid_version(version: str) -> bool:
    major, dot, minor = version.partition(".")
    return bool(dot) and major.isdigit() and minor.isdigit()


def parse_head(
    buf: bytes, pos: int, head_end: int, lenient: bool
) -> tuple[str, bool, int, list[tuple[str, str]], list[tuple[str, int]], str | None, str | None]:
    """Parse a whole record head ``buf[pos:head_end]`` (version line to empty line).

    Returns:
        ``(version, version_ok, fields_start, fields, warnings, warc_type,
        content_length)``: the version after ``WARC/``, whether it is ``N.N``,
        the index of the first field line, the fields and warnings as
        :func:`parse_fields` gives them, and the first WARC-Type and Content-Length
        values (``None`` when absent).

    Raises:
        HeadError: as :func:`parse_fields`.
    """
    line_end = buf.find(b"\n", pos, head_end)
    version = buf[pos + 5 : line_end].rstrip(b"\r").decode("ascii", "replace").strip()
    fields_end = head_end - 2 if buf[head_end - 2 : head_end] == b"\r\n" else head_end - 1
    fields, warnings = parse_fields(buf, line_end + 1, fields_end, lenient)
    wtype = cl_text = None
    for name, value in fields:
        n = len(name)
        if n == 9 and wtype is None and name.lower() == "warc-type":
            wtype = value
        elif n == 14 and cl_text is None and name.lower() == "content-length":
            cl_text = value
    return version, _valid_version(version), line_end + 1, fields, warnings, wtype, cl_text


def scan_head(
    buf: bytes, pos: int, head_end: int, lenient: bool
) -> tuple[str, bool, int, list[tuple[str, int]], str | None, str | None]:
    """Check a record head like :func:`parse_head` without building its fields.

    The reader calls this for every record; the fields themselves are parsed only
    when a caller looks at them (:class:`warckit.record.headers.Headers` parses its raw
    bytes on first use), so iterating over a file costs one pass over each head.

    Returns:
        ``(version, version_ok, fields_start, warnings, warc_type, content_length)``:
        :func:`parse_head`'s result without the fields.

    Raises:
        HeadError: as :func:`parse_fields`.
    """
    version, ok, fields_start, _fields, warnings, wtype, cl_text = parse_head(buf, pos, head_end, lenient)
    return version, ok, fields_start, warnings, wtype, cl_text


def field_map(buf: bytes, start: int, end: int, lenient: bool) -> tuple[dict[str, str], list[str]]:
    """The first value of every field by lowercased name, and every WARC-Concurrent-To value.

    What an indexer needs from a record head, in one pass over ``buf[start:end]`` (the
    field lines, as for :func:`parse_fields`). Fields are read as :func:`parse_fields`
    reads them.

    Raises:
        HeadError: as :func:`parse_fields`.
    """
    return first_values(parse_fields(buf, start, end, lenient)[0])


def first_values(fields: Iterable[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:
    """:func:`field_map` of fields already parsed."""
    first: dict[str, str] = {}
    concurrent: list[str] = []
    for name, value in fields:
        key = name.lower()
        if key not in first:
            first[key] = value
        if key == "warc-concurrent-to":
            concurrent.append(value)
    return first, concurrent


def field_groups(buf: bytes, start: int, end: int, lenient: bool) -> dict[str, list[str]]:
    """Every value of every field by lowercased name, in order, in one pass over
    ``buf[start:end]`` (the field lines, read as :func:`parse_fields` reads them).

    Raises:
        HeadError: as :func:`parse_fields`.
    """
    return group_fields(parse_fields(buf, start, end, lenient)[0])


def field_layout(buf: bytes, start: int, end: int, lenient: bool) -> tuple[bytes, list[str]]:
    """The fields of ``buf[start:end]`` (read as :func:`parse_fields` reads them) as their
    names' bytes, each followed by a colon, in one key (heads that share it share their
    shape), and their values in order.

    Raises:
        HeadError: as :func:`parse_fields`.
    """
    fields = parse_fields(buf, start, end, lenient)[0]
    names = b"".join(name.encode("ascii", "surrogateescape") + b":" for name, _ in fields)
    return names, [value for _, value in fields]


def group_fields(fields: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """:func:`field_groups` of fields already parsed: ``{lowercased name: [values in order]}``."""
    groups: dict[str, list[str]] = {}
    for name, value in fields:
        key = name.lower()
        got = groups.get(key)
        if got is None:
            groups[key] = [value]
        else:
            got.append(value)
    return groups


# -- field values: the quick acceptance warckit.record.rules asks first ----------------

#: Syntax kinds of :func:`accept_values`: indexes into :data:`SYNTAX`.
URI, BRACKETED_URI, DIGITS, MEDIA_TYPE, IPV4, DIGEST, WTYPE, TRUNCATED, SEGMENT, DATE_10, DATE_11 = range(11)

_TOKEN_RE = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
#: The values each kind accepts, as stored (the rules say why the others are wrong).
SYNTAX: tuple[re.Pattern[str], ...] = (
    # RFC 3986 URI: scheme ":" then no whitespace / controls (a pragmatic check, not a parser).
    re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*:[^\x00-\x20\x7f<>\"]*\Z"),
    re.compile(r"<[A-Za-z][A-Za-z0-9+\-.]*:[^\x00-\x20\x7f<>\"]+>\Z"),
    re.compile(r"[0-9]+\Z"),
    # RFC 7231 media-type with OWS around ";" (WARC 1.1 errata #38).
    re.compile(_TOKEN_RE + "/" + _TOKEN_RE + r"(?:[ \t]*;[ \t]*" + _TOKEN_RE + "=(?:" + _TOKEN_RE
               + r"|\"(?:[^\"\\]|\\.)*\"))*[ \t]*;?[ \t]*\Z"),
    # A dotted-quad IPv4 address as ipaddress accepts it (no leading zeros).
    re.compile(r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
               r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\Z"),
    re.compile(_TOKEN_RE + ":" + _TOKEN_RE + r"\Z"),
    re.compile(r"(?:warcinfo|response|resource|request|metadata|revisit|conversion|continuation)\Z"),
    re.compile(r"(?:length|time|disconnect|unspecified)\Z"),
    re.compile(r"0*[1-9][0-9]*\Z"),
    re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z", re.ASCII),  # (\d: ASCII digits only)
    re.compile(r"\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?Z)?)?)?\Z", re.ASCII),
)


def accept_at(values: list[str], steps: Iterable[tuple[int, int]]) -> bool:
    """Whether the value ``values[i]`` of each ``(i, kind)`` of *steps* matches
    :data:`SYNTAX` of its kind (:func:`accept_values` by field position)."""
    for i, kind in steps:
        if SYNTAX[kind].match(values[i]) is None:
            return False
    return True


def accept_values(groups: Mapping[str, Iterable[str]], steps: Iterable[tuple[str, int]]) -> bool:
    """Whether every value of each ``(key, kind)`` of *steps* in *groups* matches
    :data:`SYNTAX` of its kind (``KeyError`` for a key not in *groups*)."""
    for key, kind in steps:
        match = SYNTAX[kind].match
        for value in groups[key]:
            if match(value) is None:
                return False
    return True


_TCHAR = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]"
_CLEAN_HTTP_HEAD = re.compile(
    rb"(?:HTTP/[^ \r\n]* ([1-9][0-9]{2})(?: [^\r\n]*)?|([^ \r\n]+) [^ \r\n]+ HTTP/[^ \r\n]*)\r\n"
    rb"(?:" + _TCHAR + rb"+:[^\r\n]*\r\n)*\r\n"
)
_HTTP_CONTENT_TYPE = re.compile(rb"\ncontent-type:([^\r\n]*)", re.IGNORECASE)


def clean_http_head(buf: bytes, end: int) -> tuple[str | None, str | None, str | None] | None:
    """Status, method and Content-Type of a clean HTTP head ``buf[:end]``, without parsing it.

    Clean: a status line ``HTTP/x NNN [reason]`` or a request line ``METHOD target
    HTTP/x``, then ``token:value`` lines, every line ending in CRLF, and the empty line
    ending exactly at *end*. Anything else gives ``None`` (the full HTTP parser decides).

    Returns:
        ``(status, method, content_type)``: the 3-digit status of a response (else
        ``None``), the method of a request (else ``None``), and the value of the first
        Content-Type field stripped of spaces and tabs (``None`` if there is none).
    """
    m = _CLEAN_HTTP_HEAD.fullmatch(buf, 0, end)
    if m is None:
        return None
    c = _HTTP_CONTENT_TYPE.search(buf, 0, end)
    ctype = c.group(1).strip(b" \t").decode("utf-8", "surrogateescape") if c is not None else None
    code = m.group(1)
    if code is not None:
        return code.decode("ascii"), None, ctype
    return None, m.group(2).decode("latin-1"), ctype
