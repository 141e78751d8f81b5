"""recompress: one member per record, records byte for byte, over the whole corpus."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
import zstandard
from convert_helpers import assert_valid
from corpus_paths import CORPUS, corpus_path

import warckit
from warckit.cli import main
from warckit.errors import ParseError, UsageError
from warckit.tools.recompress import recompress


def _archives() -> list[str]:
    if not CORPUS.is_dir():
        return []
    out = []
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and (".warc" in p.name or ".arc" in p.name) and not p.name.endswith(
                (".cdx", ".lz4")):
            out.append(str(p.relative_to(CORPUS)))
    return out


def _stored(path: Path) -> bytes:
    """The records as warckit reads them (leniently), each written back as stored."""
    buf = io.BytesIO()
    for r in warckit.open(path, lenient=True):
        r.write_to(buf)
    return buf.getvalue()


def _members(data: bytes) -> int:
    n, pos = 0, 0
    while pos < len(data):
        d = __import__("zlib").decompressobj(31)
        d.decompress(data[pos:])
        pos = len(data) - len(d.unused_data)
        n += 1
    return n


@pytest.mark.parametrize("name", _archives())
def test_corpus_file(name: str, tmp_path: Path) -> None:
    src = corpus_path(name)
    issues: list[object] = []
    out = tmp_path / "out.gz"
    stats = recompress(src, out, lenient=True, on_warning=issues.append)
    data = out.read_bytes()
    # The records, byte for byte; one gzip member per record.
    assert gzip.decompress(data) == _stored(src) if stats.records else data == b""
    assert _members(data) == stats.records
    # Offsets and lengths are exact random-access positions.
    assert [(r.offset, r.length) for r in warckit.open(out, lenient=True)] == stats.members
    if not issues:  # an undamaged file: the whole decompressed stream is unchanged
        raw = src.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        elif raw[:4] in (b"\x28\xb5\x2f\xfd", b"\x5d\x2a\x4d\x18"):
            pytest.skip("zstd input")
        assert gzip.decompress(data) == raw


def test_whole_file_gzip_becomes_readable_by_warcio(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    src = corpus_path("warcio/example-bad-non-chunked.warc.gz")
    with open(src, "rb") as f, pytest.raises(ArchiveLoadFailed):
        for _ in ArchiveIterator(f):
            pass
    out = tmp_path / "fixed.warc.gz"
    stats = recompress(src, out)
    assert stats.records == 6
    with open(out, "rb") as f:
        assert [r.rec_type for r in ArchiveIterator(f)] == [
            "warcinfo", "warcinfo", "response", "request", "revisit", "request"]
    assert_valid(recompress(corpus_path("warcio/example.warc"), tmp_path / "ok.warc.gz") and
                 tmp_path / "ok.warc.gz")


def test_zstd_frames(tmp_path: Path) -> None:
    src = corpus_path("warc-specifications/hello-world.warc")
    out = tmp_path / "hello.warc.zst"
    stats = recompress(src, out, compression="zstd")
    assert stats.records == 6
    data = out.read_bytes()
    frames = []
    for offset, length in stats.members:
        frame = data[offset : offset + length]
        params = zstandard.get_frame_parameters(frame)
        assert params.content_size > 0 and params.has_checksum
        frames.append(zstandard.ZstdDecompressor().decompress(frame))
    assert b"".join(frames) == src.read_bytes()
    assert [r.type for r in warckit.open(out)] == [
        "warcinfo", "request", "response", "metadata", "resource", "resource"]


def test_arc_input_and_uncompressed_output(tmp_path: Path) -> None:
    src = corpus_path("warcio/example.arc.gz")
    stats = recompress(src, tmp_path / "example.arc", compression="none")
    assert stats.format == "arc" and stats.records == 2
    assert (tmp_path / "example.arc").read_bytes() == gzip.decompress(src.read_bytes())


def test_refusals(tmp_path: Path) -> None:
    src = corpus_path("warcio/example.warc")
    out = tmp_path / "o.warc.gz"
    out.write_bytes(b"keep")
    with pytest.raises(UsageError, match="exists"):
        recompress(src, out)
    assert out.read_bytes() == b"keep"
    with pytest.raises(ParseError):
        recompress(corpus_path("warcio/example-trunc.warc"), tmp_path / "t.gz")
    assert list(tmp_path.iterdir()) == [out]  # no partial output left behind


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = str(corpus_path("warcio/example-bad.warc.gz.bad"))
    out = str(tmp_path / "x.warc.gz")
    assert main(["recompress", src, out]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 6 records, 1950 -> ")
    assert main(["recompress", src, out]) == 2
    assert main(["recompress", src, out, "--force", "--compression", "zstd"]) == 0
