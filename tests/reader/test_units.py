"""Headers, digests, dates, HTTP heads, chunked decoding."""

from __future__ import annotations

import hashlib
import io
from datetime import datetime, timezone

import pytest

import warckit
from warckit import Digest, Headers
from warckit._util.dates import format_warc_date, parse_warc_date
from warckit.errors import (
    ChunkedEncodingError,
    DuplicateHeaderError,
    HeaderParseError,
    HttpParseError,
)
from warckit.io.chunked import ChunkedReader, DecodingReader
from warckit.record import Digester


def test_headers_sole_first_all_and_case() -> None:
    h = Headers([("WARC-Concurrent-To", "<a>"), ("Content-Length", "5"), ("warc-concurrent-to", "<b>")])
    assert h.first("warc-CONCURRENT-to") == "<a>"
    assert h.all("WARC-Concurrent-To") == ("<a>", "<b>")
    assert h.sole("content-length") == "5"
    assert h.sole("missing") is None and h.all("missing") == ()
    with pytest.raises(DuplicateHeaderError):
        h.sole("WARC-Concurrent-To")
    assert "CONTENT-LENGTH" in h and "nope" not in h


def test_headers_updates_return_new_objects() -> None:
    h = Headers([("A", "1"), ("B", "2"), ("a", "3")], raw=b"A: 1\r\nB: 2\r\na: 3\r\n")
    h2 = h.with_replaced("A", "9")
    assert h.all("A") == ("1", "3") and h.raw is not None
    assert h2.fields == (("A", "9"), ("B", "2")) and h2.raw is None
    assert h.with_added("C", "x").fields[-1] == ("C", "x")
    assert h.without("a").fields == (("B", "2"),)
    assert h2.to_bytes() == b"A: 9\r\nB: 2\r\n"
    assert h.to_bytes() == b"A: 1\r\nB: 2\r\na: 3\r\n"


@pytest.mark.parametrize(
    ("text", "algorithm", "encoding"),
    [
        ("sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2", "sha1", "base32"),
        ("SHA-1:uzy6nd6cchxetfvjd2mss7zenmwf7kq2", "sha1", "base32"),
        ("sha1:a64fb5a8a7a9e5b8d7b5a4a3b2a1a0a9a8a7a6a5", "sha1", "base16"),
        ("sha1:2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "sha1", "base64"),
        ("sha1:2jmj7l5rSw0yVb_vlWAYkK_YBwk", "sha1", "base64url"),
        ("sha-256:" + "ab" * 32, "sha256", "base16"),
        ("md5:d41d8cd98f00b204e9800998ecf8427e", "md5", "base16"),
    ],
)
def test_digest_labels_and_encodings(text: str, algorithm: str, encoding: str) -> None:
    d = Digest.parse(text)
    assert d.algorithm == algorithm
    assert d.encoding == encoding
    assert d.raw is not None and len(d.raw) == {"sha1": 20, "sha256": 32, "md5": 16}[algorithm]


def test_digest_values_decode_to_the_same_bytes() -> None:
    raw = hashlib.sha1(b"").digest()
    for text in ("sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
                 "sha1:2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "sha1:2jmj7l5rSw0yVb_vlWAYkK_YBwk"):
        assert Digest.parse(text).matches(raw), text


def test_digest_errors_and_digester() -> None:
    with pytest.raises(HeaderParseError):
        Digest.parse("no-colon")
    with pytest.raises(HeaderParseError):
        Digest.parse("sha1:")
    d = Digester("sha-1")
    d.update(b"hello")
    assert str(d.digest()) == "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N" and d.length == 5
    d256 = Digester("sha256")
    d256.update(b"hello")
    assert d256.digest().value == hashlib.sha256(b"hello").hexdigest()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2016-12-31T23:59:60Z", datetime(2017, 1, 1, tzinfo=timezone.utc)),
        ("2020-04-12T18:42:50.696509123Z", datetime(2020, 4, 12, 18, 42, 50, 696509, tzinfo=timezone.utc)),
        ("2016-01", datetime(2016, 1, 1, tzinfo=timezone.utc)),
        ("2019-08-15T01:02", datetime(2019, 8, 15, 1, 2, tzinfo=timezone.utc)),
        ("2008-10-29T05:21:46-0700", datetime(2008, 10, 29, 12, 21, 46, tzinfo=timezone.utc)),
        ("blue monday", None),
        ("", None),
    ],
)
def test_warc_dates(text: str, expected: datetime | None) -> None:
    assert parse_warc_date(text) == expected


def test_format_dates() -> None:
    dt = datetime(2026, 11, 30, 9, 0, 0, 123456, tzinfo=timezone.utc)
    assert format_warc_date(dt) == "2026-11-30T09:00:00.123456Z"
    assert format_warc_date(dt, precision="seconds") == "2026-11-30T09:00:00Z"


def test_leap_second_record_keeps_raw_date() -> None:
    data = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            b"WARC-Date: 2016-12-31T23:59:60.123456789Z\r\nWARC-Target-URI: <http://x/>\r\n"
            b"Content-Length: 0\r\n\r\n\r\n\r\n")
    rec = next(iter(warckit.open(io.BytesIO(data))))
    assert rec.date_string == "2016-12-31T23:59:60.123456789Z"
    assert rec.date == datetime(2017, 1, 1, 0, 0, 0, 123456, tzinfo=timezone.utc)
    assert rec.target_uri == "http://x/"  # Quirk: WARC 1.0 brackets stripped


def test_http_heads() -> None:
    h = warckit.record.parse_http_head(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert (h.status, h.reason, h.mime_type, h.chunked) == (200, "OK", "text/html", True)
    r = warckit.record.parse_http_head(b"GET /a?b HTTP/1.0\nHost: x\n\n")
    assert (r.method, r.target, r.protocol, r.headers["host"]) == ("GET", "/a?b", "HTTP/1.0", "x")
    assert warckit.record.parse_http_head(b"HTTP/1.0 302 \r\n\r\n").reason == ""
    with pytest.raises(HttpParseError):
        warckit.record.parse_http_head(b"HTTPX/1.1 200 OK\r\n\r\n")
    with pytest.raises(HttpParseError):
        warckit.record.parse_http_head(b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n")
    lenient = warckit.record.parse_http_head(b"HTTP/1.1 200 OK\r\nno colon here\r\nA: b\r\n\r\n", lenient=True)
    assert lenient.headers.fields == (("A", "b"),)


def test_chunked_decoding() -> None:
    body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\n"
    assert ChunkedReader(io.BytesIO(body)).read() == b"Wikipedia in\r\n\r\nchunks."
    with pytest.raises(ChunkedEncodingError):
        ChunkedReader(io.BytesIO(b"3\r\nabc\r\nzz\r\nrest")).read()
    # A body whose first line is no chunk size is not chunked: served as stored.
    assert ChunkedReader(io.BytesIO(b"zz\r\nabc")).read() == b"zz\r\nabc"
    errors: list[tuple[str, str]] = []
    got = ChunkedReader(io.BytesIO(b"3\r\nabc\r\nzz\r\nrest"), lenient=True, on_issue=lambda *a: errors.append(a)).read()
    assert got == b"abczz\r\nrest"
    assert errors == [("bad-chunked", "bad chunk size b'zz' at byte 8 of the body; the rest is served as stored")]


def test_content_decoding() -> None:
    import gzip
    import zlib
    assert DecodingReader(io.BytesIO(gzip.compress(b"x" * 1000)), "gzip").read() == b"x" * 1000
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    data = raw_deflate.compress(b"hello") + raw_deflate.flush()
    assert DecodingReader(io.BytesIO(data), "deflate").read() == b"hello"  # Quirk: raw deflate
    brotli = pytest.importorskip("brotli")
    assert DecodingReader(io.BytesIO(brotli.compress(b"br" * 10)), "br").read() == b"br" * 10


@pytest.mark.parametrize("piece", [7, 64, 300, 1 << 20])
def test_heads_that_straddle_decompressed_pieces_read_the_same(piece: int) -> None:
    """A record head split across two decoder pieces is found where it ends (regression:
    the search restarted past the head's CRLF CRLF after the buffer was rebased)."""
    from warckit.read.reader import ArchiveReader

    data = b"".join(
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:%d>\r\n"
        b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n" % (i, 20 + i, b"x" * (20 + i))
        for i in range(40)
    )
    want = [(r.offset, r.record_id, r.read_block()) for r in ArchiveReader(io.BytesIO(data))]
    got = [(r.offset, r.record_id, r.read_block()) for r in ArchiveReader(io.BytesIO(data), _chunk=piece)]
    assert got == want
    assert [o for o, _, _ in want][:3] == [0, 130, 261] and len(want) == 40
