"""Writing archives: the guided writer (``guided``: one method per record type, over
``core``), record heads built without a writer (``build``), encoding (``encode``,
``backends``, ``crc``), records in flight (``pipeline``), segments, hybrid series,
rolling output files, and the bare record serializer (``writer``)."""

from __future__ import annotations

from .build import build_revisit, new_record_id, record_headers
from .core import WriterOptions
from .guided import GuidedWriter, HybridPolicy, RecordRef, WarcWriter, WrittenRecord
from .rolling import RollingFile
from .writer import RecordWriter

__all__ = [
    "GuidedWriter", "HybridPolicy", "RecordRef", "RecordWriter", "RollingFile", "WarcWriter",
    "WriterOptions", "WrittenRecord", "build_revisit", "new_record_id", "record_headers",
]
