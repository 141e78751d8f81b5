"""Conversions: crawl.log → revisit records, ARC → WARC, recompression, payload extraction."""

from __future__ import annotations

from .crawllog import (
    IDENTICAL_PAYLOAD_DIGEST,
    SERVER_NOT_MODIFIED,
    CrawlLogEntry,
    Duplicate,
    parse_line,
    read_crawl_log,
)

__all__ = [
    "IDENTICAL_PAYLOAD_DIGEST",
    "SERVER_NOT_MODIFIED",
    "CrawlLogEntry",
    "Duplicate",
    "parse_line",
    "read_crawl_log",
]
