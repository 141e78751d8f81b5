"""Pure-Python digest check of a buffered record (the twin of ``_speedups/verifyfast.pyx``).

:func:`scan_record` is the fast path of :func:`warckit.check.verify.verify_digests` for the
common record: its WARC fields, HTTP head and chunked coding (if any) are plain, and
its digests are ``sha1`` in base32. It gives the same verdicts as the streaming path
or, for anything unusual, ``None``, and the caller takes the streaming path, which
also raises the errors strict reading raises. The rules below therefore accept only
input whose meaning is not in doubt:

* WARC field lines end with CRLF, have a colon, a token name and no continuation
  line; the values used (``WARC-Block-Digest``, ``WARC-Payload-Digest``,
  ``Content-Type``, ``WARC-Target-URI``) are the first of their name; the record is
  not a segment (no ``WARC-Segment-Number``);
* a digest is ``sha1:``, ``sha-1:`` or ``sha_1:`` (any case) and 32 base32 characters,
  with nothing else on the line;
* the HTTP head ends with CRLF CRLF (no bare-LF empty line before it), has a
  ``HTTP/x NNN`` status line or a three-part request line and plain field lines;
* Transfer-Encoding values are printable ASCII; chunk-size lines are 1-16 hex
  digits (an extension after ``;`` is allowed) and no line is longer than 4096 bytes.
"""

from __future__ import annotations

import hashlib

__all__ = [
    "BOTH",
    "LEGACY_OK",
    "MISMATCH",
    "MISMATCH_CHUNKS",
    "REVISIT",
    "WARC11_OK",
    "scan_record",
]

#: Payload verdicts in the result of :func:`scan_record`.
MISMATCH = 0  #: matched neither convention (chunks were fine, or not chunked)
BOTH = 1  #: not chunked and matched
WARC11_OK = 2  #: chunked; the de-chunked entity matched
LEGACY_OK = 3  #: chunked; the bytes as stored matched
REVISIT = 4  #: a revisit: not checked
MISMATCH_CHUNKS = 5  #: chunked, malformed or truncated chunks, and the stored bytes did not match

_MAX_HTTP_HEAD = 1 << 20
_SEPARATORS = frozenset(b'()<>@,;:\\"/[]?={} \t')
_TOKEN = frozenset(c for c in range(33, 127) if c not in _SEPARATORS)
_B32 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B32_VALUE = {c: i for i, c in enumerate(_B32)} | {c + 32: i for i, c in enumerate(_B32) if c >= 65}
_HEX = frozenset(b"0123456789abcdefABCDEF")
_SHA1_LABELS = (b"sha1", b"sha-1", b"sha_1")


def _fields(buf: bytes, start: int, end: int, wanted: dict[bytes, int]) -> list[bytes | None] | None:
    """The first value of each wanted (lowercase) name in the field lines ``buf[start:end]``.

    ``None`` when a line is not a plain ``name: value CRLF`` line.
    """
    found: list[bytes | None] = [None] * len(wanted)
    pos = start
    while pos < end:
        nl = buf.find(b"\n", pos, end)
        if nl < 0 or nl == pos or buf[nl - 1] != 13:
            return None
        first = buf[pos]
        if first == 32 or first == 9:
            return None  # a continuation line
        colon = buf.find(b":", pos, nl)
        if colon <= pos:
            return None
        for c in buf[pos:colon]:
            if c not in _TOKEN:
                return None
        slot = wanted.get(buf[pos:colon].lower())
        if slot is not None and found[slot] is None:
            found[slot] = buf[colon + 1 : nl - 1].strip(b" \t\r")
        pos = nl + 1
    return found


def _sha1_raw(value: bytes) -> bytes | None:
    """The 20 digest bytes of a plain ``sha1:BASE32`` value, or ``None`` if it is not one."""
    colon = value.find(b":")
    if colon < 0 or len(value) - colon - 1 != 32 or value[:colon].lower() not in _SHA1_LABELS:
        return None
    n = 0
    for c in value[colon + 1 :]:
        v = _B32_VALUE.get(c)
        if v is None:
            return None
        n = (n << 5) | v
    return n.to_bytes(20, "big")


def _head_end(block: bytes, limit: int) -> int:
    """End of a CRLF CRLF-terminated HTTP head within ``block[:limit]``, or -1 (fall back)."""
    i = block.find(b"\r\n\r\n", 0, limit)
    if i < 0:
        return -1
    j = block.find(b"\n\n", 0, limit)
    if 0 <= j < i + 2:
        return -1
    return i + 4


def _http_head(block: bytes, end: int) -> bool | None:
    """Whether the head ``block[:end]`` declares chunked coding; ``None`` if it is not plain."""
    nl = block.find(b"\n", 0, end)
    if nl <= 0 or block[nl - 1] != 13:
        return None
    line = block[: nl - 1]
    if line.startswith(b"HTTP/"):
        parts = line.split(b" ", 2)
        if len(parts) < 2:
            return None
        code = parts[1]
        if len(code) != 3 or not (48 <= code[0] <= 57 and 48 <= code[1] <= 57 and 48 <= code[2] <= 57):
            return None
    else:
        parts = line.split(b" ")
        if len(parts) != 3 or parts[2][:5].upper() != b"HTTP/":
            return None
    # Field lines, then Transfer-Encoding: every value, in order.
    pos = nl + 1
    fields_end = end - 2
    last_coding = b""
    while pos < fields_end:
        lf = block.find(b"\n", pos, fields_end)
        if lf < 0 or lf == pos or block[lf - 1] != 13:
            return None
        first = block[pos]
        if first == 32 or first == 9:
            return None
        colon = block.find(b":", pos, lf)
        if colon <= pos:
            return None
        for c in block[pos:colon]:
            if c not in _TOKEN:
                return None
        if colon - pos == 17 and block[pos:colon].lower() == b"transfer-encoding":
            value = block[colon + 1 : lf - 1]
            for c in value:
                if c < 32 and c != 9 or c > 126:
                    return None
            for coding in value.split(b","):
                coding = coding.strip(b" \t")
                if coding:
                    last_coding = coding.lower()
        pos = lf + 1
    return last_coding == b"chunked"


def _dechunk(payload: bytes, h: object) -> bool | None:
    """Feed the de-chunked *payload* to ``h.update``; True when the chunks were well formed,
    False when malformed or truncated, ``None`` when a line is not plain (fall back)."""
    update = h.update  # type: ignore[attr-defined]
    i = 0
    n = len(payload)
    state = 0  # 0 size line, 2 CRLF after data, 3 trailer, 4 done
    while i < n:
        j = payload.find(b"\n", i)
        if j < 0:
            return False  # ends inside a line
        if j - i > 4096:
            return None
        text = payload[i:j].rstrip(b"\r")
        i = j + 1
        if state == 2:
            if text:
                return False
            state = 0
        elif state == 0:
            size_text = text.split(b";", 1)[0].strip()
            if not 1 <= len(size_text) <= 16:
                return None
            for c in size_text:
                if c not in _HEX:
                    return None
            size = int(size_text, 16)
            if size == 0:
                state = 3
            elif size > n - i:
                update(payload[i:])  # truncated inside the data
                return False
            else:
                update(payload[i : i + size])
                i += size
                state = 2
        elif not text:
            return True  # the empty line after the trailer
    return False


def sha1_library() -> str:
    """Which SHA-1 :func:`scan_record` calls (the compiled twin binds OpenSSL's)."""
    return "SHA-1 from hashlib"


def scan_record(fields: bytes, type_name: str, block: bytes) -> tuple[bytes | None, bool, bytes | None, int] | None:
    """Check the digests of a record whose whole block is in memory.

    Args:
        fields: The record's WARC field lines as stored (``Headers.raw``), each ending
            with CRLF, without the empty line.
        type_name: The record's WARC-Type (``response``, ``request``, …: the record class's).
        block: The whole block.

    Returns:
        ``(block_value, block_ok, payload_value, payload_verdict)``: the declared field
        values (``None`` when absent), whether the block digest matched, and one of
        :data:`MISMATCH`, :data:`BOTH`, :data:`WARC11_OK`, :data:`LEGACY_OK`,
        :data:`REVISIT`, :data:`MISMATCH_CHUNKS` (``-1`` when there is no payload
        digest); or ``None`` when the record needs the streaming path.
    """
    found = _fields(fields, 0, len(fields), _WANTED)
    if found is None:
        return None
    block_value, payload_value, content_type, target, segment = found
    if segment is not None:
        return None  # a segment's payload digest is the whole record's: the streaming path says so
    block_raw = payload_raw = None
    if block_value is not None and block_value:
        block_raw = _sha1_raw(block_value)
        if block_raw is None:
            return None
    elif block_value is not None:
        block_value = None  # empty: as absent
    if payload_value is not None and payload_value:
        payload_raw = _sha1_raw(payload_value)
        if payload_raw is None:
            return None
    elif payload_value is not None:
        payload_value = None
    # Is the block an HTTP message (WarcRecord.has_http, Resource.has_http)?
    is_http = content_type is not None and content_type[:16].lower() == b"application/http"
    if not is_http and type_name in ("response", "request", "revisit") and target and block:
        if target[0] == 60:  # "<…>" (WARC 1.0 grammar typo)
            if target[-1] != 62:
                return None
            target = target[1:-1]
        elif target[0] < 33 or target[0] > 126:
            return None
        is_http = target[:5].lower() == b"http:" or target[:6].lower() == b"https:"
    head_len = 0
    chunked = False
    if is_http:
        end = _head_end(block, min(len(block), _MAX_HTTP_HEAD))
        if end < 0:
            return None
        te_chunked = _http_head(block, end)
        if te_chunked is None:
            return None
        chunked = te_chunked
        head_len = end
    block_ok = block_raw is not None and hashlib.sha1(block).digest() == block_raw
    verdict = -1
    if payload_raw is not None:
        if type_name == "revisit":
            verdict = REVISIT
        else:
            view = memoryview(block)[head_len:]
            legacy_ok = hashlib.sha1(view).digest() == payload_raw
            if not chunked:
                verdict = BOTH if legacy_ok else MISMATCH
            else:
                entity = hashlib.sha1()
                chunks_ok = _dechunk(block[head_len:], entity)
                if chunks_ok is None:
                    return None
                if chunks_ok and entity.digest() == payload_raw:
                    verdict = WARC11_OK
                elif legacy_ok:
                    verdict = LEGACY_OK
                else:
                    verdict = MISMATCH if chunks_ok else MISMATCH_CHUNKS
    return block_value, block_ok, payload_value, verdict


_WANTED = {
    b"warc-block-digest": 0,
    b"warc-payload-digest": 1,
    b"content-type": 2,
    b"warc-target-uri": 3,
    b"warc-segment-number": 4,
}
