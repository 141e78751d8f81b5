"""warckit: WARC/ARC reading and guided writing, SURT canonicalization, CDX indexing.

The names here are the everyday API, kept in one list (:data:`__all__`). Everything
else lives in a subpackage: :mod:`warckit.record` (record types, digests, header
rules), :mod:`warckit.read`, :mod:`warckit.write`, :mod:`warckit.check`,
:mod:`warckit.cdx`, :mod:`warckit.url`, :mod:`warckit.tools`, :mod:`warckit.traffic` and
:mod:`warckit.errors`.
"""

from __future__ import annotations

import importlib

from ._version import __version__

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any

    from . import cdx, check, errors, read, record, tools, url, write
    from .check import DigestReport, FileReport, check_file, verify_file
    from .errors import Issue, ParseError, UsageError, ValidationError, WarckitError
    from .read import iter_logical_records
    from .read.reader import ArchiveReader, read_payload_range, read_record_at
    from .read.reader import open_archive as open
    from .record.digests import Digest
    from .record.headers import Headers
    from .record.http import HttpHead
    from .record.records import ArcRecord, WarcRecord
    from .traffic import capture
    from .write import RollingFile, WarcWriter, WrittenRecord

# Every name is imported on first use, from the module that defines it: `import warckit`
# costs next to nothing, and a process imports only the layers it uses (`warckit --version`
# does not import the reader, a reader does not import the writer).
_LAZY = {
    "open": ("read.reader", "open_archive"), "ArchiveReader": ("read.reader", None),
    "read_record_at": ("read.reader", None), "read_payload_range": ("read.reader", None),
    "iter_logical_records": ("read", None),
    "WarcRecord": ("record.records", None), "ArcRecord": ("record.records", None),
    "Headers": ("record.headers", None), "HttpHead": ("record.http", None),
    "Digest": ("record.digests", None),
    "WarcWriter": ("write", None), "WrittenRecord": ("write", None), "RollingFile": ("write", None),
    "FileReport": ("check", None), "check_file": ("check", None), "DigestReport": ("check", None),
    "verify_file": ("check", None),
    "capture": ("traffic", None),
    "WarckitError": ("errors", None), "ParseError": ("errors", None), "UsageError": ("errors", None),
    "ValidationError": ("errors", None), "Issue": ("errors", None),
}
_SUBPACKAGES = frozenset({"cdx", "check", "errors", "read", "record", "tools", "traffic", "url",
                          "write"})


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'warckit' has no attribute {name!r}")
    module, attribute = where
    value = getattr(importlib.import_module(f".{module}", __name__), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    # reading
    "open", "ArchiveReader", "read_record_at", "read_payload_range", "iter_logical_records",
    "WarcRecord", "ArcRecord", "Headers", "HttpHead", "Digest",
    # writing
    "WarcWriter", "WrittenRecord", "RollingFile",
    # recording a script's HTTP traffic
    "capture",
    # checking
    "check_file", "FileReport", "verify_file", "DigestReport",
    # errors
    "WarckitError", "ParseError", "UsageError", "ValidationError", "Issue",
    # subpackages
    "cdx", "check", "errors", "read", "record", "tools", "url", "write",
    "__version__",
]
