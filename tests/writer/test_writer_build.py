"""Record heads built without a writer (write/build.py), and the writer facade's options."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

import warckit
from warckit.errors import UsageError, ValidationError
from warckit.tools.dedup import Original, revisit_headers
from warckit.write.build import build_revisit, format_date, new_record_id, revisit_profile_uri
from warckit.write.core import WriterOptions
from warckit.write.guided import WarcWriter

RESP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
PD = "sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2"


def test_build_revisit_without_a_writer() -> None:
    h = build_revisit("https://example.com/", refers_to="<urn:uuid:1>", refers_to_target_uri="https://example.com/",
                      refers_to_date="2024-01-02T03:04:05.123456Z", payload_digest=PD, http_head=RESP,
                      record_id="<urn:uuid:2>", date="2024-02-03T04:05:06Z", ip="1.2.3.4",
                      concurrent_to=["<urn:uuid:3>"], warcinfo_id="<urn:uuid:4>", version="1.0")
    assert list(h.fields) == [
        ("WARC-Type", "revisit"), ("WARC-Record-ID", "<urn:uuid:2>"), ("WARC-Date", "2024-02-03T04:05:06Z"),
        ("WARC-Target-URI", "https://example.com/"), ("WARC-Refers-To", "<urn:uuid:1>"),
        ("WARC-Refers-To-Target-URI", "https://example.com/"),
        ("WARC-Refers-To-Date", "2024-01-02T03:04:05Z"),  # WARC/1.0: seconds
        ("WARC-IP-Address", "1.2.3.4"), ("WARC-Concurrent-To", "<urn:uuid:3>"),
        ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
        ("WARC-Truncated", "length"), ("WARC-Warcinfo-ID", "<urn:uuid:4>"),
        ("WARC-Block-Digest", "sha1:" + base64.b32encode(hashlib.sha1(RESP).digest()).decode()),
        ("WARC-Payload-Digest", PD), ("Content-Type", "application/http;msgtype=response"),
        ("Content-Length", str(len(RESP))),
    ]
    fresh = build_revisit("https://example.com/", payload_digest=PD)
    assert (fresh.first("WARC-Record-ID") or "").startswith("<urn:uuid:") and fresh.first("Content-Length") == "0"
    assert "Content-Type" not in [n for n, _ in fresh.fields]
    with pytest.raises(ValidationError, match="WARC-Payload-Digest is mandatory"):
        build_revisit("https://example.com/")
    assert build_revisit("https://example.com/", validate=False).first("WARC-Payload-Digest") is None
    with pytest.raises(UsageError, match="unknown revisit profile"):
        revisit_profile_uri("same-payload", "1.1")
    assert revisit_profile_uri("server-not-modified", "1.1").endswith("/1.1/revisit/server-not-modified")


def test_small_builders() -> None:
    assert new_record_id() != new_record_id()
    assert format_date("as written", "1.0") == "as written"
    from datetime import datetime, timezone
    when = datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)
    assert (format_date(when, "1.1"), format_date(when, "1.0")) == ("2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05Z")


def test_the_writer_builds_revisits_with_the_builder(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, prefix="b", fsync=False) as w:
        orig = w.response("https://example.com/", RESP, b"<p>x</p>", ip="1.2.3.4")
        rev = w.revisit("https://example.com/", refers_to=orig, http_head=RESP, ip="1.2.3.4",
                        extra_headers=[("WARC-Etag", '"x"')])
    records = list(warckit.open(w.files[0]))
    got = records[-1].headers
    assert records[-1].record_id == rev.record_id
    built = build_revisit("https://example.com/", refers_to=orig.record_id, refers_to_target_uri=orig.target_uri,
                          refers_to_date=orig.date, payload_digest=orig.payload_digest, http_head=RESP,
                          record_id=rev.record_id, date=rev.date, ip="1.2.3.4",
                          warcinfo_id=records[0].record_id, extra=[("WARC-Etag", '"x"')])
    assert got.fields == built.fields


def test_dedup_revisit_headers_are_the_builders(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, prefix="d", fsync=False) as w:
        req = w.request("https://example.com/", b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
        w.response("https://example.com/", RESP, b"<p>x</p>", concurrent_to=req, ip="1.2.3.4")
    record = next(r for r in warckit.open(w.files[0]) if r.type == "response")
    assert record.http is not None
    original = Original(url="https://example.com/", date="2024-01-02T03:04:05Z", digest=PD, record_id="<urn:uuid:9>")
    h = revisit_headers(record, original, PD, record.http.raw)
    assert h.fields == build_revisit(
        "https://example.com/", refers_to="<urn:uuid:9>", refers_to_target_uri="https://example.com/",
        refers_to_date="2024-01-02T03:04:05Z", payload_digest=PD, http_head=record.http.raw,
        record_id=record.record_id, date=record.date_string, ip="1.2.3.4", concurrent_to=[req.record_id],
        warcinfo_id=record.headers.first("WARC-Warcinfo-ID")).fields
    assert h.first("WARC-Profile") == "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"


def test_options_object_is_the_keyword_arguments(tmp_path: Path) -> None:
    opts = WriterOptions(prefix="o", compression="none", fsync=False, digest="sha256", max_records=1)
    with WarcWriter(tmp_path / "a", options=opts) as a:
        ra = a.resource("file:///x", b"x", content_type="text/plain", date="2024-01-02T03:04:05Z")
    with WarcWriter(tmp_path / "b", prefix="o", compression="none", fsync=False, digest="sha256",
                    max_records=1) as b:
        rb = b.resource("file:///x", b"x", content_type="text/plain", date="2024-01-02T03:04:05Z")
    assert a.options == b.options == opts
    assert (ra.block_digest, ra.payload_digest) == (rb.block_digest, rb.payload_digest)
    assert ra.block_digest == "sha256:" + hashlib.sha256(b"x").hexdigest()
