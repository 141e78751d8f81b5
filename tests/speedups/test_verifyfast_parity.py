"""The digest fast path (``verifyfast``): both twins agree, and agree with the streaming path.

``scan_record`` may decline a record (``None``); when it answers, the report must be
exactly the one :func:`warckit.check.verify.verify_digests` gives by streaming the block, and
the streaming path must not raise for that record.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twins import impl_params, requires_compiled

import warckit
from warckit.check import verify
from warckit.errors import WarckitError

IMPLS = impl_params("verifyfast")


def _b32(data: bytes) -> str:
    return base64.b32encode(hashlib.sha1(data).digest()).decode()


def _chunked(body: bytes, sizes: list[int], upper: bool, ext: bool, trailer: bool) -> bytes:
    out = b""
    pos = 0
    for size in sizes:
        piece = body[pos : pos + size]
        pos += len(piece)
        if not piece:
            break
        n = format(len(piece), "X" if upper else "x").encode()
        out += n + (b";a=b" if ext else b"") + b"\r\n" + piece + b"\r\n"
    out += b"0\r\n" + (b"X-T: 1\r\n" if trailer else b"") + b"\r\n"
    return out


_STATUS = st.sampled_from([
    b"HTTP/1.1 200 OK", b"HTTP/1.0 404 Not Found", b"HTTP/1.1 200", b"HTTP/1.1 20 OK", b"http/1.1 200 OK",
    b"GET / HTTP/1.1", b"POST /a?b HTTP/1.0", b"GET /a b HTTP/1.1", b"GET / FTP/1.0", b"HTTP/1.1 2x0 OK",
    b"garbage", b"HTTP/1.1 \xb2\xb2\xb2 OK",
])
_HTTP_LINE = st.sampled_from([
    b"Content-Type: text/html\r\n", b"Transfer-Encoding: chunked\r\n", b"transfer-encoding:  Chunked \r\n",
    b"Transfer-Encoding: gzip, chunked\r\n", b"Transfer-Encoding: chunked, gzip\r\n",
    b"Transfer-Encoding: chunked,\r\n", b"Transfer-Encoding: \xe9chunked\r\n", b"Transfer-Encoding:\r\n",
    b" folded\r\n", b"no colon\r\n", b"Bad Name: x\r\n", b"X-LF: y\n", b"X: y\r\n", b": empty\r\n",
])
_BODY_DAMAGE = st.sampled_from(["none", "none", "truncate", "no-crlf", "bad-size", "0x-size", "space-size",
                                "empty-size", "long-ext", "no-end"])
_TYPES = st.sampled_from(["response", "request", "revisit", "resource", "metadata", "warcinfo", "conversion"])
_DIGEST_KIND = st.sampled_from(["none", "block", "block", "payload", "payload", "entity", "entity", "entity", "bad", "lower", "label-SHA-1",
                                "label-sha_1", "sha256", "hex", "empty", "nocolon", "spaced", "padded"])
_CONTENT_TYPES = st.sampled_from([None, "application/http; msgtype=response", "APPLICATION/HTTP",
                                  "text/plain", "application/htt", ""])
_URIS = st.sampled_from([None, "http://x/", "HTTPS://x/", "<http://x/>", "<http://x/", "ftp://x/", "",
                         "\x0bhttp://x/", "dns:x", "<>"])
_NOISE = st.sampled_from([b"X-Foo: bar\r\n", b" continuation\r\n", b"nocolon\r\n", b"Bad Name: x\r\n",
                          b"X-LF: y\n", b"warc-block-digest: sha1:AAAA\r\n", b"Content-Type: text/plain\r\n"])


@st.composite
def _records(draw: st.DrawFn) -> tuple[bytes, str, bytes]:
    """``(fields, type_name, block)`` with digests that often match."""
    body = draw(st.binary(max_size=300))
    is_http = draw(st.booleans())
    chunked_body = draw(st.booleans())
    payload = body
    if chunked_body:
        sizes = draw(st.lists(st.integers(1, 80), min_size=1, max_size=6))
        payload = _chunked(body, sizes, draw(st.booleans()), draw(st.booleans()), draw(st.booleans()))
        damage = draw(_BODY_DAMAGE)
        if damage == "truncate":
            payload = payload[: draw(st.integers(0, max(0, len(payload) - 1)))]
        elif damage == "no-crlf":
            payload = payload.replace(b"\r\n", b"\r\nX", 2)
        elif damage == "bad-size":
            payload = b"zz\r\n" + payload
        elif damage == "0x-size":
            payload = b"0x" + payload
        elif damage == "space-size":
            payload = b" " + payload
        elif damage == "empty-size":
            payload = b"\r\n" + payload
        elif damage == "long-ext":
            payload = payload.replace(b"\r\n", b";" + b"e" * 5000 + b"\r\n", 1)
        elif damage == "no-end":
            payload = payload[: payload.rfind(b"0\r\n")]
    head = b""
    if is_http:
        lines = draw(st.lists(_HTTP_LINE, max_size=3))
        if chunked_body and draw(st.integers(0, 3)):
            lines.append(b"Transfer-Encoding: chunked\r\n")
        end = draw(st.sampled_from([b"\r\n"] * 4 + [b"\n", b""]))
        head = draw(_STATUS) + b"\r\n" + b"".join(lines) + end
    block = head + payload
    entity = body
    type_name = draw(_TYPES)

    def digest(kind: str) -> bytes | None:
        good = {"block": _b32(block), "payload": _b32(payload), "entity": _b32(entity)}
        if kind == "none":
            return None
        value = good.get(kind, _b32(b"other"))
        if kind == "lower":
            return b"sha1:" + _b32(payload).lower().encode()
        if kind.startswith("label-"):
            return kind[6:].encode() + b":" + _b32(block).encode()
        if kind == "sha256":
            return b"sha256:" + hashlib.sha256(block).hexdigest().encode()
        if kind == "hex":
            return b"sha1:" + hashlib.sha1(payload).hexdigest().encode()
        if kind == "empty":
            return b""
        if kind == "nocolon":
            return b"sha1" + value.encode()
        if kind == "spaced":
            return b"sha1: " + value.encode()
        if kind == "padded":
            return b"sha1:" + value.encode() + b"===="
        return b"sha1:" + value.encode()

    fields = [b"WARC-Type: " + type_name.encode() + b"\r\n"]
    for name, kind in (("WARC-Block-Digest", draw(_DIGEST_KIND)), ("WARC-Payload-Digest", draw(_DIGEST_KIND))):
        value = digest(kind)
        if value is not None:
            fields.append(name.encode() + b": " + value + b"\r\n")
    ct = draw(_CONTENT_TYPES)
    if ct is not None:
        fields.append(b"Content-Type: " + ct.encode() + b"\r\n")
    uri = draw(_URIS)
    if uri is not None:
        fields.append(b"WARC-Target-URI: " + uri.encode() + b"\r\n")
    for line in draw(st.lists(_NOISE, max_size=2)):
        fields.insert(draw(st.integers(1, len(fields))), line)
    fields.append(b"Content-Length: " + str(len(block)).encode() + b"\r\n")
    return b"".join(fields), type_name, block


@pytest.fixture(params=["openssl", "hashlib"])
def sha1_source(request: pytest.FixtureRequest) -> Iterator[str]:
    """The compiled twin hashing with OpenSSL's SHA1 (bound in hashlib's libcrypto) or
    with hashlib (where OpenSSL's cannot be bound)."""
    c = IMPLS[1].values[0]
    said = c._sha1_from_openssl(request.param == "openssl")
    try:
        yield said
    finally:
        c._sha1_from_openssl(True)


@requires_compiled("verifyfast")
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rec=_records())
def test_twins_agree(rec: tuple[bytes, str, bytes], sha1_source: str) -> None:
    fields, type_name, block = rec
    py, c = (p.values[0] for p in IMPLS)
    assert py.scan_record(fields, type_name, block) == c.scan_record(fields, type_name, block)


@requires_compiled("verifyfast")
def test_compiled_twin_hashes_with_openssl_where_hashlib_does(sha1_source: str) -> None:
    import _hashlib

    if sha1_source != "SHA-1 from hashlib (switched off)":
        # (CPython's _hashlib is a shared extension linked to libcrypto here and in CI)
        assert getattr(_hashlib, "__file__", None) and sha1_source == "SHA-1 from OpenSSL (hashlib's libcrypto)"
    c = IMPLS[1].values[0]
    body = bytes(range(256)) * 300  # (past the size hashed without the GIL)
    chunked = b"".join(b"%x\r\n" % len(body[i:i + 7000]) + body[i:i + 7000] + b"\r\n"
                       for i in range(0, len(body), 7000)) + b"0\r\n\r\n"
    block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked
    fields = (b"WARC-Type: response\r\nWARC-Target-URI: http://x/\r\n"
              b"WARC-Block-Digest: sha1:" + _b32(block).encode() + b"\r\n"
              b"WARC-Payload-Digest: sha1:" + _b32(body).encode() + b"\r\n")
    assert c.scan_record(fields, "response", block) == (
        b"sha1:" + _b32(block).encode(), True, b"sha1:" + _b32(body).encode(), c.WARC11_OK)
    legacy = fields.replace(_b32(body).encode(), _b32(block[block.index(b"\r\n\r\n") + 4:]).encode())
    assert c.scan_record(legacy, "response", block)[3] == c.LEGACY_OK
    wrong = fields.replace(_b32(block).encode(), _b32(block[:-1]).encode())
    assert c.scan_record(wrong, "response", block)[1] is False


@pytest.mark.parametrize("impl", IMPLS)
@settings(max_examples=800, deadline=None)
@given(rec=_records(), lenient=st.booleans())
def test_fast_path_equals_streaming_path(impl, rec: tuple[bytes, str, bytes], lenient: bool) -> None:  # type: ignore[no-untyped-def]
    fields, _type_name, block = rec
    data = b"WARC/1.1\r\n" + fields + b"\r\n" + block + b"\r\n\r\n"
    try:
        record = next(iter(warckit.open(io.BytesIO(data), lenient=lenient)))
    except WarckitError:
        return  # the head itself is rejected: nothing to verify
    raw = record.headers.raw
    assert raw is not None
    packed = impl.scan_record(raw, record.type_name or "", record.peek_block(record.content_length))
    try:
        streamed: object = verify._verify_streaming(record)
    except WarckitError as exc:
        streamed = exc
    if packed is not None:
        assert not isinstance(streamed, Exception), streamed
        assert verify.DigestReport._from_packed(packed) == streamed
        assert verify.DigestReport._from_packed(packed).ok == streamed.ok  # type: ignore[attr-defined]


@pytest.mark.parametrize("impl", IMPLS)
def test_scan_record_examples(impl) -> None:  # type: ignore[no-untyped-def]
    body = b"hello world"
    chunked = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    block = head + chunked
    fields = (
        b"WARC-Type: response\r\nWARC-Target-URI: http://x/\r\n"
        b"WARC-Block-Digest: sha1:" + _b32(block).encode() + b"\r\n"
        b"WARC-Payload-Digest: sha1:" + _b32(body).encode() + b"\r\n"
        b"Content-Length: " + str(len(block)).encode() + b"\r\n"
    )
    assert impl.scan_record(fields, "response", block) == (
        b"sha1:" + _b32(block).encode(), True, b"sha1:" + _b32(body).encode(), impl.WARC11_OK
    )
    legacy = fields.replace(_b32(body).encode(), _b32(chunked).encode())
    assert impl.scan_record(legacy, "response", block)[3] == impl.LEGACY_OK
    assert impl.scan_record(legacy, "revisit", block)[3] == impl.REVISIT
    bad = fields.replace(_b32(block).encode(), _b32(b"x").encode())
    assert impl.scan_record(bad, "response", block)[1] is False
    # Unusual input is declined: a folded field line, a sha256 digest, a bare-LF head.
    assert impl.scan_record(b" folded\r\n" + fields, "response", block) is None
    assert impl.scan_record(fields.replace(b"sha1:" + _b32(block).encode(), b"sha256:" + b"0" * 64), "response",
                            block) is None
    assert impl.scan_record(fields, "response", block.replace(b"\r\n\r\n", b"\n\n", 1)) is None


@requires_compiled("verifyfast")
@pytest.mark.parametrize("legacy_first", [False, True])
@pytest.mark.parametrize("sha1_kind", ["openssl", "hashlib"])
def test_a_chunked_payload_gets_one_verdict_whichever_convention_is_tried_first(
        legacy_first: bool, sha1_kind: str) -> None:
    py, c = (p.values[0] for p in IMPLS)
    body = bytes(range(200)) * 50
    good = _chunked(body, [4096, 1000, 8192], upper=False, ext=False, trailer=False)
    cases = {
        "warc1.1": (good, body),
        "legacy": (good, good),
        "neither": (good, b"other"),
        "cut chunks, legacy": (good[:-5], good[:-5]),
        "cut chunks, neither": (good[:-5], body),
        "not plain": (b"zz\r\n" + good, b"zz\r\n" + good),
    }
    expected = {"warc1.1": c.WARC11_OK, "legacy": c.LEGACY_OK, "neither": c.MISMATCH,
                "cut chunks, legacy": c.LEGACY_OK, "cut chunks, neither": c.MISMATCH_CHUNKS, "not plain": None}
    c._sha1_from_openssl(sha1_kind == "openssl")
    try:
        for name, (chunked, digested) in cases.items():
            block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked
            fields = (b"WARC-Type: response\r\nWARC-Target-URI: http://x/\r\n"
                      b"WARC-Payload-Digest: sha1:" + _b32(digested).encode() + b"\r\n")
            c._chunked_order(legacy_first)
            got = c.scan_record(fields, "response", block)
            assert got == py.scan_record(fields, "response", block), name
            assert (got if got is None else got[3]) == expected[name], name
    finally:
        c._sha1_from_openssl(True)
