"""The WARC record model: headers, HTTP heads, labelled digests, typed records.

The header rules (mandatory and forbidden fields per record type) are
:mod:`warckit.record.rules`, imported on their own: reading does not need them.
"""

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

__all__ = [
    "DIGEST_SIZES", "RECORD_TYPES",
    "ArcRecord", "Continuation", "Conversion", "Digest", "Digester", "Headers", "HttpHead",
    "Metadata", "Request", "Resource", "Response", "Revisit", "UnknownRecord", "WarcRecord",
    "Warcinfo", "normalize_algorithm", "parse_http_head",
    "record_class", "register_type",
]
