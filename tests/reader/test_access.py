"""Random access, payload ranges, zstd, stale bodies, constant memory, CLI."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import subprocess
import textwrap
from pathlib import Path

import child
import pytest
from corpus_paths import CORPUS

import warckit
from warckit.cli import main
from warckit.errors import StaleRecordError

#: These tests read the shared corpus by name (CI has it; see the README).
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available (set WARCKIT_CORPUS)")


def _record(uri: str, body: bytes, rtype: str = "resource", ctype: str = "application/octet-stream") -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{hashlib.md5(uri.encode()).hexdigest()}>\r\n"
        f"WARC-Date: 2026-11-30T09:00:00.123456Z\r\nWARC-Target-URI: {uri}\r\n"
        f"Content-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


def test_read_record_at_every_offset() -> None:
    path = CORPUS / "pywb/iana.warc.gz"
    with warckit.open(path) as reader:
        expected = [(r.offset, r.record_id, r.type) for r in reader]
    for offset, rid, rtype in expected[::17]:
        rec = warckit.read_record_at(path, offset)
        assert (rec.offset, rec.record_id, rec.type) == (offset, rid, rtype)


def test_payload_range_seeks_in_plain_files(tmp_path: Path) -> None:
    video = bytes(range(256)) * 4096  # 1 MiB
    http = b"HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 1048576\r\n\r\n" + video
    data = _record("http://example.com/v.mp4", b"x" * 10) + _record(
        "http://example.com/v.mp4", http, "response", "application/http;msgtype=response"
    )
    path = tmp_path / "v.warc"
    path.write_bytes(data)
    offset = len(_record("http://example.com/v.mp4", b"x" * 10))
    got = b"".join(warckit.read_payload_range(path, offset, 1000, 1100))
    assert got == video[1000:1100]
    gz = tmp_path / "v.warc.gz"
    gz.write_bytes(gzip.compress(data[:offset]) + gzip.compress(data[offset:]))
    first = len(gzip.compress(data[:offset]))
    assert b"".join(warckit.read_payload_range(gz, first, 5000, 5010)) == video[5000:5010]


def test_zstd_with_dictionary_frame(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    dict_bytes = (CORPUS / "gowarc/dictionary").read_bytes()
    zdict = zstandard.ZstdCompressionDict(dict_bytes)
    cctx = zstandard.ZstdCompressor(dict_data=zdict, write_checksum=True, write_content_size=True)
    records = [_record(f"http://example.com/{i}", f"body {i}".encode() * 50) for i in range(5)]
    frames = [cctx.compress(r) for r in records]
    dict_frame = b"\x5d\x2a\x4d\x18" + len(dict_bytes).to_bytes(4, "little") + dict_bytes
    path = tmp_path / "a.warc.zst"
    path.write_bytes(dict_frame + b"".join(frames))
    with warckit.open(path) as reader:
        got = [(r.offset, r.length, r.target_uri, r.read_block()) for r in reader]
    pos = len(dict_frame)
    for (offset, length, uri, block), frame, i in zip(got, frames, range(5)):
        assert (offset, length, uri) == (pos, len(frame), f"http://example.com/{i}")
        assert block == f"body {i}".encode() * 50
        pos += len(frame)
    assert len(got) == 5
    # Random access to a frame loads the dictionary from the start of the file.
    third = warckit.read_record_at(path, got[2][0])
    assert third.target_uri == "http://example.com/2" and third.read_block() == b"body 2" * 50


def test_stale_body_raises_and_freeze_keeps_it() -> None:
    data = _record("http://a/", b"A" * 100) + _record("http://b/", b"B" * 100)
    reader = warckit.open(io.BytesIO(data))
    first = next(reader)
    stream = first.raw_stream()
    assert stream.read(10) == b"A" * 10
    second = next(reader)
    with pytest.raises(StaleRecordError):
        stream.read(10)
    frozen = second.freeze()
    assert next(reader, None) is None
    assert frozen.read_block() == b"B" * 100


def test_length_before_moving_on_spools_the_body() -> None:
    data = _record("http://a/", b"A" * 300000) + _record("http://b/", b"B")
    reader = warckit.open(io.BytesIO(gzip.compress(data[: len(data) - len(_record("http://b/", b"B"))])))
    rec = next(reader)
    assert rec.length is not None
    assert rec.read_block() == b"A" * 300000


def test_length_first_then_http_and_body() -> None:
    """Asking for the length spools the body; the HTTP head and payload stay readable."""
    path = CORPUS / "warcio/example-iana.org-chunked.warc"
    with warckit.open(path, types={"response"}) as reader:
        rec = next(reader)
        assert rec.length == rec.stream_length and rec.length is not None
        assert rec.http is not None and rec.http.status == 200
        body = rec.content_stream().read()
    assert body.startswith(b"<!doctype html>")
    rec = warckit.read_record_at(CORPUS / "warcio/example.warc.gz", 784)
    assert rec.length == 1228 and rec.http_status == 200
    assert len(rec.payload_stream().read()) == 975 - len(rec.http.raw)  # type: ignore[union-attr]


def test_content_stream_dechunks_and_decodes() -> None:
    path = CORPUS / "warcio/example-iana.org-chunked.warc"
    with warckit.open(path, types={"response"}) as reader:
        rec = next(reader)
        assert rec.http is not None and rec.http.chunked
        body = rec.content_stream().read()
    assert body.startswith(b"<!doctype html>") and body.rstrip().endswith(b"</html>")
    path = CORPUS / "webarchive-discovery/compression/transfer_compression_gzip.warc"
    with warckit.open(path, types={"response"}) as reader:
        for rec in reader:
            if rec.http and rec.http.content_encodings() == ("gzip",):
                text = rec.content_stream(decode_content=True).read()
                assert b"<html" in text.lower()
                break
        else:
            pytest.fail("no gzip-encoded response found")


def test_digest_verification_conventions() -> None:
    from warckit.check.verify import verify_digests

    with warckit.open(CORPUS / "warcio/example-iana.org-chunked.warc", types={"response"}) as reader:
        report = verify_digests(next(reader))
    assert report.block is not None and report.block.ok is True
    assert report.payload is not None and report.payload.ok is True
    assert report.payload.convention == "legacy"  # wget digested the chunked bytes
    with warckit.open(CORPUS / "pywb/example-extra.warc", lenient=True) as reader:
        results = [verify_digests(r) for r in reader]
    assert any(r.payload is not None and r.payload.ok is False for r in results)


@pytest.mark.slow
def test_two_gigabyte_record_streams_in_constant_memory(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import resource
        import warckit
        size = 2 * 1024**3
        path = {str(tmp_path / "big.warc")!r}
        head = ("WARC/1.1\\r\\nWARC-Type: resource\\r\\nWARC-Record-ID: <urn:uuid:x>\\r\\n"
                "WARC-Date: 2026-11-30T00:00:00Z\\r\\nWARC-Target-URI: http://x/big\\r\\n"
                "Content-Length: %d\\r\\n\\r\\n" % size).encode()
        with open(path, "wb") as f:
            f.write(head)
            f.seek(len(head) + size)   # sparse: reads back as zeros
            f.write(b"\\r\\n\\r\\n")
        total = 0
        with warckit.open(path) as reader:
            for rec in reader:
                stream = rec.raw_stream()
                while True:
                    chunk = stream.read(1 << 20)
                    if not chunk:
                        break
                    total += len(chunk)
                # VmHWM is this process's own peak; ru_maxrss would include the RSS
                # of the (large) pytest parent at fork time on Linux.
                try:
                    with open("/proc/self/status") as st:
                        peak = next(int(l.split()[1]) for l in st if l.startswith("VmHWM:"))
                except OSError:
                    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                print(total, rec.length - len(head), peak)
        """
    )
    out = subprocess.run(child.python(script), capture_output=True, text=True, check=True, timeout=300,
                         env=child.env())
    total, length, maxrss_kb = map(int, out.stdout.split())
    assert total == 2 * 1024**3
    assert length == total + 4  # record length minus its head: block + CRLF CRLF
    assert maxrss_kb < 100 * 1024, f"peak RSS {maxrss_kb} KiB"


def test_cli_ls(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "warcio/example.warc.gz"
    assert main(["ls", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "784\t1228\tresponse\t2017-03-06T04:02:06Z\thttp://example.com/"
    assert main(["ls", "--json", str(path)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[2] == {
        "file": str(path), "offset": 784, "length": 1228, "type": "response",
        "date": "2017-03-06T04:02:06Z", "target_uri": "http://example.com/",
        "record_id": "<urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>", "content_length": 975,
        "http_status": 200,
    }
    assert rows[0]["http_status"] is None


def test_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    bad = CORPUS / "warcio/example-trunc.warc"
    assert main(["ls", str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "offset 2560" in err
    assert main(["ls"]) == 2
    assert main(["extract", str(bad), "0", "--range", "5-1", "--payload"]) == 2


def test_cli_extract(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    path = CORPUS / "warcio/example.warc.gz"
    assert main(["extract", str(path), "784", "--headers"]) == 0
    out = capfdbinary.readouterr().out
    assert out.startswith(b"WARC/1.0\r\n") and b"HTTP/1.1 200 OK" in out
    assert main(["extract", str(path), "784", "--payload"]) == 0
    payload = capfdbinary.readouterr().out
    head = warckit.read_record_at(path, 784).http
    assert head is not None and payload[:2] == b"\x1f\x8b"  # gzip Content-Encoding, as stored
    assert len(payload) == 975 - len(head.raw)
    assert main(["extract", str(path), "784", "--payload", "--range", "0-15"]) == 0
    assert capfdbinary.readouterr().out == payload[:15]
    assert main(["extract", str(path), "784", "--payload", "--decode"]) == 0
    assert capfdbinary.readouterr().out.startswith(b"<!doctype html>")


def test_python_m_warckit_subprocess() -> None:
    out = subprocess.run(
        child.warckit_cli("ls", str(CORPUS / "warcio/example.arc")),
        capture_output=True, text=True, check=True, env=child.env(),
    )
    assert out.stdout.splitlines()[1].startswith("151\t")


@pytest.mark.parametrize(
    "name", ["jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz", "jwat/arc/1-1-20110922131213-00000-svc-VirtualBox.arc"]
)
def test_read_record_at_in_arc_files(name: str) -> None:
    path = CORPUS / name
    with warckit.open(path) as reader:
        expected = [(r.offset, r.target_uri, r.content_length) for r in reader][1:40:7]
    for offset, uri, length in expected:
        rec = warckit.read_record_at(path, offset)
        assert (rec.format, rec.offset, rec.target_uri, rec.content_length) == ("arc", offset, uri, length)


def test_read_record_at_releases_the_file_without_gc() -> None:
    """The reader holds its current record weakly: no cycle keeps files open."""
    import gc
    import os

    gc.collect()
    gc.disable()
    try:
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(50):
            rec = warckit.read_record_at(CORPUS / "pywb/iana.warc.gz", 0)
            assert rec.read_block()
        del rec
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()


def test_dropped_record_is_still_skipped_correctly() -> None:
    path = CORPUS / "warcio/example.warc.gz"
    with warckit.open(path) as reader:
        offsets = []
        for rec in reader:
            offsets.append(rec.offset)
            del rec  # the reader finishes a record nobody holds any more
    assert offsets == [0, 353, 784, 2012, 2621, 3207]


@pytest.mark.parametrize("size", [1000, 3 * 1024 * 1024])  # inline, and offloaded to the worker thread
def test_verify_digests_large_and_small_blocks(size: int) -> None:
    import base64

    from warckit.check.verify import verify_digests

    body = bytes(range(256)) * (size // 256)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"
    block = head + body
    b32 = lambda data: base64.b32encode(hashlib.sha1(data).digest()).decode()
    for declared, expected in ((b32(body), True), (b32(body + b"x"), False)):
        rec = (
            f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            f"WARC-Date: 2026-11-30T09:00:00Z\r\nWARC-Target-URI: http://x/\r\n"
            f"Content-Type: application/http;msgtype=response\r\n"
            f"WARC-Block-Digest: sha1:{b32(block)}\r\nWARC-Payload-Digest: sha1:{declared}\r\n"
            f"Content-Length: {len(block)}\r\n\r\n"
        ).encode() + block + b"\r\n\r\n"
        report = verify_digests(next(iter(warckit.open(io.BytesIO(rec)))))
        assert report.block is not None and report.block.ok is True
        assert report.payload is not None and report.payload.ok is expected
