"""CDX indexes: new-style CDX, CDXJ, CDX-11/9; indexing, sorting, merging, querying, ZipNum."""

from __future__ import annotations

from .formats import (
    CDX9_LEGEND,
    CDX11_LEGEND,
    FORMATS,
    NEW_STYLE_HEADER,
    CdxEntry,
    CdxjEntry,
    ClassicCdxEntry,
    FormatName,
    IndexEntry,
    detect_format,
    parse_line,
)
from .indexer import (
    ALL_TYPES,
    DEFAULT_TYPES,
    Capture,
    IndexOptions,
    capture_line,
    index,
    index_file,
    iter_captures,
)

__all__ = [
    "ALL_TYPES",
    "CDX11_LEGEND",
    "CDX9_LEGEND",
    "Capture",
    "CdxEntry",
    "CdxjEntry",
    "ClassicCdxEntry",
    "DEFAULT_TYPES",
    "FORMATS",
    "FormatName",
    "IndexEntry",
    "IndexOptions",
    "NEW_STYLE_HEADER",
    "capture_line",
    "detect_format",
    "index",
    "index_file",
    "iter_captures",
    "parse_line",
]
