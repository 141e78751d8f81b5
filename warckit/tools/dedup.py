"""Deduplication (the DeDuplicator workflow) with an index in an embedded SQLite database.

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

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Issue, UsageError
from ..read.reader import open_archive
from ..record.digests import Digest
from ..record.headers import Headers
from ..record.records import WarcRecord
from ._dedup_index import DedupIndex, Original, normalize_digest
from ._dedup_inputs import detect_input, payload_digest_of
from ._dedup_writer import DedupStats, DedupWriter

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

# This module is the names' public home (the API page, pickles and reprs name it),
# whichever private module holds their code.
for _name in ("DedupIndex", "DedupStats", "DedupWriter", "Original", "detect_input",
              "normalize_digest", "payload_digest_of"):
    globals()[_name].__module__ = __name__
del _name


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

