"""CDX indexes: new-style CDX, CDXJ, CDX-11/9; indexing, sorting, merging, querying, ZipNum.

>>> from warckit.cdx import index, query, write_index   # doctest: +SKIP
>>> for line in index(["crawl.warc.gz"]):               # doctest: +SKIP
...     print(line)

See ``docs/cdx.rst`` for the formats and a lookup tutorial.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from .._util.lazy import lazy_names
from .build import write_index
from .formats import (
    CDX9_LEGEND,
    CDX11_LEGEND,
    FORMATS,
    NEW_STYLE_HEADER,
    NEW_STYLE_UNSORTED_HEADER,
    CdxEntry,
    CdxjEntry,
    ClassicCdxEntry,
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
from .query import MATCH_TYPES, Index, Query, entry_to_dict, run_query
from .query import query as query  # the function; the module stays importable by path
from .sort import external_sort, merge_files, merge_sorted, sort_file

if TYPE_CHECKING:
    from .formats import FormatName
    from .query import MatchType
    from .zipnum import ZipNumIndex, write_zipnum

# ZipNum is imported on first use: an index run that writes a plain index skips it; the
# two type aliases need typing, which indexing does not import.
_LAZY = {"ZipNumIndex": "zipnum", "write_zipnum": "zipnum", "FormatName": "formats", "MatchType": "query"}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())

__all__ = [
    "ALL_TYPES",
    "CDX9_LEGEND",
    "CDX11_LEGEND",
    "DEFAULT_TYPES",
    "FORMATS",
    "MATCH_TYPES",
    "NEW_STYLE_HEADER",
    "NEW_STYLE_UNSORTED_HEADER",
    "Capture",
    "CdxEntry",
    "CdxjEntry",
    "ClassicCdxEntry",
    "FormatName",
    "Index",
    "IndexEntry",
    "IndexOptions",
    "MatchType",
    "Query",
    "ZipNumIndex",
    "capture_line",
    "detect_format",
    "entry_to_dict",
    "external_sort",
    "index",
    "index_file",
    "iter_captures",
    "merge_files",
    "merge_sorted",
    "parse_line",
    "query",
    "run_query",
    "sort_file",
    "write_index",
    "write_zipnum",
]
