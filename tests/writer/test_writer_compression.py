"""Gzip backends, the worker thread and the streaming (spilled) path of the record encoder."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import pytest
from writer_oracles import fastwarc_block_digests, warcio_check

import warckit
from warckit.errors import UsageError
from warckit.write import encode as E
from warckit.write import writer as W
from warckit.write.guided import WarcWriter

HEAD = b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 0\r\n\r\n"
RESP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"


def _text(n: int) -> bytes:
    out = io.BytesIO()
    i = 0
    while out.tell() < n:
        out.write(b"<p class='c%d'>line %d of some html-like text</p>\n" % (i % 17, i))
        i += 1
    return out.getvalue()[:n]


BLOCK = _text(300_000)
assert len(BLOCK) >= W.THREAD_MIN  # the threaded path is exercised


def _member(head: bytes, enc: W.EncodedRecord) -> bytes:
    data = b"".join(enc.chunks())
    assert len(data) == enc.size
    return data


@pytest.mark.parametrize("backend", W.GZIP_BACKENDS)
@pytest.mark.parametrize("threads", [False, True])
def test_each_backend_writes_one_valid_member(backend: str, threads: bool) -> None:
    enc = W.RecordEncoder("gzip", backend=backend, threads=threads)
    for block in (b"", b"x", BLOCK):
        data = _member(HEAD, enc.encode_bytes(HEAD, block))
        d = zlib.decompressobj(31)
        assert d.decompress(data) == HEAD + block + b"\r\n\r\n"  # checks CRC and ISIZE
        assert d.eof and d.unused_data == b""


def test_thread_and_inline_output_identical() -> None:
    a = _member(HEAD, W.RecordEncoder("gzip", threads=True).encode_bytes(HEAD, BLOCK))
    b = _member(HEAD, W.RecordEncoder("gzip", threads=False).encode_bytes(HEAD, BLOCK))
    assert a == b


def test_taken_back_from_a_busy_worker_is_identical() -> None:
    """A block whose worker has not started is compressed by the caller: same bytes."""
    import threading

    gate = threading.Event()
    # Occupy every worker of the shared pool so the next submission stays queued.
    ex = W._executor()
    blockers = [ex.submit(gate.wait) for _ in range(ex._max_workers)]
    try:
        enc = W.RecordEncoder("gzip", threads=True)
        got = _member(HEAD, enc.encode_bytes(HEAD, BLOCK))
    finally:
        gate.set()
        for f in blockers:
            f.result()
    assert got == _member(HEAD, W.RecordEncoder("gzip", threads=False).encode_bytes(HEAD, BLOCK))


def test_sink_encoded_twice_with_other_heads() -> None:
    enc = W.RecordEncoder("gzip")
    sink = enc.sink()
    sink.write(BLOCK)
    other = HEAD.replace(b"resource", b"metadata")
    for head in (HEAD, other, HEAD):
        assert gzip.decompress(_member(head, enc.encode(head, sink))) == head + BLOCK + b"\r\n\r\n"
    sink.close()


@pytest.mark.parametrize("backend", W.GZIP_BACKENDS)
def test_large_block_streams_through_the_spool(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(E, "SPOOL_MEMORY", 50_000)
    enc = W.RecordEncoder("gzip", backend=backend)
    sink = enc.sink()
    for i in range(0, len(BLOCK), 7_000):
        sink.write(BLOCK[i : i + 7_000])
        if i > 60_000:
            assert not sink.in_memory
    data = _member(HEAD, enc.encode(HEAD, sink))
    assert gzip.decompress(data) == HEAD + BLOCK + b"\r\n\r\n"
    sink.close()


def test_bad_backend_and_level_refused() -> None:
    with pytest.raises(UsageError):
        W.RecordEncoder("gzip", backend="brotli")
    with pytest.raises(UsageError):
        W.RecordEncoder("gzip", backend="zlib", level=10)
    with pytest.raises(UsageError):
        W.RecordEncoder("gzip", backend="zlib", level=-2)


def test_default_backend_is_the_fastest_installed() -> None:
    expected = "libdeflate" if W.HAVE_LIBDEFLATE else ("isal" if W.HAVE_ISAL else "zlib")
    assert W.DEFAULT_GZIP_BACKEND == expected
    assert W.GZIP_BACKENDS[0] == expected


@pytest.mark.parametrize("backend", W.GZIP_BACKENDS)
def test_guided_writer_each_backend_reads_back(tmp_path: Path, backend: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(E, "SPOOL_MEMORY", 64_000)  # the last body takes the streaming path
    bodies = [b"", b"<p>hi</p>", BLOCK[:30_000], BLOCK]
    with WarcWriter(tmp_path, fsync=False, gzip_backend=backend) as w:
        written = []
        for i, body in enumerate(bodies):
            uri = f"https://example.com/{i}"
            req = w.request(uri, b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
            written.append(w.response(uri, RESP, io.BytesIO(body) if i == 3 else body,
                                      concurrent_to=req))
    path = w.files[0]
    raw = Path(path).read_bytes()
    for rec, body in zip(written, bodies):
        member = raw[rec.offset : rec.offset + rec.length]
        d = zlib.decompressobj(31)
        out = d.decompress(member)
        assert d.eof and d.unused_data == b""
        assert out.endswith(RESP + body + b"\r\n\r\n")
    got = [r.read_block() for r in warckit.open(path) if r.type == "response"]
    assert got == [RESP + b for b in bodies]
    code, report = warcio_check(path)
    assert code == 0, report
    assert all(ok for _, _, ok in fastwarc_block_digests(path))


def test_fast_base32_matches_base64() -> None:
    import base64
    import os

    from warckit.record.digests import b32encode

    for n in (5, 20, 40, 60):
        raw = os.urandom(n)
        assert b32encode(raw) == base64.b32encode(raw).decode()


@pytest.mark.parametrize(("algorithm", "encoding"), [
    ("sha1", None), ("sha1", "base16"), ("sha256", None), ("sha256", "base32"),
    ("sha512", None), ("md5", "base64"), ("SHA-1", None),
])
def test_digests_as_digester_formats_them(tmp_path: Path, algorithm: str,
                                          encoding: str | None) -> None:
    from warckit.record.digests import Digester

    body = BLOCK[:5000]
    with WarcWriter(tmp_path, fsync=False, digest=algorithm, digest_encoding=encoding) as w:
        wr = w.response("https://example.com/", RESP, body)
    block = Digester(algorithm, encoding=encoding)
    block.update(RESP + body)
    payload = Digester(algorithm, encoding=encoding)
    payload.update(body)
    assert wr.block_digest == str(block.digest())
    assert wr.payload_digest == str(payload.digest())
