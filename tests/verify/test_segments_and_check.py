"""Segmented records, and ``check`` giving exactly ``verify_digests``'s verdicts."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

import warckit
from warckit import _speedups
from warckit.check.report import check_file
from warckit.check.verify import verify_digests


def _b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _record(fields: list[tuple[str, str]], block: bytes) -> bytes:
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
WHOLE = b"the whole payload, of which the first segment holds a part"
FIRST = HTTP + WHOLE[:20]
REST = WHOLE[20:]


def _segmented(tmp_path: Path) -> Path:
    base = [("WARC-Date", "2024-01-01T00:00:00Z"), ("WARC-Target-URI", "http://example.com/")]
    data = _record([("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:1>"), *base,
                    ("Content-Type", "application/http; msgtype=response"),
                    ("WARC-Block-Digest", _b32(FIRST)), ("WARC-Payload-Digest", _b32(WHOLE)),
                    ("WARC-Segment-Number", "1")], FIRST)
    data += _record([("WARC-Type", "continuation"), ("WARC-Record-ID", "<urn:uuid:2>"), *base,
                     ("WARC-Segment-Origin-ID", "<urn:uuid:1>"), ("WARC-Segment-Number", "2"),
                     ("WARC-Segment-Total-Length", str(len(FIRST) + len(REST))),
                     ("WARC-Block-Digest", _b32(REST)), ("WARC-Payload-Digest", _b32(WHOLE))], REST)
    path = tmp_path / "segmented.warc"
    path.write_bytes(data)
    return path


def test_segment_payload_digest_is_not_checked_but_its_block_is(tmp_path: Path) -> None:
    """WARC 1.1 §7: the first segment declares the reassembled payload's digest."""
    with warckit.open(_segmented(tmp_path)) as reader:
        reports = [verify_digests(rec) for rec in reader]
    for report in reports:
        assert report.block is not None and report.block.ok is True
        assert report.payload is not None and report.payload.ok is None
        assert report.payload.reason is not None and "segment" in report.payload.reason
    assert [r.payload_digest for r in check_file(_segmented(tmp_path)).records] == ["unchecked"] * 2


@pytest.mark.parametrize("impl", ["py", "c"])
def test_fast_path_leaves_segments_to_the_streaming_path(impl: str) -> None:
    try:
        vf = _speedups.pure("verifyfast") if impl == "py" else _speedups.compiled("verifyfast")
    except ImportError:
        pytest.skip("compiled twin not built")
    fields = (f"WARC-Block-Digest: {_b32(FIRST)}\r\nWARC-Payload-Digest: {_b32(WHOLE)}\r\n"
              "Content-Type: application/http; msgtype=response\r\n").encode()
    assert vf.scan_record(fields, "response", FIRST) is not None
    assert vf.scan_record(fields + b"warc-SEGMENT-number: 1\r\n", "response", FIRST) is None


def test_check_reports_what_verify_digests_finds(tmp_path: Path) -> None:
    """Pass, a chunked payload digested both ways, a mismatch, and a head that does not parse."""
    chunked_head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked_body = b"5\r\nhello\r\n0\r\n\r\n"
    base = [("WARC-Date", "2024-01-01T00:00:00Z"), ("WARC-Target-URI", "http://example.com/"),
            ("Content-Type", "application/http; msgtype=response")]
    blocks = [
        (HTTP + b"plain", _b32(b"plain")),                       # pass
        (chunked_head + chunked_body, _b32(b"hello")),          # warc1.1
        (chunked_head + chunked_body, _b32(chunked_body)),      # legacy
        (HTTP + b"plain", _b32(b"other")),                      # fail
        (b"HTTP/1.1 XYZ\r\n\r\nbody", _b32(b"body")),           # head does not parse
    ]
    data = b""
    for i, (block, payload_digest) in enumerate(blocks):
        data += _record([("WARC-Type", "response"), ("WARC-Record-ID", f"<urn:uuid:{i}>"), *base,
                         ("WARC-Block-Digest", _b32(block)), ("WARC-Payload-Digest", payload_digest)], block)
    path = tmp_path / "mixed.warc"
    path.write_bytes(data)
    report = check_file(path)
    assert [(r.block_digest, r.payload_digest) for r in report.records][:4] == [
        ("pass", "pass"), ("pass", "warc1.1"), ("pass", "legacy"), ("pass", "fail")]
    codes = [(i.code, i.offset) for i in report.issues if i.code in ("payload-digest-mismatch", "bad-http-head")]
    offsets = [r.offset for r in report.records]
    # A head that does not parse is no head: the payload is then the whole block.
    assert codes == [("payload-digest-mismatch", offsets[3]), ("bad-http-head", offsets[4]),
                     ("payload-digest-mismatch", offsets[4])]
    with warckit.open(path, lenient=True) as reader:
        expected = []
        for rec in reader:
            v = verify_digests(rec)
            assert v.block is not None and v.payload is not None
            expected.append((v.block.ok, v.payload.ok, v.payload.convention))
            if rec.offset == offsets[4]:
                assert [i.code for i in rec.issues] == ["bad-http-head"]
                assert isinstance(rec.issues[0], warckit.Issue)
    assert expected[:4] == [(True, True, "both"), (True, True, "warc-1.1"), (True, True, "legacy"),
                            (True, False, None)]
