"""The original captures a dedup index learns from its inputs: WARC/ARC files, CDX
indexes and crawl.logs.

Each reader yields one :data:`Capture` per original (the keyword arguments of
:meth:`warckit.tools.dedup.DedupIndex.add`); :func:`detect_input` tells the three kinds
apart. Nothing here knows the index's storage.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from .._util.dates import format_warc_date, parse_arc_date
from ..cdx.formats import CdxEntry, CdxjEntry, ClassicCdxEntry, detect_format
from ..cdx.formats import parse_line as parse_cdx_line
from ..errors import Issue, ParseError, UsageError
from ..io.compression import sniff_compression
from ..io.sources import InputLike, open_source
from ..read.reader import open_archive
from ..record.digests import Digest
from ..record.payload import PayloadDigester
from ..record.records import WarcRecord
from .crawllog import parse_line as parse_crawl_log_line
from .crawllog import read_crawl_log

__all__ = [
    "Capture",
    "archive_captures",
    "cdx_captures",
    "crawl_log_captures",
    "detect_input",
    "payload_digest_of",
    "record_capture",
]

#: One original capture: the keyword arguments of :meth:`DedupIndex.add`.
Capture = dict[str, Any]

#: Bytes :func:`detect_input` looks at.
_HEAD = 4096


def detect_input(path: str | os.PathLike[str]) -> str:
    """Guess what *path* holds: ``"archive"`` (WARC/ARC), ``"cdx"`` or ``"crawllog"``.

    Raises:
        UsageError: the file is none of these.
    """
    with open_source(path) as source:
        head = source.peek(_HEAD)
    compression = sniff_compression(head)
    if compression == "gzip":
        name = os.fspath(path).lower()
        if ".cdx" in name or name.endswith(".idx"):
            return "cdx"
        return "archive"
    if compression == "zstd" or head.startswith((b"WARC/", b"filedesc:")):
        return "archive"
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    lines = [ln for ln in head.decode("utf-8", "replace").splitlines()[:3] if ln.strip()]
    for ln in lines[:2]:
        try:
            parse_crawl_log_line(ln)
            return "crawllog"
        except ValueError:
            continue
    try:
        detect_format(first)
        return "cdx"
    except ParseError:
        pass
    if first.startswith(("http:", "https:", "dns:")):  # an ARC without a version block
        return "archive"
    raise UsageError(f"{os.fspath(path)}: not a WARC/ARC file, CDX index or crawl.log")


def payload_digest_of(record: WarcRecord, algorithm: str = "sha1") -> Digest:
    """Compute a record's payload digest (:class:`~warckit.record.payload.PayloadDigester`):
    the HTTP entity with chunking removed (the body as stored when its chunked coding is
    not well formed); the whole block when the record holds no HTTP message."""
    http = record.http if record.has_http else None
    d = PayloadDigester(algorithm, chunked=http is not None and http.chunked)
    stream = record.payload_stream() if http is not None else record.raw_stream()
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        d.update(chunk)
    return d.digest()


def _dash(value: str | None) -> str | None:
    return None if value in (None, "", "-") else value


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    return int(text) if text.isdigit() else None


# -- WARC / ARC files -------------------------------------------------------------------


def record_capture(record: WarcRecord, *, filename: str | None = None) -> Capture | None:
    """The capture a record read by warckit is, or ``None`` if it is no original.

    Originals are ``response`` and ``resource`` records (and ARC records) with a
    payload. The payload digest is taken from WARC-Payload-Digest, or computed
    (de-chunked) when the record has none. Revisits are never originals.
    """
    if record.type not in ("response", "resource") or record.content_length == 0:
        return None
    url = record.target_uri
    if not url:
        return None
    digest: Digest | None = record.payload_digest if record.format == "warc" else None
    if digest is None:
        digest = payload_digest_of(record)
    http = record.http if record.has_http else None
    date = record.date_string or ""
    if record.format == "arc":
        arc_date = parse_arc_date(getattr(record, "arc_date", ""))
        date = format_warc_date(arc_date, precision="seconds") if arc_date else date
    return {
        "url": url, "digest": digest, "date": date, "record_id": record.record_id,
        "filename": filename if filename is not None else os.path.basename(record.source or ""),
        "offset": record.offset, "length": record.length,
        "mime": http.mime_type if http is not None else record.content_type,
        "status": http.status if http is not None and http.is_response else None,
        "source": record.format,
    }


def archive_captures(path: str | os.PathLike[str], *, lenient: bool = False,
                     on_warning: Callable[[Issue], None] | None = None) -> Iterator[Capture]:
    """The original captures of a WARC or ARC file."""
    name = os.path.basename(os.fspath(path))
    with open_archive(path, lenient=lenient, on_warning=on_warning) as reader:
        for record in reader:
            capture = record_capture(record, filename=name)
            if capture is not None:
                yield capture


# -- CDX indexes ------------------------------------------------------------------------


@contextmanager
def _open_text(path: InputLike) -> Iterator[IO[str]]:
    """*path* as text (UTF-8, undecodable bytes kept as surrogates), gunzipped if gzip."""
    with open_source(path) as source:
        binary: Any = source.file
        if sniff_compression(source.peek(4)) == "gzip":
            binary = gzip.GzipFile(fileobj=binary, mode="rb")
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape")
        try:
            yield text
        finally:
            text.detach()
            if binary is not source.file:
                binary.close()


def cdx_captures(path: str | os.PathLike[str]) -> Iterator[Capture]:
    """The captures listed in a CDX-11/CDX-9, CDXJ or new-style CDX index.

    Revisit lines (``warc/revisit``) are not originals and are skipped.

    Raises:
        ParseError: a line is not an index line; the message names its number.
    """
    with _open_text(path) as f:
        fmt = None
        number = offset = 0
        for line in f:
            number += 1
            here = offset
            offset += len(line.encode("utf-8", "surrogateescape"))
            line = line.rstrip("\r\n")
            if not line:
                continue
            try:
                if fmt is None:
                    fmt = detect_format(line)
                    if line.startswith((" CDX ", "!warckit-cdx ")):
                        continue
                entry = parse_cdx_line(line, fmt)
            except ParseError as exc:
                raise ParseError(f"line {number}: {exc.message}", source=os.fspath(path),
                                 offset=here) from None
            capture = _cdx_capture(entry)
            if capture is not None:
                yield capture


def _cdx_capture(entry: CdxEntry | CdxjEntry | ClassicCdxEntry) -> Capture | None:
    if isinstance(entry, CdxEntry):
        if entry.type not in ("response", "resource", "arc-response", "arc-resource"):
            return None
        extra = entry.extra
        return {"url": entry.url, "digest": entry.digest, "date": entry.timestamp,
                "record_id": extra.get("rid") or extra.get("record_id"),
                "filename": entry.filename, "offset": entry.offset,
                "length": _opt_int(extra.get("length")), "mime": extra.get("mime"),
                "status": _opt_int(extra.get("status")), "source": "cdx"}
    if isinstance(entry, CdxjEntry):
        fields = entry.fields
        if fields.get("mime") == "warc/revisit" or fields.get("type") == "revisit":
            return None
        return {"url": str(fields.get("url", "")), "digest": str(fields.get("digest", "-")),
                "date": entry.timestamp,
                "record_id": fields.get("record_id") or fields.get("rid"),
                "filename": fields.get("filename"), "offset": _opt_int(fields.get("offset")),
                "length": _opt_int(fields.get("length")), "mime": fields.get("mime"),
                "status": _opt_int(fields.get("status")), "source": "cdx"}
    if entry.get("m") == "warc/revisit":
        return None
    return {"url": entry.original_url, "digest": entry.get("k") or "-",
            "date": entry.timestamp, "filename": _dash(entry.get("g")),
            "offset": _opt_int(entry.get("V")), "length": _opt_int(entry.get("S")),
            "mime": _dash(entry.get("m")), "status": _opt_int(entry.status), "source": "cdx"}


# -- crawl.logs -------------------------------------------------------------------------


def crawl_log_captures(path: str | os.PathLike[str], *, lenient: bool = False,
                       on_warning: Callable[[Issue], None] | None = None) -> Iterator[Capture]:
    """The original captures a crawl.log records.

    Originals are fetched lines (status > 0, with a digest) that carry no duplicate
    annotation; their date is the fetch time at seconds precision (the WARC-Date
    Heritrix gave the capture). The file name and offset come from the extra-info
    JSON (``warcFilename``/``warcFileOffset``, ``arcFilename``) when present.
    """
    for e in read_crawl_log(path, lenient=lenient, on_warning=on_warning):
        if e.is_duplicate or e.digest is None or e.fetch_time is None or e.status <= 0:
            continue
        extra = e.extra or {}
        yield {"url": e.url, "digest": e.digest, "date": e.fetch_time,
               "filename": extra.get("warcFilename") or extra.get("arcFilename"),
               "offset": _opt_int(extra.get("warcFileOffset")), "mime": e.mime,
               "status": e.status if e.status >= 100 else None, "source": "crawllog"}
