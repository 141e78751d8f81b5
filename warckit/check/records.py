"""What ``warckit check`` keeps of each record: :class:`RecordReport`, and
:class:`RecordReports`, a file's records kept compactly (no object per record)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast, overload

from ..record import payload

__all__ = ["RecordReport", "RecordReports"]


@dataclass
class RecordReport:
    """What check found out about one record.

    Attributes:
        offset: Record offset in the file.
        type: WARC-Type.
        record_id: WARC-Record-ID.
        block_digest: ``"pass"``, ``"fail"``, ``"absent"`` or ``"unchecked"``.
        payload_digest: ``"warc1.1"``, ``"legacy"`` (both when they coincide: ``"pass"``),
            ``"fail"``, ``"absent"`` or ``"unchecked"``.
    """

    offset: int
    type: str
    record_id: str | None
    block_digest: str = "absent"
    payload_digest: str = "absent"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"offset": self.offset, "type": self.type, "record_id": self.record_id,
                "block_digest": self.block_digest, "payload_digest": self.payload_digest}


#: The digest states a RecordReport can hold, by their code in :class:`RecordReports`.
_STATES = ("absent", "pass", "fail", "unchecked", payload.WARC11, payload.LEGACY)
_STATE_CODES = {state: code for code, state in enumerate(_STATES)}
#: The two codes of each (block, payload) pair of states.
_PAIRS = {(block, payload): bytes((_STATE_CODES[block], _STATE_CODES[payload]))
          for block in _STATES for payload in _STATES}


class RecordReports(Sequence[RecordReport]):
    """The records of a :class:`FileReport` in file order, kept compactly: a file of
    millions of small records is checked without an object per record (each
    :class:`RecordReport` is made when it is asked for).

    A sequence equal to any sequence of the same reports (a list of them, too).
    """

    __slots__ = ("_digests", "_ids", "_offsets", "_types")

    def __init__(self, reports: Iterable[RecordReport] = ()) -> None:
        self._offsets = array("q")
        self._types: list[str] = []
        self._ids: list[str | None] = []
        self._digests = bytearray()  # block and payload state codes, two per record
        for rr in reports:
            self.append(rr)

    def add(self, offset: int, rtype: str, record_id: str | None, block_digest: str = "absent",
            payload_digest: str = "absent") -> None:
        """Add a record's report from its values."""
        self._offsets.append(offset)
        self._types.append(rtype)
        self._ids.append(record_id)
        self._digests += _PAIRS[block_digest, payload_digest]

    def append(self, report: RecordReport) -> None:
        """Add a record's report."""
        self.add(report.offset, report.type, report.record_id, report.block_digest, report.payload_digest)

    def extend(self, reports: Iterable[RecordReport]) -> None:
        """Add reports in order (another :class:`RecordReports` at once, without a report object each)."""
        if isinstance(reports, RecordReports):
            self._offsets.extend(reports._offsets)
            self._types.extend(reports._types)
            self._ids.extend(reports._ids)
            self._digests += reports._digests
        else:
            for rr in reports:
                self.append(rr)

    def unique_ids(self) -> dict[str, int] | None:
        """``{WARC-Record-ID: offset}`` of the records that have one; ``None`` when an ID repeats."""
        ids = self._ids
        nones = ids.count(None)
        found: dict[str, int] = (dict(zip(cast("list[str]", ids), self._offsets)) if not nones
                                 else {rid: offset for rid, offset in zip(ids, self._offsets) if rid is not None})
        return found if len(found) == len(ids) - nones else None

    def record_ids(self) -> list[str | None]:
        """The records' WARC-Record-IDs in order (``None`` where a record has none); the
        list itself, not a copy."""
        return self._ids

    def set_digests(self, block_digest: str, payload_digest: str) -> None:
        """Set the digest states of the last record."""
        self._digests[-2:] = _PAIRS[block_digest, payload_digest]

    def __len__(self) -> int:
        return len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> RecordReport: ...

    @overload
    def __getitem__(self, index: slice) -> list[RecordReport]: ...

    def __getitem__(self, index: int | slice) -> RecordReport | list[RecordReport]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("record index out of range")
        digests = self._digests
        return RecordReport(self._offsets[index], self._types[index], self._ids[index],
                            _STATES[digests[2 * index]], _STATES[digests[2 * index + 1]])

    def __iter__(self) -> Iterator[RecordReport]:
        digests = self._digests
        for i, (offset, rtype, rid) in enumerate(zip(self._offsets, self._types, self._ids)):
            yield RecordReport(offset, rtype, rid, _STATES[digests[2 * i]], _STATES[digests[2 * i + 1]])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordReports):
            return (self._offsets == other._offsets and self._types == other._types
                    and self._ids == other._ids and self._digests == other._digests)
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"RecordReports({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (self._offsets, self._types, self._ids, bytes(self._digests)))


def _rebuilt(offsets: array[int], types: list[str], ids: list[str | None], digests: bytes) -> RecordReports:
    """Unpickle a :class:`RecordReports`."""
    out = RecordReports()
    out._offsets, out._types, out._ids, out._digests = offsets, types, ids, bytearray(digests)
    return out
