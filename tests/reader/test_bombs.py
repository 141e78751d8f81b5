"""Decompression bombs: decoded streams run in bounded memory, at decompression speed.

Every bound is asserted in a child process whose address space is capped
(``RLIMIT_AS``), so a decoder that holds a bomb's output in memory fails with
``MemoryError`` there; the child's timeout catches quadratic work.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest
from limits import run_limited

import warckit
from warckit.errors import DecompressionBombError

brotli = pytest.importorskip("brotli")
zstandard = pytest.importorskip("zstandard")

MIB = 1 << 20
BOMB = 256 * MIB  # decoded size of every bomb here
LIMIT_MB = 200  # the child's whole address space: less than one bomb's output

pytestmark = pytest.mark.slow


def _compress(coding: str, n_mib: int) -> bytes:
    zeros = bytes(MIB)
    if coding == "gzip":
        c = zlib.compressobj(1, zlib.DEFLATED, 31)
        return b"".join(c.compress(zeros) for _ in range(n_mib)) + c.flush()
    if coding == "deflate":
        c = zlib.compressobj(1, zlib.DEFLATED, 15)
        return b"".join(c.compress(zeros) for _ in range(n_mib)) + c.flush()
    if coding == "br":
        b = brotli.Compressor(quality=1)
        return b"".join(b.compress(zeros) for _ in range(n_mib)) + b.finish()
    z = zstandard.ZstdCompressor(level=1).compressobj()
    return b"".join(z.compress(zeros) for _ in range(n_mib)) + z.flush()


def _response(body: bytes, encoding: str) -> bytes:
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Encoding: " + encoding.encode() + b"\r\n\r\n" + body
    )
    return (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
        b"Content-Type: application/http;msgtype=response\r\n"
        b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n" + http + b"\r\n\r\n"
    )


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bombs")
    out = {}
    for coding in ("gzip", "deflate", "br", "zstd"):
        path = root / f"{coding}.warc"
        path.write_bytes(_response(_compress(coding, BOMB // MIB), coding))
        out[coding] = path
    # Nested codings: the outer layers are small, the inner one is the bomb.
    inner = _compress("gzip", BOMB // MIB)
    nested = zlib.compress(brotli.compress(inner, quality=1), 1)
    gz = zlib.compressobj(1, zlib.DEFLATED, 31)
    nested = gz.compress(brotli.compress(inner, quality=1)) + gz.flush()
    path = root / "nested.warc"
    path.write_bytes(_response(nested, "gzip, br, gzip"))
    out["nested"] = path
    return out


_READ_ALL = """
import warckit
with warckit.open({path!r}) as reader:
    record = next(reader)
    stream = record.content_stream(decode_content=True)
    n = nonzero = 0
    while True:
        piece = stream.read({size})
        if not piece:
            break
        n += len(piece)
        nonzero += len(piece) - piece.count(0)
print(n, nonzero)
"""


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd", "nested"])
@pytest.mark.parametrize("size", [4096, 1 << 20])
def test_content_encoding_bomb_streams_in_bounded_memory(bombs: dict[str, Path], coding: str, size: int) -> None:
    out = run_limited(_READ_ALL.format(path=str(bombs[coding]), size=size), limit_mb=LIMIT_MB, timeout=90)
    assert out.split() == [str(BOMB), "0"]


def test_extract_payload_decode_bomb_runs_in_bounded_memory(bombs: dict[str, Path]) -> None:
    code = f"""
import io, sys
from warckit.cli import main

class Count(io.RawIOBase):
    n = 0
    def writable(self):
        return True
    def write(self, b):
        self.n += len(b)
        return len(b)

sink = Count()
wrapper = sys.stdout = io.TextIOWrapper(io.BufferedWriter(sink))
rc = main(["extract", {str(bombs['br'])!r}, "0", "--payload", "--decode"])
wrapper.flush()
sys.stdout = sys.__stdout__
print(rc, sink.n)
"""
    assert run_limited(code, limit_mb=LIMIT_MB, timeout=90).split() == ["0", str(BOMB)]


def test_max_decoded_raises_a_typed_error_naming_source_and_offset(bombs: dict[str, Path]) -> None:
    with warckit.open(bombs["zstd"]) as reader:
        record = next(reader)
        stream = record.content_stream(decode_content=True, max_decoded=10 * MIB)
        got = 0
        with pytest.raises(DecompressionBombError) as info:
            while piece := stream.read(1 << 16):
                got += len(piece)
    assert got <= 10 * MIB
    assert info.value.offset == 0 and info.value.source is not None and "zstd.warc" in info.value.source
    assert "10485760" in str(info.value)


def test_max_decoded_counts_the_outermost_decoded_bytes() -> None:
    body = zlib.compress(b"a" * 5000)
    record_bytes = _response(body, "deflate")
    with warckit.open(io.BytesIO(record_bytes)) as reader:
        record = next(reader)
        assert record.content_stream(decode_content=True, max_decoded=5000).read() == b"a" * 5000
    with warckit.open(io.BytesIO(record_bytes)) as reader:
        record = next(reader)
        with pytest.raises(DecompressionBombError):
            record.content_stream(decode_content=True, max_decoded=4999).read()


# --- warc-zstd --------------------------------------------------------------------------


def _zstd_record_frame(n_mib: int) -> bytes:
    head = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:2>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Length: " + str(n_mib * MIB).encode() + b"\r\n\r\n"
    )
    z = zstandard.ZstdCompressor(level=1).compressobj()
    zeros = bytes(MIB)
    return z.compress(head) + b"".join(z.compress(zeros) for _ in range(n_mib)) + z.compress(b"\r\n\r\n") + z.flush()


def _skippable(payload: bytes, declared: int | None = None) -> bytes:
    size = len(payload) if declared is None else declared
    return b"\x5d\x2a\x4d\x18" + size.to_bytes(4, "little") + payload


_ITERATE = """
import warckit
with warckit.open({path!r}) as reader:
    rows = [(r.offset, r.length, r.content_length) for r in reader]
print(rows)
"""


def test_zstd_record_frame_bomb_iterates_in_bounded_memory(tmp_path: Path) -> None:
    frame = _zstd_record_frame(BOMB // MIB)
    path = tmp_path / "bomb.warc.zst"
    path.write_bytes(frame + _zstd_record_frame(1))
    out = run_limited(_ITERATE.format(path=str(path)), limit_mb=LIMIT_MB, timeout=90)
    assert out.strip() == str([(0, len(frame), BOMB), (len(frame), path.stat().st_size - len(frame), MIB)])


def test_zstd_dictionary_frame_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    z = zstandard.ZstdCompressor(level=1).compressobj()
    zeros = bytes(MIB)
    bomb = b"".join(z.compress(zeros) for _ in range(BOMB // MIB)) + z.flush()
    path = tmp_path / "dict-bomb.warc.zst"
    path.write_bytes(_skippable(bomb) + _zstd_record_frame(1))
    code = f"""
import warckit
try:
    with warckit.open({str(path)!r}) as reader:
        list(reader)
except warckit.errors.CompressionError as exc:
    print(type(exc).__name__, exc.offset, exc)
"""
    out = run_limited(code, limit_mb=LIMIT_MB, timeout=90)
    assert out.startswith("CompressionError 0 ") and "more than 16777216 bytes" in out


def test_zstd_dictionary_frame_declaring_4_gib_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "dict-huge.warc.zst"
    path.write_bytes(_skippable(b"\x00" * 64, declared=0xFFFFFFF0) + _zstd_record_frame(1))
    with pytest.raises(warckit.errors.CompressionError) as info, warckit.open(path) as reader:
        list(reader)
    assert info.value.offset == 0 and "larger than 16777216" in str(info.value)


# --- folded header lines ----------------------------------------------------------------


def test_heads_of_255000_folded_lines_check_and_index_in_linear_time(tmp_path: Path) -> None:
    """Two 1 MiB heads of 255,000 continuation lines: quadratic joining took ~19 s a head
    (compiled and pure); linear, both commands take about a second (pure ~2.5 s)."""
    path = tmp_path / "folded.warc"
    path.write_bytes(b"".join(
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\nX-Folded: a\r\n" % (i, i)
        + b" b\r\n" * 255_000 + b"Content-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
        for i in range(2)
    ))
    code = f"""
import io, sys
from warckit.cli import main
sink = io.BytesIO()
sys.stdout = io.TextIOWrapper(sink, write_through=True)
rc_check = main(["check", {str(path)!r}])
rc_index = main(["index", {str(path)!r}])
sys.stdout.flush()
lines = sink.getvalue().decode().splitlines()
sys.stdout = sys.__stdout__
print(rc_check, rc_index, sum(1 for line in lines if "example.com" in line))
"""
    out = run_limited(code, limit_mb=LIMIT_MB, timeout=30)
    rc_check, rc_index, n = out.split()
    assert rc_index == "0" and n == "2" and rc_check in ("0", "1")


def test_large_incompressible_zstd_record_streams_without_buffering_its_frame(tmp_path: Path) -> None:
    """A 96 MiB record that zstd cannot shrink: its frame is walked block by block, never held whole."""
    import os

    body = os.urandom(96 * MIB)
    head = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:3>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    frame = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(head + body + b"\r\n\r\n")
    path = tmp_path / "big.warc.zst"
    path.write_bytes(frame + _zstd_record_frame(1))
    code = f"""
import hashlib, warckit
with warckit.open({str(path)!r}) as reader:
    rows = []
    for r in reader:
        h = hashlib.sha256()
        s = r.raw_stream()
        while piece := s.read(1 << 20):
            h.update(piece)
        rows.append((r.offset, r.content_length, h.hexdigest()[:16]))
print(rows)
"""
    import hashlib

    out = run_limited(code, limit_mb=LIMIT_MB, timeout=90)
    want = [(0, len(body), hashlib.sha256(body).hexdigest()[:16]),
            (len(frame), MIB, hashlib.sha256(bytes(MIB)).hexdigest()[:16])]
    assert out.strip() == str(want)
