"""crawl.log → WARC revisit records: the captures a deduplicating crawl left out.

Heritrix (with DeDuplicator, or its own fetch-history deduplication) skips writing a
payload it has already archived and marks the crawl.log line instead
(``duplicate:digest``, ``duplicate:server-not-modified``, ``warcRevisit:…``,
``Revisit:IdenticalPayloadDigest``, ``duplicate:"file.arc,offset"``). When the crawl
wrote ARC files, or the revisit records were lost, only the log remembers those
captures. :func:`crawllog_to_warc` writes one ``revisit`` record per duplicate-marked
line:

* profile ``identical-payload-digest`` (``server-not-modified`` for the 304 markers);
* WARC-Date = the log's fetch timestamp at the log's millisecond precision
  (``2024-05-02T10:00:04.070Z``; whole seconds in WARC/1.0);
* identical-payload-digest: WARC-Payload-Digest = the log's digest; WARC-Refers-To /
  -Target-URI / -Date from the original capture, found in the given WARC/ARC files, CDX
  indexes or crawl.logs (a :class:`~warckit.tools.dedup.DedupIndex`):
  ``duplicate:"file.arc,offset"`` by location, otherwise same URL first, then the
  digest alone; left out (and counted) when no original is known;
* server-not-modified: the log's digest is that of the empty 304 body, so it is never
  written. The original is the latest capture of the same URL (then the same SURT key)
  at or before the fetch, whatever its digest; the revisit carries *its* payload
  digest, WARC-Refers-To-Date and WARC-Refers-To (WARC-Refers-To-Target-URI only when
  it differs from the revisit's URL). With no original known the revisit has no
  WARC-Payload-Digest at all, rather than claim a payload that was never archived;
* written through the guided writer (rolling files, warcinfo naming the source logs).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..errors import Issue
from ..write.guided import WarcWriter
from ..write.rolling import DEFAULT_MAX_BYTES
from ._dedup_index import DedupIndex, Original, normalize_digest
from .crawllog import SERVER_NOT_MODIFIED, CrawlLogEntry, read_crawl_log

__all__ = ["CrawlLogStats", "crawllog_to_warc", "find_original", "warc_date"]


@dataclass
class CrawlLogStats:
    """Counts from :func:`crawllog_to_warc`.

    Attributes:
        lines: crawl.log entries read (well-formed lines).
        malformed: Lines skipped as malformed (lenient mode).
        duplicates: Entries with a duplicate annotation.
        revisits: Revisit records written.
        originals_found: Revisits whose original capture was found.
        originals_not_found: Revisits written without WARC-Refers-To-* fields.
        no_digest: Duplicates skipped: identical-payload-digest needs a digest and
            neither the line nor an original had one.
        by_match: Originals found, by how they matched (``url``, ``urlkey``,
            ``digest``, ``location``, ``log``).
        files: WARC files written.
    """

    lines: int = 0
    malformed: int = 0
    duplicates: int = 0
    revisits: int = 0
    originals_found: int = 0
    originals_not_found: int = 0
    no_digest: int = 0
    by_match: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line per count, for the command line."""
        matched = ", ".join(f"{k} {v}" for k, v in sorted(self.by_match.items()))
        lines = [
            f"lines read: {self.lines}",
            f"malformed lines skipped: {self.malformed}",
            f"duplicates: {self.duplicates}",
            f"revisits written: {self.revisits}",
            f"originals found: {self.originals_found}" + (f" ({matched})" if matched else ""),
            f"originals not found: {self.originals_not_found}",
        ]
        if self.no_digest:
            lines.append(f"duplicates skipped (no digest): {self.no_digest}")
        lines.append(f"files: {len(self.files)}")
        return "\n".join(lines)


def find_original(entry: CrawlLogEntry, index: DedupIndex | None, *,
                  uri_agnostic: bool = True) -> Original | None:
    """The original capture a duplicate-marked entry refers to, or ``None``.

    Order: the ARC location of ``duplicate:"file.arc,offset"``; the same URL (exact,
    then canonical) with the same digest; the digest alone (*uri_agnostic*); finally
    the original named in the extra-info JSON (DeDuplicator ``RevisitRefersToURI`` /
    ``RevisitRefersToDate``), which has no record ID.

    A ``server-not-modified`` line's digest is that of the empty 304 body: its original
    is the latest capture of the same URL (exact, then canonical) at or before the
    fetch, whatever its digest, and is never matched by digest.
    """
    dup = entry.duplicate
    if dup is None:
        return None
    not_modified = dup.profile == SERVER_NOT_MODIFIED
    found: Original | None = None
    if index is not None:
        if dup.arc_filename:
            found = index.lookup_location(dup.arc_filename, dup.arc_offset)
        if found is None and not_modified:
            found = index.lookup_url(entry.url, before=entry.capture_time)
        elif found is None and entry.digest is not None:
            found = index.lookup(entry.url, entry.digest, before=entry.capture_time,
                                 uri_agnostic=uri_agnostic or dup.kind == "uri-agnostic")
    if found is None and dup.refers_to_uri and dup.refers_to_date:
        digest = "" if not_modified else normalize_digest(entry.digest) or ""
        found = Original(url=dup.refers_to_uri, date=dup.refers_to_date, digest=digest,
                         source="crawllog", match="log")
    return found


def warc_date(when: datetime, version: str) -> str:
    """The WARC-Date of a crawl.log time: milliseconds as logged (WARC 1.1), or whole
    seconds (WARC 1.0, whose dates have no fraction)."""
    utc = when.astimezone(timezone.utc)
    if version == "1.0":
        return utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def crawllog_to_warc(
    logs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    originals: Sequence[str | os.PathLike[str]] = (),
    index: DedupIndex | None = None,
    version: str = "1.1",
    compression: str = "gzip",
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    prefix: str = "REVISITS",
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    uri_agnostic: bool = True,
    warcinfo: Sequence[tuple[str, str]] = (),
) -> CrawlLogStats:
    """Write one revisit record per duplicate-marked crawl.log line.

    Args:
        logs: crawl.log files (Heritrix 1 or 3).
        out_dir: Output directory (created if missing).
        originals: WARC/ARC files, CDX indexes or crawl.logs holding the original
            captures; indexed into *index* (an in-memory one unless given).
        index: A dedup index to look originals up in (and to add *originals* to).
        version: WARC version to write, ``"1.1"`` or ``"1.0"``.
        compression: ``"gzip"``, ``"zstd"`` or ``"none"``.
        max_bytes: Roll output files at this size.
        prefix: Output file-name prefix.
        lenient: Skip malformed crawl.log lines (reported through *on_warning*)
            instead of raising; read damaged originals leniently.
        on_warning: Receives every :class:`~warckit.errors.Issue`.
        uri_agnostic: Accept an original with another URL and the same digest.
        warcinfo: Extra warcinfo fields.

    Returns:
        The counts; ``revisits + no_digest == duplicates``.

    Raises:
        ParseError: strict mode and a malformed line (the message names the line).
    """
    stats = CrawlLogStats()
    os.makedirs(out_dir, exist_ok=True)
    if originals and index is None:
        index = DedupIndex()
    for path in originals:
        assert index is not None
        index.add_file(path, lenient=lenient, on_warning=on_warning)

    def warn(issue: Issue) -> None:
        if issue.code == "crawl-log-line":
            stats.malformed += 1
        if on_warning is not None:
            on_warning(issue)

    info: list[tuple[str, str]] = [
        ("description", ("revisit records for the duplicate-marked lines of Heritrix crawl.logs "
                         "(warckit crawllog2warc)")),
    ]
    info += [("source-crawl-log", os.path.basename(os.fspath(p))) for p in logs]
    info += [("originals", os.path.basename(os.fspath(p))) for p in originals]
    info += list(warcinfo)
    writer = WarcWriter(out_dir, prefix=prefix, version=version, compression=compression,
                        max_bytes=max_bytes, warcinfo=info)
    try:
        for path in logs:
            for entry in read_crawl_log(path, lenient=lenient, on_warning=warn):
                stats.lines += 1
                dup = entry.duplicate
                if dup is None:
                    continue
                stats.duplicates += 1
                original = find_original(entry, index, uri_agnostic=uri_agnostic)
                digest: str | None = None
                if dup.profile != SERVER_NOT_MODIFIED and entry.digest is not None:
                    digest = normalize_digest(entry.digest)
                if digest is None and original is not None and original.digest:
                    digest = original.digest
                if digest is None and dup.profile != SERVER_NOT_MODIFIED:
                    stats.no_digest += 1
                    if on_warning is not None:
                        on_warning(Issue("no-digest", f"line {entry.line_number}: duplicate "
                                         "without a digest and no original known; skipped",
                                         "warning", source=os.fspath(path)))
                    continue
                if original is not None:
                    stats.originals_found += 1
                    stats.by_match[original.match] = stats.by_match.get(original.match, 0) + 1
                else:
                    stats.originals_not_found += 1
                writer.revisit(
                    entry.url,
                    profile=dup.profile,
                    refers_to=original.record_id if original is not None and original.record_id
                    else None,
                    refers_to_target_uri=original.url if original is not None else None,
                    refers_to_date=original.date if original is not None else None,
                    payload_digest=digest,
                    date=warc_date(entry.capture_time, version),
                )
                stats.revisits += 1
    finally:
        writer.close()
    stats.files = list(writer.files)
    return stats
