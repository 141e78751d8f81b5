"""Reading archives: the streaming reader, random access, reassembly of segmented records."""

from __future__ import annotations

from .reader import RECORDS_LOST, ArchiveReader, open_archive, read_payload_range, read_record_at
from .segments import LogicalRecord, iter_logical_records, reassemble
from .wacz import WaczReader

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
