"""Lenient mode reports every recovery: each path, the exact Issue, in all three places
(``on_warning``, ``reader.issues`` and, when there is a record, ``record.issues``)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from corpus_paths import ROOT

import warckit
from warckit.errors import Issue


def _rec(block: bytes = b"hello", *, rtype: str = "resource", ctype: str = "text/plain",
         cl: bytes | None = None, version: bytes = b"WARC/1.1", extra: bytes = b"",
         trailer: bytes = b"\r\n\r\n") -> bytes:
    length = str(len(block)).encode() if cl is None else cl
    return (
        version + b"\r\nWARC-Type: " + rtype.encode() + b"\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n" + extra
        + b"Content-Type: " + ctype.encode() + b"\r\nContent-Length: " + length + b"\r\n\r\n"
        + block + trailer
    )


A = _rec()  # a good record, 188 bytes
HTTP = "application/http; msgtype=response"
H = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"


def _arc_line(url: bytes, length: bytes) -> bytes:
    return url + b" 1.2.3.4 20260101000000 text/plain " + length + b"\n"


_FD_BODY = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
FD = _arc_line(b"filedesc://t.arc", str(len(_FD_BODY)).encode()).replace(b"1.2.3.4", b"0.0.0.0") + _FD_BODY + b"\n"
R = _arc_line(b"http://example.com/", b"5") + b"hello\n"  # 62 bytes
GZ_REC = gzip.compress(_rec(b"x" * 100), mtime=0)
GA = gzip.compress(A, mtime=0)

#: (case, file name, data, expected issues as (code, offset, message), offsets of the
#: records each issue belongs to (None: it belongs to no record)).
CASES: list[tuple[str, str, bytes, list[tuple[str, int, str]], list[int | None]]] = [
    ("missing-trailer", "t.warc", _rec(b"hello world", cl=b"9") + A,
     [("missing-trailer", 0, "record not followed by CRLF CRLF; skipped 6 bytes to the next record")], [0]),
    ("skipped-garbage between records", "t.warc", A + b"xyz\r\n" + A,
     [("skipped-garbage", 188, "skipped 5 bytes before the next record")], [None]),
    ("skipped-garbage at the start", "t.warc", b"xyz\r\n" + A,
     [("skipped-garbage", 0, "skipped 5 bytes that are not a record")], [None]),
    ("bad-content-length", "t.warc", _rec(b"", cl=b"abc") + A,
     [("bad-content-length", 0, "Content-Length 'abc' is not a number; block taken as empty")], [0]),
    ("bare-lf", "t.warc", _rec(extra=b"X-A: 1\nX-B: 2\r\n") + A, [("bare-lf", 0, "record head: bare-lf")], [0]),
    ("no-colon", "t.warc", _rec(extra=b"nocolon\r\n") + A, [("no-colon", 0, "record head: no-colon")], [0]),
    ("bad-field-name", "t.warc", _rec(extra=b"Bad Name: 1\r\n") + A,
     [("bad-field-name", 0, "record head: bad-field-name")], [0]),
    ("bad-version", "t.warc", _rec(version=b"WARC/1.1x") + A,
     [("bad-version", 0, "bad WARC version line b'WARC/1.1x'")], [0]),
    ("truncated-head", "t.warc", A + _rec()[:30], [("truncated-head", 188, "file ends inside a record head")], [None]),
    ("truncated-block", "t.warc", A + _rec(b"x" * 100)[:-50],
     [("truncated-block", 188, "file ends inside the block (46 bytes missing)")], [188]),
    ("short-trailer", "t.warc", _rec(trailer=b"\r\n") + A,
     [("short-trailer", 0, "record ends with 2 of the 4 trailer bytes (CRLF CRLF)")], [0]),
    ("trailing-garbage", "t.warc.gz", gzip.compress(A, mtime=0) * 2 + b"garbage!",
     [("trailing-garbage", 2 * len(gzip.compress(A, mtime=0)), "bytes after the last gzip member are not gzip")],
     [None]),
    ("truncated-member", "t.warc.gz", gzip.compress(A, mtime=0) + GZ_REC[:-12],
     [("truncated-block", len(gzip.compress(A, mtime=0)), "file ends inside the block (99 bytes missing)"),
      ("truncated-member", len(gzip.compress(A, mtime=0)), "the last gzip member is truncated")],
     [len(gzip.compress(A, mtime=0)), None]),
    ("damaged-member", "t.warc.gz", GA + GA[:-8] + bytes([GA[-8] ^ 1]) + GA[-7:] + GA,
     [("damaged-member", len(GA), f"gzip member is damaged (incorrect checksum); skipped bytes {len(GA)}-"
       f"{2 * len(GA)} ({len(GA)} bytes) to the next gzip member that starts a record")], [None]),
    ("arc-no-version-block", "t.arc", R + R,
     [("arc-no-version-block", 0, "ARC file has no filedesc:// version block")], [None]),
    ("arc-bad-length", "t.arc", FD + _arc_line(b"http://example.com/", b"abc") + b"hello\n" + R,
     [("arc-bad-length", 120, "ARC length 'abc' is not a number; block taken up to the next record")], [120]),
    ("arc-missing-newline", "t.arc", FD + _arc_line(b"http://example.com/", b"5") + b"hello" + R,
     [("arc-missing-newline", 120, "ARC record not followed by a newline")], [120]),
    ("arc-bad-line", "t.arc", FD + R + b"garbage line here\n" + R,
     [("arc-bad-line", 182, "skipped 18 bytes of unparsable ARC data")], [None]),
    ("bad-http-head: does not parse", "t.warc", _rec(b"HTTP/1.1 XYZ\r\n\r\nbody", rtype="response", ctype=HTTP) + A,
     [("bad-http-head", 0, "the HTTP head does not parse: bad HTTP status code 'XYZ'")], [0]),
    ("bad-http-head: no end", "t.warc", _rec(b"HTTP/1.1 200 OK\r\nA: b", rtype="response", ctype=HTTP) + A,
     [("bad-http-head", 0, "the HTTP head does not end within the block; the block is taken as the head")], [0]),
    ("bad-http-head: read leniently", "t.warc",
     _rec(b"HTTP/1.1 200 OK\r\nno colon\r\nA: b\r\n\r\nbody", rtype="response", ctype=HTTP) + A,
     [("bad-http-head", 0, "the HTTP head is malformed (malformed HTTP header line (no-colon)); read leniently")],
     [0]),
    ("bad-http-head: not HTTP", "t.warc", _rec(b"<html>", rtype="response", ctype=HTTP) + A,
     [("bad-http-head", 0, "the HTTP head does not end within the block")], [0]),
    ("not-chunked", "t.warc", _rec(H + b"<html>", rtype="response", ctype=HTTP) + A,
     [("not-chunked", 0, ("Transfer-Encoding is chunked but its first line is not a chunk size; "
                          "the body is served as stored"))], [0]),
    ("bad-chunked", "t.warc", _rec(H + b"3\r\nabc\r\nzz\r\n", rtype="response", ctype=HTTP) + A,
     [("bad-chunked", 0, "bad chunk size b'zz' at byte 8 of the body; the rest is served as stored")], [0]),
]


@pytest.mark.parametrize("case,name,data,expected,owners", CASES, ids=[c[0] for c in CASES])
def test_every_recovery_is_reported(tmp_path: Path, case: str, name: str, data: bytes,
                                    expected: list[tuple[str, int, str]], owners: list[int | None]) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    seen: list[Issue] = []
    records = []
    with warckit.open(path, lenient=True, on_warning=seen.append) as reader:
        for rec in reader:
            rec.content_stream().read()  # body recoveries happen while it streams
            records.append(rec)
        assert reader.issues == seen
    assert [(i.code, i.offset, i.message) for i in seen] == expected
    assert all(i.severity == "warning" and i.source == str(path) for i in seen)
    by_offset = {r.offset: r for r in records}
    for issue, owner in zip(seen, owners):
        if owner is None:
            assert all(issue not in r.issues for r in records)
        else:
            assert by_offset[owner].issues.count(issue) == 1
    # Nothing else is reported on the records.
    assert sum(len(r.issues) for r in records) == sum(o is not None for o in owners)


def test_every_documented_recovery_is_walked() -> None:
    text = (ROOT / "docs/conformance.rst").read_text()
    lenient = text.split("Lenient mode relaxations", 1)[1].split("\nThe corpus\n", 1)[0]
    documented = set(re.findall(r"``([a-z0-9]+(?:-[a-z0-9]+)+)``", " ".join(re.findall(r"\[([^\]]*)\]", lenient))))
    documented |= {"short-trailer", "not-chunked"}  # the two reported in both modes
    walked = {code for case in CASES for code, _, _ in case[3]}
    assert {"truncated-head", "bad-version", "arc-bad-line"} <= documented
    assert documented - walked == set()


def test_strict_mode_raises_where_lenient_recovers(tmp_path: Path) -> None:
    """Each lenient-only recovery above is an error in strict mode (not silently served)."""
    both_modes = {"short-trailer", "not-chunked", "bare-lf"}
    for case, name, data, expected, _ in CASES:
        if {code for code, _, _ in expected} <= both_modes:
            continue
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(warckit.ParseError), warckit.open(path) as reader:
            for rec in reader:
                rec.content_stream().read()
