"""Decoders that turn a file into decompressed chunks while tracking member boundaries.

Each decoder's :meth:`read` returns ``(chunk, boundary)``: the next piece of the
decompressed stream and, when a gzip member / zstd frame ended exactly at the end
of that piece, the compressed file offset where the next member starts. Every
record therefore knows where its member starts and how many compressed bytes it
occupies. Output per call is bounded (:data:`MAX_CHUNK`), so memory stays constant
whatever the size of a member.
"""

from __future__ import annotations

import os
import stat

from .._speedups.gzipmember import impl as _gzipmember
from .._util.cpus import cpu_count, jobs_running
from ..errors import CompressionError, UsageError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing: reading needs none of it)
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Protocol
else:
    Protocol = object  # (a protocol only describes: at run time a plain base does)

__all__ = [
    "GZIP_MAGIC",
    "GZIP_MEMBER_MAGIC",
    "LANES_MAX_MEMBERS",
    "LANES_MIN_SIZE",
    "MAGIC_NUMBERS",
    "MAX_CHUNK",
    "MAX_DICTIONARY",
    "ZIP_LOCAL_MAGIC",
    "ZSTD_DICT_FRAME",
    "ZSTD_DICT_MAGIC",
    "ZSTD_MAGIC",
    "ZSTD_SKIPPABLE_FRAMES",
    "Decoder",
    "GzipDecoder",
    "LaneDecoder",
    "PlainDecoder",
    "ZstdDecoder",
    "make_decoder",
    "sniff_compression",
]

#: Largest decompressed piece returned by one ``read()``.
MAX_CHUNK = 1 << 20
#: Compressed bytes read from the file at a time.
IN_CHUNK = 1 << 18

# -- the compression table: every magic number warckit knows, defined here only ----------

#: A gzip member's first bytes, ID1 ID2 (RFC 1952 §2.3.1).
GZIP_MAGIC = b"\x1f\x8b"
#: ID1 ID2 CM=8 (deflate): where a gzip member warckit can inflate starts (what a
#: resync past damage, or a split into pieces, looks for).
GZIP_MEMBER_MAGIC = GZIP_MAGIC + b"\x08"
#: A zstd frame's magic number 0xFD2FB528, as on disk (RFC 8878 §3.1.1).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: The IIPC warc-zstd dictionary frame: skippable frame 0x184D2A5D.
ZSTD_DICT_FRAME = 0x184D2A5D
#: That frame's first four bytes, as on disk (little-endian).
ZSTD_DICT_MAGIC = ZSTD_DICT_FRAME.to_bytes(4, "little")
#: The sixteen skippable-frame magic numbers 0x184D2A50-0x184D2A5F (RFC 8878 §3.1.2).
ZSTD_SKIPPABLE_FRAMES = range(0x184D2A50, 0x184D2A60)

#: A ZIP file's first local file header, "PK\3\4" (APPNOTE 4.3.7): a WACZ package, whose
#: stored members are read in place (:mod:`warckit.io.zipped`).
ZIP_LOCAL_MAGIC = b"PK\x03\x04"

#: Compression name -> the first bytes that announce it (what :func:`sniff_compression`
#: looks for; a zstd file may start with the dictionary frame).
MAGIC_NUMBERS: dict[str, tuple[bytes, ...]] = {
    "gzip": (GZIP_MAGIC,),
    "zstd": (ZSTD_MAGIC, ZSTD_DICT_MAGIC),
}


class Decoder(Protocol):
    """What the reader needs from a decompression layer."""

    compression: str

    @property
    def member_start(self) -> int:
        """Compressed offset where the current member began."""

    def read(self, limit: int = ...) -> tuple[bytes, int | None]:
        """Return ``(chunk, boundary)``: at most about *limit* bytes; ``(b"", None)`` at the end."""


def sniff_compression(head: bytes) -> str:
    """Return ``"gzip"``, ``"zstd"`` or ``"none"`` from the first bytes of a file
    (four are enough; see :data:`MAGIC_NUMBERS`)."""
    for name, magics in MAGIC_NUMBERS.items():
        if head.startswith(magics):
            return name
    return "none"


class PlainDecoder:
    """Uncompressed input: the stream offset is the file offset."""

    compression = "none"

    def __init__(self, fileobj: BinaryIO, start: int = 0, chunk: int = MAX_CHUNK) -> None:
        self._f = fileobj
        self._chunk = chunk
        self.member_start = start

    def read(self, limit: int = MAX_CHUNK) -> tuple[bytes, int | None]:
        return self._f.read(min(limit, self._chunk)), None


GzipDecoder = _gzipmember.GzipDecoder
LaneDecoder = _gzipmember.LaneDecoder

#: A gzip file is inflated on two threads (:class:`LaneDecoder`) from this many
#: compressed bytes past where reading starts: below it, starting lanes costs more
#: than they save.
LANES_MIN_SIZE = 32 << 20
#: ... and when the first MiB there holds fewer gzip member starts than this: with many
#: small members the reader's own thread (parsing records) is the floor, and a second
#: inflating thread only takes CPU from it (the #19 small mix, ~870 members a MiB, read
#: 10-20% slower in lanes; cc, ~200, and domain, ~25, 15-25% faster).
LANES_MAX_MEMBERS = 512
#: ``WARCKIT_LANES=0`` keeps to one read-ahead thread (the read-ahead itself stays).
_LANES = os.environ.get("WARCKIT_LANES", "1") != "0"


#: Whether this process is a forked child: one of the parallel jobs.
_IN_CHILD = False


def _no_lanes_in_child() -> None:
    # A forked child is one of the parallel jobs (warckit.read.pieces: index -j,
    # verify, check), one per CPU: lanes there would only crowd the CPUs.
    global _LANES, _IN_CHILD
    _LANES = False
    _IN_CHILD = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_no_lanes_in_child)


def _cpus_taken() -> bool:
    """Whether the other CPUs are busy with this job's pieces: this process is a forked
    child (one of the parallel jobs), or runs as many children as leave it one CPU."""
    return _IN_CHILD or cpu_count() - jobs_running() < 2


def _members_in_head(fileobj: BinaryIO, start: int) -> int | None:
    """How many gzip member starts the first MiB at *start* holds, when a regular file
    with a descriptor has LANES_MIN_SIZE bytes to go there (else ``None``)."""
    try:
        fd = fileobj.fileno()
        info = os.fstat(fd)
        pos = fileobj.tell()
        if not (stat.S_ISREG(info.st_mode) and info.st_size - pos >= LANES_MIN_SIZE):
            return None
        head = os.pread(fd, 1 << 20, pos)
    except (AttributeError, OSError, ValueError):
        return None
    return head.count(GZIP_MEMBER_MAGIC)


def _lanes_pay(fileobj: BinaryIO, start: int) -> bool:
    """Whether inflating on two threads pays: the compiled decoder, a CPU free for it
    (more than one, less the parallel jobs this process runs: it is not a forked
    child, and a process reading its own piece while children read theirs keeps to
    one thread), and a regular file with a descriptor, LANES_MIN_SIZE bytes to go and
    members that are not small (LANES_MAX_MEMBERS)."""
    if not (_LANES and _gzipmember.LANES_THREADED) or _cpus_taken():
        return False
    members = _members_in_head(fileobj, start)
    return members is not None and members < LANES_MAX_MEMBERS


def _ahead_pays(fileobj: BinaryIO, start: int) -> bool:
    """Whether inflating ahead on a thread pays where the other CPUs read the job's
    other pieces: only with small members. Large ones make inflating the floor, and
    handing it to a thread that shares this piece's CPU only adds the hand-over
    (#19: the domain mix's ``index`` 4 % faster in-thread, the small mix's 1 % slower)."""
    members = _members_in_head(fileobj, start)
    return members is None or members >= LANES_MAX_MEMBERS


def _zstd_frame_size(buf: bytes, pos: int) -> int | None:
    """Size of the zstd frame (or skippable frame) at ``buf[pos:]``; None if incomplete."""
    if len(buf) - pos < 8:
        return None
    magic = int.from_bytes(buf[pos : pos + 4], "little")
    if magic in ZSTD_SKIPPABLE_FRAMES:
        return 8 + int.from_bytes(buf[pos + 4 : pos + 8], "little")
    if buf[pos : pos + 4] != ZSTD_MAGIC:
        raise ValueError("not a zstd frame")
    fhd = buf[pos + 4]
    fcs_flag = fhd >> 6
    single = (fhd >> 5) & 1
    checksum = (fhd >> 2) & 1
    did_flag = fhd & 3
    size = 5 + (0 if single else 1) + (0, 1, 2, 4)[did_flag]
    size += (1 if single else 0, 2, 4, 8)[fcs_flag]
    while True:
        if len(buf) - pos < size + 3:
            return None
        b0, b1, b2 = buf[pos + size], buf[pos + size + 1], buf[pos + size + 2]
        header = b0 | (b1 << 8) | (b2 << 16)
        last = header & 1
        btype = (header >> 1) & 3
        bsize = header >> 3
        size += 3 + (1 if btype == 1 else bsize)
        if btype == 3:
            raise ValueError("reserved zstd block type")
        if last:
            break
    return size + (4 if checksum else 0)


#: Largest warc-zstd dictionary accepted (compressed or not). zstd's own trainer
#: makes ~110 KB; 16 MiB is far past any real one, and bounds what a frame can cost.
MAX_DICTIONARY = 16 << 20


class _FrameInput:
    """The compressed bytes of the current frame, handed to a zstd stream reader."""

    def __init__(self, decoder: ZstdDecoder) -> None:
        self._d = decoder

    def read(self, size: int = -1) -> bytes:
        return self._d._take_frame_input(size)


def _zstd_header_size(buf: bytes, pos: int) -> int | None:
    """Size of the frame header (magic included) of the zstd frame at ``buf[pos:]``;
    None if its first five bytes are not there yet."""
    if len(buf) - pos < 5:
        return None
    fhd = buf[pos + 4]
    single = (fhd >> 5) & 1
    size = 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 3]
    return size + (1 if single else 0, 2, 4, 8)[fhd >> 6]


#: Largest zstd block (RFC 8878 §3.1.1.2.4: Block_Maximum_Size is 128 KiB).
_ZSTD_MAX_BLOCK = 1 << 17


class ZstdDecoder:
    """Zstandard frames, one record per frame (IIPC warc-zstd), with the dictionary frame.

    Frame boundaries are found by walking frame and block headers, so each frame's
    compressed offset and size are exact; each frame goes through a zstd stream
    reader, so one call's output is bounded whatever the frame's ratio.
    """

    compression = "zstd"

    def __init__(self, fileobj: BinaryIO, start: int = 0, source: str | None = None) -> None:
        import zstandard

        self._zstd = zstandard
        self._f = fileobj
        self._source = source
        self._in = b""
        self._pos = 0  # (consumed bytes of _in: no re-slicing per piece)
        self._in_abs = start
        self._eof = False
        self._dctx: Any = zstandard.ZstdDecompressor()
        self._d: Any = None
        # Walking the current frame: bytes of the current part (header, block or
        # checksum) still to hand to the stream reader, whether its last block has
        # been reached, and whether a checksum follows.
        self._part_left = 0
        self._last_block = True
        self._checksum = False
        self._stash = b""  # (output read ahead of the frame's end)
        self.member_start = start
        self.dictionary: bytes | None = None

    def _have(self) -> int:
        return len(self._in) - self._pos

    def _more(self) -> bool:
        data = self._f.read(IN_CHUNK)
        if not data:
            self._eof = True
            return False
        self._in = self._in[self._pos :] + data if self._pos < len(self._in) else data
        self._pos = 0
        return True

    def _consume(self, n: int) -> bytes:
        out = self._in[self._pos : self._pos + n]
        self._pos += n
        self._in_abs += n
        return out

    def _error(self, message: str, offset: int | None = None) -> CompressionError:
        return CompressionError(
            message, offset=self._in_abs if offset is None else offset, source=self._source
        )

    def _ensure_start(self, n: int) -> None:
        """At least *n* bytes at the start of a frame (a truncated frame header is an error)."""
        while self._have() < n:
            if not self._more():
                raise self._error("zstd frame is truncated")

    def _load_dictionary(self, frame: bytes, offset: int = 0) -> None:
        """Use the dictionary in skippable *frame* (its 8-byte header included)."""
        zstandard = self._zstd
        declared = int.from_bytes(frame[4:8], "little")
        data = frame[8:]
        if declared > MAX_DICTIONARY:
            raise self._error(
                f"zstd dictionary frame of {declared} bytes is larger than {MAX_DICTIONARY}", offset
            )
        if len(data) < declared:
            raise self._error("zstd dictionary frame is truncated", offset)
        try:
            if data[:4] == ZSTD_MAGIC:  # the dictionary itself is zstd-compressed
                try:
                    whole = _zstd_frame_size(data, 0) == len(data)
                except ValueError:
                    whole = False
                if not whole:  # (a stream reader would return a truncated frame's start)
                    raise self._error("zstd dictionary frame holds no whole zstd frame", offset)
                reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=False)
                data = reader.read(MAX_DICTIONARY + 1)
                if len(data) > MAX_DICTIONARY:
                    raise self._error(
                        f"zstd dictionary decompresses to more than {MAX_DICTIONARY} bytes", offset
                    )
            if not data:
                raise self._error("zstd dictionary is empty", offset)
            dctx = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(data))
            dctx.decompressobj()  # (loads the dictionary now: a damaged one fails here)
        except zstandard.ZstdError as exc:
            raise self._error(f"zstd dictionary is damaged ({exc})", offset) from None
        self.dictionary = data
        self._dctx = dctx

    def _input_done(self) -> bool:
        return self._part_left == 0 and self._last_block and not self._checksum

    def _ensure(self, n: int) -> None:
        while self._have() < n:
            if not self._more():
                raise self._error("zstd frame is truncated", self.member_start)

    def _take_frame_input(self, size: int) -> bytes:
        """Up to *size* compressed bytes of the current frame (for the stream reader).

        The frame is walked block by block, so only one piece of it is in memory.
        """
        while self._part_left == 0:
            if self._last_block:
                if not self._checksum:
                    return b""
                self._checksum = False
                self._part_left = 4
                break
            self._ensure(3)
            p = self._pos
            header = self._in[p] | (self._in[p + 1] << 8) | (self._in[p + 2] << 16)
            btype, bsize = (header >> 1) & 3, header >> 3
            if btype == 3:
                raise self._error("zstd frame is damaged (reserved block type)", self.member_start)
            if bsize > _ZSTD_MAX_BLOCK:
                raise self._error("zstd frame is damaged (block larger than 128 KiB)", self.member_start)
            self._last_block = bool(header & 1)
            self._part_left = 3 + (1 if btype == 1 else bsize)
        self._ensure(1)
        take = min(self._part_left, self._have(), size if size >= 0 else self._part_left, 1 << 16)
        self._part_left -= take
        return self._consume(take)

    def _skip_frame(self, size: int) -> None:
        """Pass over a skippable frame of *size* bytes (its header included)."""
        at = self._in_abs
        if self._in[self._pos : self._pos + 4] == ZSTD_DICT_MAGIC and self.dictionary is None:
            if size - 8 <= MAX_DICTIONARY:
                while self._have() < size and self._more():
                    pass
            frame = self._in[self._pos : self._pos + min(size, MAX_DICTIONARY + 8)]
            self._load_dictionary(frame, at)
        left = size
        while left:
            if not self._have() and not self._more():
                raise self._error("skippable frame is truncated", at)
            left -= len(self._consume(min(left, self._have())))

    def read(self, limit: int = MAX_CHUNK) -> tuple[bytes, int | None]:
        limit = max(1, min(limit, MAX_CHUNK))
        while True:
            if self._d is None:
                if not self._have() and not self._more():
                    return b"", None
                self._ensure_start(8)
                magic = int.from_bytes(self._in[self._pos : self._pos + 4], "little")
                if magic in ZSTD_SKIPPABLE_FRAMES:
                    self._skip_frame(8 + int.from_bytes(self._in[self._pos + 4 : self._pos + 8], "little"))
                    continue
                if self._in[self._pos : self._pos + 4] != ZSTD_MAGIC:
                    raise CompressionError(
                        "not a zstd frame", offset=self._in_abs, source=self._source,
                        snippet=self._in[self._pos : self._pos + 16],
                    )
                self.member_start = self._in_abs
                header = _zstd_header_size(self._in, self._pos)
                assert header is not None  # (8 bytes are there)
                self._checksum = bool((self._in[self._pos + 4] >> 2) & 1)
                self._last_block = False
                self._part_left = header
                try:
                    self._d = self._dctx.stream_reader(
                        _FrameInput(self), read_size=1 << 16, read_across_frames=False, closefd=False
                    )
                except self._zstd.ZstdError as exc:
                    raise self._error(f"zstd frame is damaged ({exc})", self.member_start) from None
            if self._stash:
                out, self._stash = self._stash, b""
            else:
                out = self._frame_read(limit)
            if not out:
                # The frame's input is used up and nothing more comes out: it ended.
                if not self._input_done():
                    raise self._error("zstd frame ended before its last block", self.member_start)
                self._d = None
                return b"", self._in_abs
            if self._input_done():
                # Look one piece ahead, so that the boundary comes with the frame's last bytes.
                self._stash = self._frame_read(limit)
                if not self._stash:
                    self._d = None
                    return out, self._in_abs
            return out, None

    def _frame_read(self, limit: int) -> bytes:
        try:
            return self._d.read(limit)  # type: ignore[no-any-return]
        except self._zstd.ZstdError as exc:
            raise self._error(f"zstd frame is damaged ({exc})", self.member_start) from None


def make_decoder(
    fileobj: BinaryIO,
    compression: str,
    *,
    start: int = 0,
    source: str | None = None,
    lenient: bool = False,
    in_chunk: int | None = None,
    readahead: bool = False,
    direct: bool = True,
    mapped: bool = False,
    readahead_default: bool = False,
) -> Decoder:
    """Return the decoder for *compression* (``"gzip"``, ``"zstd"`` or ``"none"``).

    With *readahead*, a compiled gzip decoder inflates ahead on a native thread
    (files with a descriptor only; elsewhere it has no effect), and on two (a
    :class:`LaneDecoder`) when that pays (see :func:`_lanes_pay`). When *readahead* is
    the reader's default rather than asked for (*readahead_default*), one of parallel
    jobs keeps a file of large members in-thread (see :func:`_ahead_pays`). *direct* lets it
    inflate small members whole (for sequential reading; random access turns it off).
    *mapped* (with *direct*) lets it read a regular file through a memory map of it:
    the file's descriptor and position are used, and the file object is not moved.
    """
    if compression == "gzip":
        if readahead and direct:
            if _lanes_pay(fileobj, start):
                lanes: Decoder = LaneDecoder(
                    fileobj, start, source, "stop" if lenient else "error", in_chunk or IN_CHUNK,
                    mapped=mapped)
                return lanes
            if readahead_default and _cpus_taken() and not _ahead_pays(fileobj, start):
                readahead = False
        decoder: Decoder = GzipDecoder(
            fileobj, start, source, "stop" if lenient else "error", in_chunk or IN_CHUNK,
            readahead=readahead, direct=direct, mapped=mapped,
        )
        return decoder
    if compression == "zstd":
        return ZstdDecoder(fileobj, start, source)
    if compression == "none":
        return PlainDecoder(fileobj, start)
    raise UsageError(f"unknown compression {compression!r}")
