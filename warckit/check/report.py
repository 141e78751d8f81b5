"""``warckit check``, the library side: validate a WARC file record by record.

What is checked (each finding is an :class:`~warckit.errors.Issue` with a stable code):

* framing, from the reader in lenient mode: version line, header syntax,
  Content-Length against the block, the CRLF CRLF trailer, damaged or trailing bytes
  (``bad-version``, ``bad-content-length``, ``truncated-block``, ``short-trailer``,
  ``missing-trailer``, ``skipped-garbage``, ``trailing-garbage``, ``truncated-member``…);
  a damage the lenient reader cannot get past is a ``parse-error``;
* the rule table of the record's version (:mod:`warckit.record.rules`): ``missing-field``,
  ``forbidden-field``, ``repeated-field``, ``bad-syntax``, ``bad-segment-number``,
  ``missing-content-type``, ``unknown-profile``, ``nonstandard-profile``;
  records of WARC 0.17/0.18 get ``old-version`` and no field rules;
* digests: ``block-digest-mismatch``, ``payload-digest-mismatch``, ``unknown-digest-algorithm``,
  ``bad-digest-value``; for HTTP payloads the report says which convention matched
  (``warc1.1`` = entity after removing chunked coding, ``legacy`` = bytes as stored);
* layout: ``multi-record-member`` (a gzip member holding more than one record),
  ``warcinfo-not-first``, ``duplicate-record-id``, ``empty-file`` (an error: a failed write);
* a file cut inside its last record is one finding (``truncated-member``, ``truncated-block``
  or ``truncated-head``), not also the trailer, layout and digest findings the cut causes;
* references to records not in the file (``dangling-reference``, a warning):
  WARC-Concurrent-To, WARC-Refers-To, WARC-Warcinfo-ID, WARC-Segment-Origin-ID.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from .._speedups.headers import impl as _hp
from .._speedups.verifyfast import impl as _vf
from ..errors import HeaderParseError, Issue, ParseError
from ..read.reader import open_archive
from ..record import payload
from ..record import rules as _validate
from ..record.digests import DIGEST_SIZES, Digest
from ..record.fields import escape_not_utf8, not_utf8_names
from .layout import LAYOUTS, layout_of, names_values
from .pieces import check_in_pieces
from .records import RecordReport, RecordReports
from .verify import _FAST_CLASSES, _VERDICTS, BUFFERED_MAX, WARC11, _scan, verify_digests

__all__ = ["FRAMING_ERRORS", "FileReport", "check_file", "check_files", "iter_check_files"]

#: Reader recoveries that are errors in the file (all others are warnings).
FRAMING_ERRORS = frozenset({
    "bad-version", "bad-content-length", "truncated-block", "short-trailer", "missing-trailer",
    "skipped-garbage", "trailing-garbage", "truncated-member", "damaged-member", "truncated-head",
})

#: What a file cut inside its last record (or a damaged last gzip member) also causes
#: in that record; folded into the one finding of the cut.
_CUT_CONSEQUENCES = frozenset({
    "truncated-block", "truncated-head", "short-trailer", "missing-trailer", "multi-record-member",
    "block-digest-mismatch", "payload-digest-mismatch",
})

#: RecordReport.payload_digest for each convention a payload digest matched.
_CONVENTIONS = {"both": "pass", WARC11: payload.WARC11, payload.LEGACY: payload.LEGACY}
#: Blocks this large stream through the digest check (the others are read whole first).
_STREAMED = BUFFERED_MAX
#: RecordReport.payload_digest for each verdict of the fast path but a mismatch.
_FAST_PAYLOAD = {_vf.BOTH: "pass", _vf.WARC11_OK: payload.WARC11, _vf.LEGACY_OK: payload.LEGACY,
                 _vf.REVISIT: "unchecked"}
#: The record's digest states for each outcome of the fast path that has no finding,
#: by ``(block_ok, verdict)`` (each ``None`` when that digest is not declared).
_CLEAN = {(block, verdict): (block_state, payload_state)
          for block, block_state in ((None, "absent"), (True, "pass"))
          for verdict, payload_state in ((None, "absent"), *_FAST_PAYLOAD.items())}


@dataclass
class FileReport:
    """Everything check found in one file."""

    path: str
    format: str | None = None
    compression: str | None = None
    records: RecordReports = field(default_factory=RecordReports)
    issues: list[Issue] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Number of error findings."""
        return sum(1 for i in self.issues if i.severity == "error")

    @property
    def warnings(self) -> int:
        """Number of warning findings."""
        return sum(1 for i in self.issues if i.severity == "warning")

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed)."""
        return self.errors == 0

    def codes(self, severity: str | None = None) -> set[str]:
        """The distinct finding codes (optionally of one severity)."""
        return {i.code for i in self.issues if severity is None or i.severity == severity}

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "file": self.path, "format": self.format, "compression": self.compression,
            "ok": self.ok, "errors": self.errors, "warnings": self.warnings,
            "records": [r.as_dict() for r in self.records],
            "findings": [
                {"code": i.code, "severity": i.severity, "message": i.message,
                 "offset": i.offset, "field": i.field} for i in self.issues
            ],
        }


def _not_utf8(rec: Any, add: Callable[..., None]) -> None:
    """A head with bytes that are not UTF-8 (WARC 1.1 section 4: header characters are
    UTF-8): one finding naming the fields that hold them."""
    try:
        rec.raw_head.decode("utf-8")
        return
    except UnicodeDecodeError:
        pass
    fields = rec.headers.fields
    bad = not_utf8_names((name, (name, value)) for name, value in fields)  # (the name or its value)
    if not bad:  # (the version line)
        add("not-utf8", "error", "the version line holds bytes that are not UTF-8", rec.offset)
        return
    value = next(value for name, value in fields if name == bad[0])
    names = ", ".join(dict.fromkeys(map(escape_not_utf8, bad)))
    add("not-utf8", "error", f"{names}: bytes that are not UTF-8 (ISO 28500 §4: header fields are UTF-8), "
        f"as %XX: {escape_not_utf8(value)[:200]!r}", rec.offset, escape_not_utf8(bad[0]))


def _check_record(rec: Any, add: Callable[..., None], grouped: dict[str, list[str]],
                  block: bytes | None = None) -> tuple[str, str]:
    """The digest findings of one record: the checks of :func:`warckit.verify_digests`.

    *grouped* is the record's fields by lowercased name, *block* the whole block when it
    was peeked already. Returns the record's block and payload digest states
    (:attr:`RecordReport.block_digest`, ``payload_digest``).
    """
    block_state = payload_state = "absent"
    packed = _scan(rec, block)
    if (packed is not None and (packed[0] is not None) == ("warc-block-digest" in grouped)
            and (packed[2] is not None) == ("warc-payload-digest" in grouped)):
        # The fast path checked every digest the record declares (each a well-formed
        # sha1): its verdicts are the report, with no findings about the declarations.
        block_value, block_ok, payload_value, verdict = packed
        if block_value is not None:
            block_state = "pass" if block_ok else "fail"
            if not block_ok:
                add("block-digest-mismatch", "error", f"WARC-Block-Digest {Digest.parse(block_value.decode())} "
                    "does not match the block", rec.offset, "WARC-Block-Digest")
        if payload_value is not None:
            got = _FAST_PAYLOAD.get(verdict)
            if got is not None:
                payload_state = got
            else:
                payload_state = "fail"
                reason = _VERDICTS[verdict][2]
                add("payload-digest-mismatch", "error",
                    f"WARC-Payload-Digest {Digest.parse(payload_value.decode())} matches neither the "
                    f"de-chunked entity nor the payload as stored{f' ({reason})' if reason else ''}",
                    rec.offset, "WARC-Payload-Digest")
        return block_state, payload_state
    declared: dict[str, Digest | None] = {}
    for name, attr in (("WARC-Block-Digest", "block_digest"), ("WARC-Payload-Digest", "payload_digest")):
        try:
            d = declared[name] = getattr(rec, attr)
        except HeaderParseError:
            declared[name] = None
            add("bad-syntax", "error", f"{name} is malformed", rec.offset, name)
            continue
        if d is not None and d.algorithm not in DIGEST_SIZES:
            add("unknown-digest-algorithm", "warning", f"cannot verify {name} {d}: unknown algorithm",
                rec.offset, name)
        elif d is not None and d.raw is None:
            add("bad-digest-value", "error", f"{name} {d}: value is neither base32, base16 nor "
                "base64 of the right length", rec.offset, name)
    result = verify_digests(rec)
    block_result, payload = result.block, result.payload
    if block_result is not None and declared["WARC-Block-Digest"] is not None:
        block_state = "unchecked" if block_result.ok is None else "pass" if block_result.ok else "fail"
        if block_result.ok is False:
            add("block-digest-mismatch", "error", f"WARC-Block-Digest {block_result.declared} does not match "
                "the block", rec.offset, "WARC-Block-Digest")
    if payload is not None and declared["WARC-Payload-Digest"] is not None:
        if payload.ok is None:
            payload_state = "unchecked"
        elif payload.ok:
            payload_state = _CONVENTIONS[payload.convention or "both"]
        else:
            payload_state = "fail"
            why = f" ({payload.reason})" if payload.reason else ""
            add("payload-digest-mismatch", "error",
                f"WARC-Payload-Digest {payload.declared} matches neither the de-chunked entity nor the "
                f"payload as stored{why}", rec.offset, "WARC-Payload-Digest")
    return block_state, payload_state


_Refs = list[tuple[str, str, int]]
#: Up to this many references are looked up in a piece's IDs one by one (more: the
#: piece's IDs are hashed once).
_FEW_REFS = 16


class _Unresolved(Protocol):
    """A piece's references (:class:`warckit.check.pieces._Pending`)."""

    def unresolved(self, ids: Container[str]) -> _Refs: ...


class _FileState:
    """What checking one file keeps across records: its report, the record IDs seen,
    the references to resolve, and where the last record's findings start.

    :func:`check_file` feeds it record by record; a file checked in pieces
    (:mod:`warckit.check.pieces`) feeds it each piece's findings in file order, so the
    report is the one the sequential check makes.
    """

    def __init__(self, report: FileReport) -> None:
        self.report = report
        self.issues = report.issues
        self._ids: dict[str, int] = {}
        #: Pieces taken at once (:meth:`records_seen`) whose IDs are not in ``_ids`` yet:
        #: the last piece's IDs are only ever needed for a few references.
        self._later: list[RecordReports] = []
        self.refs: _Refs = []  # references to no record seen when they were
        self.first = True
        self.last: tuple[int, int] | None = None  # (offset, index of its first finding)

    @property
    def ids(self) -> dict[str, int]:
        """``{WARC-Record-ID: offset}`` of the records seen so far."""
        if self._later:
            for records in self._later:
                self._ids.update(records.unique_ids() or ())
            self._later.clear()
        return self._ids

    def unresolved(self) -> _Refs:
        """The references kept (:attr:`refs`) that name no record seen so far."""
        refs = [ref for ref in self.refs if ref[1] not in self._ids]  # (most name a later record)
        if len(refs) > _FEW_REFS:
            ids = self.ids
            return [ref for ref in refs if ref[1] not in ids]
        # A few (those naming a record of the last piece, dangling ones): looked up in
        # the later pieces' IDs one by one rather than hashing all of those.
        return [ref for ref in refs if not any(ref[1] in records.record_ids() for records in self._later)]

    def add(self, code: str, severity: str, message: str, offset: int | None = None,
            fld: str | None = None) -> None:
        """Add a finding about the file."""
        self.issues.append(Issue(code, message, severity, offset, self.report.path, fld))

    def record_start(self, offset: int) -> None:
        self.last = (offset, len(self.issues))

    def record_seen(self, rid: str | None, offset: int, rtype: str, block: str, payload: str,
                    refs: _Refs | None) -> None:
        """The record's ID (a repeat is a finding), report (type and digest states) and references."""
        ids = self._ids if not self._later else self.ids
        if rid is not None:
            if rid in ids:
                self.add("duplicate-record-id", "error", f"WARC-Record-ID {rid} already used at offset "
                         f"{ids[rid]}", offset, "WARC-Record-ID")
            else:
                ids[rid] = offset
        self.report.records.add(offset, rtype, rid, block, payload)
        if refs:
            # A reference to a record seen already is resolved now; only the others are
            # kept to the end (a file's references would otherwise be kept whole).
            keep = self.refs.append
            for ref in refs:
                if ref[1] not in ids:
                    keep(ref)


    def records_seen(self, records: RecordReports, refs: _Unresolved, unique: bool) -> bool:
        """:meth:`record_seen` for many records at once (a piece checked in another process),
        where seeing them finds nothing: False, with nothing done, when one of their IDs was
        seen before or (*unique* false) repeats among them. *refs* are their references to
        no record among them, in order (a piece's pending references:
        :class:`warckit.check.pieces._Pending`).

        A reference is kept when it names no record of the file read so far.
        """
        ids = self.ids
        if not unique or any(map(ids.__contains__, records.record_ids())):
            return False
        # Their IDs join ``ids`` only when a later piece or a record needs them: on two
        # cores the last piece's are hashed here once (the test above), not three times.
        self._later.append(records)
        self.report.records.extend(records)
        self.refs.extend(refs.unresolved(ids))
        return True


def _walk(reader: Any, state: Any, name: str, verify: bool, end: int | None = None) -> bool:
    """Check the records *reader* yields into *state* (a :class:`_FileState`, or a recorder
    of the same interface); stop at the record at offset *end*.

    Returns True when it stopped there, False at the end of the file (also when no
    record starts exactly at *end*: then it reads on to the end).
    """
    issues = state.issues

    def add(code: str, severity: str, message: str, offset: int | None = None,
            fld: str | None = None) -> None:
        issues.append(Issue(code, message, severity, offset, name, fld))

    gzip = reader.compression == "gzip"
    report = state.report
    record_start = state.record_start
    record_seen = state.record_seen
    ids = state.ids  # (read only here: record_seen adds to it)
    validate = _validate.validate_grouped
    field_layout = _hp.field_layout
    accept_at = _hp.accept_at
    layouts = LAYOUTS
    scan_record = _vf.scan_record
    fast_classes = _FAST_CLASSES
    clean = _CLEAN
    done = len(issues)  # findings up to the end of the last record checked
    for rec in reader:
        offset = rec.offset
        if end is not None and offset >= end:
            if offset == end:
                # What the reader said about the record at *end* is said again by the
                # piece that starts there.
                issues[done:] = [i for i in issues[done:]
                                 if not (isinstance(i, Issue) and i.offset is not None and i.offset >= end)]
                return True
            end = None
        record_start(offset)
        report.format = fmt = rec.format
        if fmt != "warc":
            done = len(issues)
            continue
        rtype = rec.type
        if state.first:
            if rtype != "warcinfo":
                add("warcinfo-not-first", "warning",
                    f"the first record is a {rtype} record, not warcinfo (WARC 1.1 Annex C)", offset)
            state.first = False
        if not rec.raw_head.startswith(b"WARC/"):
            # Quirk: ABNF literals are case-insensitive, so "warc/1.0" is
            # grammatical; every writer uses uppercase (SPEC-DIGEST §1.1).
            add("lowercase-version", "warning",
                f"version line {rec.raw_head[:8]!r} is not uppercase 'WARC/'", offset)
        # The head's values by position, and where its fields are among them (its layout,
        # shared by heads with the same names); the fields by lowercased name (grouped)
        # only when the field rules or the slow digest path need them.
        version = rec.version
        headers = rec.headers
        if not rec.raw_head.isascii():
            _not_utf8(rec, add)
        raw = headers.raw
        if raw is not None:
            names, values = field_layout(raw, 0, len(raw), headers._lenient)
        else:
            names, values = names_values(headers.fields)
        lay = layouts.get((version, names)) or layout_of(version, names)
        grouped: dict[str, list[str]] | None = None
        if version == "1.1" or version == "1.0":
            wtype = lay.wtype
            rtype_value = values[wtype].strip() if wtype is not None else ""
            steps = lay.steps.get(rtype_value)
            if not steps or not accept_at(values, steps):
                grouped = headers.grouped()
                found = validate(grouped, version, source=name, offset=offset)
                if steps is None:
                    lay.learn(rtype_value, grouped, version)
                if found:
                    issues.extend(found)
        else:
            add("old-version", "warning",
                f"WARC/{version} predates ISO 28500; field rules not applied", offset)
        size = rec._content_length
        at = lay.record_id
        rid = values[at] if at is not None else None  # (record.record_id: the first value)
        later: list[Any] | None = None
        block = None
        if verify:
            if size < _STREAMED:
                # Read the block into the record now: asking for its length (below)
                # before the block is read would copy it into a spool.
                block = rec.peek_block(size)
            else:
                # A large block streams through the digests before its length is asked
                # for (else it went through a spool, on disk past 1 MiB). What that
                # reports keeps its place: the block's own cut before the trailer and
                # layout findings, the rest (the HTTP head, the digests) after them.
                mark = len(issues)
                try:
                    digests = _check_record(rec, add, grouped if grouped is not None else headers.grouped())
                finally:
                    during = issues[mark:]
                    del issues[mark:]
                    issues.extend(i for i in during if i.code == "truncated-block")
                later = [i for i in during if i.code != "truncated-block"]
        if gzip and rec.length is None:
            add("multi-record-member", "error",
                "the record does not start its own gzip member (record-at-a-time "
                "compression, WARC 1.1 Annex D)", offset)
        # The references to no record seen so far (the others are resolved now).
        refs: _Refs | None = None
        for fname, at in lay.refs:
            value = values[at].strip()
            if value not in ids and value != rid:
                if refs is None:
                    refs = []
                refs.append((fname, value, offset))
        if not verify:
            record_seen(rid, offset, rtype, "unchecked", "unchecked", refs)
        elif later is None:
            # The common case first: the fast path on the peeked block, nothing to report.
            cls = type(rec)
            packed = (scan_record(raw, cls.type_name, block)
                      if cls in fast_classes and raw is not None and block is not None and len(block) == size
                      else None)
            if (packed is not None and (packed[0] is not None) == lay.block_digest
                    and (packed[2] is not None) == lay.payload_digest):
                states = clean.get((None if packed[0] is None else packed[1],
                                    None if packed[2] is None else packed[3]))
                if states is not None:
                    record_seen(rid, offset, rtype, states[0], states[1], refs)
                    done = len(issues)
                    continue
            mark = len(issues)
            block_state, payload_state = _check_record(
                rec, add, grouped if grouped is not None else headers.grouped(), block)
            if len(issues) == mark:
                record_seen(rid, offset, rtype, block_state, payload_state, refs)
            else:
                # The digest findings follow what seeing the record finds (a repeated ID).
                during = issues[mark:]
                del issues[mark:]
                record_seen(rid, offset, rtype, block_state, payload_state, refs)
                issues.extend(during)
        else:
            record_seen(rid, offset, rtype, digests[0], digests[1], refs)
            issues.extend(later)
        done = len(issues)
    return False


def check_file(path: str | os.PathLike[str] | IO[bytes], *, verify_digests: bool = True,
               name: str | None = None, jobs: int = 1, min_split_size: int | None = None) -> FileReport:
    """Check one WARC file; never raises for bad content (problems become findings).

    Args:
        path: The file (a path, or a binary file object: a WARC inside a WACZ).
        verify_digests: Recompute block and payload digests.
        name: The name findings carry (default: the path, or the file object's name).
        jobs: Processes to use: with more than one, a large gzip-per-record file (a
            path) is cut at record boundaries into pieces checked at once, as
            :func:`~warckit.check.verify_file` does; the report is the same.
        min_split_size: Files smaller than this (bytes) are checked in one process
            (default: :data:`warckit.read.pieces.MIN_SPLIT_SIZE`).

    Raises:
        OSError: the file cannot be opened.
    """
    if name is None:
        name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else str(getattr(path, "name", "<stream>"))
    source = path if not isinstance(path, (str, os.PathLike)) else name
    report = FileReport(name)
    state = _FileState(report)
    if jobs > 1 and isinstance(source, str) and hasattr(os, "fork"):
        check_in_pieces(check_span, source, state, verify_digests, jobs, min_split_size)
    else:
        check_span(source, state, name, verify_digests)
    finish_report(state)
    return report


def check_span(source: Any, state: Any, name: str, verify: bool, start: int = 0,
               end: int | None = None) -> bool:
    """Check the records of *source* from file offset *start* up to the record at *end*
    into *state*; a damage the lenient reader cannot get past is a ``parse-error``.

    Returns whether it stopped at *end* (see :func:`_walk`).
    """
    issues = state.issues

    def add(code: str, severity: str, message: str, offset: int | None = None) -> None:
        issues.append(Issue(code, message, severity, offset, name, None))

    def on_warning(issue: Issue) -> None:
        sev = "error" if issue.code in FRAMING_ERRORS else "warning"
        if issue.code.startswith("record head:") or issue.message.startswith("record head:"):
            sev = "warning"
        issues.append(Issue(issue.code, issue.message, sev, issue.offset, name, issue.field))

    try:
        with open_archive(source, lenient=True, on_warning=on_warning, name=name, offset=start) as reader:
            state.report.compression = reader.compression
            return _walk(reader, state, name, verify, end)
    except ParseError as exc:
        add("parse-error", "error", exc.message if hasattr(exc, "message") else str(exc), exc.offset)
        return False


def finish_report(state: _FileState) -> None:
    """The findings about the whole file: a cut last record, dangling references, no records."""
    report = state.report
    _fold_cut(report, state.last)
    refs = state.unresolved()
    if report.format == "warc" and refs:
        # Quirk: ClueWeb09 writes WARC-Warcinfo-ID without angle brackets; compare bare.
        known = {i.strip("<>") for i in state.ids}
        for fname, value, offset in refs:
            if value.strip("<>") not in known:
                state.add("dangling-reference", "warning", f"{fname} {value} names no record in this file",
                          offset, fname)
    elif report.format is None and not report.issues:
        # A WARC file holds at least one record: an empty one is a failed write.
        state.add("empty-file", "error", "the file holds no records")


def _fold_cut(report: FileReport, last: tuple[int, int] | None) -> None:
    """A file cut inside its last record is one error, not also the trailer, layout and
    digest findings the cut causes in that record.

    The cut is the ``truncated-member`` finding of a gzip file (its message gains what
    the cut left of the record), else the ``truncated-block`` or ``truncated-head`` one.
    """
    start = last[1] if last is not None else 0
    tail = report.issues[start:]
    member = next((i for i in tail if i.code == "truncated-member"), None)
    cut = member or next((i for i in tail if i.code in ("truncated-block", "truncated-head")), None)
    if cut is None:
        return
    if last is not None and any(i.code == "truncated-block" and i.offset == last[0] for i in tail):
        at = {last[0], cut.offset}  # the last record itself is cut
    elif last is not None and cut.offset == last[0]:
        at = {last[0]}  # its gzip member is (the block is whole, its trailer is not)
    else:
        at = {cut.offset}  # the cut is in the head of a record after the last one
    folded = [i for i in tail if i is not cut and i.code in _CUT_CONSEQUENCES and i.offset in at]
    if not folded:
        return
    details = [i.message for i in folded if i.code in ("truncated-block", "truncated-head")]
    if details and cut is member:
        cut = Issue(cut.code, f"{cut.message}: {'; '.join(details)}", cut.severity, cut.offset, cut.source,
                    cut.field)
    kept = [cut if i.code == cut.code and i.offset == cut.offset else i
            for i in tail if not any(i is f for f in folded)]
    report.issues[start:] = kept


def iter_check_files(paths: Iterable[str | os.PathLike[str]], *, verify_digests: bool = True,
                     jobs: int = 1) -> Iterator[FileReport]:
    """Check several files, yielding their reports in the order of *paths*.

    Args:
        paths: The files.
        verify_digests: Recompute block and payload digests.
        jobs: Worker processes; with more than one, files are checked at once (each
            file in one process; a report is yielded as soon as it and those before
            it are done), and a single file is checked in pieces (see :func:`check_file`).

    Raises:
        OSError: a file cannot be opened (raised where the sequential run raises it).
    """
    names = [os.fspath(p) for p in paths]
    if len(names) == 1:
        yield check_file(names[0], verify_digests=verify_digests, jobs=jobs)
        return
    if jobs <= 1 or not hasattr(os, "fork"):
        for name in names:
            yield check_file(name, verify_digests=verify_digests)
        return
    from functools import partial

    from ..read.workers import process_pool

    with process_pool(min(jobs, len(names))) as pool:
        yield from pool.map(partial(check_file, verify_digests=verify_digests), names)


def check_files(paths: Iterable[str | os.PathLike[str]], *, verify_digests: bool = True,
                progress: Callable[[str], None] | None = None, jobs: int = 1) -> list[FileReport]:
    """Check several files; *progress* is called with each path after it is done.

    *jobs* > 1 checks files in that many processes (see :func:`iter_check_files`).
    """
    out = []
    for report in iter_check_files(paths, verify_digests=verify_digests, jobs=jobs):
        out.append(report)
        if progress is not None:
            progress(report.path)
    return out
