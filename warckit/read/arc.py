"""ARC v1/v2 records (the reader's ARC half): URL-record lines, the version block,
the newline after each record, and lenient recovery from bad lines and lengths.

:class:`ArcHeads` is a base of :class:`~warckit.read.reader.ArchiveReader`; it works
on the reader core's buffer.
"""

from __future__ import annotations

import bisect
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from .._speedups.readercore import impl as _core
from ..errors import HeaderParseError, RecordParseError
from ..record.records import ArcRecord, WarcRecord

if TYPE_CHECKING:
    from .._speedups._readercore_py import ReaderCore as _Base
else:
    _Base = object  # (the reader puts the selected ReaderCore after this class)

__all__ = ["MAX_ARC_LINE", "ArcHeads"]

_MAX_CONTENT_LENGTH: int = _core.MAX_CONTENT_LENGTH

#: Cap on one ARC URL-record line.
MAX_ARC_LINE = 1 << 16

_SKIPPED = object()  # (an ARC line skipped in lenient mode: read on)

_ARC_V1 = ("url", "ip", "date", "mime", "length")
_ARC_V2 = ("url", "ip", "date", "mime", "status", "checksum", "location", "offset", "filename", "length")


class ArcHeads(_Base):
    """Reading ARC records: what the reader does once a file is known to be ARC."""

    _arc_legend: tuple[str, ...]
    arc_version: str | None
    _start_offset: int

    def _set_current(self, record: WarcRecord) -> None:
        raise NotImplementedError

    def _peek_line(self) -> bytes | None:
        raise NotImplementedError

    def _record_position(self) -> tuple[int, int, bool]:
        raise NotImplementedError

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
