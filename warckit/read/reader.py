"""Streaming readers for WARC 0.17-1.1 and ARC v1/v2 files, any compression.

``ArchiveReader`` detects the compression (plain, gzip per record, whole-file gzip,
zstd with or without the IIPC dictionary frame) and the format (WARC or ARC) from
content, not names. Records carry their file offset and length; bodies stream.

The per-record fast path is the reader core (:mod:`warckit._speedups`); ARC records
are read by :mod:`warckit.read.arc`, damage is recovered from by
:mod:`warckit.read.recovery`; inputs are opened by :mod:`warckit.io.sources`.
"""

from __future__ import annotations

import bisect
import io
import os
from _collections_abc import Callable  # (collections.abc's, without importing collections)
from _weakref import ref as _weakref  # (weakref.ref, without importing weakref.py)
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    import weakref
    from collections.abc import Collection, Iterator
    from typing import Any, ClassVar

    from ..io.sources import InputLike

from .._speedups.readercore import impl as _core
from .._util.cpus import cpu_count
from ..errors import (
    CompressionError,
    Issue,
    ParseError,
    RecordParseError,
    UsageError,
)
from ..io.compression import (
    MAX_DICTIONARY,
    ZIP_LOCAL_MAGIC,
    ZSTD_DICT_MAGIC,
    PlainDecoder,
    make_decoder,
    sniff_compression,
)
from ..io.sources import STDIN, Source, open_source
from ..record.records import RECORD_TYPES, WarcRecord, record_class
from .arc import _ARC_V1, MAX_ARC_LINE, ArcHeads, _arc_fields
from .recovery import Recovery

__all__ = ["RECORDS_LOST", "ArchiveReader", "WarningHandler", "open_archive", "read_payload_range", "read_record_at"]

_ReaderCore = _core.ReaderCore
_LengthedBody = _core.LengthedBody

WarningHandler = Callable[[Issue], None]

#: Issue codes of lenient recoveries that skipped or cut records (data was lost).
RECORDS_LOST = frozenset({
    "damaged-member", "truncated-member", "trailing-garbage", "skipped-garbage", "truncated-block",
    "truncated-head",
})

#: Default cap on the size of one record head (version line + fields).
MAX_HEADER_SIZE = 1 << 20

#: Whether readers inflate gzip files ahead on a thread by default.
_READAHEAD_DEFAULT = cpu_count() > 1 and os.environ.get("WARCKIT_READAHEAD", "1") != "0"
_MAPPED_DEFAULT = os.environ.get("WARCKIT_MMAP", "1") != "0"



class _RecordFile(io.FileIO):
    """The file :func:`read_record_at` opened (unbuffered: most records are far smaller
    than a buffer, and the compiled gzip decoder's random-access reads start small).

    A record the caller drops frees its reader and this file at once; the file then
    closes without the ResourceWarning (and its cost) of an unclosed file.
    """

    __slots__ = ()

    def __del__(self) -> None:
        self.close()


class ArchiveReader(ArcHeads, Recovery, _ReaderCore):
    """Iterate over the records of a WARC or ARC file.

    Args:
        source: A path, ``"-"`` for standard input, or a binary file object (not
            closed by the reader); see :func:`warckit.io.sources.open_source`.
        lenient: Recover from damaged input instead of raising; every recovery is
            reported through *on_warning* and kept in ``record.issues``. See the
            conformance page for the list of relaxations.
        on_warning: Called with an :class:`~warckit.errors.Issue` for each recovery.
        types: Only yield records of these WARC-Types (others are skipped without
            being parsed further).
        min_size: Skip records whose Content-Length is smaller.
        max_size: Skip records whose Content-Length is larger.
        max_header_size: Largest record head accepted, in bytes.
        offset: Start reading at this file offset (a record's ``offset``).
        name: Name used in messages (defaults to the path).
        compression: Force ``"gzip"``, ``"zstd"`` or ``"none"`` instead of sniffing.
        readahead: Inflate a gzip file ahead on a native thread while records are
            parsed on this one (compiled build only). The default, ``None``, does so
            for a gzip file opened by path when this process may use more than one
            CPU, but not in one of a parallel job's pieces reading large gzip
            members (see ``docs/reading.rst``); the environment variable
            ``WARCKIT_READAHEAD=0`` turns it off. Results are the same either way.
        storage_options: For a URL source: fsspec options (credentials, endpoint);
            see :mod:`warckit.io.remote`.

    Example:
        >>> import warckit
        >>> with warckit.open("examples/sample.warc.gz") as reader:
        ...     print([r.type for r in reader][:3])
        ['warcinfo', 'request', 'response']
    """

    #: Turns a reader whose input is a ZIP file (a WACZ) into a
    #: :class:`warckit.read.wacz.WaczReader`; registered by that module (it imports this one).
    _zip_opener: ClassVar[Callable[[ArchiveReader, Source, dict[str, Any], int], None] | None] = None

    def __init__(
        self,
        source: InputLike | Source,
        *,
        lenient: bool = False,
        on_warning: WarningHandler | None = None,
        types: Collection[str] | None = None,
        min_size: int | None = None,
        max_size: int | None = None,
        max_header_size: int = MAX_HEADER_SIZE,
        offset: int = 0,
        name: str | None = None,
        compression: str | None = None,
        readahead: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        _chunk: int | None = None,
    ) -> None:
        src = source if isinstance(source, Source) else open_source(
            source, name=name, storage_options=storage_options)
        self._source = src
        self.name = name or src.name
        self._own = src.owned
        self._private = False  # read_record_at's reader of one record: record.close() closes it
        # The core makes records through the registry (it imports no record class).
        self._record_types = RECORD_TYPES
        self._record_class = record_class
        self.lenient = lenient
        self.on_warning = on_warning
        self._types = frozenset(t.lower() for t in types) if types is not None else None
        self._min = min_size
        self._max = max_size
        self._max_head = max_header_size
        if offset:
            if not src.seekable:
                src.close()
                raise UsageError(f"{self.name}: cannot start at offset {offset} (the input cannot seek)")
            src.file.seek(offset)
        head = src.peek(4)
        if head == ZIP_LOCAL_MAGIC and compression is None and ArchiveReader._zip_opener is not None:
            # A WACZ: the records of the WARCs inside it (read/wacz.py).
            ArchiveReader._zip_opener(self, src, {"lenient": lenient, "on_warning": on_warning, "types": types,
                                     "min_size": min_size, "max_size": max_size,
                                     "max_header_size": max_header_size}, offset)
            return
        self._f: Any = src.file  # (peek may have wrapped it in a buffer)
        self.compression = compression or sniff_compression(head)
        kwargs: dict[str, Any] = {"start": offset, "source": self.name, "lenient": lenient}
        if _chunk is not None:
            kwargs["in_chunk"] = _chunk
        if readahead is None:
            # A reader that opened the file owns its descriptor; random access
            # (_chunk) reads one record, where inflating ahead would be waste.
            readahead = self._own and _chunk is None and _READAHEAD_DEFAULT
            kwargs["readahead_default"] = True  # (the decoder may still keep to one thread)
        kwargs["readahead"] = readahead
        kwargs["direct"] = _chunk is None
        # (a file it opened: nobody else reads its file object, which a map leaves unmoved)
        kwargs["mapped"] = self._own and _chunk is None and _MAPPED_DEFAULT
        self._dec_kwargs = kwargs
        self._dec: Any = make_decoder(self._f, self.compression, **kwargs)
        if self.compression == "zstd" and offset and self._f.seekable():
            self._load_zstd_dictionary(offset)
        self._dec_skip = getattr(self._dec, "skip", None)
        if _chunk is not None and isinstance(self._dec, PlainDecoder):
            self._dec._chunk = _chunk
        self._buf = b""
        self._pos = 0
        self._base = offset if self.compression == "none" else 0
        self._start_offset = offset
        # Member starts: parallel sorted lists of stream positions and file offsets.
        self._bstream: list[int] = [0]
        self._bfile: list[int] = [offset]
        self._eof = False
        # The current record is held weakly (it holds the reader strongly): a record
        # the caller dropped is freed at once, and with it, for read_record_at, the file.
        self._current_ref: weakref.ReferenceType[WarcRecord] | None = None
        self._cur_info: tuple[int, int, bool, str, int] = (0, 0, True, "warc", 0)
        self._cur_block_left = 0
        self._cur_start = 0
        self._gen = 0
        self.format: str | None = None  # "warc" or "arc", set by the first record
        self._arc_legend: tuple[str, ...] = _ARC_V1
        self.arc_version: str | None = None
        self.issues: list[Issue] = []
        self._done = False
        self._broken = False
        self._broken_error: CompressionError | None = None

    # -- file plumbing ----------------------------------------------------------------

    def _load_zstd_dictionary(self, offset: int) -> None:
        """Random access into a warc-zstd file: the dictionary frame is at its start."""
        f = self._f
        f.seek(0)
        head = f.read(8)
        if head[:4] == ZSTD_DICT_MAGIC and len(head) == 8:
            size = int.from_bytes(head[4:8], "little")
            self._dec._load_dictionary(head + f.read(min(size, MAX_DICTIONARY)))
        f.seek(offset)

    def close(self) -> None:
        """Close the file if the reader opened it."""
        if self._current_ref is not None:
            self._gen += 1
            self._current_ref = None
        close_decoder = getattr(self._dec, "close", None)
        if close_decoder is not None:
            close_decoder()
        if self._own:
            self._source.file.close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[WarcRecord]:
        return self

    # -- warnings -----------------------------------------------------------------------

    def _warn(self, code: str, message: str, offset: int | None, record: WarcRecord | None = None) -> None:
        issue = Issue(code, message, "warning", offset, self.name)
        self.issues.append(issue)
        if record is not None:
            record.issues.append(issue)
        if self.on_warning is not None:
            self.on_warning(issue)

    def _file_offset(self, stream_pos: int) -> int:
        """File offset to report for a stream position (member start for compressed input)."""
        if self.compression == "none":
            return stream_pos
        i = bisect.bisect_right(self._bstream, stream_pos) - 1
        return self._bfile[max(i, 0)]

    # -- buffer -----------------------------------------------------------------------------

    def _set_current(self, record: WarcRecord) -> None:
        record._body = _LengthedBody(self, self._gen)
        self._current_ref = _weakref(record)
        # What finishing needs if the caller drops the record first (a tuple is cheap).
        self._cur_info = (
            record.offset, record.stream_offset, record.member_aligned, record.format,
            record._content_length,
        )

    def _truncated(self, record: WarcRecord) -> None:
        msg = f"file ends inside the block ({self._cur_block_left} bytes missing)"
        if not self.lenient:
            self._cur_block_left = 0
            raise RecordParseError(msg, offset=record.offset, source=self.name)
        self._warn("truncated-block", msg, record.offset, record)
        record._content_length -= self._cur_block_left
        self._cur_block_left = 0

    # -- record heads ------------------------------------------------------------------------

    def _at_eof(self) -> bool:
        return not self._ensure(1)

    def _read_head(self) -> WarcRecord | None:
        if self._pos >= len(self._buf) and not self._ensure(1):
            return None
        buf, pos = self._buf, self._pos
        if self.format is None:
            self._ensure(9)
            buf, pos = self._buf, self._pos
            if buf[pos : pos + 5].upper() == b"WARC/":
                self.format = "warc"
            elif buf.startswith(b"filedesc:", pos):
                self.format = "arc"
            elif self._start_offset and self._arc_line_here():
                # Random access into an ARC file: a URL-record line, no version block.
                self.format = "arc"
            else:
                return self._unrecognized_start()
        if self.format == "arc":
            return self._read_arc_head()
        record: WarcRecord | None = self._read_warc_head()
        return record

    def _unrecognized_start(self) -> WarcRecord | None:
        where = self._base + self._pos
        snippet = self._buf[self._pos : self._pos + 16]
        if not self.lenient:
            raise RecordParseError(
                "not a WARC or ARC file (no WARC/ version line or filedesc:// block here)",
                offset=self._file_offset(where),
                source=self.name,
                snippet=snippet,
            )
        line = self._peek_line()
        if line is not None and _arc_fields(line, _ARC_V1) is not None:
            self.format = "arc"
            self.arc_version = "1"
            self._warn("arc-no-version-block", "ARC file has no filedesc:// version block", where)
            return self._read_arc_head()
        skipped = self._resync(b"WARC/")
        self._warn("skipped-garbage", f"skipped {skipped} bytes that are not a record", where)
        if self._at_eof():
            return None
        self.format = "warc"
        record: WarcRecord | None = self._read_warc_head()
        return record

    def _peek_line(self) -> bytes | None:
        while True:
            nl = self._buf.find(b"\n", self._pos)
            if nl >= 0:
                return self._buf[self._pos : nl]
            if len(self._buf) - self._pos > MAX_ARC_LINE or not self._fill():
                return None

    def _record_position(self) -> tuple[int, int, bool]:
        start = self._base + self._pos
        self._prune_bounds(start)
        if self.compression == "none":
            return start, start, True
        i = bisect.bisect_right(self._bstream, start) - 1
        return start, self._bfile[i], self._bstream[i] == start

    def _only_space_left(self) -> bool:
        """True if nothing but whitespace/NUL remains (consumes it)."""
        while True:
            rest = self._buf[self._pos :]
            if rest.strip(b"\r\n\t \x00"):
                return False
            self._pos = len(self._buf)
            if not self._fill():
                return True

def open_archive(
    source: InputLike,
    *,
    lenient: bool = False,
    on_warning: WarningHandler | None = None,
    types: Collection[str] | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    max_header_size: int = MAX_HEADER_SIZE,
    offset: int = 0,
    name: str | None = None,
    compression: str | None = None,
    readahead: bool | None = None,
    storage_options: dict[str, Any] | None = None,
) -> ArchiveReader:
    """Open a WARC or ARC file (any compression) for reading.

    The arguments are those of :class:`ArchiveReader`: *source* a path, ``"-"`` or a
    binary file object; *lenient* recovers from damage, reporting each recovery to *on_warning*;
    *types*, *min_size* and *max_size* (Content-Length, in bytes) select records;
    *max_header_size* caps a record head (bytes); *offset* starts at a record's file
    offset; *name* is used in messages; *compression* (``"gzip"``, ``"zstd"``,
    ``"none"``) overrides sniffing; *readahead* inflates gzip on a thread;
    *storage_options* go to fsspec when *source* is a URL (:mod:`warckit.io.remote`).
    """
    return ArchiveReader(source, lenient=lenient, on_warning=on_warning, types=types,
                         min_size=min_size, max_size=max_size, max_header_size=max_header_size,
                         offset=offset, name=name, compression=compression,
                         readahead=readahead, storage_options=storage_options)


def read_record_at(
    path: InputLike,
    offset: int,
    *,
    lenient: bool = False,
    on_warning: WarningHandler | None = None,
    max_header_size: int = MAX_HEADER_SIZE,
    name: str | None = None,
    compression: str | None = None,
    types: Collection[str] | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    readahead: bool | None = None,
    length: int | None = None,
    storage_options: dict[str, Any] | None = None,
) -> WarcRecord:
    """Read the record that starts at file *offset* without scanning what precedes it.

    The returned record keeps its file open while its body streams; close it with
    ``record.close()`` or use it as a context manager::

        with warckit.read_record_at(path, offset) as record:
            data = record.content_stream().read()

    The keyword arguments are those of :class:`ArchiveReader` (*types*, *min_size* and
    *max_size* skip to the first selected record at or after *offset*). *length* is the
    record's length (as in a CDX line): a remote source (a URL, see :mod:`warckit.io.remote`) then
    fetches exactly bytes ``[offset, offset + length)`` in one request; without it,
    a small first range, then growing ones. Local files ignore it.

    Raises:
        ParseError: there is no record at *offset*, or it is damaged (the error names
            the file and the offset).
    """
    options: dict[str, Any] = {
        "lenient": lenient, "on_warning": on_warning, "max_header_size": max_header_size,
        "compression": compression, "types": types, "min_size": min_size,
        "max_size": max_size, "readahead": readahead,
    }
    return _open_record_at(path, offset, options, name, length, storage_options)[1]


def _open_record_at(
    path: InputLike, offset: int, options: dict[str, Any], name: str | None,
    length: int | None = None, storage_options: dict[str, Any] | None = None,
) -> tuple[ArchiveReader, WarcRecord]:
    """The reader of one record (closed with the record) and that record."""
    if isinstance(path, os.PathLike) or (isinstance(path, str) and path != STDIN and "://" not in path):
        # open_source's rule for a local path, but unbuffered (see _RecordFile).
        raw = _RecordFile(path, "rb")
        src = Source(raw if raw.seekable() else io.BufferedReader(raw),
                     name or os.fspath(path), owned=True)
    else:
        src = open_source(path, name=name, storage_options=storage_options, span=(offset, length))
        if not offset and src.seekable:
            src.file.seek(0)  # (the reader seeks to any other offset; a file object may be anywhere)
    try:
        # Random access: read (and, for gzip, buffer) little past the record.
        reader = ArchiveReader(src, offset=offset, _chunk=1 << 15, **options)
    except BaseException as exc:
        src.close()
        if isinstance(exc, ParseError):
            raise exc.located(source=src.name, offset=offset) from None
        raise
    try:
        record = next(reader)
    except StopIteration:
        reader.close()
        raise RecordParseError("no record at this offset", offset=offset, source=reader.name) from None
    except ParseError as exc:
        reader.close()
        raise exc.located(source=reader.name, offset=offset) from None
    except BaseException:
        reader.close()
        raise
    reader._private = True  # record.close() closes the reader (and the file, if opened here)
    return reader, record


def read_payload_range(
    path: InputLike,
    offset: int,
    start: int,
    end: int | None = None,
    *,
    lenient: bool = False,
    on_warning: WarningHandler | None = None,
    max_header_size: int = MAX_HEADER_SIZE,
    name: str | None = None,
    compression: str | None = None,
    types: Collection[str] | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    readahead: bool | None = None,
    length: int | None = None,
    storage_options: dict[str, Any] | None = None,
) -> Iterator[bytes]:
    """Yield bytes ``[start, end)`` of the payload of the record at *offset*.

    For an uncompressed file this seeks straight to the range (the HTTP Range
    request use case: a slice of a large video without reading what precedes it).
    For compressed files the payload is decompressed up to *start* and skipped.

    The keyword arguments are those of :func:`read_record_at`.

    Raises:
        UsageError: the range is outside the payload.
    """
    options: dict[str, Any] = {
        "lenient": lenient, "on_warning": on_warning, "max_header_size": max_header_size,
        "compression": compression, "types": types, "min_size": min_size,
        "max_size": max_size, "readahead": readahead,
    }
    reader, record = _open_record_at(path, offset, options, name, length, storage_options)
    payload_at = record.payload_offset()
    size = record.content_length - payload_at
    if end is None or end > size:
        end = size
    if start < 0 or start > end:
        reader.close()
        raise UsageError(f"range {start}-{end} is outside the payload (0-{size})")
    try:
        if reader.compression == "none":
            f = reader._f
            block_at = record.stream_offset + len(record.raw_head)
            f.seek(block_at + payload_at + start)
            left = end - start
            while left:
                data = f.read(min(left, 1 << 20))
                if not data:
                    break
                left -= len(data)
                yield data
            return
        stream = record.payload_stream()
        skip = start
        while skip:
            data = stream.read(min(skip, 1 << 20))
            if not data:
                return
            skip -= len(data)
        left = end - start
        while left:
            data = stream.read(min(left, 1 << 20))
            if not data:
                return
            left -= len(data)
            yield data
    finally:
        reader.close()
