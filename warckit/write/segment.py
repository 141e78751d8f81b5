"""Segmentation (WARC 1.1 §7): a block larger than the writer's ``segment_size`` is
written as a first segment (the record's own head, ``WARC-Segment-Number: 1``) and
``continuation`` records, each in one piece in a file."""

from __future__ import annotations

import os
from typing import Any, Protocol

from ..record.digests import Digester
from ..record.headers import Headers
from . import build as _build
from .encode import BlockSink, EncodedRecord, head_bytes
from .rolling import Series
from .written import WrittenRecord


class WriterCore(Protocol):
    """What segmenting needs of the writer (:class:`~warckit.write.core.WriterCore`)."""

    segment_size: int | None
    version: str
    directory: str

    def _digester(self) -> Digester: ...

    def _check(self, headers: Headers, block_length: int | None = None) -> None: ...

    def _place(self, series: Series, encode: Any) -> tuple[str, int, int]: ...

__all__ = ["write_segmented"]


def write_segmented(writer: WriterCore, series: Series, raw: BlockSink, build: Any, rid: str,
                    rtype: str, target_uri: str | None, wdate: str, pd_text: str | None,
                    convention: str | None) -> WrittenRecord:
    """Write the block held (uncompressed) in *raw* as segments of *writer*'s
    ``segment_size``; *build* makes the first segment's head (as the unsegmented
    record's, with its segment number). Returns the logical record, located at its
    first segment. The caller holds the writer's lock, with nothing in flight."""
    seg_size = writer.segment_size
    assert seg_size is not None
    version = writer.version
    total = raw.length
    first: tuple[str, int, int, str] | None = None
    number = 0
    chunks = raw.raw_chunks()
    pending = b""
    done = 0
    while done < total:
        number += 1
        want = min(seg_size, total - done)
        sink = series.encoder.sink()
        d = writer._digester()
        got = 0
        try:
            while got < want:
                if not pending:
                    pending = next(chunks)
                piece = pending[: want - got]
                pending = pending[len(piece):]
                sink.write(piece)
                d.update(piece)
                got += len(piece)
            done += got
            bd = str(d.digest())
            cid = _build.new_record_id()
            last = done >= total

            def encode(wid: str | None, bd: str = bd, got: int = got, sink: BlockSink = sink,
                       cid: str = cid, number: int = number, last: bool = last) -> EncodedRecord:
                if number == 1:
                    return series.encoder.encode(head_bytes(version, build(wid, bd, pd_text, got, 1)), sink)
                headers = _build.segment_headers(
                    rid, cid, wdate, target_uri, warcinfo_id=wid, number=number,
                    total_length=total if last else None, block_digest=bd, length=got)
                writer._check(headers, got)
                return series.encoder.encode(head_bytes(version, headers), sink)

            if number == 1:
                writer._check(build(series.warcinfo_id, bd, pd_text, got, 1), got)
            placed = writer._place(series, encode)
            if first is None:
                first = (*placed, bd)
        finally:
            sink.close()
    raw.close()
    assert first is not None
    filename, offset, size, bd0 = first
    return WrittenRecord(rid, rtype, target_uri, wdate, filename,
                         os.path.join(writer.directory, filename), offset, size, bd0, pd_text,
                         number, convention)
