"""The payload digest: which bytes ``WARC-Payload-Digest`` covers, computed in one pass.

WARC 1.1 (§5.9) defines the payload of an HTTP record as the entity: the body after
the HTTP head with the chunked transfer-coding removed (``"warc1.1"``). Many writers
(wget, Heritrix, warcio) digested the body as stored, still chunked (``"legacy"``).
A body that declares chunked coding but is not well-formed chunked coding has no
de-chunked entity: its digest is the legacy one (both the writer and the verifier
fall back so, and the compiled verifier draws the same line).

:class:`PayloadDigester` is fed the bytes as they stream (the block, or the payload
after a head the caller has already parsed) and hashes both conventions at once
when the body is chunked.

Example:
    >>> from warckit.record.payload import PayloadDigester
    >>> d = PayloadDigester(convention="warc1.1")
    >>> d.update(b"HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n")
    >>> d.update(b"5\\r\\nhello\\r\\n0\\r\\n\\r\\n")
    >>> str(d.digest()), d.convention
    ('sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N', 'warc1.1')
    >>> str(d.stored_digest())
    'sha1:FPKJFAEPEIMEFSS2G2SDNSN5YKX3N5JX'
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, Literal, cast

from ..errors import HttpParseError, UsageError
from ..io.chunked import Dechunker
from .digests import DIGEST_SIZES, Digest, format_digest, normalize_algorithm
from .http import MAX_HTTP_HEAD, find_head_end, parse_http_head

__all__ = ["CONVENTIONS", "LEGACY", "WARC11", "PayloadConvention", "PayloadDigester", "payload_convention"]

PayloadConvention = Literal["warc1.1", "legacy"]
"""What a payload digest of an HTTP record covers: ``"warc1.1"`` (the entity, chunked
transfer-coding removed) or ``"legacy"`` (the body as stored)."""

#: The entity after removing chunked transfer-coding (WARC 1.1 §5.9).
WARC11: Final = "warc1.1"
#: The bytes after the HTTP head, as stored.
LEGACY: Final = "legacy"
#: Every convention, in the order of preference.
CONVENTIONS: tuple[PayloadConvention, ...] = (WARC11, LEGACY)

#: Other spellings accepted as input (:class:`~warckit.check.verify.DigestResult` has
#: reported ``"warc-1.1"``).
_SPELLINGS: dict[str, PayloadConvention] = {"warc1.1": WARC11, "warc-1.1": WARC11, "legacy": LEGACY}


def payload_convention(name: str) -> PayloadConvention:
    """The convention *name* spells (``"warc1.1"``, ``"warc-1.1"``, ``"legacy"``, any case).

    Raises:
        UsageError: another name.
    """
    conv = _SPELLINGS.get(name.strip().lower()) if isinstance(name, str) else None
    if conv is None:
        raise UsageError(f"payload convention must be 'warc1.1' or 'legacy', not {name!r}")
    return conv


#: Algorithm as given -> (normalised name, hashlib constructor); a digester per record
#: must cost next to nothing.
_FACTORIES: dict[str, tuple[str, Any]] = {}


def _hash_factory(algorithm: str) -> tuple[str, Any]:
    known = _FACTORIES.get(algorithm)
    if known is None:
        name = normalize_algorithm(algorithm)
        if name not in DIGEST_SIZES:
            raise UsageError(f"unsupported digest algorithm {algorithm!r}")
        new = getattr(hashlib, name, None)
        known = _FACTORIES[algorithm] = (name, new if new is not None else (lambda: hashlib.new(name)))
    return known


class PayloadDigester:
    """Push-style payload digest under one convention.

    Args:
        algorithm: ``sha1`` (default), ``sha256``, … (labels are normalised).
        encoding: Of the digest value (see :meth:`Digest.from_bytes`).
        convention: ``"warc1.1"`` (default) or ``"legacy"`` (``"warc-1.1"`` is taken too).
        chunked: ``None`` (default): the bytes fed are the whole block, starting with
            an HTTP head, which is found (up to :data:`~warckit.record.http.MAX_HTTP_HEAD`
            bytes), parsed leniently and skipped; when there is none, the whole block is
            the payload. ``True`` / ``False``: the bytes fed are the payload after the
            head, which declares chunked coding or not.

    Attributes:
        algorithm: The normalised algorithm.
        length: Payload bytes fed (as stored).
    """

    __slots__ = (
        "_dechunk", "_encoding", "_entity", "_head", "_new", "_stored", "_want", "algorithm", "length",
    )

    def __init__(
        self,
        algorithm: str = "sha1",
        *,
        encoding: str | None = None,
        convention: str = WARC11,
        chunked: bool | None = None,
    ) -> None:
        self.algorithm, self._new = _FACTORIES.get(algorithm) or _hash_factory(algorithm)
        self._encoding = encoding
        self._want = _SPELLINGS.get(convention) or payload_convention(convention)
        self._stored: Any = self._new()
        self._entity: Any = None
        self._dechunk: Dechunker | None = None
        self._head: bytes | None = b"" if chunked is None else None  # the head still being found
        self.length = 0
        if chunked:
            self._chunked()

    def _chunked(self) -> None:
        if self._want == WARC11:
            self._entity = self._new()
            self._dechunk = Dechunker()

    def update(self, data: bytes | bytearray | memoryview) -> None:
        """Feed the next bytes (of the block, or of the payload: see *chunked*)."""
        if self._head is not None:
            self._find_head(bytes(data))
            return
        self._stored.update(data)
        self.length += len(data)
        if self._dechunk is not None:
            self._dechunk.feed(bytes(data) if not isinstance(data, bytes) else data, self._entity)

    def _find_head(self, data: bytes) -> None:
        assert self._head is not None
        buf = self._head + data
        end = find_head_end(buf, True)
        if end < 0:
            if len(buf) <= MAX_HTTP_HEAD:
                self._head = buf
                return
            end = 0  # no head: the block is the payload
        elif not self._parse_head(buf[:end]):
            end = 0
        self._head = None
        if end < len(buf):
            self.update(buf[end:])

    def _parse_head(self, raw: bytes) -> bool:
        try:
            head = parse_http_head(raw, lenient=True)
        except HttpParseError:
            return False
        if head.chunked:
            self._chunked()
        return True

    def _end(self) -> None:
        """The input ended: an unfinished head means the block had none."""
        head = self._head
        if head is not None:
            self._head = None
            if head:
                self.update(head)
        if self._dechunk is not None:
            self._dechunk.finish()

    @property
    def convention(self) -> PayloadConvention:
        """The convention :meth:`digest` follows: ``"legacy"`` when it was asked for, or
        when the body is not well-formed chunked coding; else ``"warc1.1"`` (also for a
        body that is not chunked: then both coincide). Complete once all bytes are fed."""
        d = self._dechunk
        if self._want == LEGACY or (d is not None and not d.done):
            return LEGACY
        return WARC11

    def raw(self) -> bytes:
        """The payload digest bytes under :attr:`convention` (call once all bytes are fed)."""
        self._end()
        d = self._dechunk
        if d is not None and d.done:
            return cast(bytes, self._entity.digest())
        return cast(bytes, self._stored.digest())

    def stored_raw(self) -> bytes:
        """The digest bytes of the payload as stored (the legacy convention)."""
        self._end()
        return cast(bytes, self._stored.digest())

    def entity_raw(self) -> bytes | None:
        """The digest bytes of the de-chunked entity; ``None`` unless the payload is
        chunked, well formed and *convention* is ``"warc1.1"``."""
        self._end()
        d = self._dechunk
        return cast(bytes, self._entity.digest()) if d is not None and d.done else None

    def text(self) -> str:
        """``algorithm:value`` of :meth:`raw`."""
        if self._head is not None or self._dechunk is not None:
            return format_digest(self.algorithm, self.raw(), self._encoding)
        # (the common case, one digest per record: no calls it does not need)
        return format_digest(self.algorithm, self._stored.digest(), self._encoding)

    def digest(self) -> Digest:
        """The labelled payload digest under :attr:`convention`."""
        return Digest.from_bytes(self.algorithm, self.raw(), encoding=self._encoding)

    def stored_digest(self) -> Digest:
        """The labelled digest of the payload as stored."""
        return Digest.from_bytes(self.algorithm, self.stored_raw(), encoding=self._encoding)
