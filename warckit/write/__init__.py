"""Writing archives: the guided writer, the record serializer, rolling output files."""

from __future__ import annotations

from .guided import GuidedWriter, HybridPolicy, RecordRef, WarcWriter, WrittenRecord
from .rolling import RollingFile
from .writer import RecordWriter

__all__ = ["GuidedWriter", "HybridPolicy", "RecordRef", "RecordWriter", "RollingFile", "WarcWriter", "WrittenRecord"]
