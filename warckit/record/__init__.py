"""The WARC record model: headers, HTTP heads, labelled digests, typed records, header rules."""

from __future__ import annotations

from .digests import DIGEST_SIZES, Digest, Digester, normalize_algorithm
from .headers import Headers
from .http import HttpHead, parse_http_head
from .records import (
    RECORD_TYPES,
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
    record_class,
    register_type,
)
from .rules import forbidden_fields, mandatory_fields, validate_headers

__all__ = [
    "DIGEST_SIZES", "RECORD_TYPES",
    "ArcRecord", "Continuation", "Conversion", "Digest", "Digester", "Headers", "HttpHead",
    "Metadata", "Request", "Resource", "Response", "Revisit", "UnknownRecord", "WarcRecord",
    "Warcinfo", "forbidden_fields", "mandatory_fields", "normalize_algorithm", "parse_http_head",
    "record_class", "register_type", "validate_headers",
]
