"""Heritrix ``crawl.log`` parser (Heritrix 1.x and 3.x, DeDuplicator, warcprox).

One line per processed URI, columns separated by whitespace, the status and size
columns left-padded (SPEC-DIGEST §5, ``UriProcessingFormatter.java``)::

    2011-06-23T17:12:08.802Z   200       1299 http://x/robots.txt LREP http://x/ text/plain #014 20110623171208574+225 sha1:YIUO… - -

Columns: log time, fetch status, size, URI, discovery path, via, MIME type, worker
thread, fetch timestamp + duration, content digest, source tag, annotations
(absent in 2005 logs), extra-info JSON (optional, Heritrix 3 ``logExtraInfo``).

:func:`read_crawl_log` yields one frozen :class:`CrawlLogEntry` per line. A line that
is not a crawl.log line raises :class:`~warckit.errors.ParseError` naming its line
number (strict, the default) or is reported through ``on_warning`` and skipped
(``lenient=True``).

Example:
    >>> e = parse_line('2007-12-27T12:51:31.991Z   200        242 http://netarkivet.dk/a.gif '
    ...     'E http://netarkivet.dk/ image/gif #019 20071227125131946+17 '
    ...     'sha1:LMIW33PQDYKCP74JCOMX5QEPV5BU4YMM - duplicate:"x.arc,57084",content-size:491')
    >>> e.status, e.size, e.duplicate.kind, e.duplicate.arc_filename, e.duplicate.arc_offset
    (200, 242, 'arc-reference', 'x.arc', 57084)
    >>> e.digest.canonical(), e.fetch_time.isoformat()
    ('sha1:LMIW33PQDYKCP74JCOMX5QEPV5BU4YMM', '2007-12-27T12:51:31.946000+00:00')
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, Any, cast

import orjson

from ..errors import Issue, ParseError
from ..io.sources import InputLike, open_source
from ..record.digests import Digest

__all__ = [
    "IDENTICAL_PAYLOAD_DIGEST",
    "SERVER_NOT_MODIFIED",
    "CrawlLogEntry",
    "Duplicate",
    "parse_fetch_timestamp",
    "parse_line",
    "read_crawl_log",
    "split_annotations",
]

#: Revisit profile names (as :meth:`warckit.write.guided.WarcWriter.revisit` takes them).
IDENTICAL_PAYLOAD_DIGEST = "identical-payload-digest"
SERVER_NOT_MODIFIED = "server-not-modified"

WarningHandler = Callable[[Issue], None]

# Column 1: ArchiveUtils.getLog17Date, ISO 8601 UTC with milliseconds.
_LOG_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?Z\Z")
# Column 9: yyyyMMddHHmmss[SSS] "+" duration in ms (the docs say ";", the code writes "+").
_FETCH = re.compile(r"(\d{14})(\d{0,3})(?:[+;](-?\d+))?\Z")
# Column 2: HTTP status, 1 (DNS), 0 or a negative Heritrix code.
_STATUS = re.compile(r"-?\d+\Z")
# An ARC URL-record line that wraps a crawl.log stored in a metadata ARC
# (NetarchiveSuite: ``metadata://…/crawl.log?heritrixVersion=… IP 20071206233602 text/plain 19882``).
_ARC_HEADER = re.compile(r"\S+://\S+ \S+ \d{12,18} \S+ -?\d+\s*\Z")
# Bare base32 SHA-1 (pre-2007 logs and DeDuplicator): 32 characters A-Z2-7.
_BARE_SHA1 = re.compile(r"[A-Z2-7]{32}\Z")
# Old DeDuplicator / NetarchiveSuite reference to the original: duplicate:"<arc>,<offset>".
_ARC_REF = re.compile(r'(?:de)?duplicate:"([^"]*?)(?:,(-?\d+))?"\Z')

# Annotation → (kind, profile). Heritrix 3 ≥ 2013-11 (``duplicate:…``), 3.0-3.1
# (``warcRevisit:…``), DeDuplicator (``Revisit:IdenticalPayloadDigest``).
_DUPLICATE_MARKERS: dict[str, tuple[str, str]] = {
    "duplicate:digest": ("digest", IDENTICAL_PAYLOAD_DIGEST),
    "duplicate:server-not-modified": ("server-not-modified", SERVER_NOT_MODIFIED),
    "duplicate:uriagnosticdigest": ("uri-agnostic", IDENTICAL_PAYLOAD_DIGEST),
    "warcrevisit:digest": ("digest", IDENTICAL_PAYLOAD_DIGEST),
    "warcrevisit:notmodified": ("server-not-modified", SERVER_NOT_MODIFIED),
    "warcrevisit:urlagnosticdigest": ("uri-agnostic", IDENTICAL_PAYLOAD_DIGEST),
    "warcrevisit:uriagnosticdigest": ("uri-agnostic", IDENTICAL_PAYLOAD_DIGEST),
    "revisit:identicalpayloaddigest": ("digest", IDENTICAL_PAYLOAD_DIGEST),
    "revisit:servernotmodified": ("server-not-modified", SERVER_NOT_MODIFIED),
}


@dataclass(frozen=True, slots=True)
class Duplicate:
    """What a duplicate annotation says about the original capture.

    Attributes:
        kind: ``"digest"`` (same URL, same payload), ``"uri-agnostic"`` (same payload,
            any URL), ``"server-not-modified"`` (HTTP 304 answered from history) or
            ``"arc-reference"`` (old DeDuplicator: the original's ARC file and offset).
        profile: The WARC revisit profile: ``"identical-payload-digest"`` or
            ``"server-not-modified"``.
        annotation: The annotation as written.
        arc_filename: The original's ARC file (``arc-reference`` only).
        arc_offset: The original's offset in that file (``arc-reference`` only).
        refers_to_uri: The original's URI from the extra-info JSON
            (DeDuplicator ``RevisitRefersToURI``), if given.
        refers_to_date: The original's capture date from the extra-info JSON
            (``RevisitRefersToDate``), as written.
    """

    kind: str
    profile: str
    annotation: str
    arc_filename: str | None = None
    arc_offset: int | None = None
    refers_to_uri: str | None = None
    refers_to_date: str | None = None


@dataclass(frozen=True, slots=True)
class CrawlLogEntry:
    """One crawl.log line.

    Attributes:
        line_number: 1-based line number in the source.
        log_time: Column 1: when the line was logged (UTC).
        status: Column 2: HTTP status, ``1`` for DNS, ``0``/negative Heritrix codes.
        size: Column 3: content size in bytes, ``None`` for ``-``.
        url: Column 4: the URI.
        discovery_path: Column 5: hop codes (``""`` for seeds, written ``-``).
        via: Column 6: the referring URI, ``None`` for ``-``.
        mime: Column 7: the (truncated) content type, ``None`` for ``-``.
        thread: Column 8: worker thread (``#014``), ``None`` for ``-``.
        fetch_time: Column 9: fetch start (UTC, millisecond precision), ``None`` for ``-``.
        fetch_duration_ms: Column 9: fetch duration in milliseconds.
        digest: Column 10: the content digest, labelled (bare base32 values become
            ``sha1``), ``None`` for ``-``.
        source_tag: Column 11: the seed's source tag, ``None`` for ``-``.
        annotations: Column 12: the annotations (quoted values kept whole).
        extra: Column 13: the extra-info JSON object, ``None`` when absent.
        duplicate: What a duplicate annotation says, ``None`` for a non-duplicate.
        raw: The line as read (without the line break).
    """

    line_number: int
    log_time: datetime
    status: int
    size: int | None
    url: str
    discovery_path: str
    via: str | None
    mime: str | None
    thread: str | None
    fetch_time: datetime | None
    fetch_duration_ms: int | None
    digest: Digest | None
    source_tag: str | None
    annotations: tuple[str, ...]
    extra: dict[str, Any] | None = field(default=None, hash=False)
    duplicate: Duplicate | None = None
    raw: str = field(default="", compare=False, repr=False)

    @property
    def is_duplicate(self) -> bool:
        """True when an annotation marks the fetch as a duplicate of an earlier capture."""
        return self.duplicate is not None

    @property
    def capture_time(self) -> datetime:
        """The fetch time, or the log time for lines that were not fetched."""
        return self.fetch_time or self.log_time

    def annotation_value(self, name: str) -> str | None:
        """The value of the first ``name:value`` (or ``name=value``) annotation, or ``None``."""
        for a in self.annotations:
            for sep in (":", "="):
                if a.startswith(name + sep):
                    return a[len(name) + 1 :]
        return None

    @property
    def content_size(self) -> int | None:
        """``content-size:N`` annotation (bytes incl. headers) or extra-info ``contentSize``."""
        value = self.annotation_value("content-size")
        if value is None and self.extra is not None:
            cs = self.extra.get("contentSize")
            value = str(cs) if cs is not None else None
        return int(value) if value is not None and value.isdigit() else None

    @property
    def attempts(self) -> int | None:
        """Fetch attempts from an ``Nt`` annotation (``3t``), or ``None``."""
        for a in self.annotations:
            if len(a) >= 2 and a[-1] == "t" and a[:-1].isdigit():
                return int(a[:-1])
        return None


def split_annotations(text: str) -> tuple[str, ...]:
    """Split column 12 on commas outside double quotes.

    ``duplicate:"file.arc,123",content-size:491`` is two annotations, not three.
    """
    if text in ("", "-"):
        return ()
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return tuple(a for a in out if a)


def parse_fetch_timestamp(text: str) -> tuple[datetime, int | None] | None:
    """Parse column 9 (``20110623171208574+225``) into (UTC time, duration ms).

    Returns:
        ``None`` for text that is not a fetch timestamp.
    """
    m = _FETCH.match(text)
    if m is None:
        return None
    digits, millis, duration = m.groups()
    try:
        when = datetime(
            int(digits[0:4]), int(digits[4:6]), int(digits[6:8]), int(digits[8:10]),
            int(digits[10:12]), int(digits[12:14]), int(millis.ljust(3, "0")) * 1000,
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None
    return when, int(duration) if duration is not None else None


def _parse_log_time(text: str) -> datetime | None:
    m = _LOG_TIME.match(text)
    if m is None:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s),
                        int((frac or "0").ljust(6, "0")), tzinfo=timezone.utc)
    except ValueError:
        return None


def _parse_digest(text: str) -> Digest | None:
    if text == "-":
        return None
    if ":" in text:
        d = Digest.parse(text)
        return d
    if _BARE_SHA1.match(text.upper()):
        # Quirk: logs before ~2007 and DeDuplicator write bare base32 SHA-1 values.
        return Digest("sha1", text.upper(), "")
    raise ValueError(f"digest {text!r} has no label and is not a base32 SHA-1")


def _duplicate(annotations: tuple[str, ...], extra: dict[str, Any] | None) -> Duplicate | None:
    ref_uri = ref_date = None
    if extra is not None:
        u, d = extra.get("RevisitRefersToURI"), extra.get("RevisitRefersToDate")
        ref_uri = str(u) if u is not None else None
        ref_date = str(d) if d is not None else None
    for a in annotations:
        marker = _DUPLICATE_MARKERS.get(a.lower())
        if marker is not None:
            kind, profile = marker
            if extra is not None and str(extra.get("RevisitProfile", "")).endswith(SERVER_NOT_MODIFIED):
                profile = SERVER_NOT_MODIFIED
            return Duplicate(kind, profile, a, refers_to_uri=ref_uri, refers_to_date=ref_date)
        m = _ARC_REF.match(a)
        if m is not None:
            name, off = m.groups()
            return Duplicate("arc-reference", IDENTICAL_PAYLOAD_DIGEST, a, name or None,
                             int(off) if off is not None else None, ref_uri, ref_date)
    return None


def _dash(text: str) -> str | None:
    return None if text == "-" else text


def parse_line(line: str, line_number: int = 0) -> CrawlLogEntry:
    """Parse one crawl.log line (without its line break).

    Args:
        line: The line.
        line_number: Its 1-based number, kept in the entry.

    Raises:
        ValueError: the line is not a crawl.log line (the message says which column).
    """
    text = line.rstrip("\r\n")
    parts = text.split(None, 11)
    if len(parts) < 11:
        raise ValueError(f"{len(parts)} columns, a crawl.log line has 11 to 13")
    log_time = _parse_log_time(parts[0])
    if log_time is None:
        raise ValueError(f"column 1 (log time) {parts[0]!r} is not an ISO 8601 UTC time")
    if not _STATUS.match(parts[1]):
        raise ValueError(f"column 2 (status) {parts[1]!r} is not an integer")
    status = int(parts[1])
    if parts[2] == "-":
        size = None
    elif parts[2].isdigit():
        size = int(parts[2])
    else:
        raise ValueError(f"column 3 (size) {parts[2]!r} is neither a number nor '-'")
    fetch_time: datetime | None = None
    duration: int | None = None
    if parts[8] != "-":
        fetched = parse_fetch_timestamp(parts[8])
        if fetched is None:
            raise ValueError(f"column 9 (fetch timestamp) {parts[8]!r} is not yyyyMMddHHmmssSSS+ms")
        fetch_time, duration = fetched
    try:
        digest = _parse_digest(parts[9])
    except ValueError as exc:  # HeaderParseError is a ValueError too
        raise ValueError(f"column 10 (digest): {exc}") from None
    annotations: tuple[str, ...] = ()
    extra: dict[str, Any] | None = None
    if len(parts) == 12:
        rest = parts[11].strip()
        ann_text, json_text = rest, ""
        if rest.endswith("}"):
            # The extra-info JSON is the last column; annotations never contain " {".
            cut = rest.find(" {")
            if cut >= 0:
                ann_text, json_text = rest[:cut].rstrip(), rest[cut + 1 :]
            elif rest.startswith("{"):
                raise ValueError("extra-info JSON without an annotations column")
        annotations = split_annotations(ann_text)
        if json_text:
            try:
                loaded = orjson.loads(json_text)
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"column 13 (extra info) is not JSON: {exc}") from None
            if not isinstance(loaded, dict):
                raise ValueError("column 13 (extra info) is not a JSON object")
            extra = loaded
    return CrawlLogEntry(
        line_number=line_number,
        log_time=log_time,
        status=status,
        size=size,
        url=parts[3],
        discovery_path="" if parts[4] == "-" else parts[4],
        via=_dash(parts[5]),
        mime=_dash(parts[6]),
        thread=_dash(parts[7]),
        fetch_time=fetch_time,
        fetch_duration_ms=duration,
        digest=digest,
        source_tag=_dash(parts[10]),
        annotations=annotations,
        extra=extra,
        duplicate=_duplicate(annotations, extra),
        raw=text,
    )


def read_crawl_log(
    source: str | os.PathLike[str] | IO[bytes] | IO[str],
    *,
    lenient: bool = False,
    on_warning: WarningHandler | None = None,
    name: str | None = None,
) -> Iterator[CrawlLogEntry]:
    """Yield the entries of a crawl.log.

    Blank lines are skipped. Quirk: a first line that is an ARC URL-record header
    (a crawl.log extracted from a NetarchiveSuite metadata ARC) is skipped and
    reported as an ``info`` issue.

    Args:
        source: A path (``-``: standard input), or a binary or text stream.
        lenient: Report a malformed line through *on_warning* (code
            ``"crawl-log-line"``, severity ``"error"``) and skip it, instead of raising.
        on_warning: Receives an :class:`~warckit.errors.Issue` per skipped line.
        name: Source name for messages (default: the path).

    Raises:
        ParseError: strict mode and a malformed line; ``offset`` is the byte offset of
            the line and the message names its line number.
    """
    opened = None
    if isinstance(source, io.TextIOBase):
        stream: IO[Any] = cast("IO[str]", source)
        name = name or getattr(source, "name", None) or "<stream>"
    else:
        opened = open_source(cast("InputLike", source), name=name)
        stream, name = opened.file, opened.name
    try:
        offset = 0
        for number, raw in enumerate(stream, 1):
            data: bytes = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogateescape")
            line_offset = offset
            offset += len(data)
            # Heritrix writes UTF-8; undecodable bytes are kept as surrogates.
            line = data.decode("utf-8", "surrogateescape").rstrip("\r\n")
            if not line.strip():
                continue
            try:
                yield parse_line(line, number)
            except ValueError as exc:
                if number == 1 and _ARC_HEADER.match(line):
                    if on_warning is not None:
                        on_warning(Issue("arc-header-line", "line 1 is an ARC URL-record header "
                                         "(crawl.log taken from a metadata ARC); skipped", "info",
                                         offset=line_offset, source=name))
                    continue
                message = f"line {number}: {exc}"
                if not lenient:
                    raise ParseError(message, offset=line_offset, source=name,
                                     snippet=data[:60]) from None
                if on_warning is not None:
                    on_warning(Issue("crawl-log-line", f"{message}; line skipped", "error",
                                     offset=line_offset, source=name))
    finally:
        if opened is not None:
            opened.close()


def iter_text_lines(text: str) -> Iterator[CrawlLogEntry]:
    """Parse crawl.log lines held in a string (strict); convenience for tests and docs."""
    return read_crawl_log(io.BytesIO(text.encode("utf-8")), name="<string>")
