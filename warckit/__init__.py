"""warckit: WARC/ARC reading and guided writing, SURT canonicalization, CDX indexing."""

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .digests import Digest, Digester
from .errors import (
    ChunkedEncodingError,
    CompressionError,
    DecompressionBombError,
    DigestMismatchError,
    DuplicateHeaderError,
    HeaderParseError,
    HttpParseError,
    Issue,
    ParseError,
    RecordParseError,
    StaleRecordError,
    UnsortedIndexError,
    UrlError,
    UsageError,
    ValidationError,
    WarckitError,
)
from .headers import Headers
from .http import HttpHead, parse_http_head
from .reader import ArchiveReader, read_payload_range, read_record_at
from .reader import open_archive as open
from .records import (
    ArcRecord,
    Continuation,
    Conversion,
    Metadata,
    Request,
    Resource,
    Response,
    Revisit,
    UnknownRecord,
    Warcinfo,
    WarcRecord,
    register_type,
)

if TYPE_CHECKING:
    from .check import FileReport, check_file
    from .convert.arc2warc import arc_to_warc
    from .convert.crawllog import CrawlLogEntry, Duplicate, read_crawl_log
    from .convert.crawllog2warc import crawllog_to_warc
    from .convert.extract_all import extract_all
    from .convert.recompress import recompress
    from .dedup import DedupIndex, DedupWriter, Original
    from .guided import GuidedWriter, HybridPolicy, WarcWriter, WrittenRecord
    from .rolling import RollingFile
    from .segments import LogicalRecord, iter_logical_records, reassemble
    from .validate import forbidden_fields, mandatory_fields, validate_headers
    from .verify import DigestReport, verify_digests, verify_file
    from .writer import RecordWriter

# Writing and checking are imported on first use, so that reading starts fast.
_LAZY = {
    "FileReport": "check", "check_file": "check",
    "GuidedWriter": "guided", "HybridPolicy": "guided", "WarcWriter": "guided", "WrittenRecord": "guided",
    "RollingFile": "rolling",
    "LogicalRecord": "segments", "iter_logical_records": "segments", "reassemble": "segments",
    "forbidden_fields": "validate", "mandatory_fields": "validate", "validate_headers": "validate",
    "DigestReport": "verify", "verify_digests": "verify", "verify_file": "verify",
    "RecordWriter": "writer",
    "arc_to_warc": "convert.arc2warc", "crawllog_to_warc": "convert.crawllog2warc",
    "extract_all": "convert.extract_all", "recompress": "convert.recompress",
    "CrawlLogEntry": "convert.crawllog", "Duplicate": "convert.crawllog",
    "read_crawl_log": "convert.crawllog",
    "DedupIndex": "dedup", "DedupWriter": "dedup", "Original": "dedup",
}


#: Subpackages reachable as attributes (``warckit.url.surt(...)``) without an explicit import.
_SUBPACKAGES = frozenset({"url", "cdx", "convert", "dedup", "verify", "validate", "check"})


def __getattr__(name: str) -> Any:
    import importlib

    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'warckit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "ArcRecord",
    "ArchiveReader",
    "ChunkedEncodingError",
    "CompressionError",
    "DecompressionBombError",
    "Continuation",
    "Conversion",
    "CrawlLogEntry",
    "DedupIndex",
    "DedupWriter",
    "Digest",
    "DigestMismatchError",
    "DigestReport",
    "Digester",
    "Duplicate",
    "DuplicateHeaderError",
    "FileReport",
    "GuidedWriter",
    "HeaderParseError",
    "Headers",
    "HttpHead",
    "HttpParseError",
    "HybridPolicy",
    "Issue",
    "LogicalRecord",
    "Metadata",
    "Original",
    "ParseError",
    "RecordParseError",
    "RecordWriter",
    "Request",
    "Resource",
    "Response",
    "Revisit",
    "RollingFile",
    "StaleRecordError",
    "UnsortedIndexError",
    "UnknownRecord",
    "UrlError",
    "UsageError",
    "ValidationError",
    "WarcRecord",
    "WarcWriter",
    "Warcinfo",
    "WarckitError",
    "WrittenRecord",
    "__version__",
    "arc_to_warc",
    "check_file",
    "crawllog_to_warc",
    "extract_all",
    "forbidden_fields",
    "iter_logical_records",
    "mandatory_fields",
    "open",
    "parse_http_head",
    "read_crawl_log",
    "read_payload_range",
    "read_record_at",
    "reassemble",
    "recompress",
    "register_type",
    "validate_headers",
    "verify_digests",
    "verify_file",
]
