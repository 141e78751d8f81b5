"""read_record_at reads little past a small record, and the short first read it makes
loses nothing when a record is larger (or its file is a pipe)."""

from __future__ import annotations

import gzip
import os
import random
import sys
from pathlib import Path

import pytest

import warckit


def _record(n: int, body: bytes) -> bytes:
    head = (f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{n:08d}-0000-0000-0000-000000000000>\r\n"
            f"WARC-Target-URI: http://example.com/{n}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    return head + body + b"\r\n\r\n"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, bytes]]]:
    """A gzip WARC whose members are small and large around the first read (36 KiB):
    random bodies do not compress, so a member is about as long as its body."""
    rng = random.Random(19)
    sizes = [100, 30_000, 36_000, 37_000, 40_000, 70_000, 200_000, 5, 1 << 16, 300]
    path = tmp_path_factory.mktemp("ra") / "sizes.warc.gz"
    records = []
    with open(path, "wb") as out:
        for n, size in enumerate(sizes):
            body = rng.randbytes(size)
            records.append((out.tell(), body))
            out.write(gzip.compress(_record(n, body), mtime=0))
        out.write(gzip.compress(_record(99, b"tail" * 30_000), mtime=0))  # (a large file after)
    return path, records


def test_every_record_whole_whatever_its_size(archive: tuple[Path, list[tuple[int, bytes]]]) -> None:
    path, records = archive
    for offset, body in records:
        with warckit.read_record_at(path, offset) as record:
            assert record.offset == offset
            assert record.raw_stream().read() == body
        with warckit.read_record_at(str(path), offset) as record:
            assert record.content_stream().read() == body


def test_payload_range_of_a_large_record(archive: tuple[Path, list[tuple[int, bytes]]]) -> None:
    path, records = archive
    offset, body = records[6]
    assert b"".join(warckit.read_payload_range(path, offset, 50_000, 150_000)) == body[50_000:150_000]


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs /proc/self/io (Linux)")
@pytest.mark.parametrize("opened", [False, True], ids=["path", "file object"])
def test_a_small_record_reads_far_less_than_the_decoder_buffer(
        archive: tuple[Path, list[tuple[int, bytes]]], opened: bool) -> None:
    """The decoder's buffer is 512 KiB (two steps of compressed input); reading at
    random, the first read is 8 KiB (then twice as much each read), enough for a small
    record, in both twins."""
    path, records = archive
    offset, body = records[0]
    first = 1 << 13

    def bytes_read() -> int:
        with open("/proc/self/io", encoding="ascii") as f:
            return int(f.readline().split()[1])  # rchar

    with open(path, "rb", buffering=0) as f:
        for _ in range(2):  # (the first call may import modules: that is reading too)
            before = bytes_read()
            with warckit.read_record_at(f if opened else path, offset) as record:
                assert record.raw_stream().read() == body
            read = bytes_read() - before
    assert 4 < read <= first + 4 + 200  # (the sniff's 4 bytes; /proc's own line)


def test_a_dropped_record_closes_its_file_quietly(archive: tuple[Path, list[tuple[int, bytes]]]) -> None:
    """Dropping a record read by path (not closing it) frees its file at once, without
    the ResourceWarning of an unclosed file."""
    import warnings
    import weakref

    path, records = archive
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for offset, body in records[:3]:
            record = warckit.read_record_at(path, offset)
            assert record.raw_stream().read(10) == body[:10]
            file = weakref.ref(record._body.reader._source.file)
            assert not file().closed  # type: ignore[union-attr]
            del record
            assert file() is None
    assert [str(w.message) for w in caught] == []


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
def test_a_pipe_at_offset_zero(archive: tuple[Path, list[tuple[int, bytes]]], tmp_path: Path) -> None:
    """A path that cannot seek keeps its buffered file (it is peeked through it)."""
    import threading

    path, records = archive
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = path.read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as f:
            try:
                f.write(data)
            except BrokenPipeError:
                pass

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        with warckit.read_record_at(fifo, 0) as record:
            assert record.raw_stream().read() == records[0][1]
    finally:
        thread.join(timeout=10)
