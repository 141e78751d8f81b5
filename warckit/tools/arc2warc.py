"""ARC → WARC: ARC v1/v2 files (plain or gzip) become valid WARC 1.1 (or 1.0) files.

For each ARC file:

* the output's first warcinfo names the source ARC; a second ``warcinfo`` record
  keeps the ARC version block as stored (the ``filedesc://`` line and its block,
  including Heritrix's ``<arcmetadata>`` XML), ``Content-Type: text/plain``;
* an ``http(s)`` record whose block starts with an HTTP status line becomes a
  ``response`` (HTTP head kept, body byte for byte), every other record (``dns:``,
  ``filedesc:``/``metadata:`` URLs, HTTP records without an HTTP head) a ``resource``
  with the ARC's content type;
* digests are computed by the guided writer; the ARC archive-date becomes the
  WARC-Date; the ARC IP becomes WARC-IP-Address;
* each record keeps its source in two extension fields, ``WARC-ARC-Filename`` (the
  ARC file name) and ``WARC-ARC-Offset`` (the ARC record's offset in that file).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .._util.dates import parse_arc_date
from ..errors import Issue, UsageError, ValidationError
from ..io.remote import is_url
from ..io.sources import open_source
from ..read.reader import open_archive
from ..record.records import WarcRecord
from ..write.guided import WarcWriter
from ..write.rolling import DEFAULT_MAX_BYTES

__all__ = ["ARC_FILENAME_FIELD", "ARC_OFFSET_FIELD", "Arc2WarcStats", "arc_to_warc"]

#: Extension field naming the ARC file a converted record came from.
ARC_FILENAME_FIELD = "WARC-ARC-Filename"
#: Extension field holding the ARC record's offset in that file.
ARC_OFFSET_FIELD = "WARC-ARC-Offset"


@dataclass
class Arc2WarcStats:
    """Counts from :func:`arc_to_warc`.

    Attributes:
        arc_files: ARC files converted.
        records: ARC records read (version blocks included).
        responses: ``response`` records written.
        resources: ``resource`` records written.
        version_blocks: ARC version blocks kept in ``warcinfo`` records.
        issues: Recoveries reported while reading (lenient mode).
        files: WARC files written.
    """

    arc_files: int = 0
    records: int = 0
    responses: int = 0
    resources: int = 0
    version_blocks: int = 0
    issues: int = 0
    files: list[str] = field(default_factory=list)


def _ip(value: str | None) -> str | None:
    if not value or value == "-":
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return None
    return value


def _clean_uri(url: str) -> str:
    """Quirk: ARC URLs may contain spaces (warcio example-space-in-url.arc); a WARC URI
    may not, so whitespace and control characters are percent-encoded."""
    if not any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return url
    return "".join(f"%{ord(c):02X}" if c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F else c
                   for c in url)


def _source_time(path: str) -> datetime:
    """When *path* was last modified: the date of records before any ARC date is known.

    For a URL, the store's Last-Modified when it gives one (S3), else now.
    """
    if is_url(path):
        with open_source(path) as source:
            modified = getattr(source.file, "modified", None)
        return modified if isinstance(modified, datetime) else datetime.now(timezone.utc)
    return datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)


def _date(record: WarcRecord, fallback: datetime) -> datetime:
    arc_date = parse_arc_date(getattr(record, "arc_date", "") or "")
    return arc_date or fallback


def _mime(record: WarcRecord) -> str:
    mime = (getattr(record, "arc_fields", {}) or {}).get("mime") or ""
    if not mime or mime in ("-", "no-type") or any(c.isspace() for c in mime) or "/" not in mime:
        return "application/octet-stream"
    return mime


def _prefix_for(path: str) -> str:
    name = os.path.basename(path)
    for ext in (".arc.gz", ".arc.open", ".arc.gz.open", ".arc", ".gz"):
        if name.lower().endswith(ext):
            return name[: -len(ext)] or "ARC"
    return name or "ARC"


def _convert_one(record: WarcRecord, writer: WarcWriter, arc_name: str, fallback: datetime,
                 stats: Arc2WarcStats) -> None:
    url = _clean_uri(record.target_uri or "")
    source = [(ARC_FILENAME_FIELD, arc_name), (ARC_OFFSET_FIELD, str(record.offset))]
    date = _date(record, fallback)
    ip = _ip(record.headers.first("WARC-IP-Address"))
    http = None
    if url.lower().startswith(("http:", "https:")) and record.content_length > 0:
        http = record.http
    if http is not None and http.is_response:
        raw = http.raw
        if not raw.endswith((b"\r\n\r\n", b"\n\n")):
            http = None
        else:
            try:
                writer.response(url, raw, record.payload_stream(), date=date, ip=ip,
                                body_length=record.content_length - len(raw),
                                extra_headers=source)
                stats.responses += 1
                return
            except ValidationError:
                # Quirk: an HTTP head the writer refuses (e.g. a URL the rules reject
                # with a response); fall back to a resource below (the block unread).
                http = None
    writer.resource(url if url else f"urn:arc:{arc_name}:{record.offset}", record.raw_stream(),
                    content_type=_mime(record), date=date, ip=ip,
                    body_length=record.content_length, extra_headers=source)
    stats.resources += 1


def arc_to_warc(
    sources: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    version: str = "1.1",
    compression: str = "gzip",
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    prefix: str | None = None,
) -> Arc2WarcStats:
    """Convert ARC files to WARC files, one output series per input ARC.

    Args:
        sources: ARC files (v1 or v2, plain or gzip).
        out_dir: Output directory (created if missing).
        version: ``"1.1"`` (default) or ``"1.0"``.
        compression: ``"gzip"``, ``"zstd"`` or ``"none"``.
        max_bytes: Roll output files at this size.
        lenient: Read damaged ARC files leniently (recoveries go to *on_warning*).
        on_warning: Receives each :class:`~warckit.errors.Issue`.
        prefix: Output file-name prefix (default: the ARC's name without extension).

    Raises:
        UsageError: an input is a WARC file, not an ARC file.
        ParseError: strict reading and a damaged ARC file.
    """
    stats = Arc2WarcStats()
    os.makedirs(out_dir, exist_ok=True)

    def warn(issue: Issue) -> None:
        stats.issues += 1
        if on_warning is not None:
            on_warning(issue)

    for src in sources:
        path = os.fspath(src)
        arc_name = os.path.basename(path)
        info = [("description", f"converted from the ARC file {arc_name} by warckit arc2warc"),
                ("source-arc-file", arc_name)]
        writer = WarcWriter(out_dir, prefix=prefix or _prefix_for(path), version=version,
                            compression=compression, max_bytes=max_bytes, warcinfo=info,
                            template="{prefix}-{serial:05d}{ext}" if prefix is None
                            else "{prefix}-{timestamp}-{serial:05d}{ext}")
        fallback = _source_time(path)
        try:
            with open_archive(path, lenient=lenient, on_warning=warn) as reader:
                for record in reader:
                    if record.format != "arc":
                        raise UsageError(f"{arc_name} is a WARC file, not an ARC file")
                    stats.records += 1
                    url = record.target_uri or ""
                    if record.type == "warcinfo" and url.startswith("filedesc:"):
                        fallback = _date(record, fallback)
                        block = record.raw_head + record.read_block()
                        writer.warcinfo(block=block, content_type="text/plain")
                        stats.version_blocks += 1
                        continue
                    _convert_one(record, writer, arc_name, fallback, stats)
        finally:
            writer.close()
        stats.arc_files += 1
        stats.files += writer.files
    return stats
