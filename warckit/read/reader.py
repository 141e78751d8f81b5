"""Streaming readers for WARC 0.17-1.1 and ARC v1/v2 files, any compression.

``ArchiveReader`` detects the compression (plain, gzip per record, whole-file gzip,
zstd with or without the IIPC dictionary frame) and the format (WARC or ARC) from
content, not names. Records carry their file offset and length; bodies stream.
"""

from __future__ import annotations

import bisect
import os
import weakref
import zlib
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

from .._speedups import load
from .._util.cpus import cpu_count
from ..errors import (
    CompressionError,
    HeaderParseError,
    Issue,
    ParseError,
    RecordParseError,
    UsageError,
)
from ..io.compression import (
    GZIP_MEMBER_MAGIC,
    MAX_DICTIONARY,
    ZSTD_DICT_MAGIC,
    PlainDecoder,
    make_decoder,
    sniff_compression,
)
from ..io.sources import InputLike, Source, open_source
from ..record.records import ArcRecord, WarcRecord

__all__ = ["RECORDS_LOST", "ArchiveReader", "WarningHandler", "open_archive", "read_payload_range", "read_record_at"]

if TYPE_CHECKING:
    from .._speedups._readercore_py import ReaderCore as _ReaderCore
else:
    _ReaderCore = load("readercore").ReaderCore
_MAX_CONTENT_LENGTH: int = load("readercore").MAX_CONTENT_LENGTH

WarningHandler = Callable[[Issue], None]
_SKIPPED = object()  # (an ARC line skipped in lenient mode: read on)

#: Issue codes of lenient recoveries that skipped or cut records (data was lost).
RECORDS_LOST = frozenset({
    "damaged-member", "truncated-member", "trailing-garbage", "skipped-garbage", "truncated-block",
    "truncated-head",
})

#: Default cap on the size of one record head (version line + fields).
MAX_HEADER_SIZE = 1 << 20
#: Cap on one ARC URL-record line.
MAX_ARC_LINE = 1 << 16

#: Whether readers inflate gzip files ahead on a thread by default.
_READAHEAD_DEFAULT = cpu_count() > 1 and os.environ.get("WARCKIT_READAHEAD", "1") != "0"

#: Compressed bytes inflated, and bytes of output looked at, to tell whether a
#: member found by a resync starts a record.
_PROBE_IN = 1 << 16
_PROBE_OUT = 4096

_ARC_V1 = ("url", "ip", "date", "mime", "length")
_ARC_V2 = ("url", "ip", "date", "mime", "status", "checksum", "location", "offset", "filename", "length")


class ArchiveReader(_ReaderCore):
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
            CPU; the environment variable ``WARCKIT_READAHEAD=0`` turns that off.
            Results are the same either way.

    Example:
        >>> import warckit
        >>> with warckit.open("examples/sample.warc.gz") as reader:
        ...     print([r.type for r in reader][:3])
        ['warcinfo', 'request', 'response']
    """

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
        _chunk: int | None = None,
    ) -> None:
        src = source if isinstance(source, Source) else open_source(source, name=name)
        self._source = src
        self.name = name or src.name
        self._own = src.owned
        self._private = False  # read_record_at's reader of one record: record.close() closes it
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
        self._f: Any = src.file  # (peek may have wrapped it in a buffer)
        self.compression = compression or sniff_compression(head)
        kwargs: dict[str, Any] = {"start": offset, "source": self.name, "lenient": lenient}
        if _chunk is not None:
            kwargs["in_chunk"] = _chunk
        if readahead is None:
            # A reader that opened the file owns its descriptor; random access
            # (_chunk) reads one record, where inflating ahead would be waste.
            readahead = self._own and _chunk is None and _READAHEAD_DEFAULT
        kwargs["readahead"] = readahead
        kwargs["direct"] = _chunk is None
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
        record._reader = self
        record._gen = self._gen
        self._current_ref = weakref.ref(record)
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

    def _consume_warc_trailer(self, record: WarcRecord) -> None:
        buf, pos = self._buf, self._pos
        if buf.startswith(b"\r\n\r\n", pos):
            self._pos = pos + 4
            return
        self._ensure(4)
        buf, pos = self._buf, self._pos
        if buf.startswith(b"\r\n\r\n", pos):
            self._pos = pos + 4
            return
        if self._eof and pos == len(buf) and any(i.code == "truncated-block" for i in record.issues):
            record.trailer = b""  # the file ends inside the block: that one finding says it
            return
        where = self._base + pos
        # Quirk: Heritrix and others end some records (often zero-length revisits)
        # with a single CRLF, or none, before the next record. Unambiguous when the
        # next record's version line (or the end of input) follows: accepted in both
        # modes and reported (docs/conformance.rst#short-trailer).
        for short in (b"\r\n", b""):
            if buf.startswith(short, pos):
                self._ensure(len(short) + 5)
                buf, pos = self._buf, self._pos  # _ensure may have rebased the buffer
                after = pos + len(short)
                if buf[after : after + 5].upper() == b"WARC/" or (
                    self._eof and after == len(buf)
                ):
                    self._pos = after
                    record.trailer = short
                    self._warn(
                        "short-trailer",
                        f"record ends with {len(short)} of the 4 trailer bytes (CRLF CRLF)",
                        record.offset,
                        record,
                    )
                    return
        buf = self._buf
        if not self.lenient:
            raise RecordParseError(
                "record block is not followed by CRLF CRLF (Content-Length wrong?)",
                offset=self._file_offset(where) if self.compression != "none" else where,
                source=self.name,
                snippet=buf[pos : pos + 16],
            )
        # Lenient: the trailer is whatever comes before the next record.
        skipped = self._resync(b"WARC/")
        record.trailer = None
        self._warn(
            "missing-trailer",
            f"record not followed by CRLF CRLF; skipped {skipped} bytes to the next record",
            record.offset,
            record,
        )

    def _consume_arc_trailer(self, record: WarcRecord) -> None:
        if not self._ensure(1):
            record.trailer = b""
            return
        if self._buf[self._pos] in (10, 13):
            # The <nl> separator; Quirk: some ARCs use CRLF or blank lines.
            taken = bytearray()
            while len(taken) < 4 and self._ensure(1) and self._buf[self._pos] in (10, 13):
                taken.append(self._buf[self._pos])
                self._pos += 1
            record.trailer = bytes(taken)
            return
        where = self._base + self._pos
        record.trailer = b""
        i = bisect.bisect_left(self._bstream, where)
        if i < len(self._bstream) and self._bstream[i] == where:
            # Quirk: recompressed ARCs drop the newline; the member boundary delimits.
            return
        if not self.lenient:
            raise RecordParseError(
                "ARC record is not followed by a newline",
                offset=self._file_offset(where),
                source=self.name,
                snippet=self._buf[self._pos : self._pos + 16],
            )
        self._warn("arc-missing-newline", "ARC record not followed by a newline", record.offset, record)

    def _resync(self, marker: bytes) -> int:
        """Skip to the next line starting with *marker*; return how many bytes were skipped."""
        skipped = 0
        lower = marker.lower()
        while True:
            buf, pos = self._buf, self._pos
            i = pos
            while True:
                j = buf.find(marker, i)
                k = buf.find(lower, i) if lower != marker else -1
                if k >= 0 and (j < 0 or k < j):
                    j = k
                if j < 0 or j == pos or buf[j - 1] == 10:
                    break
                i = j + 1
            if j >= 0:
                skipped += j - pos
                self._pos = j
                return skipped
            keep = max(pos, len(buf) - len(marker))
            skipped += keep - pos
            self._pos = keep
            if not self._fill():
                skipped += len(self._buf) - self._pos
                self._pos = len(self._buf)
                return skipped

    # -- damaged gzip members ------------------------------------------------------------

    def _dec_failed(self, exc: CompressionError) -> None:
        """The decoder raised *exc* (strict mode): the next record is looked for past it."""
        if self.compression == "gzip" and exc.offset is not None:
            self._broken = True
            self._broken_error = exc

    def _resume(self) -> bool:
        """Go on at the next gzip member that starts a record, past a damaged one.

        Called when a strict decoder error was raised, and (lenient) where the decoded
        stream ends. True: the reader now reads from that member; False: nothing to
        resume (no damage, no such member, or the input cannot seek).
        """
        dec = self._dec
        if self._broken:
            exc = self._broken_error
            assert exc is not None and exc.offset is not None
            self._broken = False
            self._broken_error = None
            damaged, reason, code = exc.offset, exc.message, "damaged-member"
            if self._current_ref is not None:  # the record the damage cut: abandoned
                self._gen += 1
                self._current_ref = None
                self._cur_block_left = 0
        elif self.compression == "gzip" and getattr(dec, "truncated_member", None) is not None:
            damaged, reason = dec.truncated_member, dec.stop_reason
            code = "damaged-member"
        elif self.compression == "gzip" and getattr(dec, "trailing_garbage", None) is not None:
            damaged, reason, code = dec.trailing_garbage, dec.stop_reason, "skipped-garbage"
        else:
            return False
        found = self._next_record_member(damaged)
        if found is None:
            if not self.lenient:
                self._warn(code, f"{reason}; no gzip member that starts a record follows", damaged)
            return False  # (lenient: _report_end reports it as before)
        self._warn(
            code,
            f"{reason}; skipped bytes {damaged}-{found} ({found - damaged} bytes) to the next "
            "gzip member that starts a record",
            damaged,
        )
        close = getattr(dec, "close", None)
        if close is not None:
            close()
        self._f.seek(found)
        kwargs = dict(self._dec_kwargs, start=found)
        self._dec = make_decoder(self._f, self.compression, **kwargs)
        self._dec_skip = getattr(self._dec, "skip", None)
        self._base += len(self._buf)
        self._buf = b""
        self._pos = 0
        if self._bstream[-1] == self._base:
            self._bfile[-1] = found
        else:
            self._bstream.append(self._base)
            self._bfile.append(found)
        self._eof = False
        self._done = False
        return True

    def _next_record_member(self, damaged: int) -> int | None:
        """Offset of the first gzip member after *damaged* whose data begins with a record
        head (``WARC/``, or an ARC URL-record line for ARC files); None if there is none."""
        f = self._f
        try:
            if not f.seekable():
                return None
        except (AttributeError, ValueError):
            return None
        block = 1 << 20
        at = damaged + 1
        while True:
            f.seek(at)
            data: bytes = f.read(block + 2)
            i = data.find(GZIP_MEMBER_MAGIC)
            while i >= 0:
                if self._starts_record(at + i):
                    return at + i
                i = data.find(GZIP_MEMBER_MAGIC, i + 1)
            if len(data) < block + 2:
                return None
            at += block

    def _starts_record(self, offset: int) -> bool:
        """Whether the gzip member at *offset* inflates to a record head (its first bytes)."""
        self._f.seek(offset)
        d = zlib.decompressobj(31)
        try:
            out = d.decompress(self._f.read(_PROBE_IN), _PROBE_OUT)
        except zlib.error:
            return False
        if self.format != "arc" and out[:5].upper() == b"WARC/":
            return True
        if self.format != "warc":
            if out.startswith(b"filedesc:"):
                return True
            line = out.split(b"\n", 1)[0].rstrip(b"\r")
            for legend in (self._arc_legend, _ARC_V1, _ARC_V2):
                fields = _arc_fields(line, legend)
                if fields is not None and fields["length"].isdigit():
                    return True
        return False

    # -- record heads ------------------------------------------------------------------------

    def _report_end(self) -> None:
        dec = self._dec
        garbage = getattr(dec, "trailing_garbage", None)
        if garbage is not None:
            self._warn("trailing-garbage", "bytes after the last gzip member are not gzip", garbage)
        truncated = getattr(dec, "truncated_member", None)
        if truncated is not None:
            reason = getattr(dec, "stop_reason", None) or "gzip member is truncated"
            if reason.startswith("gzip member is truncated"):
                self._warn("truncated-member", "the last gzip member is truncated", truncated)
            else:
                self._warn("damaged-member", f"{reason}; no gzip member that starts a record follows",
                           truncated)

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
        return self._read_warc_head()

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
        return self._read_warc_head()

    def _arc_line_here(self) -> bool:
        line = self._peek_line()
        if line is None:
            return False
        line = line.rstrip(b"\r")
        for legend in (_ARC_V1, _ARC_V2):
            fields = _arc_fields(line, legend)
            if fields is not None and fields["length"].isdigit() and len(fields["date"]) >= 12:
                self._arc_legend = legend
                self.arc_version = "2" if legend is _ARC_V2 else "1"
                return True
        return False

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

    # -- ARC ----------------------------------------------------------------------------------

    def _read_arc_head(self) -> WarcRecord | None:
        # (A loop, not recursion: lenient reading may skip any number of bad lines.)
        while True:
            record = self._read_arc_head_once()
            if record is not _SKIPPED:
                return record  # type: ignore[return-value]

    def _read_arc_head_once(self) -> WarcRecord | None | object:
        """The next ARC record, ``None`` at the end, or ``_SKIPPED`` after a bad line (lenient)."""
        # Tolerate blank lines between records (the <nl> before each URL-record).
        while True:
            if not self._ensure(1):
                return None
            if self._buf[self._pos] in (10, 13):
                self._pos += 1
                continue
            break
        start, offset, aligned = self._record_position()
        line = self._peek_line()
        if line is None:
            if self._at_eof() or self._only_space_left():
                return None
            if not self.lenient:
                raise HeaderParseError("ARC header line too long", offset=offset, source=self.name)
            skipped = len(self._buf) - self._pos
            self._pos = len(self._buf)
            while self._fill():
                skipped += len(self._buf) - self._pos
                self._pos = len(self._buf)
            self._warn("skipped-garbage", f"skipped {skipped} bytes that are not a record", offset)
            return None
        raw_line = self._buf[self._pos : self._pos + len(line) + 1]
        text = line.rstrip(b"\r")
        is_filedesc = text.startswith(b"filedesc:")
        legend = _ARC_V1 if is_filedesc and len(text.split(b" ")) <= 5 else self._arc_legend
        if is_filedesc and len(text.split(b" ")) >= 10:
            legend = _ARC_V2
        fields = _arc_fields(text, legend)
        if fields is None:
            other = _ARC_V2 if legend is _ARC_V1 else _ARC_V1
            fields = _arc_fields(text, other)
        issue = None
        if fields is None or not _arc_length_ok(fields["length"]):
            if not self.lenient:
                raise RecordParseError(
                    f"bad ARC URL-record line {text[:60]!r}", offset=offset, source=self.name
                )
            if fields is None:
                skipped = self._skip_arc_garbage()
                self._warn("arc-bad-line", f"skipped {skipped} bytes of unparsable ARC data", offset)
                return _SKIPPED if not self._at_eof() else None
            length = fields["length"]
            what = "is too large" if length.isascii() and length.isdigit() else "is not a number"
            issue = f"ARC length {length!r} {what}; block taken up to the next record"
        self._pos += len(raw_line)
        if issue is None:
            cl = int(fields["length"])
        else:
            cl = self._arc_guess_length()
        version = "1"
        if is_filedesc:
            version = self._arc_version_from_block(cl)
        elif self.arc_version:
            version = self.arc_version
        record = ArcRecord(
            fields,
            raw_line,
            arc_version=version,
            offset=offset,
            stream_offset=start,
            source=self.name,
            content_length=cl,
            lenient=self.lenient,
        )
        record.member_aligned = aligned
        if issue:
            self._warn("arc-bad-length", issue, offset, record)
        self._set_current(record)
        self._cur_block_left = cl
        return record

    def _arc_version_from_block(self, cl: int) -> str:
        self._ensure(min(cl, 4096))
        block = self._buf[self._pos : self._pos + min(cl, 4096)]
        lines = block.split(b"\n", 2)
        first = lines[0].split() if lines else []
        version = first[0].decode("ascii", "replace") if first else "1"
        self.arc_version = version
        legend_line = lines[1].split() if len(lines) > 1 else []
        # Quirk: some v1 files carry the v2 field-names line; the legend is honoured.
        if len(legend_line) >= 10:
            self._arc_legend = _ARC_V2
        elif len(legend_line) == 5:
            self._arc_legend = _ARC_V1
        else:
            self._arc_legend = _ARC_V2 if version == "2" else _ARC_V1
        return version

    def _arc_guess_length(self) -> int:
        """Lenient: a bad length means the block runs to the next plausible URL-record line."""
        i = self._pos
        while True:
            buf = self._buf
            nl = buf.find(b"\n", i)
            while nl >= 0:
                nxt = buf.find(b"\n", nl + 1)
                if nxt < 0:
                    break
                cand = buf[nl + 1 : nxt].rstrip(b"\r")
                f = _arc_fields(cand, self._arc_legend)
                if f is not None and f["length"].lstrip("-").isdigit() and len(f["date"]) >= 12:
                    return nl - self._pos  # the newline ends the record, not its block
                nl = nxt
            i = max(self._pos, len(buf) - MAX_ARC_LINE)
            before = self._pos
            if not self._fill():
                return len(self._buf) - self._pos
            i -= before - self._pos

    def _skip_arc_garbage(self) -> int:
        nl = self._buf.find(b"\n", self._pos)
        n = (nl + 1 if nl >= 0 else len(self._buf)) - self._pos
        self._pos += n
        return n


def _arc_length_ok(text: str) -> bool:
    """ASCII digits, and no more than any file can hold (the reader core's limit)."""
    digits = text.lstrip("0")
    return text.isascii() and text.isdigit() and len(digits) <= 19 and int(digits or 0) <= _MAX_CONTENT_LENGTH


def _arc_fields(line: bytes, legend: tuple[str, ...]) -> dict[str, str] | None:
    """Split an ARC URL-record line by *legend*, from the right (URLs may hold spaces)."""
    parts = line.rsplit(b" ", len(legend) - 1)
    if len(parts) != len(legend) or not parts[0]:
        return None
    fields = dict(zip(legend, (p.decode("latin-1") for p in parts)))
    date = fields["date"]
    if not date.isdigit() and date != "-":
        return None
    return fields


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
) -> ArchiveReader:
    """Open a WARC or ARC file (any compression) for reading.

    The arguments are those of :class:`ArchiveReader`: *source* a path, ``"-"`` or a
    binary file object; *lenient* recovers from damage, reporting each recovery to *on_warning*;
    *types*, *min_size* and *max_size* (Content-Length, in bytes) select records;
    *max_header_size* caps a record head (bytes); *offset* starts at a record's file
    offset; *name* is used in messages; *compression* (``"gzip"``, ``"zstd"``,
    ``"none"``) overrides sniffing; *readahead* inflates gzip on a thread.
    """
    return ArchiveReader(source, lenient=lenient, on_warning=on_warning, types=types,
                         min_size=min_size, max_size=max_size, max_header_size=max_header_size,
                         offset=offset, name=name, compression=compression,
                         readahead=readahead)


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
) -> WarcRecord:
    """Read the record that starts at file *offset* without scanning what precedes it.

    The returned record keeps its file open while its body streams; close it with
    ``record.close()`` or use it as a context manager::

        with warckit.read_record_at(path, offset) as record:
            data = record.content_stream().read()

    The keyword arguments are those of :class:`ArchiveReader` (*types*, *min_size* and
    *max_size* skip to the first selected record at or after *offset*).

    Raises:
        ParseError: there is no record at *offset*, or it is damaged (the error names
            the file and the offset).
    """
    options: dict[str, Any] = {
        "lenient": lenient, "on_warning": on_warning, "max_header_size": max_header_size,
        "compression": compression, "types": types, "min_size": min_size,
        "max_size": max_size, "readahead": readahead,
    }
    src = open_source(path, name=name)
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
    reader._private = True
    return record


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
) -> Iterator[bytes]:
    """Yield bytes ``[start, end)`` of the payload of the record at *offset*.

    For an uncompressed file this seeks straight to the range (the HTTP Range
    request use case: a slice of a large video without reading what precedes it).
    For compressed files the payload is decompressed up to *start* and skipped.

    The keyword arguments are those of :func:`read_record_at`.

    Raises:
        UsageError: the range is outside the payload.
    """
    record = read_record_at(path, offset, lenient=lenient, on_warning=on_warning,
                            max_header_size=max_header_size, name=name,
                            compression=compression, types=types, min_size=min_size,
                            max_size=max_size, readahead=readahead)
    reader = record._reader
    assert reader is not None
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
