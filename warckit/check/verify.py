"""Digest verification on read: which digests a record declares, which match, and
which payload convention a WARC-Payload-Digest follows.

WARC 1.1 defines the payload of an HTTP response as the entity after removing the
transfer-encoding; many writers (wget, Heritrix, warcio) digested the bytes as
stored (still chunked). Both are computed in one pass over the block.

:func:`verify_digests` checks one record. A block smaller than
:data:`BUFFERED_MAX` whose fields, HTTP head and digests are plain is checked in
one call of a compiled helper (``_speedups/verifyfast.pyx``) on the buffered block;
anything else streams through the general path, which gives the same report.
:func:`verify_file` checks every record of a file, optionally in several processes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._speedups.verifyfast import impl as _vf
from .._util.cpus import cpu_count
from ..errors import StaleRecordError
from ..read.pieces import Forked
from ..record import payload as _payload
from ..record.digests import DIGEST_SIZES, Digest
from ..record.payload import PayloadDigester
from ..record.records import (
    Continuation,
    Conversion,
    Metadata,
    Request,
    Resource,
    Response,
    Revisit,
    Warcinfo,
    WarcRecord,
)

__all__ = ["LEGACY", "WARC11", "DigestReport", "DigestResult", "verify_digests", "verify_file"]

#: Payload digest over the HTTP entity after removing chunked transfer-encoding: how
#: :attr:`DigestResult.convention` spells :data:`warckit.record.payload.WARC11` (which
#: :func:`~warckit.record.payload.payload_convention` reads).
WARC11 = "warc-1.1"
#: Payload digest over the bytes after the HTTP head, as stored
#: (:data:`warckit.record.payload.LEGACY`).
LEGACY = _payload.LEGACY


@dataclass(frozen=True, slots=True)
class DigestResult:
    """The check of one declared digest.

    Attributes:
        field: ``WARC-Block-Digest`` or ``WARC-Payload-Digest``.
        declared: The digest as declared.
        ok: True if it matched, False if not, None if it could not be checked
            (unknown algorithm, undecodable value, or a revisit's payload digest,
            which names the original capture's payload).
        convention: For payload digests that matched: ``"warc-1.1"``, ``"legacy"``,
            or ``"both"`` when the payload is not chunked (the two agree).
        reason: Why ``ok`` is None.
    """

    field: str
    declared: Digest
    ok: bool | None
    convention: str | None = None
    reason: str | None = None


_REVISIT_REASON = "a revisit's payload digest names the original capture's payload"
#: WARC 1.1 §7: the first segment declares the payload digest of the reassembled record.
_SEGMENT_REASON = "a segment's payload digest covers the payload of the whole segmented record"
_CHUNK_ERROR = "malformed or truncated chunked transfer-encoding"
#: (ok, convention, reason) of a payload verdict of the fast path (``_verifyfast_py``).
_VERDICTS: dict[int, tuple[bool | None, str | None, str | None]] = {
    _vf.MISMATCH: (False, None, None),
    _vf.BOTH: (True, "both", None),
    _vf.WARC11_OK: (True, WARC11, None),
    _vf.LEGACY_OK: (True, LEGACY, None),
    _vf.REVISIT: (None, None, _REVISIT_REASON),
    _vf.MISMATCH_CHUNKS: (False, None, _CHUNK_ERROR),
}
_PackedReport = tuple[bytes | None, bool, bytes | None, int]


class DigestReport:
    """Results for one record; ``None`` where the record declares no such digest.

    Immutable; two reports are equal when their results (:attr:`block`,
    :attr:`payload`) are.
    """

    __slots__ = ("_block", "_packed", "_payload")
    _block: DigestResult | None
    _payload: DigestResult | None
    _packed: _PackedReport | None

    def __init__(self, block: DigestResult | None, payload: DigestResult | None) -> None:
        object.__setattr__(self, "_block", block)
        object.__setattr__(self, "_payload", payload)
        object.__setattr__(self, "_packed", None)

    @classmethod
    def _from_packed(cls, packed: _PackedReport) -> DigestReport:
        """A report over the fast path's result; its DigestResults are built on first use."""
        self = cls.__new__(cls)
        object.__setattr__(self, "_packed", packed)
        return self

    def _unpack(self) -> None:
        packed = self._packed
        assert packed is not None
        block_value, block_ok, payload_value, verdict = packed
        block = payload = None
        if block_value is not None:
            block = DigestResult("WARC-Block-Digest", Digest.parse(block_value.decode("ascii")), block_ok)
        if payload_value is not None:
            ok, convention, reason = _VERDICTS[verdict]
            payload = DigestResult(
                "WARC-Payload-Digest", Digest.parse(payload_value.decode("ascii")), ok, convention, reason
            )
        object.__setattr__(self, "_block", block)
        object.__setattr__(self, "_payload", payload)
        object.__setattr__(self, "_packed", None)

    @property
    def block(self) -> DigestResult | None:
        """The check of WARC-Block-Digest, ``None`` when the record declares none."""
        if self._packed is not None:
            self._unpack()
        return self._block

    @property
    def payload(self) -> DigestResult | None:
        """The check of WARC-Payload-Digest, ``None`` when the record declares none."""
        if self._packed is not None:
            self._unpack()
        return self._payload

    @property
    def ok(self) -> bool:
        """True unless a declared digest was checked and did not match."""
        packed = self._packed
        if packed is not None:
            block_value, block_ok, payload_value, verdict = packed
            return (block_value is None or block_ok) and (
                payload_value is None or (verdict != _vf.MISMATCH and verdict != _vf.MISMATCH_CHUNKS)
            )
        return not any(r is not None and r.ok is False for r in (self._block, self._payload))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("DigestReport is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DigestReport):
            return NotImplemented
        return (self.block, self.payload) == (other.block, other.payload)

    def __hash__(self) -> int:
        return hash((self.block, self.payload))

    def __repr__(self) -> str:
        return f"DigestReport(block={self.block!r}, payload={self.payload!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (DigestReport, (self.block, self.payload))


#: Blocks at least this large have their block digest computed on a worker thread.
OFFLOAD_THRESHOLD = 1 << 20
#: Blocks smaller than this are read whole and checked in one call of the compiled
#: helper; larger ones stream, 1 MiB at a time. (Streaming the 1-4 MiB blocks of the #19
#: domain mix made ``warckit check`` 7% slower on two CPUs, 9% with ``-j 1``.)
BUFFERED_MAX = 4 << 20
_WORKER: Any = None


def _forget_worker() -> None:
    """In a forked child: the parent's digest thread is not in this process."""
    global _WORKER
    _WORKER = None


if hasattr(os, "register_at_fork"):
    # Any fork (verify_file's and check's pieces, check's process pool, a caller's own):
    # an inherited executor would queue work for a thread that does not exist.
    os.register_at_fork(after_in_child=_forget_worker)


def _worker() -> Any:
    global _WORKER
    if _WORKER is None:
        from concurrent.futures import ThreadPoolExecutor

        _WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warckit-digest")
    return _WORKER


class _Offloaded:
    """A hash fed on one worker thread: hashlib releases the GIL on large updates, so
    the block digest runs on the second core while this thread inflates and computes
    the payload digest. One worker keeps the updates in order; at most a few chunks
    wait in its queue, so memory stays bounded."""

    def __init__(self, h: Any) -> None:
        self._h = h
        self._pending: list[Any] = []

    def update(self, data: bytes) -> None:
        pending = self._pending
        if len(pending) >= 4:
            pending.pop(0).result()
        pending.append(_worker().submit(self._h.update, data))

    def digest(self) -> bytes:
        for future in self._pending:
            future.result()
        self._pending.clear()
        result: bytes = self._h.digest()
        return result


def _hasher(d: Digest | None) -> Any:
    if d is None or d.algorithm not in DIGEST_SIZES:
        return None
    return hashlib.new(d.algorithm)


#: Record classes whose ``has_http`` / ``http`` the fast path reproduces.
_FAST_CLASSES = frozenset({Warcinfo, Request, Response, Resource, Metadata, Revisit, Conversion, Continuation})


def _scan(record: WarcRecord, block: bytes | None = None) -> _PackedReport | None:
    """The fast path: the whole block buffered, one helper call; ``None`` to stream instead.

    *block* is what ``record.peek_block(record.content_length)`` returned, when the caller
    has peeked already.
    """
    cls = type(record)
    if cls not in _FAST_CLASSES:
        return None
    size = record._content_length
    if size >= BUFFERED_MAX:
        return None
    fields = record.headers.raw
    if fields is None:
        return None
    if block is None:
        try:
            block = record.peek_block(size)
        except StaleRecordError:
            return None  # the streaming path raises its own error
    if len(block) != size:
        return None
    return _vf.scan_record(fields, cls.type_name, block)  # type: ignore[arg-type]


def verify_digests(record: WarcRecord) -> DigestReport:
    """Read the record's block once and check its declared digests.

    The block must not have been consumed yet (or the record must be frozen). A
    block smaller than :data:`BUFFERED_MAX` (4 MiB) stays readable afterwards (it was
    buffered whole); a larger one has been consumed.

    Raises:
        HttpParseError: strict reading and the HTTP head in the block is malformed.
        RecordParseError: strict reading and the file ends inside the block.
    """
    packed = _scan(record)
    if packed is not None:
        return DigestReport._from_packed(packed)
    return _verify_streaming(record)


def _verify_streaming(record: WarcRecord) -> DigestReport:
    block_d = record.block_digest
    payload_d = record.payload_digest
    segment = record.type == "continuation" or record.segment_number is not None
    is_revisit = record.type == "revisit"
    block_h = _hasher(block_d)
    head = record.http if (payload_d is not None or block_h is not None) else None
    chunked = head is not None and head.chunked
    payload_h = None
    if (payload_d is not None and not segment and not is_revisit
            and payload_d.algorithm in DIGEST_SIZES):
        payload_h = PayloadDigester(payload_d.algorithm, chunked=chunked)
    if block_h is not None:
        block_h.update(head.raw if head is not None else b"")
        if record.content_length >= OFFLOAD_THRESHOLD and cpu_count() > 1:
            # (on one CPU the worker thread would only add its hand-offs)
            block_h = _Offloaded(block_h)
    feeds = [h.update for h in (block_h, payload_h) if h is not None]
    stream = record.payload_stream()
    while True:
        data = stream.read(1 << 20)
        if not data:
            break
        for feed in feeds:
            feed(data)
    block_result = None
    if block_d is not None:
        block_raw = block_d.raw if block_h is not None else None
        if block_h is None or block_raw is None:
            block_result = DigestResult(
                "WARC-Block-Digest", block_d, None, reason=_why_unchecked(block_d)
            )
        else:
            block_result = DigestResult("WARC-Block-Digest", block_d, block_raw == block_h.digest())
    payload_result = None
    if payload_d is not None:
        if is_revisit:
            payload_result = DigestResult("WARC-Payload-Digest", payload_d, None, reason=_REVISIT_REASON)
        elif segment:
            payload_result = DigestResult("WARC-Payload-Digest", payload_d, None, reason=_SEGMENT_REASON)
        elif payload_h is None or (payload_raw := payload_d.raw) is None:
            payload_result = DigestResult(
                "WARC-Payload-Digest", payload_d, None, reason=_why_unchecked(payload_d)
            )
        else:
            legacy_ok = payload_raw == payload_h.stored_raw()
            if not chunked:
                payload_result = DigestResult(
                    "WARC-Payload-Digest", payload_d, legacy_ok, "both" if legacy_ok else None
                )
            else:
                entity = payload_h.entity_raw()  # (None: the chunked coding is not well formed)
                chunk_error = None if entity is not None else _CHUNK_ERROR
                if payload_raw == entity:
                    payload_result = DigestResult("WARC-Payload-Digest", payload_d, True, WARC11)
                elif legacy_ok:
                    payload_result = DigestResult("WARC-Payload-Digest", payload_d, True, LEGACY)
                else:
                    payload_result = DigestResult(
                        "WARC-Payload-Digest", payload_d, False, reason=chunk_error
                    )
    return DigestReport(block_result, payload_result)


def _why_unchecked(d: Digest) -> str:
    if d.algorithm not in DIGEST_SIZES:
        return f"unknown digest algorithm {d.algorithm!r}"
    return f"digest value {d.value!r} cannot be decoded"


# -- whole files ------------------------------------------------------------------------

#: Every WARC-Type a split point may start at (verification reads every record).
_ALL_TYPES = frozenset(
    {"warcinfo", "request", "response", "resource", "metadata", "revisit", "conversion", "continuation"}
)
#: What one piece yields: a record offset and its report (packed when from the fast path).
_Item = tuple[int, "_PackedReport | DigestReport"]


def _piece(path: str, start: int, end: int | None, reached: list[bool], compact: bool = False) -> Iterator[_Item]:
    """Verify the records of *path* from file offset *start* up to the record at *end*.

    When no record starts exactly at *end* (the split point was not in step with the
    records), this reads on to the end of the file. *reached* gets True appended
    when the piece stopped at *end*. With *compact*, the fast path's results are
    yielded as they are (tuples, for a worker to send), else as reports.
    """
    from ..read.reader import open_archive

    scan = _scan
    wrap = DigestReport._from_packed
    with open_archive(path, offset=start) as reader:
        for record in reader:
            offset = record.offset
            if end is not None and offset >= end:
                if offset == end:
                    reached.append(True)
                    return
                end = None
            packed = scan(record)
            if packed is None:
                yield offset, _verify_streaming(record)
            elif compact:
                yield offset, packed
            else:
                yield offset, wrap(packed)


#: Results a worker writes to its spool file at a time (one pickle each).
_SPOOL_BATCH = 4096


def _piece_to_file(path: str, start: int, end: int | None, spool: str) -> bool:
    """Worker process: one piece's results (compact tuples), pickled in batches into
    *spool*; returns whether the piece stopped at *end*."""
    import pickle

    global _WORKER
    _WORKER = None  # forked: the parent's digest thread does not exist in this process
    reached: list[bool] = []
    # The spool was created exclusively by the parent; never follow a link put in its place.
    fd = os.open(spool, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        batch: list[_Item] = []
        for item in _piece(path, start, end, reached, compact=True):
            batch.append(item)
            if len(batch) >= _SPOOL_BATCH:
                pickle.dump(batch, out, protocol=pickle.HIGHEST_PROTOCOL)
                batch = []
        if batch:
            pickle.dump(batch, out, protocol=pickle.HIGHEST_PROTOCOL)
    return bool(reached)


def _report(item: _PackedReport | DigestReport) -> DigestReport:
    return item if isinstance(item, DigestReport) else DigestReport._from_packed(item)


class _Forked(Forked):
    """One piece checked in a forked child (see :class:`warckit.read.pieces.Forked`).

    The child spools its results to a temporary file that is read back one batch at a
    time, so this process holds no more than a batch of another piece's results.
    """

    def __init__(self, path: str, start: int, end: int | None) -> None:
        import tempfile

        fd, self.spool = tempfile.mkstemp(prefix="warckit-verify-", suffix=".part")
        os.close(fd)
        try:
            super().__init__(_piece_to_file, path, start, end, self.spool)
        except BaseException:
            self.discard()
            raise

    def result(self) -> tuple[Iterator[_Item], bool] | None:
        """``(the piece's results, whether it stopped at its end)``; ``None`` if it failed."""
        stopped = super().result()
        if stopped is None:
            return None
        return self._items(), bool(stopped)

    def _items(self) -> Iterator[_Item]:
        import pickle

        with open(self.spool, "rb") as fh:
            while True:
                try:
                    batch = pickle.load(fh)
                except EOFError:
                    return
                yield from batch

    def discard(self) -> None:
        """Remove the spool file (its results have been read, or are not wanted)."""
        try:
            os.unlink(self.spool)
        except FileNotFoundError:
            pass

    def cancel(self) -> None:
        super().cancel()
        self.discard()


def verify_file(
    path: str | os.PathLike[str], *, jobs: int = 1, min_split_size: int | None = None
) -> Iterator[tuple[int, DigestReport]]:
    """Check the digests of every record of a file, in file order.

    The same as ``verify_digests`` on each record of ``warckit.open(path)``
    (strict reading), yielding ``(record.offset, report)``. With ``jobs`` > 1, a
    large gzip-per-record WARC file is cut at record boundaries (as ``warckit index
    -j`` does, see :mod:`warckit.read.pieces`) into *jobs* pieces: this process checks
    the first while worker processes check the others; their results are yielded in
    file order once this process gets to them (the workers spool them to temporary
    files meanwhile, so memory stays bounded). Other files, and every file where ``os.fork``
    is not available, are checked in this process.

    Args:
        path: A WARC or ARC file, any compression.
        jobs: Processes to use (this one included).
        min_split_size: Files smaller than this (bytes) are checked in one process
            (default: :data:`warckit.read.pieces.MIN_SPLIT_SIZE`).

    Yields:
        ``(offset, report)`` for every record.

    Raises:
        ParseError: the file is damaged where the sequential reading raises it, after
            the reports of every record before the damage.

    Example:
        >>> import warckit
        >>> bad = [o for o, r in warckit.verify_file("examples/sample.warc.gz", jobs=2) if not r.ok]
    """
    name = os.fspath(path)
    points: list[tuple[int, int]] = []
    if jobs > 1 and hasattr(os, "fork"):
        from ..read.pieces import split_points

        points = split_points(name, jobs, lambda record: record.type in _ALL_TYPES, min_size=min_split_size)
    if not points:
        yield from _piece(name, 0, None, [])  # type: ignore[misc]  # reports (not compact)
        return
    starts = [0] + [at for _, at in points]
    ends: list[int | None] = [at for _, at in points]
    ends.append(None)
    children: list[_Forked] = []
    try:
        try:
            for start, end in zip(starts[1:], ends[1:]):
                children.append(_Forked(name, start, end))
        except OSError:  # no more processes: check the whole file here
            yield from _piece(name, 0, None, [])  # type: ignore[misc]
            return
        reached: list[bool] = []
        yield from _piece(name, starts[0], ends[0], reached)  # type: ignore[misc]
        if not reached:
            return  # the first piece read to the end of the file
        for start, child in zip(starts[1:], children):
            result = child.result()
            if result is None:
                # The piece failed (damage, most likely): check the rest here, which
                # raises any error exactly where the sequential reading does.
                yield from _piece(name, start, None, [])  # type: ignore[misc]
                return
            items, stopped = result
            for offset, item in items:
                yield offset, _report(item)
            child.discard()
            if not stopped:
                return  # that piece read to the end of the file
    finally:
        for child in children:
            child.cancel()
