"""Decoders that turn a file into decompressed chunks while tracking member boundaries.

Each decoder's :meth:`read` returns ``(chunk, boundary)``: the next piece of the
decompressed stream and, when a gzip member / zstd frame ended exactly at the end
of that piece, the compressed file offset where the next member starts. Every
record therefore knows where its member starts and how many compressed bytes it
occupies. Output per call is bounded (:data:`MAX_CHUNK`), so memory stays constant
whatever the size of a member.
"""

from __future__ import annotations

import struct
from typing import Any, BinaryIO, Protocol

from ._speedups import load
from .errors import CompressionError, UsageError

__all__ = [
    "GZIP_MAGIC",
    "MAX_CHUNK",
    "ZSTD_DICT_MAGIC",
    "ZSTD_MAGIC",
    "Decoder",
    "GzipDecoder",
    "PlainDecoder",
    "ZstdDecoder",
    "make_decoder",
    "sniff_compression",
]

#: Largest decompressed piece returned by one ``read()``.
MAX_CHUNK = 1 << 20
#: Compressed bytes read from the file at a time.
IN_CHUNK = 1 << 18

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_DICT_MAGIC = b"\x5d\x2a\x4d\x18"  # skippable frame 0x184D2A5D: IIPC warc-zstd dictionary
_SKIPPABLE_LOW = 0x184D2A50


class Decoder(Protocol):
    """What the reader needs from a decompression layer."""

    compression: str
    #: Compressed offset where the current member began.
    member_start: int

    def read(self, limit: int = ...) -> tuple[bytes, int | None]:
        """Return ``(chunk, boundary)``: at most about *limit* bytes; ``(b"", None)`` at the end."""
        ...


def sniff_compression(head: bytes) -> str:
    """Return ``"gzip"``, ``"zstd"`` or ``"none"`` from the first bytes of a file."""
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if head[:4] in (ZSTD_MAGIC, ZSTD_DICT_MAGIC):
        return "zstd"
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


GzipDecoder: Any = load("gzipmember").GzipDecoder


def _zstd_frame_size(buf: bytes, pos: int) -> int | None:
    """Size of the zstd frame (or skippable frame) at ``buf[pos:]``; None if incomplete."""
    if len(buf) - pos < 8:
        return None
    magic = struct.unpack_from("<I", buf, pos)[0]
    if _SKIPPABLE_LOW <= magic <= _SKIPPABLE_LOW + 15:
        return 8 + int(struct.unpack_from("<I", buf, pos + 4)[0])
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


class ZstdDecoder:
    """Zstandard frames, one record per frame (IIPC warc-zstd), with the dictionary frame.

    Frame boundaries are found by walking frame and block headers, so each frame's
    compressed offset and size are exact; each frame is decompressed in bounded pieces.
    """

    compression = "zstd"

    def __init__(self, fileobj: BinaryIO, start: int = 0, source: str | None = None) -> None:
        import zstandard

        self._zstd = zstandard
        self._f = fileobj
        self._source = source
        self._in = b""
        self._in_abs = start
        self._eof = False
        self._dctx: Any = zstandard.ZstdDecompressor()
        self._d: Any = None
        self._frame_left = 0
        self.member_start = start
        self.dictionary: bytes | None = None

    def _more(self) -> bool:
        data = self._f.read(IN_CHUNK)
        if not data:
            self._eof = True
            return False
        self._in = self._in + data if self._in else data
        return True

    def _frame_size(self) -> int:
        while True:
            try:
                size = _zstd_frame_size(self._in, 0)
            except ValueError as exc:
                raise CompressionError(
                    f"not a zstd frame ({exc})", offset=self._in_abs, source=self._source,
                    snippet=self._in[:16],
                ) from None
            if size is not None:
                return size
            if not self._more():
                raise CompressionError(
                    "zstd frame is truncated", offset=self._in_abs, source=self._source
                )

    def _load_dictionary(self, frame: bytes) -> None:
        data = frame[8:]
        if data[:4] == ZSTD_MAGIC:  # the dictionary itself is zstd-compressed
            data = self._zstd.ZstdDecompressor().decompress(data)
        self.dictionary = data
        self._dctx = self._zstd.ZstdDecompressor(
            dict_data=self._zstd.ZstdCompressionDict(data)
        )

    def read(self, limit: int = MAX_CHUNK) -> tuple[bytes, int | None]:
        # (*limit* is not needed: each call feeds at most 16 KiB of a frame.)
        while True:
            if self._d is None:
                if not self._in and not self._more():
                    return b"", None
                size = self._frame_size()
                magic = struct.unpack_from("<I", self._in, 0)[0]
                if _SKIPPABLE_LOW <= magic <= _SKIPPABLE_LOW + 15:
                    while len(self._in) < size and self._more():
                        pass
                    if len(self._in) < size:
                        raise CompressionError(
                            "skippable frame is truncated", offset=self._in_abs, source=self._source
                        )
                    if self._in[:4] == ZSTD_DICT_MAGIC and self.dictionary is None:
                        self._load_dictionary(self._in[:size])
                    self._in = self._in[size:]
                    self._in_abs += size
                    continue
                self.member_start = self._in_abs
                self._frame_left = size
                self._d = self._dctx.decompressobj()
            if not self._in and not self._more():
                raise CompressionError(
                    "zstd frame is truncated", offset=self.member_start, source=self._source
                )
            # Feed small pieces so that one call's output stays bounded.
            take = min(self._frame_left, len(self._in), 16384)
            piece = self._in[:take]
            self._in = self._in[take:]
            self._in_abs += take
            self._frame_left -= take
            try:
                out = self._d.decompress(piece)
            except self._zstd.ZstdError as exc:
                raise CompressionError(
                    f"zstd frame is damaged ({exc})", offset=self.member_start, source=self._source
                ) from None
            if self._frame_left == 0:
                self._d = None
                return out, self._in_abs
            if out:
                return out, None


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
) -> Decoder:
    """Return the decoder for *compression* (``"gzip"``, ``"zstd"`` or ``"none"``).

    With *readahead*, a compiled gzip decoder inflates ahead on a native thread
    (files with a descriptor only; elsewhere it has no effect). *direct* lets it
    inflate small members whole (for sequential reading; random access turns it off).
    """
    if compression == "gzip":
        decoder: Decoder = GzipDecoder(
            fileobj, start, source, "stop" if lenient else "error", in_chunk or IN_CHUNK,
            readahead=readahead, direct=direct,
        )
        return decoder
    if compression == "zstd":
        return ZstdDecoder(fileobj, start, source)
    if compression == "none":
        return PlainDecoder(fileobj, start)
    raise UsageError(f"unknown compression {compression!r}")
