"""Digest verification on read: which digests a record declares, which match, and
which payload convention a WARC-Payload-Digest follows.

WARC 1.1 defines the payload of an HTTP response as the entity after removing the
transfer-encoding; many writers (wget, Heritrix, warcio) digested the bytes as
stored (still chunked). Both are computed in one pass over the block.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ._chunked import Dechunker
from .digests import DIGEST_SIZES, Digest
from .records import WarcRecord

__all__ = ["LEGACY", "WARC11", "DigestReport", "DigestResult", "verify_digests"]

#: Payload digest over the HTTP entity after removing chunked transfer-encoding.
WARC11 = "warc-1.1"
#: Payload digest over the bytes after the HTTP head, as stored.
LEGACY = "legacy"


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


@dataclass(frozen=True, slots=True)
class DigestReport:
    """Results for one record; ``None`` where the record declares no such digest."""

    block: DigestResult | None
    payload: DigestResult | None

    @property
    def ok(self) -> bool:
        """True unless a declared digest was checked and did not match."""
        return not any(r is not None and r.ok is False for r in (self.block, self.payload))


#: Blocks at least this large have their block digest computed on a worker thread.
OFFLOAD_THRESHOLD = 1 << 20
_WORKER: Any = None


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


def verify_digests(record: WarcRecord) -> DigestReport:
    """Read the record's block once and check its declared digests.

    The block must not have been consumed yet (or the record must be frozen).
    """
    block_d = record.block_digest
    payload_d = record.payload_digest
    block_h = _hasher(block_d)
    legacy_h = _hasher(payload_d)
    entity_h = _hasher(payload_d)
    is_revisit = record.type == "revisit"
    head = record.http if (payload_d is not None or block_h is not None) else None
    chunked = head is not None and head.chunked
    head_bytes = head.raw if head is not None else b""
    if block_h is not None:
        block_h.update(head_bytes)
        if record.content_length >= OFFLOAD_THRESHOLD:
            block_h = _Offloaded(block_h)
    hashes = [h for h in (block_h, legacy_h) if h is not None]
    dechunk = Dechunker() if (chunked and entity_h is not None and not is_revisit) else None
    stream = record.payload_stream()
    while True:
        data = stream.read(1 << 20)
        if not data:
            break
        for h in hashes:
            h.update(data)
        if dechunk is not None:
            dechunk.feed(data, entity_h)
    chunk_error = None
    if dechunk is not None and (dechunk.failed or dechunk.state != 4):
        chunk_error = "malformed or truncated chunked transfer-encoding"
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
            payload_result = DigestResult(
                "WARC-Payload-Digest", payload_d, None,
                reason="a revisit's payload digest names the original capture's payload",
            )
        elif legacy_h is None or (payload_raw := payload_d.raw) is None:
            payload_result = DigestResult(
                "WARC-Payload-Digest", payload_d, None, reason=_why_unchecked(payload_d)
            )
        else:
            legacy_ok = payload_raw == legacy_h.digest()
            if not chunked:
                payload_result = DigestResult(
                    "WARC-Payload-Digest", payload_d, legacy_ok, "both" if legacy_ok else None
                )
            else:
                entity_ok = chunk_error is None and payload_raw == entity_h.digest()
                if entity_ok:
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
