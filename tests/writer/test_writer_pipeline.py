"""The guided writer's pipeline: a record's block is compressed on the worker thread
while the caller prepares the next one; the record reaches the file one call later.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest
from writer_oracles import warcio_check

import warckit
from warckit.write import writer as W
from warckit.write.guided import WarcWriter, WrittenRecord

RESP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
REQ = b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"


def _body(i: int, n: int) -> bytes:
    return b"".join(b"<p>record %d line %d</p>\n" % (i, j) for j in range(n))


@pytest.mark.parametrize("threads", [True, False])
def test_offsets_and_lengths_are_exact(tmp_path: Path, threads: bool) -> None:
    written: list[WrittenRecord] = []
    with WarcWriter(tmp_path, fsync=False, threads=threads) as w:
        for i in range(30):
            req = w.request(f"https://example.com/{i}", REQ)
            written += [req, w.response(f"https://example.com/{i}", RESP, _body(i, i * 50),
                                        concurrent_to=req)]
    (path,) = w.files
    on_disk = [(r.record_id, r.offset, r.length) for r in warckit.open(path)][1:]
    assert on_disk == [(r.record_id, r.offset, r.length) for r in written]
    assert all(r.path == path for r in written)
    assert warcio_check(path)[0] == 0


def test_last_record_reaches_the_file_on_flush_or_when_located(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, fsync=False) as w:
        w.resource("file:///a", b"a" * 1000, content_type="text/plain")
        w.flush()
        path = Path(w.open_files[0])
        ids = [r.record_id for r in warckit.open(path)]
        assert len(ids) == 2  # warcinfo + the record
        last = w.resource("file:///b", b"b" * 1000, content_type="text/plain")
        # Asking where it is writes it (each record is handed to the OS when written).
        end = last.offset + last.length
        assert path.stat().st_size == end
        rec = warckit.read_record_at(path, last.offset)
        assert rec.record_id == last.record_id and rec.read_block() == b"b" * 1000
        end = last.offset + last.length
        assert path.stat().st_size == end


def test_rolling_with_records_in_flight(tmp_path: Path) -> None:
    rnd = os.urandom(300_000)
    limit = 1_000_000
    written = []
    with WarcWriter(tmp_path, fsync=False, max_bytes=limit) as w:
        for i in range(20):
            body = rnd[i * 997:] + rnd[: i * 997]
            written.append((w.response(f"https://example.com/{i}", RESP, body), body))
            w.request(f"https://example.com/{i}", REQ)
    files = sorted(w.files)
    assert len(files) > 5
    for f in files:
        assert os.path.getsize(f) <= limit
        recs = list(warckit.open(f))
        assert recs[0].type == "warcinfo"
        assert all(r.warcinfo_id == recs[0].record_id for r in recs[1:])
    for wr, body in written:
        rec = warckit.read_record_at(wr.path, wr.offset)
        assert rec.record_id == wr.record_id and rec.read_block() == RESP + body
        with open(wr.path, "rb") as fh:
            fh.seek(wr.offset)
            member = fh.read(wr.length)
        d = zlib.decompressobj(31)
        d.decompress(member)
        assert d.eof and d.unused_data == b""  # exactly one gzip member


def test_as_is_and_warcinfo_records_keep_call_order(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, fsync=False) as w:
        a = w.resource("file:///a", b"a", content_type="text/plain")
        info = w.warcinfo({"description": "second"})
        b = w.resource("file:///b", b"b", content_type="text/plain")
        src = warckit.read_record_at(w.open_files[0], a.offset)
        c = w.write_record(src)
    (path,) = w.files
    ids = [r.record_id for r in warckit.open(path)][1:]
    assert ids == [a.record_id, info.record_id, b.record_id, c.record_id]


def test_joint_head_and_block_same_bytes_with_or_without_thread() -> None:
    head = b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 5\r\n\r\n"
    out = []
    for threads in (True, False):
        enc = W.RecordEncoder("gzip", backend="libdeflate", threads=threads)
        sink = enc.sink()
        sink.write(b"hello")
        enc.start(head, sink)
        out.append(b"".join(enc.encode(head, sink).chunks()))
        other = head.replace(b"resource", b"metadata")
        again = b"".join(enc.encode(other, sink).chunks())  # another head: compressed anew
        assert zlib.decompress(again, 31) == other + b"hello\r\n\r\n"
        sink.close()
        enc.close()
    assert out[0] == out[1]
    assert zlib.decompress(out[0], 31) == head + b"hello\r\n\r\n"


def test_written_record_is_immutable_and_comparable(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, fsync=False) as w:
        r = w.resource("file:///a", b"a", content_type="text/plain")
    with pytest.raises(AttributeError):
        r.offset = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        r.record_id = "x"  # type: ignore[misc]
    same = WrittenRecord(r.record_id, r.type, r.target_uri, r.date, r.filename, r.path, r.offset,
                         r.length, r.block_digest, r.payload_digest)
    assert same == r and hash(same) == hash(r)
    assert repr(r).startswith("WrittenRecord(record_id=") and f"offset={r.offset}" in repr(r)


def test_dropped_writer_still_writes_its_records_in_flight(tmp_path: Path) -> None:
    import gc

    w = WarcWriter(tmp_path, fsync=False)
    rid = w.resource("file:///a", b"a" * 5000, content_type="text/plain").record_id
    del w
    gc.collect()
    (path,) = tmp_path.glob("*.warc.gz.open")
    assert [r.record_id for r in warckit.open(path)][1:] == [rid]
