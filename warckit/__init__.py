"""warckit: WARC/ARC reading and guided writing, SURT canonicalization, CDX indexing.

The names here are the everyday API, kept in one list (:data:`__all__`). Everything
else lives in a subpackage: :mod:`warckit.record` (record types, digests, header
rules), :mod:`warckit.read`, :mod:`warckit.write`, :mod:`warckit.check`,
:mod:`warckit.cdx`, :mod:`warckit.url`, :mod:`warckit.tools` and :mod:`warckit.errors`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import Issue, ParseError, UsageError, ValidationError, WarckitError
from .read.reader import ArchiveReader, read_payload_range, read_record_at
from .read.reader import open_archive as open
from .record.digests import Digest
from .record.headers import Headers
from .record.http import HttpHead
from .record.records import ArcRecord, WarcRecord

if TYPE_CHECKING:
    from . import cdx, check, errors, read, record, tools, url, write
    from .check import DigestReport, FileReport, check_file, verify_file
    from .read import iter_logical_records
    from .write import RollingFile, WarcWriter, WrittenRecord

# Writing and checking are imported on first use, so that reading starts fast.
_LAZY = {
    "WarcWriter": "write", "WrittenRecord": "write", "RollingFile": "write",
    "iter_logical_records": "read",
    "FileReport": "check", "check_file": "check", "DigestReport": "check", "verify_file": "check",
}
_SUBPACKAGES = frozenset({"cdx", "check", "errors", "read", "record", "tools", "url", "write"})


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'warckit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    # reading
    "open", "ArchiveReader", "read_record_at", "read_payload_range", "iter_logical_records",
    "WarcRecord", "ArcRecord", "Headers", "HttpHead", "Digest",
    # writing
    "WarcWriter", "WrittenRecord", "RollingFile",
    # checking
    "check_file", "FileReport", "verify_file", "DigestReport",
    # errors
    "WarckitError", "ParseError", "UsageError", "ValidationError", "Issue",
    # subpackages
    "cdx", "check", "errors", "read", "record", "tools", "url", "write",
    "__version__",
]
