"""``warckit check -j N``: files checked in several processes give the same output, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_paths import CORPUS

from warckit.check.report import check_files, iter_check_files
from warckit.cli import main


def _files() -> list[str]:
    if not CORPUS.is_dir():
        pytest.skip("corpus not available")
    files = sorted(str(p) for p in CORPUS.rglob("*.warc*") if p.is_file())
    return files[:12]


def test_reports_equal_and_in_order() -> None:
    files = _files()
    sequential = check_files(files)
    parallel = check_files(files, jobs=3)
    assert [r.path for r in parallel] == files
    assert parallel == sequential
    assert any(not r.ok for r in sequential) or any(r.records for r in sequential)


def test_cli_output_is_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    files = _files()
    code = main(["check", "--json", *files])
    one = capsys.readouterr().out
    assert main(["check", "--json", "-j", "2", *files]) == code
    assert capsys.readouterr().out == one
    code = main(["check", "-v", *files])
    one = capsys.readouterr().out
    assert main(["check", "-v", "--jobs", "3", *files]) == code
    assert capsys.readouterr().out == one


def test_missing_file_raises_in_order(tmp_path: Path) -> None:
    files = _files()[:2] + [str(tmp_path / "missing.warc")]
    seen = []
    with pytest.raises(OSError):
        for report in iter_check_files(files, jobs=2):
            seen.append(report.path)
    assert seen == files[:2]
