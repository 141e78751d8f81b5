"""Exit codes of ``warckit dedup build|apply`` on bad input: 1 and a message naming
the source (and the offset, for a damaged archive) for damaged input, 2 for a usage
error, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_paths import corpus_path

from warckit.cli import main

#: Strictly unreadable archives, and the offset where reading stops.
DAMAGED = [("warcio/example-wrong-chunks.warc.gz", 516), ("resiliparse/clipped.warc.gz", 0)]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize(("name", "offset"), DAMAGED)
def test_build_from_damaged_archive_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            name: str, offset: int) -> None:
    src = corpus_path(name)
    code, err = _run(capsys, "dedup", "build", str(tmp_path / "db.sqlite"), "--from", str(src))
    assert code == 1
    assert f"{src}, offset {offset}:" in err


@pytest.mark.parametrize(("name", "offset"), DAMAGED)
def test_apply_to_damaged_archive_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          name: str, offset: int) -> None:
    src = corpus_path(name)
    code, err = _run(capsys, "dedup", "apply", str(src), str(tmp_path / "out"), str(tmp_path / "db.sqlite"))
    assert code == 1
    assert f"{src}, offset {offset}:" in err


def test_build_from_malformed_cdx_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.cdx"
    bad.write_text(" CDX N b a m s k r M S V g\nthis is not a cdx line\n")
    code, err = _run(capsys, "dedup", "build", str(tmp_path / "db.sqlite"), "--from", str(bad))
    assert code == 1
    assert str(bad) in err


def test_build_without_sources_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "dedup", "build", str(tmp_path / "db.sqlite"))
    assert code == 2 and "--from" in err


def test_apply_with_unknown_compression_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = corpus_path("warcio/example.warc.gz")
    code, err = _run(capsys, "dedup", "apply", str(src), str(tmp_path / "out"), str(tmp_path / "db.sqlite"),
                     "--compression", "lz4")
    assert code == 2 and "lz4" in err
    assert not (tmp_path / "out").exists()
