"""Tools over whole archives: ARC → WARC, crawl.log → revisits, deduplication, recompression, extraction."""

from __future__ import annotations

from .arc2warc import arc_to_warc
from .crawllog import (
    IDENTICAL_PAYLOAD_DIGEST,
    SERVER_NOT_MODIFIED,
    CrawlLogEntry,
    Duplicate,
    parse_line,
    read_crawl_log,
)
from .crawllog2warc import crawllog_to_warc
from .dedup import DedupIndex, DedupWriter, Original
from .extract_all import extract_all
from .recompress import recompress

__all__ = [
    "IDENTICAL_PAYLOAD_DIGEST", "SERVER_NOT_MODIFIED",
    "CrawlLogEntry", "DedupIndex", "DedupWriter", "Duplicate", "Original",
    "arc_to_warc", "crawllog_to_warc", "extract_all", "parse_line", "read_crawl_log", "recompress",
]
