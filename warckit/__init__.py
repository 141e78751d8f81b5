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
