"""``warckit ls`` lists every intact record before the error that stops it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from warckit.cli import main


def _record(i: int, body: bytes = b"hello") -> bytes:
    return (
        f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{i}>\r\n"
        f"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body + b"\r\n\r\n"


def _offsets(out: str) -> list[int]:
    return [int(line.split("\t")[0]) for line in out.splitlines()]


@pytest.mark.parametrize("gz", [False, True])
def test_every_intact_record_is_listed_before_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gz: bool
) -> None:
    records = [_record(i) for i in range(3)]
    parts = [gzip.compress(r, mtime=0) for r in records] if gz else records
    offsets = [sum(len(p) for p in parts[:i]) for i in range(3)]
    path = tmp_path / ("t.warc.gz" if gz else "t.warc")
    path.write_bytes(b"".join(parts) + (gzip.compress(b"not a record\r\n") if gz else b"not a record\r\n"))
    assert main(["ls", str(path)]) == 1
    out, err = capsys.readouterr()
    assert _offsets(out) == offsets  # the third record was dropped before
    lengths = [int(line.split("\t")[1]) for line in out.splitlines()]
    assert lengths == [len(p) for p in parts]
    assert f"offset {sum(len(p) for p in parts)}" in err


def test_a_damaged_record_is_not_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [_record(0), _record(1), _record(2, b"x" * 100)]
    path = tmp_path / "t.warc"
    path.write_bytes(b"".join(records)[:-50])  # the last block is cut
    assert main(["ls", str(path)]) == 1
    out, err = capsys.readouterr()
    assert _offsets(out) == [0, len(records[0])]
    assert f"offset {len(records[0]) + len(records[1])}: file ends inside the block" in err
