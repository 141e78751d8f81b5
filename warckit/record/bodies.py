"""Record bodies: where a record's block comes from, and a stream over it.

A record does not know readers. Whoever makes a record hands it a *body* (or the
block's bytes): the streaming reader a :class:`~warckit._speedups._readercore_py.LengthedBody`
over its stream (read once, in order, while the reader is on the record), reassembly
of segments a chained body over the segments' records
(:class:`warckit.read.segments.ChainedBody`). The record keeps what it peeked and
spools what it must keep, and talks only to the body.
"""

from __future__ import annotations

import io
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Protocol
else:
    Protocol = object  # (a protocol only describes: at run time a plain base does)

from ..errors import ParseError

__all__ = ["BlockStream", "Body"]


class Body(Protocol):
    """Where a record's block comes from.

    Every method takes the record the body belongs to (the body does not hold it, so
    a record the caller drops is freed at once).
    """

    #: True: :meth:`read` serves any position, again and again; False: the bytes go
    #: by once, in order.
    rereadable: ClassVar[bool]

    def live(self, record: Any) -> bool:
        """Whether unread bytes of the block can still be had."""
        ...

    def read(self, record: Any, pos: int, size: int) -> bytes | None:
        """Up to *size* bytes of the block from *pos* (``b""`` at its end); ``None``
        when the body is stale (its reader moved on). A body that is not
        :attr:`rereadable` is only asked for the next unread bytes."""
        ...

    def take_whole(self, record: Any) -> bytes | None:
        """The whole block in one piece when that is cheap, else ``None``."""
        ...

    def finish(self, record: Any) -> None:
        """Go past the block: the record learns its length and trailer (if it can)."""
        ...

    def report(self, record: Any, code: str, message: str) -> None:
        """Report a recovery found while reading the block."""
        ...

    def close(self) -> None:
        """Release what the body holds (for a record from ``read_record_at``: its file)."""
        ...


class _Block(Protocol):
    """What a :class:`BlockStream` needs from its record."""

    source: str | None
    offset: int
    _content_length: int

    def _read_block_at(self, pos: int, size: int) -> bytes: ...


class BlockStream(io.RawIOBase):
    """A read-only stream over (part of) a record's block, starting at *start*."""

    # A stream is made for every record whose block is read. With slots and its own
    # closed flag it needs no instance dict: IOBase's close() keeps its flag in one, and
    # its finalizer (which closes what was left open) made one for every stream (#19:
    # with the end-of-block check in read(), 0.5 us a record on the small mix).
    __slots__ = ("_closed", "_finalizing", "_pos", "_record")

    def __init__(self, record: _Block, start: int = 0) -> None:
        self._record = record
        self._pos = start
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        rec = self._record
        if self._pos >= rec._content_length:
            return b""  # (the call that ends a read loop)
        try:
            if size is None or size < 0:
                parts: list[bytes] = []
                while True:
                    part = rec._read_block_at(self._pos, 1 << 20)
                    if not part:
                        return b"".join(parts)
                    self._pos += len(part)
                    parts.append(part)
            data = rec._read_block_at(self._pos, size)
        except ParseError as exc:  # e.g. a damaged gzip member inside the block
            exc.located(source=rec.source, offset=rec.offset)
            raise
        self._pos += len(data)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        n = len(data)
        b[:n] = data
        return n

    def tell(self) -> int:
        return self._pos
