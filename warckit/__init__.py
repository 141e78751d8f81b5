"""warckit: WARC/ARC reading and guided writing, SURT canonicalization, CDX indexing."""

from ._version import __version__
from .digests import Digest, Digester
from .errors import (
    ChunkedEncodingError,
    CompressionError,
    DigestMismatchError,
    DuplicateHeaderError,
    HeaderParseError,
    HttpParseError,
    Issue,
    ParseError,
    RecordParseError,
    StaleRecordError,
    UrlError,
    UsageError,
    ValidationError,
    WarckitError,
)
from typing import TYPE_CHECKING, Any

from .headers import Headers
from .http import HttpHead, parse_http_head
from .reader import ArchiveReader, read_payload_range, read_record_at
from .reader import open_archive as open  # noqa: A001 - the one entry point
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
    from .guided import GuidedWriter, HybridPolicy, WarcWriter, WrittenRecord
    from .rolling import RollingFile
    from .segments import LogicalRecord, iter_logical_records, reassemble
    from .validate import forbidden_fields, mandatory_fields, validate_headers
    from .verify import DigestReport, verify_digests
    from .writer import RecordWriter

# Writing and checking are imported on first use, so that reading starts fast.
_LAZY = {
    "FileReport": "check", "check_file": "check",
    "GuidedWriter": "guided", "HybridPolicy": "guided", "WarcWriter": "guided", "WrittenRecord": "guided",
    "RollingFile": "rolling",
    "LogicalRecord": "segments", "iter_logical_records": "segments", "reassemble": "segments",
    "forbidden_fields": "validate", "mandatory_fields": "validate", "validate_headers": "validate",
    "DigestReport": "verify", "verify_digests": "verify",
    "RecordWriter": "writer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'warckit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "__version__",
    "open",
    "ArchiveReader",
    "read_record_at",
    "read_payload_range",
    "WarcRecord",
    "Warcinfo",
    "Request",
    "Response",
    "Resource",
    "Metadata",
    "Revisit",
    "Conversion",
    "Continuation",
    "UnknownRecord",
    "ArcRecord",
    "register_type",
    "verify_digests",
    "DigestReport",
    "WarcWriter",
    "GuidedWriter",
    "WrittenRecord",
    "HybridPolicy",
    "RecordWriter",
    "RollingFile",
    "validate_headers",
    "mandatory_fields",
    "forbidden_fields",
    "check_file",
    "FileReport",
    "reassemble",
    "iter_logical_records",
    "LogicalRecord",
    "Headers",
    "HttpHead",
    "parse_http_head",
    "Digest",
    "Digester",
    "WarckitError",
    "ParseError",
    "RecordParseError",
    "HeaderParseError",
    "HttpParseError",
    "ChunkedEncodingError",
    "CompressionError",
    "DuplicateHeaderError",
    "ValidationError",
    "DigestMismatchError",
    "StaleRecordError",
    "UsageError",
    "UrlError",
    "Issue",
]
