"""``warckit check`` on one large file with several processes.

The file is cut at record boundaries (:func:`warckit.read.pieces.split_points`, as
:func:`~warckit.check.verify_file` and ``warckit index -j`` cut it). This process
checks the first piece while forked children check the others, each into a
:class:`_Recorder`: the piece's findings and, in their places among them, a marker
where each record starts and where its WARC-Record-ID is looked up. This process then
replays each piece into the file's state in file order, so duplicate IDs across
pieces, the warcinfo-first rule, references and the cut last record come out as the
sequential check finds them, finding for finding.

A piece that does not stop exactly at its end (no record starts there) has read on to
the end of the file: the pieces after it are not used. A child that fails is redone
here, from its start to the end of the file.
"""

from __future__ import annotations

from collections.abc import Callable
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
_START = 0
_SEEN = 1


class _Recorder:
    """Stands in for the file's state in a child: keeps the findings and markers in order."""

    def __init__(self, report: Any) -> None:
        self.report = report
        self.issues: list[Any] = []
        self.first = False  # the first record of the file is in the first piece

    def record_start(self, offset: int) -> None:
        self.issues.append((_START, offset))

    def record_seen(self, rid: str | None, offset: int, rr: Any,
                    refs: list[tuple[str, str, int]] | None) -> None:
        self.issues.append((_SEEN, rid, offset, rr, refs))


def _check_piece(check_span: SpanChecker, path: str, report: Any, verify: bool, start: int,
                 end: int | None) -> tuple[Any, ...]:
    """Child: one piece's findings and markers, whether it stopped at *end*, and what it
    learnt of the file (format, compression) into *report* (a blank report)."""
    recorder = _Recorder(report)
    stopped = check_span(path, recorder, report.path, verify, start, end)
    # Records as plain tuples: a third of the pickling, and of the unpickling here.
    events = [(_SEEN, e[1], e[2], (e[3].type, e[3].block_digest, e[3].payload_digest), e[4])
              if type(e) is tuple and e[0] == _SEEN else e for e in recorder.issues]
    return events, stopped, report.format, report.compression


def _replay(state: Any, events: list[Any], fmt: str | None, record_report: Callable[..., Any]) -> None:
    issues = state.issues
    record_start = state.record_start
    record_seen = state.record_seen
    for event in events:
        if type(event) is Issue:
            issues.append(event)
        elif event[0] == _START:
            record_start(event[1])
        else:
            _, rid, offset, (rtype, block, payload), refs = event
            record_seen(rid, offset, record_report(offset, rtype, rid, block, payload), refs)
    if fmt is not None:
        state.report.format = fmt


def check_in_pieces(check_span: SpanChecker, record_report: Callable[..., Any], path: str, state: Any,
                    verify: bool, jobs: int, min_split_size: int | None = None) -> None:
    """Check *path* into *state* (a file's state, with ``report``) with *check_span*, in up
    to *jobs* processes (one if the file cannot be split); *record_report* makes a
    record's report from ``(offset, type, record_id, block_digest, payload_digest)``."""
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
            events, stopped, fmt, compression = result
            _replay(state, events, fmt, record_report)
            if compression is not None:
                state.report.compression = compression
            if not stopped:
                return  # that piece read to the end of the file
    finally:
        for child in children:
            child.cancel()
