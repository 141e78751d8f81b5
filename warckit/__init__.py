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
from .check import FileReport, check_file
from .guided import GuidedWriter, HybridPolicy, WarcWriter, WrittenRecord
from .headers import Headers
from .http import HttpHead, parse_http_head
from .reader import ArchiveReader, read_payload_range, read_record_at
from .rolling import RollingFile
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
from .segments import LogicalRecord, iter_logical_records, reassemble
from .validate import forbidden_fields, mandatory_fields, validate, validate_headers
from .verify import DigestReport, verify_digests
from .writer import RecordWriter

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
    "validate",
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
