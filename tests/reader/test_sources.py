"""warckit.io.sources: the one opener of inputs, and the compression table."""

from __future__ import annotations

import gzip
import io
import pathlib
import sys
import types

import pytest

import warckit
from warckit.errors import UsageError
from warckit.io import compression
from warckit.io.sources import open_source
from warckit.read.reader import ArchiveReader, read_record_at

SAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz"


class _Pipe(io.RawIOBase):
    """A readable, non-seekable raw stream without peek (what a pipe looks like)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        n = self._data.readinto(b)
        return n


def test_path_is_opened_owned_and_closed() -> None:
    src = open_source(str(SAMPLE))
    assert (src.name, src.owned, src.seekable) == (str(SAMPLE), True, True)
    assert src.peek(3) == b"\x1f\x8b\x08"
    assert src.file.read(2) == b"\x1f\x8b"  # peek consumed nothing
    src.close()
    assert src.file.closed


def test_pathlike_dash_is_a_file_name(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(b"file")
    with open_source(pathlib.Path("-")) as src:
        assert src.owned and src.file.read() == b"file"


def test_dash_is_stdin_not_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    data = SAMPLE.read_bytes()
    fake = types.SimpleNamespace(buffer=_Pipe(data))
    monkeypatch.setattr(sys, "stdin", fake)
    src = open_source("-")
    assert (src.name, src.owned, src.seekable) == ("<stdin>", False, False)
    assert src.peek(4) == data[:4]  # wrapped in a buffer to look ahead
    src.close()
    assert not fake.buffer.closed


def test_reader_reads_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    data = SAMPLE.read_bytes()
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=_Pipe(data)))
    with warckit.open("-") as reader:
        got = [(r.type, r.offset) for r in reader]
        assert reader.name == "<stdin>"
    with warckit.open(SAMPLE) as reader:
        assert got == [(r.type, r.offset) for r in reader]
    assert len(got) > 3


def test_file_object_is_not_closed_and_keeps_its_name() -> None:
    with open(SAMPLE, "rb") as f:
        with open_source(f) as src:
            assert (src.name, src.owned) == (str(SAMPLE), False)
        assert not f.closed
        src2 = open_source(f, name="other")
        assert src2.name == "other"


def test_text_file_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="text-mode"):
        open_source(io.StringIO("WARC/1.0"))


def test_missing_path_raises_oserror(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_source(tmp_path / "nope.warc")


def test_offset_on_unseekable_input_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot seek"):
        ArchiveReader(_Pipe(SAMPLE.read_bytes()), offset=10)


def test_read_record_at_takes_a_file_object() -> None:
    with warckit.open(SAMPLE) as reader:
        offsets = [(r.offset, r.type) for r in reader]
    off, typ = offsets[2]
    with open(SAMPLE, "rb") as f:
        record = read_record_at(f, off)
        assert (record.offset, record.type) == (off, typ)
        record.close()
        assert not f.closed  # the caller's file stays open


@pytest.mark.parametrize(
    ("head", "name"),
    [
        (gzip.compress(b"x")[:4], "gzip"),
        (b"\x28\xb5\x2f\xfd", "zstd"),
        (b"\x5d\x2a\x4d\x18", "zstd"),  # the warc-zstd dictionary frame first
        (b"\x50\x2a\x4d\x18", "none"),  # another skippable frame is not warc-zstd
        (b"WARC", "none"),
        (b"\x1f", "none"),
    ],
)
def test_sniff_compression(head: bytes, name: str) -> None:
    assert compression.sniff_compression(head) == name


def test_compression_table_values() -> None:
    assert compression.GZIP_MEMBER_MAGIC == gzip.compress(b"")[:3]
    assert compression.ZSTD_DICT_MAGIC == (0x184D2A5D).to_bytes(4, "little")
    assert 0x184D2A5F in compression.ZSTD_SKIPPABLE_FRAMES
    assert 0x184D2A60 not in compression.ZSTD_SKIPPABLE_FRAMES
