"""Labelled digests (``sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2``) and incremental digesters.

Labels are normalised on read (lowercase, ``sha-1`` → ``sha1``, ``sha-256`` →
``sha256``); the value's encoding (base32, base16 either case, base64 or base64url)
is detected from its length and alphabet, as WARC 1.1-annotated #80 recommends.
"""

from __future__ import annotations

from .._util.frozen import Frozen
from ..errors import HeaderParseError, UsageError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DIGEST_SIZES", "Digest", "Digester", "b32encode", "format_digest", "normalize_algorithm"]

#: Output size in bytes of the algorithms warckit can compute.
DIGEST_SIZES: dict[str, int] = {
    "md5": 16,
    "sha1": 20,
    "sha224": 28,
    "sha256": 32,
    "sha384": 48,
    "sha512": 64,
}

_ALIASES = {
    "sha-1": "sha1",
    "sha_1": "sha1",
    "sha-224": "sha224",
    "sha-256": "sha256",
    "sha-384": "sha384",
    "sha-512": "sha512",
    "md-5": "md5",
}
_B32 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=")
_HEX = frozenset("0123456789abcdefABCDEF")
#: Whether a whole string is 32 base32 characters (either case): compiled on first use,
#: as `re` is not imported by reading alone.
_sha1_b32: Callable[[str], object] | None = None
_B32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B32_AS_INT = str.maketrans(_B32_ALPHABET, "0123456789abcdefghijklmnopqrstuv")
_B32_PAIRS = [a + b for a in _B32_ALPHABET for b in _B32_ALPHABET]  # every 10-bit group


def _compile_sha1_b32() -> Callable[[str], object]:
    global _sha1_b32
    import re

    _sha1_b32 = re.compile(r"[A-Za-z2-7]{32}").fullmatch
    return _sha1_b32


def b32encode(raw: bytes) -> str:
    """RFC 4648 base32 of *raw*, as ``base64.b32encode(raw).decode()``.

    A digest whose size is a multiple of 5 bytes (SHA-1, …) needs no padding: it is
    encoded 10 bits at a time from one integer, ~3x faster than ``base64``.
    """
    if len(raw) % 5:
        import base64  # (imported when used: `import warckit` does not need it)

        return base64.b32encode(raw).decode("ascii")
    n = int.from_bytes(raw, "big")
    pairs = _B32_PAIRS
    return "".join([pairs[(n >> shift) & 1023] for shift in range(len(raw) * 8 - 10, -1, -10)])


def format_digest(algorithm: str, raw: bytes, encoding: str | None = None) -> str:
    """``algorithm:value`` text of *raw* digest bytes, as ``str(Digest.from_bytes(...))``
    (*algorithm* already normalised)."""
    if encoding is None:
        encoding = "base32" if algorithm == "sha1" else "base16"
    if encoding == "base32":
        return f"{algorithm}:{b32encode(raw)}"
    if encoding == "base16":
        return f"{algorithm}:{raw.hex()}"
    if encoding == "base64":
        import base64

        return f"{algorithm}:{base64.b64encode(raw).decode('ascii')}"
    raise UsageError(f"unknown digest encoding {encoding!r}")


def normalize_algorithm(label: str) -> str:
    """Return the canonical lowercase label for a digest algorithm (``SHA-1`` → ``sha1``)."""
    label = label.strip().lower()
    return _ALIASES.get(label, label)


class Digest(Frozen):
    """A labelled digest value as found in ``WARC-Block-Digest`` / ``WARC-Payload-Digest``.

    Attributes:
        algorithm: Normalised label (``sha1``, ``sha256``, ``md5``, …).
        value: The encoded value exactly as written.
        label: The label exactly as written (``SHA-1``, ``sha1``…).
    """

    __slots__ = ("algorithm", "label", "value")
    algorithm: str
    value: str
    label: str

    def __init__(self, algorithm: str, value: str, label: str = "") -> None:
        object.__setattr__(self, "algorithm", algorithm)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "label", label)

    @classmethod
    def parse(cls, text: str) -> Digest:
        """Parse ``algorithm:value``.

        Raises:
            HeaderParseError: no colon, or an empty label or value.
        """
        label, sep, value = text.strip().partition(":")
        if not sep or not label.strip() or not value.strip():
            raise HeaderParseError(f"malformed labelled digest {text!r}")
        return cls(normalize_algorithm(label), value.strip(), label)

    @classmethod
    def from_bytes(cls, algorithm: str, raw: bytes, *, encoding: str | None = None) -> Digest:
        """Encode *raw* digest bytes.

        Args:
            algorithm: Algorithm label (normalised).
            raw: The digest bytes.
            encoding: ``"base32"`` (default for sha1) or ``"base16"`` (default for
                others, lowercase as community practice recommends).
        """
        algorithm = normalize_algorithm(algorithm)
        return cls(algorithm, format_digest(algorithm, raw, encoding)[len(algorithm) + 1 :], algorithm)

    @property
    def encoding(self) -> str | None:
        """``"base32"``, ``"base16"``, ``"base64"``, ``"base64url"`` or ``None`` if undecodable."""
        v = self.value
        size = DIGEST_SIZES.get(self.algorithm)
        is_b32 = _sha1_b32 or _compile_sha1_b32()
        if size == 20 and len(v) == 32 and is_b32(v):  # the common case
            return "base32"
        if size is not None:
            if len(v) == 2 * size and set(v) <= _HEX and not (size == 16 and v.endswith("=")):
                return "base16"
            if len(v) == -(-size * 8 // 40) * 8 or len(v.rstrip("=")) == -(-size * 8 // 5):
                if set(v.upper()) <= _B32:
                    return "base32"
            if len(v.rstrip("=")) == -(-size * 4 // 3):
                return "base64url" if ("-" in v or "_" in v) else "base64"
            return None
        if set(v) <= _HEX and len(v) % 2 == 0:
            return "base16"
        if set(v.upper()) <= _B32:
            return "base32"
        return None

    @property
    def raw(self) -> bytes | None:
        """The decoded digest bytes, or ``None`` if the value cannot be decoded."""
        import base64

        enc = self.encoding
        v = self.value
        try:
            if enc == "base16":
                return bytes.fromhex(v)
            if enc == "base32":
                v = v.upper()
                if len(v) % 8 == 0 and "=" not in v:
                    # int() reads base 32 with the digits 0-9a-v: translate, decode in C.
                    return int(v.translate(_B32_AS_INT), 32).to_bytes(len(v) * 5 // 8, "big")
                return base64.b32decode(v + "=" * (-len(v) % 8))
            if enc == "base64":
                return base64.b64decode(v + "=" * (-len(v) % 4))
            if enc == "base64url":
                return base64.urlsafe_b64decode(v + "=" * (-len(v) % 4))
        except ValueError:  # (binascii.Error is one)
            return None
        return None

    @property
    def computable(self) -> bool:
        """True when warckit can compute this algorithm."""
        return self.algorithm in DIGEST_SIZES

    def matches(self, raw: bytes) -> bool:
        """True if this digest's decoded value equals *raw*."""
        mine = self.raw
        return mine is not None and mine == raw

    def __str__(self) -> str:
        return f"{self.label or self.algorithm}:{self.value}"

    def canonical(self) -> str:
        """``algorithm:value`` with the normalised label (``sha1:…``)."""
        return f"{self.algorithm}:{self.value}"


class Digester:
    """Incremental hash over streamed bytes; ``digest()`` returns a :class:`Digest`.

    Args:
        algorithm: ``sha1`` (default), ``sha256``, ``md5``, … (labels are normalised).
        encoding: See :meth:`Digest.from_bytes`.
    """

    __slots__ = ("_hash", "algorithm", "encoding", "length")

    def __init__(self, algorithm: str = "sha1", *, encoding: str | None = None) -> None:
        self.algorithm = normalize_algorithm(algorithm)
        if self.algorithm not in DIGEST_SIZES:
            raise UsageError(f"unsupported digest algorithm {algorithm!r}")
        self.encoding = encoding
        import hashlib  # imported on first use: reading needs no hashing

        self._hash = hashlib.new(self.algorithm)
        self.length = 0

    def update(self, data: bytes | bytearray | memoryview) -> None:
        """Feed more bytes."""
        self._hash.update(data)
        self.length += len(data)

    def raw(self) -> bytes:
        """The digest bytes so far."""
        return self._hash.digest()

    def digest(self) -> Digest:
        """The labelled digest of everything fed so far."""
        return Digest.from_bytes(self.algorithm, self._hash.digest(), encoding=self.encoding)
