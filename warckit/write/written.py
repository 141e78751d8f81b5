"""What the guided writer returns for each record: its identity and its place on disk."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union

from ..errors import UsageError

__all__ = ["RecordRef", "WrittenRecord", "ref_id", "refs"]

_LOCATION = ("filename", "path", "offset", "length")


class WrittenRecord:
    """Identity and location of a record the writer wrote.

    Immutable. While its block is still being compressed on the writer's worker
    thread the record is not on disk yet: it goes there, in call order, with the
    next record the writer writes or when :meth:`WarcWriter.flush` /
    :meth:`WarcWriter.close` runs. Reading :attr:`filename`, :attr:`path`,
    :attr:`offset` or :attr:`length` writes it at once (waiting for its block).

    Attributes:
        record_id: ``<urn:uuid:…>``.
        type: WARC-Type.
        target_uri: WARC-Target-URI, or ``None``.
        date: WARC-Date as written.
        filename: Final file name (without ``.open``), the CDX ``filename`` field.
        path: Final path of the file.
        offset: Offset of the record's gzip member / zstd frame / first byte.
        length: Bytes the record occupies in the file (CDX compressed length).
        block_digest: WARC-Block-Digest as written.
        payload_digest: WARC-Payload-Digest as written (the logical record's).
        segments: Number of segments the record was split into (1 = not segmented).
        payload_convention: ``"warc1.1"`` (de-chunked entity) or ``"legacy"`` (as stored)
            when a payload digest was computed over an HTTP body.
    """

    __slots__ = ("_filename", "_length", "_offset", "_path", "_settle", "block_digest", "date",
                 "payload_convention", "payload_digest", "record_id", "segments", "target_uri",
                 "type")

    record_id: str
    type: str
    target_uri: str | None
    date: str
    block_digest: str | None
    payload_digest: str | None
    segments: int
    payload_convention: str | None
    _filename: str
    _path: str
    _offset: int
    _length: int
    _settle: Callable[[], None] | None

    def __init__(self, record_id: str, type: str, target_uri: str | None, date: str,
                 filename: str, path: str, offset: int, length: int,
                 block_digest: str | None = None, payload_digest: str | None = None,
                 segments: int = 1, payload_convention: str | None = None) -> None:
        init = object.__setattr__
        init(self, "record_id", record_id)
        init(self, "type", type)
        init(self, "target_uri", target_uri)
        init(self, "date", date)
        init(self, "_filename", filename)
        init(self, "_path", path)
        init(self, "_offset", offset)
        init(self, "_length", length)
        init(self, "block_digest", block_digest)
        init(self, "payload_digest", payload_digest)
        init(self, "segments", segments)
        init(self, "payload_convention", payload_convention)
        init(self, "_settle", None)

    def _placed(self, filename: str, path: str, offset: int, length: int) -> None:
        """Fill in the location once the writer has written the record."""
        init = object.__setattr__
        init(self, "_filename", filename)
        init(self, "_path", path)
        init(self, "_offset", offset)
        init(self, "_length", length)
        init(self, "_settle", None)

    def _where(self) -> None:
        settle = self._settle
        if settle is not None:
            settle()
            # Not placed after all: writing it failed (possibly in another thread,
            # meanwhile); this raises that error rather than returning no location.
            settle = self._settle
            if settle is not None:
                settle()

    @property
    def filename(self) -> str:
        """Final file name (without ``.open``), the CDX ``filename`` field."""
        self._where()
        return self._filename

    @property
    def path(self) -> str:
        """Final path of the file."""
        self._where()
        return self._path

    @property
    def offset(self) -> int:
        """Offset of the record's gzip member / zstd frame / first byte."""
        self._where()
        return self._offset

    @property
    def length(self) -> int:
        """Bytes the record occupies in the file (CDX compressed length)."""
        self._where()
        return self._length

    def _astuple(self) -> tuple[Any, ...]:
        return (self.record_id, self.type, self.target_uri, self.date, self.filename, self.path,
                self.offset, self.length, self.block_digest, self.payload_digest, self.segments,
                self.payload_convention)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"WrittenRecord is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"WrittenRecord is immutable (cannot delete {name!r})")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, WrittenRecord)
        return self._astuple() == other._astuple()

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        names = ("record_id", "type", "target_uri", "date", *_LOCATION, "block_digest",
                 "payload_digest", "segments", "payload_convention")
        args = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._astuple()))
        return f"WrittenRecord({args})"


RecordRef = Union[WrittenRecord, str, Any]
"""A record reference: a :class:`WrittenRecord`, a record read by warckit, or an ID string."""

def ref_id(ref: RecordRef) -> str:
    if isinstance(ref, WrittenRecord):
        return ref.record_id
    if isinstance(ref, str):
        ref = ref.strip()
        return ref if ref.startswith("<") else f"<{ref}>"
    rid = getattr(ref, "record_id", None)
    if not isinstance(rid, str):
        raise UsageError(f"cannot refer to {ref!r}: it has no record ID")
    return rid


def refs(refs: RecordRef | Sequence[RecordRef] | None) -> list[str]:
    if refs is None:
        return []
    if isinstance(refs, (WrittenRecord, str)) or hasattr(refs, "record_id"):
        return [ref_id(refs)]
    return [ref_id(r) for r in refs]



def reraise(exc: BaseException) -> None:
    raise exc
