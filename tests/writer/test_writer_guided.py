"""Guided writer: every record type, read back by warckit, warcio and FastWARC."""

from __future__ import annotations

import base64
import gzip
import hashlib
from pathlib import Path

import pytest
from writer_oracles import fastwarc_block_digests, warcio_check

import warckit
from warckit.errors import ValidationError
from warckit.read.segments import iter_logical_records, reassemble
from warckit.write.guided import HybridPolicy, WarcWriter, WrittenRecord

REQ = b"GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n"
RESP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n"
BODY = b"<p>hello</p"[:11]
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
CHUNKED_BODY = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"


def b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def write_all_types(out: Path, version: str, **kw: object) -> tuple[WarcWriter, dict[str, WrittenRecord]]:
    w = WarcWriter(out, prefix="t", version=version, warcinfo={"operator": "Test"}, fsync=False, **kw)  # type: ignore[arg-type]
    got: dict[str, WrittenRecord] = {}
    with w:
        got["request"] = w.request("https://example.com/a", REQ)
        got["response"] = w.response("https://example.com/a", RESP, BODY,
                                     concurrent_to=got["request"], ip="93.184.215.14")
        got["revisit"] = w.revisit("https://example.com/a", refers_to=got["response"],
                                   http_head=RESP)
        got["revisit-snm"] = w.revisit("https://example.com/a", profile="server-not-modified",
                                       refers_to=got["response"],
                                       http_head=b"HTTP/1.1 304 Not Modified\r\n\r\n")
        got["resource"] = w.resource("file:///data/a.txt", b"plain text", content_type="text/plain")
        got["metadata"] = w.metadata("https://example.com/a", {"via": "https://example.com/",
                                                               "hopsFromSeed": "L"},
                                     refers_to=got["response"])
        got["conversion"] = w.conversion("https://example.com/a", b"hello",
                                         content_type="text/plain", refers_to=got["response"])
        got["warcinfo"] = w.warcinfo({"description": "second warcinfo"})
    return w, got


@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_every_type_reads_back_everywhere(tmp_path: Path, version: str) -> None:
    w, got = write_all_types(tmp_path, version)
    assert len(w.files) == 1
    path = w.files[0]
    assert not list(tmp_path.glob("*.open"))
    records = [r.freeze() for r in warckit.open(path)]
    types = [r.type for r in records]
    assert types == ["warcinfo", "request", "response", "revisit", "revisit", "resource",
                     "metadata", "conversion", "warcinfo"]
    info = records[0]
    assert records[0].offset == 0
    assert all(r.version == version for r in records)
    for rec in records[1:-1]:
        assert rec.warcinfo_id == info.record_id
    # The returned identity is what is on disk.
    by_id = {r.record_id: r for r in records}
    for wr in got.values():
        rec = by_id[wr.record_id]
        assert (rec.offset, rec.length, rec.type) == (wr.offset, wr.length, wr.type)
        assert wr.filename == Path(path).name
        again = warckit.read_record_at(path, wr.offset)
        assert again.record_id == wr.record_id
    resp = by_id[got["response"].record_id]
    assert resp.concurrent_to == (got["request"].record_id,)
    assert resp.date_string == by_id[got["request"].record_id].date_string
    assert resp.headers.first("WARC-IP-Address") == "93.184.215.14"
    assert resp.content_type == "application/http;msgtype=response"
    assert resp.read_block() == RESP + BODY
    assert str(resp.block_digest) == b32(RESP + BODY)
    assert str(resp.payload_digest) == b32(BODY)
    req = by_id[got["request"].record_id]
    assert str(req.payload_digest) == b32(b"") == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
    rev = by_id[got["revisit"].record_id]
    assert rev.profile == f"http://netpreserve.org/warc/{version}/revisit/identical-payload-digest"
    assert rev.refers_to == got["response"].record_id
    assert rev.refers_to_target_uri == "https://example.com/a"
    assert rev.truncated == "length"
    assert str(rev.payload_digest) == b32(BODY)
    assert rev.read_block() == RESP
    snm = by_id[got["revisit-snm"].record_id]
    assert snm.profile == f"http://netpreserve.org/warc/{version}/revisit/server-not-modified"
    date = records[1].date_string
    assert date is not None
    if version == "1.1":
        assert len(date) == 27 and date[19] == "."      # 2024-01-02T03:04:05.123456Z
    else:
        assert len(date) == 20 and date.endswith("Z")   # 2024-01-02T03:04:05Z
    assert info.headers.first("WARC-Filename") == Path(path).name
    block = info.read_block().decode()
    assert f"format: WARC File Format {version}\r\n" in block
    assert "operator: Test\r\n" in block
    meta = by_id[got["metadata"].record_id]
    assert meta.read_block() == b"via: https://example.com/\r\nhopsFromSeed: L\r\n\r\n"
    assert meta.payload_digest is None
    # Oracles.
    code, out = warcio_check(path)
    assert code == 0, out
    assert out.count("digest pass") == 7  # revisits: "present but not checked"
    fw = fastwarc_block_digests(path)
    assert [t for t, _, _ in fw] == types
    assert [o for _, o, _ in fw] == [r.offset for r in records]
    assert all(ok for _, _, ok in fw)
    # Our own checker is clean too.
    from warckit.check.report import check_file

    rep = check_file(path)
    assert rep.ok and rep.issues == [], rep.issues


def test_chunked_payload_digest_conventions(tmp_path: Path) -> None:
    entity = b"hello world"
    with WarcWriter(tmp_path / ".", prefix="a", fsync=False) as w:
        new = w.response("https://example.com/c", CHUNKED, CHUNKED_BODY)
    assert new.payload_digest == b32(entity)
    assert new.payload_convention == "warc1.1"
    legacy_dir = tmp_path / "legacy"
    legacy_dir.mkdir()
    with WarcWriter(legacy_dir, prefix="b", payload_digest="legacy", fsync=False) as w2:
        old = w2.response("https://example.com/c", CHUNKED, CHUNKED_BODY)
    assert old.payload_digest == b32(CHUNKED_BODY)
    from warckit.check.report import check_file

    assert check_file(w.files[0]).records[1].payload_digest == "warc1.1"
    assert check_file(w2.files[0]).records[1].payload_digest == "legacy"
    # warcio verifies payload digests as stored: the legacy file passes its check.
    assert warcio_check(w2.files[0])[0] == 0


def test_sha256_base16_and_streamed_body(tmp_path: Path) -> None:
    body = b"x" * 100_000
    chunks = iter([body[:40_000], body[40_000:]])
    with WarcWriter(tmp_path, digest="sha256", digest_encoding="base16", fsync=False) as w:
        wr = w.resource("https://example.com/big", chunks, content_type="application/octet-stream")
    assert wr.block_digest == "sha256:" + hashlib.sha256(body).hexdigest()
    rec = warckit.read_record_at(wr.path, wr.offset)
    assert rec.content_length == 100_000 and rec.read_block() == body
    assert warcio_check(wr.path)[0] == 0


def test_refused_before_anything_is_written(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, fsync=False) as w:
        w.resource("file:///ok", b"1", content_type="text/plain")
        size = Path(w.open_files[0]).stat().st_size
        with pytest.raises(ValidationError) as exc:
            w.resource("not a uri", b"1", content_type="text/plain")
        assert exc.value.issues[0].field == "WARC-Target-URI"
        assert exc.value.issues[0].code == "bad-syntax"
        with pytest.raises(ValidationError) as exc:
            w.response("https://e.com/", RESP, BODY, ip="999.1.1.1")
        assert exc.value.issues[0].field == "WARC-IP-Address"
        with pytest.raises(ValidationError) as exc:
            w.revisit("https://e.com/")  # identical-payload-digest without a digest
        assert [(i.code, i.field) for i in exc.value.issues] == [("missing-field", "WARC-Payload-Digest")]
        with pytest.raises(ValidationError):
            w.response("https://e.com/", b"GET / HTTP/1.1\r\n\r\n")
        with pytest.raises(ValidationError) as exc:
            w.resource("file:///x", b"", content_type="text/plain",
                       extra_headers=[("WARC-Filename", "x.warc")])
        assert exc.value.issues[0].code == "forbidden-field"
        assert Path(w.open_files[0]).stat().st_size == size


def test_uri_agnostic_revisit(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, fsync=False) as w:
        wr = w.revisit("https://mirror.example.org/logo.png",
                       refers_to="urn:uuid:12345678-1234-1234-1234-123456789abc",
                       refers_to_target_uri="https://example.com/logo.png",
                       refers_to_date="2020-01-02T03:04:05Z",
                       payload_digest="sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ")
    rec = warckit.read_record_at(wr.path, wr.offset)
    assert rec.refers_to == "<urn:uuid:12345678-1234-1234-1234-123456789abc>"
    assert rec.refers_to_target_uri == "https://example.com/logo.png"
    assert rec.refers_to_date == "2020-01-02T03:04:05Z"
    assert rec.content_length == 0 and rec.truncated is None
    assert rec.content_type is None


def test_segmentation_and_reassembly(tmp_path: Path) -> None:
    body = bytes(range(256)) * 100  # 25,600 bytes
    with WarcWriter(tmp_path, segment_size=10_000, fsync=False) as w:
        wr = w.response("https://example.com/big", RESP.replace(b"11", b"25600"), body)
        small = w.resource("file:///small", b"tiny", content_type="text/plain")
    assert wr.segments == 3
    path = w.files[0]
    recs = list(warckit.open(path))
    assert [r.type for r in recs] == ["warcinfo", "response", "continuation", "continuation",
                                      "resource"]
    first, c2, c3 = recs[1:4]
    block = RESP.replace(b"11", b"25600") + body
    assert first.segment_number == 1 and first.content_length == 10_000
    assert (c2.segment_number, c2.segment_origin_id, c2.content_length) == (2, wr.record_id, 10_000)
    assert c3.segment_number == 3 and c3.segment_total_length == len(block)
    assert c3.content_length == len(block) - 20_000
    assert str(first.payload_digest) == b32(body)
    assert str(first.block_digest) == b32(block[:10_000])
    assert str(c3.block_digest) == b32(block[20_000:])
    logical = reassemble(path, wr.record_id)
    assert logical.complete and logical.content_length == len(block)
    assert logical.headers.first("Content-Length") == str(len(block))
    assert "WARC-Segment-Number" not in logical.headers
    assert logical.read_block() == block
    http = logical.http()
    assert http is not None and http.status == 200
    assert [lr.type for lr in iter_logical_records(path)] == ["warcinfo", "response", "resource"]
    from warckit.check.report import check_file

    rep = check_file(path)
    assert rep.ok, rep.issues
    assert small.segments == 1


def test_write_record_byte_identical(tmp_path: Path, corpus: Path) -> None:
    src = corpus / "warcio" / "example.warc.gz"
    originals = []
    with WarcWriter(tmp_path, compression="none", fsync=False) as w:
        for rec in warckit.open(src):
            if rec.type == "warcinfo":
                continue
            buf = __import__("io").BytesIO()
            rec.write_to(buf)
            originals.append(buf.getvalue())
        for rec in warckit.open(src):
            if rec.type != "warcinfo":
                wr = w.write_record(rec)
                assert wr.length == len(originals.pop(0))
    assert originals == []  # every source record was copied
    data = Path(w.files[0]).read_bytes()
    src_plain = gzip.decompress(src.read_bytes())
    recs = list(warckit.open(w.files[0]))
    first_copy = recs[1].offset
    # Everything after our warcinfo equals the source's non-warcinfo records byte for byte.
    expected = b"".join(
        _raw(r) for r in warckit.open(__import__("io").BytesIO(src_plain)) if r.type != "warcinfo")
    assert data[first_copy:] == expected


def _raw(rec: object) -> bytes:
    import io

    buf = io.BytesIO()
    rec.write_to(buf)  # type: ignore[attr-defined]
    return buf.getvalue()


def test_write_record_validation_opt_out(tmp_path: Path) -> None:
    h = warckit.Headers([("WARC-Type", "response"), ("WARC-Date", "2020-01-01T00:00:00Z"),
                         ("WARC-Record-ID", "<urn:uuid:12345678-1234-1234-1234-123456789abc>"),
                         ("Content-Length", "3")])
    with WarcWriter(tmp_path, fsync=False) as w:
        with pytest.raises(ValidationError) as exc:
            w.write_record(headers=h, block=b"abc")
        assert [(i.code, i.field) for i in exc.value.issues] == [("missing-field", "WARC-Target-URI")]
        wr = w.write_record(headers=h, block=b"abc", validate=False)
    rec = warckit.read_record_at(wr.path, wr.offset)
    assert rec.read_block() == b"abc" and rec.target_uri is None


def test_hybrid_series(tmp_path: Path) -> None:
    jpeg = b"\xff\xd8\xff" + bytes(range(256)) * 400
    img_head = b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\r\n"
    with WarcWriter(tmp_path, hybrid=HybridPolicy(min_size=1024), fsync=False) as w:
        html = w.response("https://e.com/", RESP, BODY)
        img = w.response("https://e.com/a.jpg", img_head, jpeg)
        small = w.response("https://e.com/s.jpg", img_head, b"\xff\xd8tiny")
    gz = [f for f in w.files if f.endswith(".warc.gz")]
    plain = [f for f in w.files if f.endswith(".warc")]
    assert len(gz) == 1 and len(plain) == 1
    assert html.path == gz[0] and small.path == gz[0] and img.path == plain[0]
    assert [r.type for r in warckit.open(plain[0])] == ["warcinfo", "response"]
    assert Path(plain[0]).read_bytes()[img.offset:img.offset + 8] == b"WARC/1.1"
    for f in w.files:
        assert warcio_check(f)[0] == 0


def test_zstd_with_dictionary(tmp_path: Path, corpus: Path) -> None:
    dictionary = (corpus / "gowarc" / "dictionary").read_bytes()
    with WarcWriter(tmp_path, compression="zstd", zstd_dictionary=dictionary, fsync=False) as w:
        a = w.response("https://e.com/", RESP, BODY)
        b = w.resource("file:///x", b"abc" * 100, content_type="text/plain")
    path = w.files[0]
    assert path.endswith(".warc.zst")
    data = Path(path).read_bytes()
    assert data[:4] == bytes.fromhex("5d2a4d18")
    assert int.from_bytes(data[4:8], "little") == len(dictionary)
    assert data[8:8 + len(dictionary)] == dictionary
    recs = list(warckit.open(path))
    assert [(r.type, r.offset, r.length) for r in recs][1:] == [
        ("response", a.offset, a.length), ("resource", b.offset, b.length)]
    assert recs[0].offset == 8 + len(dictionary)
    import zstandard

    frame = data[a.offset:a.offset + a.length]
    params = zstandard.get_frame_parameters(frame)
    assert params.has_checksum and params.content_size == len(recs[1].raw_head) + 11 + len(RESP) + 4
    assert params.dict_id == zstandard.ZstdCompressionDict(dictionary).dict_id()
