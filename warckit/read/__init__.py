"""Reading archives: the streaming reader, random access, reassembly of segmented records."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from .._util.lazy import lazy_names
from .reader import RECORDS_LOST, ArchiveReader, open_archive, read_payload_range, read_record_at

if TYPE_CHECKING:
    from typing import Any

    from ..io.sources import Source
    from .segments import LogicalRecord, iter_logical_records, reassemble
    from .wacz import WaczReader

# Reassembly and WACZ are imported on first use (they bring dataclasses, json and
# zipfile's helpers, which reading a WARC does not need).
_LAZY = {"LogicalRecord": "segments", "iter_logical_records": "segments", "reassemble": "segments",
         "WaczReader": "wacz"}


def _open_wacz(reader: ArchiveReader, source: Source, options: dict[str, Any], offset: int) -> None:
    """Turn *reader* into a WACZ reader, importing read/wacz.py on the first ZIP input."""
    from .wacz import _become_wacz  # (which then registers itself in our place)

    _become_wacz(reader, source, options, offset)


ArchiveReader._zip_opener = _open_wacz


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "RECORDS_LOST",
    "ArchiveReader",
    "LogicalRecord",
    "WaczReader",
    "iter_logical_records",
    "open_archive",
    "read_payload_range",
    "read_record_at",
    "reassemble",
]
