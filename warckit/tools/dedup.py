"""Deduplication index (the DeDuplicator workflow) in an embedded SQLite database.

The index remembers *original captures*: the payload digest, URL, date, record ID and
location of every full capture seen in WARC/ARC files, CDX indexes or crawl.logs.
Given a new capture it answers "is this payload already archived, and where?":

* :meth:`DedupIndex.lookup` prefers the same URL (exact string, then the same SURT
  key) and falls back to the digest alone (URI-agnostic), reporting which way it
  matched in :attr:`Original.match`;
* :class:`DedupWriter` wraps a :class:`~warckit.write.guided.WarcWriter` and writes a
  ``revisit`` instead of a ``response`` when the payload is known;
* :func:`apply` rewrites a WARC so that only new or changed payloads are kept (the
  ARCO idea), replacing the other responses by revisits that keep their record IDs.

Example:
    >>> idx = DedupIndex()
    >>> idx.add(url="http://example.com/", digest="sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2",
    ...         date="2014-01-02T03:04:05Z", record_id="<urn:uuid:1>")
    True
    >>> o = idx.lookup("http://example.com/", "sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2")
    >>> o.record_id, o.match
    ('<urn:uuid:1>', 'url')
    >>> idx.lookup("http://other.example/", "sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2").match
    'digest'
"""

from __future__ import annotations

import base64
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .._util.dates import format_warc_date, parse_arc_date, parse_warc_date
from ..errors import Issue, ParseError, UrlError, UsageError
from ..read.reader import open_archive
from ..record.digests import Digest, Digester
from ..record.headers import Headers
from ..record.http import parse_http_head
from ..record.records import WarcRecord

__all__ = [
    "ApplyStats",
    "DedupIndex",
    "DedupStats",
    "DedupWriter",
    "Original",
    "apply",
    "detect_input",
    "normalize_digest",
    "payload_digest_of",
]

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS capture (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL,      -- normalised: sha1:BASE32 (other algorithms: algo:hex)
    url TEXT NOT NULL,         -- the original URL as captured
    urlkey TEXT NOT NULL,      -- its SURT key (cdx style); the URL itself if it has none
    date TEXT NOT NULL,        -- the original's WARC-Date as it would be referred to
    sortdate TEXT NOT NULL,    -- the same time as YYYY-MM-DDTHH:MM:SS.ffffffZ, for ordering
    record_id TEXT,            -- <urn:uuid:…> (NULL for ARC / CDX / crawl.log originals)
    filename TEXT,
    offset INTEGER,
    length INTEGER,
    mime TEXT,
    status INTEGER,
    source TEXT NOT NULL,      -- warc, arc, cdx, crawllog, writer
    UNIQUE (digest, url, sortdate)
);
CREATE INDEX IF NOT EXISTS capture_by_digest ON capture (digest, sortdate);
CREATE INDEX IF NOT EXISTS capture_by_url ON capture (url, digest, sortdate);
CREATE INDEX IF NOT EXISTS capture_by_key ON capture (urlkey, digest, sortdate);
CREATE INDEX IF NOT EXISTS capture_by_location ON capture (filename, offset);
"""

_COLUMNS = "url, date, digest, record_id, filename, offset, length, mime, status, source"


@dataclass(frozen=True, slots=True)
class Original:
    """An original capture found in the index.

    Attributes:
        url: The original's URL (WARC-Refers-To-Target-URI).
        date: The original's WARC-Date (WARC-Refers-To-Date).
        digest: Its payload digest, normalised (``sha1:BASE32``).
        record_id: Its WARC-Record-ID (WARC-Refers-To), ``None`` when unknown.
        filename: File holding it, when known.
        offset: Its offset in that file, when known.
        length: Its length in that file, when known.
        mime: Its media type, when known.
        status: Its HTTP status, when known.
        source: Where the index learned of it: ``warc``, ``arc``, ``cdx``, ``crawllog``
            or ``writer``.
        match: How the lookup matched: ``"url"`` (same URL string), ``"urlkey"``
            (same canonical URL), ``"digest"`` (URI-agnostic) or ``"location"``
            (file name and offset).
    """

    url: str
    date: str
    digest: str
    record_id: str | None = None
    filename: str | None = None
    offset: int | None = None
    length: int | None = None
    mime: str | None = None
    status: int | None = None
    source: str = ""
    match: str = ""


def normalize_digest(value: Digest | str | None) -> str | None:
    """Normalise a digest for comparison: ``sha1:BASE32``; other algorithms ``algo:hex``.

    Accepts labelled values in any encoding (base32, hex in either case, base64) and
    bare base32 SHA-1 values (CDX ``k`` field, pre-2007 crawl.logs).

    Returns:
        ``None`` for ``-``, empty or undecodable values.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text in ("", "-"):
            return None
        if ":" not in text:
            if len(text) == 32:
                text = "sha1:" + text.upper()
            elif len(text) == 40:
                text = "sha1:" + text
            else:
                return None
        try:
            value = Digest.parse(text)
        except ParseError:
            return None
    raw = value.raw
    if raw is None:
        return None
    if value.algorithm == "sha1":
        return "sha1:" + base64.b32encode(raw).decode("ascii")
    return f"{value.algorithm}:{raw.hex()}"


def _urlkey(url: str) -> str:
    from ..url import surt

    try:
        return surt(url, style="cdx")
    except (UrlError, ValueError):
        return url


def _sql_text(text: str | None) -> str | None:
    """*text* as SQLite can store it (UTF-8): bytes a file did not decode, kept as
    surrogates, become ``%XX`` (how a URL spells a raw byte), other lone surrogates U+FFFD."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(
            (f"%{ord(c) - 0xDC00:02X}" if 0xDC80 <= ord(c) <= 0xDCFF else "\ufffd")
            if 0xD800 <= ord(c) <= 0xDFFF else c
            for c in text
        )
    return text


def _sortdate(date: datetime) -> str:
    return format_warc_date(date, precision="microseconds")


def _parse_any_date(text: str) -> datetime | None:
    text = text.strip()
    if text.isdigit():
        return parse_arc_date(text)
    return parse_warc_date(text)


def detect_input(path: str | os.PathLike[str]) -> str:
    """Guess what *path* holds: ``"archive"`` (WARC/ARC), ``"cdx"`` or ``"crawllog"``.

    Raises:
        UsageError: the file is none of these.
    """
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] == b"\x1f\x8b":
        name = os.fspath(path).lower()
        if ".cdx" in name or name.endswith(".idx"):
            return "cdx"
        return "archive"
    if head[:4] in (b"\x28\xb5\x2f\xfd", b"\x5d\x2a\x4d\x18") or head.startswith(
            (b"WARC/", b"filedesc:")):
        return "archive"
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    from .crawllog import parse_line

    lines = [ln for ln in head.decode("utf-8", "replace").splitlines()[:3] if ln.strip()]
    for ln in lines[:2]:
        try:
            parse_line(ln)
            return "crawllog"
        except ValueError:
            continue
    from ..cdx.formats import detect_format

    try:
        detect_format(first)
        return "cdx"
    except ParseError:
        pass
    if first.startswith(("http:", "https:", "dns:")):  # an ARC without a version block
        return "archive"
    raise UsageError(f"{os.fspath(path)}: not a WARC/ARC file, CDX index or crawl.log")


class DedupIndex:
    """An index of original captures by payload digest, in SQLite.

    Args:
        path: Database file (created if missing), or ``":memory:"`` (default).

    Not thread-safe; use one instance per thread.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = os.fspath(path)
        self._db = sqlite3.connect(self.path)
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif row[0] != SCHEMA_VERSION:
            raise UsageError(f"{self.path}: dedup database schema {row[0]}, this warckit "
                             f"reads schema {SCHEMA_VERSION}")
        self._db.commit()

    # -- lifecycle ------------------------------------------------------------------

    def commit(self) -> None:
        """Write pending additions to the database file."""
        self._db.commit()

    def close(self) -> None:
        """Commit and close."""
        self._db.commit()
        self._db.close()

    def __enter__(self) -> DedupIndex:  # noqa: PYI034 - Python 3.10 has no typing.Self
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM capture").fetchone()[0])

    # -- adding ---------------------------------------------------------------------

    def add(
        self,
        *,
        url: str,
        digest: Digest | str,
        date: datetime | str,
        record_id: str | None = None,
        filename: str | None = None,
        offset: int | None = None,
        length: int | None = None,
        mime: str | None = None,
        status: int | None = None,
        source: str = "api",
    ) -> bool:
        """Remember an original capture.

        The same capture (digest, URL, time) added twice is stored once; what the
        second addition knows and the first did not (record ID, location) is kept.

        Args:
            url: The captured URL.
            digest: Its payload digest (any encoding; bare base32 means SHA-1).
            date: Its WARC-Date (string as written, or a datetime: seconds precision).
            record_id: Its WARC-Record-ID.
            filename: The file holding it.
            offset: Its offset there.
            length: Its length there.
            mime: Its media type.
            status: Its HTTP status.
            source: A label for where it came from.

        Returns:
            False when the digest or date could not be understood (nothing stored).
        """
        norm = normalize_digest(digest)
        if norm is None:
            return False
        if isinstance(date, datetime):
            when: datetime | None = date
            date_text = format_warc_date(date, precision="seconds")
        else:
            date_text = date.strip()
            when = _parse_any_date(date_text)
            if when is not None and date_text.isdigit():
                date_text = format_warc_date(when, precision="seconds")
        if when is None:
            return False
        url, record_id, filename, mime, date_text, source = (  # type: ignore[assignment]
            _sql_text(t) for t in (url, record_id, filename, mime, date_text, source)
        )
        self._db.execute(
            "INSERT INTO capture (digest, url, urlkey, date, sortdate, record_id, filename, "
            "offset, length, mime, status, source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (digest, url, sortdate) DO UPDATE SET "
            "record_id = COALESCE(record_id, excluded.record_id), "
            "filename = COALESCE(filename, excluded.filename), "
            "offset = COALESCE(offset, excluded.offset), "
            "length = COALESCE(length, excluded.length), "
            "mime = COALESCE(mime, excluded.mime), status = COALESCE(status, excluded.status)",
            (norm, url, _urlkey(url), date_text, _sortdate(when), record_id, filename, offset,
             length, mime, status, source),
        )
        return True

    def add_record(self, record: WarcRecord, *, filename: str | None = None) -> bool:
        """Remember a record read by warckit if it is an original capture.

        Originals are ``response`` and ``resource`` records (and ARC records) with a
        payload. The payload digest is taken from WARC-Payload-Digest, or computed
        (de-chunked) when the record has none. Revisits are never originals.

        Returns:
            True when the record was added.
        """
        if record.type not in ("response", "resource") or record.content_length == 0:
            return False
        url = record.target_uri
        if not url:
            return False
        digest: Digest | None = record.payload_digest if record.format == "warc" else None
        if digest is None:
            digest = payload_digest_of(record)
        http = record.http if record.has_http else None
        date = record.date_string or ""
        if record.format == "arc":
            arc_date = parse_arc_date(getattr(record, "arc_date", ""))
            date = format_warc_date(arc_date, precision="seconds") if arc_date else date
        return self.add(
            url=url, digest=digest, date=date, record_id=record.record_id,
            filename=filename if filename is not None else os.path.basename(record.source or ""),
            offset=record.offset, length=record.length,
            mime=(http.mime_type if http is not None else record.content_type),
            status=http.status if http is not None and http.is_response else None,
            source=record.format,
        )

    def add_archive(self, path: str | os.PathLike[str], *, lenient: bool = False,
                    on_warning: Callable[[Issue], None] | None = None) -> int:
        """Add the original captures of a WARC or ARC file; return how many."""
        n = 0
        name = os.path.basename(os.fspath(path))
        with open_archive(path, lenient=lenient, on_warning=on_warning) as reader:
            for record in reader:
                if self.add_record(record, filename=name):
                    n += 1
        self._db.commit()
        return n

    def add_cdx(self, path: str | os.PathLike[str]) -> int:
        """Add the captures listed in a CDX-11/CDX-9, CDXJ or new-style CDX index.

        Revisit lines (``warc/revisit``) are not originals and are skipped.
        """
        from ..cdx.formats import CdxEntry, CdxjEntry, ClassicCdxEntry, detect_format, parse_line

        n = 0
        opener: Callable[..., Any] = open
        with open(path, "rb") as probe:
            if probe.read(2) == b"\x1f\x8b":
                import gzip

                opener = gzip.open
        with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
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
                    entry = parse_line(line, fmt)
                except ParseError as exc:
                    raise ParseError(f"line {number}: {exc.message}", source=os.fspath(path),
                                     offset=here) from None
                if isinstance(entry, CdxEntry):
                    if entry.type not in ("response", "resource", "arc-response", "arc-resource"):
                        continue
                    extra = entry.extra
                    ok = self.add(url=entry.url, digest=entry.digest, date=entry.timestamp,
                                  record_id=extra.get("rid") or extra.get("record_id"),
                                  filename=entry.filename, offset=entry.offset,
                                  length=_opt_int(extra.get("length")), mime=extra.get("mime"),
                                  status=_opt_int(extra.get("status")), source="cdx")
                elif isinstance(entry, CdxjEntry):
                    fields = entry.fields
                    if fields.get("mime") == "warc/revisit" or fields.get("type") == "revisit":
                        continue
                    ok = self.add(url=str(fields.get("url", "")), digest=str(fields.get("digest", "-")),
                                  date=entry.timestamp,
                                  record_id=fields.get("record_id") or fields.get("rid"),
                                  filename=fields.get("filename"), offset=_opt_int(fields.get("offset")),
                                  length=_opt_int(fields.get("length")), mime=fields.get("mime"),
                                  status=_opt_int(fields.get("status")), source="cdx")
                else:
                    assert isinstance(entry, ClassicCdxEntry)
                    if entry.get("m") == "warc/revisit":
                        continue
                    ok = self.add(url=entry.original_url, digest=entry.get("k") or "-",
                                  date=entry.timestamp, filename=_dash(entry.get("g")),
                                  offset=_opt_int(entry.get("V")), length=_opt_int(entry.get("S")),
                                  mime=_dash(entry.get("m")), status=_opt_int(entry.status),
                                  source="cdx")
                n += ok
        self._db.commit()
        return n

    def add_crawl_log(self, path: str | os.PathLike[str], *, lenient: bool = False,
                      on_warning: Callable[[Issue], None] | None = None) -> int:
        """Add the original captures a crawl.log records.

        Originals are fetched lines (status > 0, with a digest) that carry no duplicate
        annotation; their date is the fetch time at seconds precision (the WARC-Date
        Heritrix gave the capture). The file name and offset come from the extra-info
        JSON (``warcFilename``/``warcFileOffset``, ``arcFilename``) when present.
        """
        from .crawllog import read_crawl_log

        n = 0
        for e in read_crawl_log(path, lenient=lenient, on_warning=on_warning):
            if e.is_duplicate or e.digest is None or e.fetch_time is None or e.status <= 0:
                continue
            extra = e.extra or {}
            n += self.add(url=e.url, digest=e.digest, date=e.fetch_time,
                          filename=extra.get("warcFilename") or extra.get("arcFilename"),
                          offset=_opt_int(extra.get("warcFileOffset")), mime=e.mime,
                          status=e.status if e.status >= 100 else None, source="crawllog")
        self._db.commit()
        return n

    def add_file(self, path: str | os.PathLike[str], *, lenient: bool = False,
                 on_warning: Callable[[Issue], None] | None = None) -> tuple[str, int]:
        """Add a WARC/ARC file, CDX index or crawl.log (detected); return (kind, added)."""
        kind = detect_input(path)
        if kind == "archive":
            return kind, self.add_archive(path, lenient=lenient, on_warning=on_warning)
        if kind == "cdx":
            return kind, self.add_cdx(path)
        return kind, self.add_crawl_log(path, lenient=lenient, on_warning=on_warning)

    # -- lookup ---------------------------------------------------------------------

    def _one(self, where: str, args: Sequence[Any], before: str | None, match: str,
             latest: bool = False) -> Original | None:
        sql = f"SELECT {_COLUMNS} FROM capture WHERE {where}"
        if before is not None:
            sql += " AND sortdate <= ? ORDER BY sortdate DESC, id LIMIT 1"
            args = (*args, before)
        elif latest:
            sql += " ORDER BY sortdate DESC, id DESC LIMIT 1"
        else:
            sql += " ORDER BY sortdate, id LIMIT 1"
        row = self._db.execute(sql, tuple(_sql_text(a) if isinstance(a, str) else a for a in args)).fetchone()
        if row is None:
            return None
        url, date, digest, rid, filename, offset, length, mime, status, source = row
        return Original(url, date, digest, rid, filename, offset, length, mime, status, source, match)

    def lookup(
        self,
        url: str | None,
        digest: Digest | str | None,
        *,
        before: datetime | str | None = None,
        uri_agnostic: bool = True,
    ) -> Original | None:
        """Find an original capture of this payload.

        Tries, in order: the same URL string, the same SURT key, then (when
        *uri_agnostic*) any URL with that digest.

        Args:
            url: The new capture's URL (``None``: digest only).
            digest: The new capture's payload digest.
            before: Only originals captured at or before this time (the latest such);
                without it the earliest original is returned.
            uri_agnostic: Allow a match on the digest alone.
        """
        norm = normalize_digest(digest)
        if norm is None:
            return None
        limit = self._before(before)
        if url:
            found = self._one("digest = ? AND url = ?", (norm, url), limit, "url")
            if found is None:
                found = self._one("digest = ? AND urlkey = ?", (norm, _urlkey(url)), limit, "urlkey")
            if found is not None or not uri_agnostic:
                return found
        return self._one("digest = ?", (norm,), limit, "digest")

    def lookup_url(self, url: str, *, before: datetime | str | None = None) -> Original | None:
        """Find the latest original capture of *url* (any payload), at or before *before*.

        For ``server-not-modified`` revisits: the server answered 304, so the payload
        is whatever the latest earlier capture of the same URL holds. Tries the same
        URL string, then the same SURT key.
        """
        limit = self._before(before)
        found = self._one("url = ?", (url,), limit, "url", latest=True)
        if found is None:
            found = self._one("urlkey = ?", (_urlkey(url),), limit, "urlkey", latest=True)
        return found

    def lookup_location(self, filename: str, offset: int | None) -> Original | None:
        """Find the original stored in *filename* at *offset* (old DeDuplicator references)."""
        base = os.path.basename(filename)
        if offset is None:
            return self._one("filename = ?", (base,), None, "location")
        return self._one("filename = ? AND offset = ?", (base, offset), None, "location")

    @staticmethod
    def _before(before: datetime | str | None) -> str | None:
        if before is None:
            return None
        when = before if isinstance(before, datetime) else _parse_any_date(before)
        if when is None:
            raise UsageError(f"not a date: {before!r}")
        return _sortdate(when)

    def __iter__(self) -> Iterator[Original]:
        for row in self._db.execute(f"SELECT {_COLUMNS} FROM capture ORDER BY sortdate, id"):
            url, date, digest, rid, filename, offset, length, mime, status, source = row
            yield Original(url, date, digest, rid, filename, offset, length, mime, status, source)


def _dash(value: str | None) -> str | None:
    return None if value in (None, "", "-") else value


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def payload_digest_of(record: WarcRecord, algorithm: str = "sha1") -> Digest:
    """Compute a record's payload digest (HTTP entity with chunking removed; else the block)."""
    d = Digester(algorithm)
    stream = record.content_stream() if record.has_http and record.http is not None \
        else record.raw_stream()
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        d.update(chunk)
    return d.digest()


# -- the guided-writer hook --------------------------------------------------------------


def _entity_digest(http_head: bytes, body: Iterable[bytes], algorithm: str) -> Digest:
    """Digest of the HTTP entity: the body with chunked transfer-coding removed."""
    from ..io.chunked import ChunkedReader

    head = parse_http_head(http_head, lenient=True)
    spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 - closed below / handed on
    for chunk in body:
        spool.write(chunk)
    spool.seek(0)
    d = Digester(algorithm)
    stream: Any = ChunkedReader(spool, lenient=False) if head.chunked else spool
    try:
        while True:
            data = stream.read(1 << 20)
            if not data:
                break
            d.update(data)
    except ParseError:  # not well-formed chunking: digest the stored bytes (legacy)
        d = Digester(algorithm)
        spool.seek(0)
        for data in iter(lambda: spool.read(1 << 20), b""):
            d.update(data)
    spool.close()
    return d.digest()


@dataclass
class DedupStats:
    """Counts kept by :class:`DedupWriter` and :func:`apply`."""

    responses: int = 0
    revisits: int = 0
    by_match: dict[str, int] = field(default_factory=dict)


class DedupWriter:
    """A guided writer that writes a revisit instead of a response when the payload is known.

    Wraps a :class:`~warckit.write.guided.WarcWriter`; every method other than
    :meth:`response` is the writer's own.

    Args:
        writer: The guided writer.
        index: The dedup index to consult.
        uri_agnostic: Also deduplicate against other URLs with the same payload.
        update: Add each response written to the index (later duplicates in the same
            crawl then refer to it).
        min_size: Payloads smaller than this are always written in full.

    Example:
        >>> import tempfile
        >>> from warckit.write.guided import WarcWriter
        >>> idx = DedupIndex()
        >>> with WarcWriter(tempfile.mkdtemp()) as w:
        ...     d = DedupWriter(w, idx)
        ...     a = d.response("http://e.org/", b"HTTP/1.1 200 OK\\r\\n\\r\\n", b"same")
        ...     b = d.response("http://e.org/", b"HTTP/1.1 200 OK\\r\\n\\r\\n", b"same")
        >>> a.type, b.type, d.stats.revisits
        ('response', 'revisit', 1)
    """

    def __init__(self, writer: Any, index: DedupIndex, *, uri_agnostic: bool = True,
                 update: bool = True, min_size: int = 0) -> None:
        self.writer = writer
        self.index = index
        self.uri_agnostic = uri_agnostic
        self.update = update
        self.min_size = min_size
        self.stats = DedupStats()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)

    def response(self, target_uri: str, http_head: bytes | Any, body: Any = b"", *,
                 payload_digest: Digest | str | None = None, **kwargs: Any) -> Any:
        """Write a revisit if the payload is in the index, else the response.

        Args:
            target_uri: The URI fetched.
            http_head: The response head as received.
            body: The body as received (bytes, a stream or an iterable of bytes). A
                stream is spooled to compute the digest first.
            payload_digest: The payload digest, if the caller knows it (skips hashing).
            **kwargs: Passed to :meth:`~warckit.write.guided.WarcWriter.response` (``ip``,
                ``date``, ``concurrent_to``…); ``ip``, ``date`` and ``concurrent_to``
                also go to the revisit.

        Returns:
            The :class:`~warckit.write.guided.WrittenRecord` of whichever record was written.
        """
        from ..write.writer import iter_source

        raw_head = http_head if isinstance(http_head, (bytes, bytearray)) else http_head.raw
        raw_head = bytes(raw_head)
        if not isinstance(body, (bytes, bytearray, memoryview)) and body is not None:
            spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 - closed below / handed on
            for chunk in iter_source(body):
                spool.write(chunk)
            size = spool.tell()
            spool.seek(0)
            body_bytes: Any = spool
        else:
            body_bytes = bytes(body or b"")
            size = len(body_bytes)
        digest = payload_digest
        if digest is None:
            if isinstance(body_bytes, bytes):
                digest = _entity_digest(raw_head, [body_bytes], self.writer.digest)
            else:
                digest = _entity_digest(raw_head, iter(lambda: body_bytes.read(1 << 20), b""),
                                        self.writer.digest)
                body_bytes.seek(0)
        date = kwargs.get("date")
        original = None
        if size >= self.min_size and size > 0:
            original = self.index.lookup(target_uri, digest, before=date,
                                         uri_agnostic=self.uri_agnostic)
        if original is not None:
            self.stats.revisits += 1
            self.stats.by_match[original.match] = self.stats.by_match.get(original.match, 0) + 1
            rkw = {k: v for k, v in kwargs.items() if k in ("ip", "date", "concurrent_to",
                                                             "extra_headers")}
            return self.writer.revisit(
                target_uri, profile="identical-payload-digest",
                refers_to=original.record_id, refers_to_target_uri=original.url,
                refers_to_date=original.date, payload_digest=str(digest),
                http_head=raw_head, **rkw)
        written = self.writer.response(target_uri, raw_head, body_bytes, **kwargs)
        self.stats.responses += 1
        if self.update and written.payload_digest:
            self.index.add(url=target_uri, digest=written.payload_digest, date=written.date,
                           record_id=written.record_id, filename=written.filename,
                           offset=written.offset, length=written.length, source="writer")
        return written


# -- apply: keep only new or changed payloads --------------------------------------------

_PROFILE_URI = "http://netpreserve.org/warc/{v}/revisit/identical-payload-digest"


@dataclass
class ApplyStats:
    """What :func:`apply` did.

    Attributes:
        records: Records read.
        responses: Responses considered.
        revisits: Responses replaced by revisits.
        kept: Responses kept in full (new or changed payload).
        files: Output files written.
    """

    records: int = 0
    responses: int = 0
    revisits: int = 0
    kept: int = 0
    files: list[str] = field(default_factory=list)


def revisit_headers(record: WarcRecord, original: Original, digest: Digest | str,
                    http_head: bytes) -> Headers:
    """Fields of the revisit that replaces *record* (same Record-ID, date, URI, links),
    built by :func:`warckit.write.build.build_revisit` as the guided writer's are."""
    from ..write.build import build_revisit

    h = record.headers
    return build_revisit(
        h.first("WARC-Target-URI") or "", version="1.1" if record.version == "1.1" else "1.0",
        refers_to=original.record_id or None, refers_to_target_uri=original.url,
        refers_to_date=original.date, payload_digest=digest, http_head=http_head,
        record_id=h.first("WARC-Record-ID") or "", date=h.first("WARC-Date") or "",
        ip=h.first("WARC-IP-Address"), concurrent_to=h.all("WARC-Concurrent-To"),
        warcinfo_id=h.first("WARC-Warcinfo-ID"), validate=False)


def apply(
    source: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    index: DedupIndex,
    *,
    uri_agnostic: bool = False,
    update: bool = True,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    prefix: str | None = None,
    compression: str = "gzip",
    max_bytes: int | None = None,
) -> ApplyStats:
    """Copy a WARC, replacing responses whose payload the index knows by revisits.

    Every other record is copied byte for byte. A replaced response keeps its
    WARC-Record-ID, date, URI and links (so requests' WARC-Concurrent-To stays valid);
    its block becomes the HTTP head only (``WARC-Truncated: length``), with
    WARC-Refers-To / -Target-URI / -Date naming the original.

    Args:
        source: The WARC to deduplicate.
        out_dir: Output directory (created if missing).
        index: The dedup index.
        uri_agnostic: Also accept an original with another URL (same payload).
        update: Add the responses kept in full to the index.
        lenient: Read damaged input leniently.
        on_warning: Receives the reader's recoveries.
        prefix: Output file-name prefix (default: the input name without extensions).
        compression: ``"gzip"``, ``"zstd"`` or ``"none"``.
        max_bytes: Roll output files at this size (default: no limit).
    """
    from ..write.guided import WarcWriter

    os.makedirs(out_dir, exist_ok=True)
    name = os.path.basename(os.fspath(source))
    if prefix is None:
        prefix = name.split(".warc")[0].split(".arc")[0]
    stats = ApplyStats()
    version = "1.0"
    with open_archive(source, lenient=lenient, on_warning=on_warning) as probe:
        for r in probe:
            if r.format == "warc" and r.version in ("1.0", "1.1"):
                version = r.version
            break
    writer = WarcWriter(out_dir, prefix=prefix, version=version, compression=compression,
                        max_bytes=max_bytes, template="{prefix}-dedup-{serial:05d}{ext}",
                        warcinfo={"description": f"deduplicated copy of {name}"})
    try:
        with open_archive(source, lenient=lenient, on_warning=on_warning) as reader:
            for record in reader:
                stats.records += 1
                if record.format != "warc":
                    raise UsageError(f"{name}: dedup apply reads WARC files; convert ARC "
                                     "files with arc2warc first")
                http = record.http if record.type == "response" else None
                if http is None or not http.is_response:
                    writer.write_record(record, validate=False)
                    continue
                stats.responses += 1
                digest = record.payload_digest or payload_digest_of(record)
                original = index.lookup(record.target_uri, digest, before=record.date_string,
                                        uri_agnostic=uri_agnostic)
                if original is not None and original.record_id != record.record_id:
                    stats.revisits += 1
                    writer.write_record(headers=revisit_headers(record, original, digest, http.raw),
                                        block=http.raw, version=record.version,
                                        validate=record.version in ("1.0", "1.1"))
                    continue
                stats.kept += 1
                written = writer.write_record(record, validate=False)
                if update:
                    index.add(url=record.target_uri or "", digest=digest,
                              date=record.date_string or "", record_id=record.record_id,
                              filename=written.filename, offset=written.offset,
                              length=written.length, source="warc")
    finally:
        writer.close()
        index.commit()
    stats.files = list(writer.files)
    return stats

