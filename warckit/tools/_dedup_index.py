"""The dedup index store: original captures by payload digest, in SQLite.

The index remembers *original captures*: the payload digest, URL, date, record ID and
location of every full capture seen in WARC/ARC files, CDX indexes or crawl.logs
(read by :mod:`warckit.tools._dedup_inputs`). Given a new capture it answers "is
this payload already archived, and where?": :meth:`DedupIndex.lookup` prefers the
same URL (exact string, then the same SURT key) and falls back to the digest alone
(URI-agnostic), reporting which way it matched in :attr:`Original.match`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._util.dates import format_warc_date, parse_arc_date, parse_warc_date
from ..errors import Issue, ParseError, UrlError, UsageError
from ..record.digests import Digest
from ..record.records import WarcRecord
from ..url import surt
from ._dedup_inputs import (
    Capture,
    archive_captures,
    cdx_captures,
    crawl_log_captures,
    detect_input,
    record_capture,
)

__all__ = ["SCHEMA_VERSION", "DedupIndex", "Original", "normalize_digest"]

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
    return Digest.from_bytes(value.algorithm, raw).canonical()  # (sha1: base32, else hex)


def _urlkey(url: str) -> str:
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

    def _add_all(self, captures: Iterable[Capture]) -> int:
        n = 0
        for capture in captures:
            n += self.add(**capture)
        self._db.commit()
        return n

    def add_record(self, record: WarcRecord, *, filename: str | None = None) -> bool:
        """Remember a record read by warckit if it is an original capture.

        Originals are ``response`` and ``resource`` records (and ARC records) with a
        payload. The payload digest is taken from WARC-Payload-Digest, or computed
        (de-chunked) when the record has none. Revisits are never originals.

        Returns:
            True when the record was added.
        """
        capture = record_capture(record, filename=filename)
        return capture is not None and self.add(**capture)

    def add_archive(self, path: str | os.PathLike[str], *, lenient: bool = False,
                    on_warning: Callable[[Issue], None] | None = None) -> int:
        """Add the original captures of a WARC or ARC file; return how many."""
        return self._add_all(archive_captures(path, lenient=lenient, on_warning=on_warning))

    def add_cdx(self, path: str | os.PathLike[str]) -> int:
        """Add the captures listed in a CDX-11/CDX-9, CDXJ or new-style CDX index.

        Revisit lines (``warc/revisit``) are not originals and are skipped.
        """
        return self._add_all(cdx_captures(path))

    def add_crawl_log(self, path: str | os.PathLike[str], *, lenient: bool = False,
                      on_warning: Callable[[Issue], None] | None = None) -> int:
        """Add the original captures a crawl.log records.

        Originals are fetched lines (status > 0, with a digest) that carry no duplicate
        annotation; their date is the fetch time at seconds precision (the WARC-Date
        Heritrix gave the capture). The file name and offset come from the extra-info
        JSON (``warcFilename``/``warcFileOffset``, ``arcFilename``) when present.
        """
        return self._add_all(crawl_log_captures(path, lenient=lenient, on_warning=on_warning))

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
