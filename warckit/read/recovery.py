"""The reader's recovery paths: damaged trailers, resynchronisation on the next
record, and going on past a damaged gzip member.

:class:`Recovery` is a base of :class:`~warckit.read.reader.ArchiveReader`; it works
on the reader core's buffer. Every recovery is an :class:`~warckit.errors.Issue`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from ..errors import CompressionError, RecordParseError
from ..io.compression import GZIP_MEMBER_MAGIC, make_decoder
from ..record.records import WarcRecord
from .arc import _ARC_V1, _ARC_V2, _arc_fields

if TYPE_CHECKING:
    from typing import Any

    from .._speedups._readercore_py import ReaderCore as _Base
else:
    _Base = object  # (the reader puts the selected ReaderCore after this class)

__all__ = ["Recovery"]

#: Compressed bytes inflated, and bytes of output looked at, to tell whether a
#: member found by a resync starts a record.
_PROBE_IN = 1 << 16
_PROBE_OUT = 4096


class Recovery(_Base):
    """Damaged trailers, resync and damaged gzip members (the reader's rare paths)."""

    _arc_legend: tuple[str, ...]
    _dec_kwargs: dict[str, Any]
    _broken_error: CompressionError | None

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
        import zlib  # (only damaged gzip files get here)

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
