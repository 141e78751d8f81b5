"""Records independent of readers: bodies, closable random-access records, logical records."""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

import warckit
from warckit.errors import StaleRecordError
from warckit.read.segments import ChainedBody, LogicalRecord, SegmentRef, iter_logical_records
from warckit.record.headers import Headers
from warckit.record.records import WarcRecord

ROOT = Path(__file__).resolve().parents[2]
HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"


def _record(rtype: str, uri: str, block: bytes, extra: str = "") -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{hashlib.md5(uri.encode() + block).hexdigest()}>\r\n"
        f"WARC-Date: 2026-11-30T09:00:00Z\r\nWARC-Target-URI: {uri}\r\n{extra}"
        f"Content-Type: application/http;msgtype=response\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


class _BytesBody:
    """A body over bytes, as any maker of records (not a reader) could give one."""

    rereadable: ClassVar[bool] = True

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.closed = False

    def live(self, record: Any) -> bool:
        return not self.closed

    def read(self, record: Any, pos: int, size: int) -> bytes | None:
        return None if self.closed else self.data[pos : pos + size]

    def take_whole(self, record: Any) -> bytes | None:
        return None

    def finish(self, record: Any) -> None:
        pass

    def report(self, record: Any, code: str, message: str) -> None:
        record.issues.append(code)

    def close(self) -> None:
        self.closed = True


def _imports(text: str) -> set[str]:
    return {m for m in re.findall(r"^\s*from\s+([\w.]+)\s+c?import", text, re.MULTILINE)}


def test_reader_core_imports_nothing_above_headers() -> None:
    pure = (ROOT / "warckit/_speedups/_readercore_py.py").read_text()
    mods = set()
    for node in ast.walk(ast.parse(pure)):
        if isinstance(node, ast.ImportFrom):
            mods.add("." * node.level + (node.module or ""))
    assert mods == {"__future__", "collections.abc", "typing", "..errors", "..record.headers", ".headers"}
    compiled = _imports((ROOT / "_speedups/readercore.pyx").read_text())
    assert compiled == {"_weakref", "cpython.bytes", "cpython.unicode", "libc.string", "warckit.errors",
                        "warckit.record.headers",
                        "warckit._speedups.headers"}


def test_a_record_needs_no_reader() -> None:
    headers = Headers([("WARC-Type", "response"), ("WARC-Target-URI", "http://example.com/"),
                       ("Content-Type", "application/http;msgtype=response"),
                       ("Content-Length", str(len(HTTP)))])
    body = _BytesBody(HTTP)
    rec = WarcRecord("1.1", headers, body=body)
    assert rec.http is not None and rec.http_status == 200
    assert rec.content_stream().read() == b"hello"
    assert rec.read_block() == HTTP and rec.read_block() == HTTP  # rereadable: again
    with rec:
        pass
    assert body.closed


def test_streamed_record_holds_a_body_not_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "a.warc"
    path.write_bytes(_record("response", "http://a/", HTTP) + _record("response", "http://b/", HTTP))
    with warckit.open(path) as reader:
        first = next(reader)
        assert not hasattr(first, "_reader")
        assert first._body.live(first) and not first._body.rereadable
        second = next(reader)
        assert not first._body.live(first)  # the reader moved on: stale
        with pytest.raises(StaleRecordError):
            first.read_block()
        assert second.content_stream().read() == b"hello"


@pytest.mark.parametrize("gz", [False, True])
def test_read_record_at_is_closable_and_closes_its_file(tmp_path: Path, gz: bool) -> None:
    data = [_record("response", "http://a/", HTTP), _record("response", "http://b/", HTTP * 2)]
    raw = [gzip.compress(d) for d in data] if gz else data
    path = tmp_path / ("a.warc.gz" if gz else "a.warc")
    path.write_bytes(b"".join(raw))
    with warckit.read_record_at(path, len(raw[0])) as rec:
        assert (rec.offset, rec.target_uri) == (len(raw[0]), "http://b/")
        f = rec._body.reader._source.file
        assert not f.closed
        assert rec.read_block() == HTTP * 2
    assert f.closed
    rec = warckit.read_record_at(path, 0)
    f = rec._body.reader._source.file
    rec.close()
    rec.close()  # idempotent
    assert f.closed
    with pytest.raises(StaleRecordError):
        rec.read_block()


def test_logical_record_is_an_ordinary_record(tmp_path: Path) -> None:
    block = HTTP + b"x" * 5000
    origin = "<urn:uuid:00000000-0000-0000-0000-000000000001>"
    first = (
        f"WARC/1.1\r\nWARC-Type: RESPONSE\r\nWARC-Record-ID: {origin}\r\n"
        "WARC-Date: 2026-11-30T09:00:00Z\r\nWARC-Target-URI: <http://a/>\r\nWARC-Segment-Number: 1\r\n"
        f"Content-Type: application/http;msgtype=response\r\nContent-Length: 3000\r\n\r\n"
    ).encode() + block[:3000] + b"\r\n\r\n"
    cont = (
        "WARC/1.1\r\nWARC-Type: continuation\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000002>\r\n"
        f"WARC-Date: 2026-11-30T09:00:00Z\r\nWARC-Segment-Origin-ID: {origin}\r\nWARC-Segment-Number: 2\r\n"
        f"WARC-Segment-Total-Length: {len(block)}\r\nContent-Length: {len(block) - 3000}\r\n\r\n"
    ).encode() + block[3000:] + b"\r\n\r\n"
    path = tmp_path / "seg.warc"
    path.write_bytes(first + cont)
    (logical,) = list(iter_logical_records(path))
    assert isinstance(logical, WarcRecord) and isinstance(logical._body, ChainedBody)
    assert logical.segments == [SegmentRef(str(path), 0, 1, 3000),
                                SegmentRef(str(path), len(first), 2, len(block) - 3000)]
    # An ordinary record's API: lowercased type, brackets stripped, http a property.
    assert (logical.type, logical.target_uri, logical.complete) == ("response", "http://a/", True)
    assert logical.content_length == len(block) and logical.offset == 0
    assert logical.http_status == 200 and logical.payload_offset() == HTTP.index(b"5\r\n")
    assert logical.content_stream().read() == b"hello"
    assert logical.read_block() == block
    stream = logical.raw_stream()
    stream.read(2999)
    assert stream.read(2) == block[2999:3001]  # across the segment boundary
    # The former LogicalRecord API still answers (thin aliases).
    assert logical.block_stream().read() == block
    http = logical.http()
    assert http is not None and http.status == 200
    logical.close()
    assert logical._body._record is None  # the open segment was closed
    assert isinstance(LogicalRecord("1.1", Headers([("WARC-Type", "resource")])), WarcRecord)


@pytest.mark.parametrize("gz", [False, True])
def test_a_large_block_peeked_whole_arrives_in_pieces(tmp_path: Path, gz: bool) -> None:
    """``peek_block`` of a block larger than the reader hands out at once joins its
    pieces: the same bytes, still there for the streams. A block cut by the end of the
    file keeps what arrived before the error."""
    block = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + bytes(range(256)) * (5 << 12)
    data = _record("response", "http://example.com/big", block)
    path = tmp_path / ("big.warc.gz" if gz else "big.warc")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    with warckit.open(path) as reader:
        rec = next(reader)
        assert rec.peek_block(len(block)) == block
        assert rec.raw_stream().read() == block
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[: len(data) - len(block) // 2])
    with warckit.open(cut) as reader:
        rec = next(reader)
        with pytest.raises(warckit.WarckitError):
            rec.peek_block(len(block))
        kept = rec.peek_block(1 << 20)  # (more: all that arrived, in pieces, is kept)
        assert len(kept) >= 2 << 20 and block.startswith(kept)


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("size", [8, 4096, 8192, 8193, 100_000])
def test_peeking_a_head_keeps_the_block_whole(tmp_path: Path, gz: bool, size: int) -> None:
    """``peek_block`` of less than the block (an HTTP head) reads it from the start in
    one piece when it can: at least *size* bytes, kept for the streams, which then
    read the whole block; a larger peek later extends what is kept."""
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + bytes(range(256)) * 1024
    data = _record("response", "http://example.com/page", block) + _record("response", "http://example.com/2", b"x")
    path = tmp_path / ("page.warc.gz" if gz else "page.warc")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    with warckit.open(path) as reader:
        rec = next(reader)
        head = rec.peek_block(size)
        assert len(head) >= min(size, len(block)) and block.startswith(head)
        assert rec.peek_block(size // 2 + 1) == head  # (what is kept already: no read)
        more = rec.peek_block(len(block) - 1)
        assert len(more) >= len(block) - 1 and block.startswith(more)
        assert rec.raw_stream().read() == block
        assert rec.http is not None and rec.http.status == 200
        assert next(reader).target_uri == "http://example.com/2"
        assert rec.peek_block(size) == more  # (what is kept stays readable after the reader moved on)


def test_block_stream_is_a_raw_stream_that_closes(tmp_path: Path) -> None:
    """A BlockStream keeps its own closed flag (slots, no instance dict: #19) and still
    behaves as the io.RawIOBase it is: closed/close, a context manager, readline and
    iteration, readinto, a BufferedReader over it; reading ends with b"" at the block's end."""
    block = b"line one\nline two\n" + b"x" * 5000
    path = tmp_path / "a.warc.gz"
    path.write_bytes(gzip.compress(_record("resource", "http://a/", block)) * 3)
    with warckit.open(path) as reader:
        s = next(reader).raw_stream()
        assert isinstance(s, io.RawIOBase) and s.readable() and not s.seekable()
        assert not s.closed
        assert s.readline() == b"line one\n"
        buf = bytearray(9)
        assert s.readinto(buf) == 9 and bytes(buf) == b"line two\n"
        assert s.read() == b"x" * 5000
        assert s.read(10) == b"" and s.read() == b""
        s.close()
        assert s.closed
        assert vars(s) == {}  # (IOBase's close() kept its flag in the instance dict)
        with pytest.raises(ValueError), s:  # IOBase checks the flag
            pass
        with next(reader).raw_stream() as s2:
            assert list(s2)[:2] == [b"line one\n", b"line two\n"]
        assert s2.closed
        buffered = io.BufferedReader(next(reader).raw_stream())
        assert buffered.read() == block
        buffered.close()
        assert buffered.raw.closed
