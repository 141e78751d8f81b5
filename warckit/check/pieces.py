"""``warckit check`` on one large file with several processes.

The file is cut at record boundaries (:func:`warckit.read.pieces.split_points`, as
:func:`~warckit.check.verify_file` and ``warckit index -j`` cut it). This process
checks the first piece while forked children check the others, each into a
:class:`_Recorder`: the piece's findings and, in their places among them, a marker
where each record was seen (its report, ID and references are kept beside them), and
where the last record started. This process then replays each piece into the file's
state in file order, so duplicate IDs across
pieces, the warcinfo-first rule, references and the cut last record come out as the
sequential check finds them, finding for finding.

A piece that does not stop exactly at its end (no record starts there) has read on to
the end of the file: the pieces after it are not used. A child that fails is redone
here, from its start to the end of the file.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Container, Iterator
from itertools import compress
from typing import Any

from ..errors import Issue
from ..read.pieces import Forked, split_points

#: ``check_span(source, state, name, verify, start=0, end=None) -> stopped at end``: checks
#: records into a file state (:func:`warckit.check.report.check_span`, given by the caller,
#: which sits above this module).
SpanChecker = Callable[..., bool]

__all__ = ["check_in_pieces"]

#: Every WARC-Type a split point may start at (check reads every record).
_ALL_TYPES = frozenset(
    {"warcinfo", "request", "response", "resource", "metadata", "revisit", "conversion", "continuation"}
)
#: The marker, among a piece's findings, of where a record was seen.
_SEEN = 1


class _Pending:
    """A piece's references to no record of the piece read before them (to none of the
    piece once :meth:`drop_resolved`), flat: record number, field, value and offset each.
    Values are interned (most name the warcinfo record, in another piece), so a piece of
    many records pickles small."""

    __slots__ = ("fields", "numbers", "offsets", "values")

    def __init__(self) -> None:
        self.numbers = array("q")
        self.fields: list[str] = []
        self.values: list[str] = []
        self.offsets = array("q")

    def add(self, number: int, refs: list[tuple[str, str, int]], interned: dict[str, str]) -> None:
        for fname, value, offset in refs:
            self.numbers.append(number)
            self.fields.append(fname)
            self.values.append(interned.setdefault(value, value))
            self.offsets.append(offset)

    def __len__(self) -> int:
        return len(self.numbers)

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """The references ``(field, value, offset)`` in order."""
        return zip(self.fields, self.values, self.offsets)

    def drop_resolved(self, ids: Container[str]) -> None:
        """Forget the references whose value is one of *ids* (those naming a later record
        of the piece: the parent need not look them up)."""
        keep = [value not in ids for value in self.values]
        if all(keep):
            return
        self.numbers = array("q", compress(self.numbers, keep))
        self.fields = list(compress(self.fields, keep))
        self.values = list(compress(self.values, keep))
        self.offsets = array("q", compress(self.offsets, keep))

    def unresolved(self, ids: Container[str]) -> list[tuple[str, str, int]]:
        """The references, in order, whose value is not one of *ids* (each distinct value
        looked up once: most name the same warcinfo record)."""
        missing = {value for value in set(self.values) if value not in ids}
        return [ref for ref in self if ref[1] in missing] if missing else []

    def by_record(self) -> dict[int, list[tuple[str, str, int]]]:
        """``{record number: its references}``."""
        out: dict[int, list[tuple[str, str, int]]] = {}
        for number, ref in zip(self.numbers, self):
            out.setdefault(number, []).append(ref)
        return out

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.numbers, self.fields, self.values, self.offsets)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.numbers, self.fields, self.values, self.offsets = state


class _Recorder:
    """Stands in for the file's state in a child: keeps the findings in order, with a
    marker where each record was seen, the records themselves (compactly), the
    references not resolved within the piece, and where the last record started."""

    def __init__(self, report: Any) -> None:
        self.report = report
        self.issues: list[Any] = []
        self.first = False  # the first record of the file is in the first piece
        self.ids: set[str] = set()
        self.refs = _Pending()
        self._interned: dict[str, str] = {}
        self.last: tuple[int, int] | None = None  # (offset, index in issues)

    def record_start(self, offset: int) -> None:
        self.last = (offset, len(self.issues))

    def record_seen(self, rid: str | None, offset: int, rtype: str, block: str, payload: str,
                    refs: list[tuple[str, str, int]] | None) -> None:
        records = self.report.records
        if rid is not None:
            self.ids.add(rid)
        if refs:  # (those naming no record of the piece read so far: _walk kept only them)
            self.refs.add(len(records), refs, self._interned)
        records.add(offset, rtype, rid, block, payload)
        self.issues.append(_SEEN)


def _check_piece(check_span: SpanChecker, path: str, report: Any, verify: bool, start: int,
                 end: int | None) -> tuple[Any, ...]:
    """Child: one piece's findings and markers, its records, whether their IDs are unique
    among them, their references to no record of the piece, where its last record
    started, whether it stopped at *end*, and what it learnt of the file (format,
    compression) into *report* (a blank report)."""
    recorder = _Recorder(report)
    stopped = check_span(path, recorder, report.path, verify, start, end)
    records = report.records
    recorder.refs.drop_resolved(recorder.ids)
    unique = len(recorder.ids) == len(records) - records.record_ids().count(None)
    return (recorder.issues, records, unique, recorder.refs, recorder.last, stopped, report.format,
            report.compression)


def _replay(state: Any, events: list[Any], records: Any, unique: bool, refs: _Pending,
            last: tuple[int, int] | None) -> None:
    """Feed a piece's findings and records into the file's state, in their order."""
    if (len(events) == len(records) and events.count(_SEEN) == len(events)
            and state.records_seen(records, refs, unique)):
        # No findings in the piece, and no finding from seeing its records: all at once.
        if last is not None:
            state.record_start(last[0])
        return
    issues = state.issues
    record_seen = state.record_seen
    rows = iter(records)
    pending = refs.by_record()
    last_at = last[1] if last is not None else -1
    n = 0
    for i, event in enumerate(events):
        if i == last_at:
            state.record_start(last[0])  # type: ignore[index]
        if type(event) is not int:
            issues.append(event)
            continue
        rr = next(rows)
        record_seen(rr.record_id, rr.offset, rr.type, rr.block_digest, rr.payload_digest, pending.get(n))
        n += 1
    if last_at == len(events):
        state.record_start(last[0])  # type: ignore[index]


def check_in_pieces(check_span: SpanChecker, path: str, state: Any, verify: bool, jobs: int,
                    min_split_size: int | None = None) -> None:
    """Check *path* into *state* (a file's state, with ``report``) with *check_span*, in up
    to *jobs* processes (one if the file cannot be split)."""
    name = state.report.path
    points = split_points(path, jobs, lambda record: record.type in _ALL_TYPES, min_size=min_split_size)
    if not points:
        check_span(path, state, name, verify)
        return
    starts = [0] + [at for _, at in points]
    ends: list[int | None] = [at for _, at in points]
    ends.append(None)
    children: list[Forked] = []
    try:
        try:
            for start, end in zip(starts[1:], ends[1:]):
                children.append(Forked(_check_piece, check_span, path, type(state.report)(name), verify,
                                       start, end))
        except OSError:  # no more processes: check the whole file here
            check_span(path, state, name, verify)
            return
        if not check_span(path, state, name, verify, starts[0], ends[0]):
            return  # the first piece read to the end of the file
        for start, child in zip(starts[1:], children):
            result = child.result()
            if result is None:
                check_span(path, state, name, verify, start)  # the child failed: redo it here
                return
            events, records, unique, refs, last, stopped, fmt, compression = result
            _replay(state, events, records, unique, refs, last)
            if fmt is not None:
                state.report.format = fmt
            if compression is not None:
                state.report.compression = compression
            if not stopped:
                return  # that piece read to the end of the file
    finally:
        for child in children:
            child.cancel()
