"""``warckit index -f parquet``: options, exit statuses, damaged input."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from columnar.columnar_data import generated_warc
from corpus_paths import corpus_path

from warckit.cli import main


def test_index_parquet_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = generated_warc(tmp_path)
    out = tmp_path / "idx"
    assert main(["index", "-f", "parquet", "-o", str(out), "--crawl", "CC-X", "--partition-by", "crawl",
                 "--rows-per-file", "2", "--no-detect", "-j", "1", str(src)]) == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet"))
    assert files == [f"crawl=CC-X/part-0-0000{i}.zstd.parquet" for i in range(2)]
    rows = [r for f in files for r in pq.read_table(out / f).to_pylist()]
    assert len(rows) == 4 and {r["subset"] for r in rows} == {"warc", "crawldiagnostics", "robotstxt"}
    assert all(r["content_mime_detected"] is None for r in rows)
    assert main(["index", "-f", "parquet", "-o", str(out), str(src)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["index", "-f", "parquet", "-o", str(out), "--force", "--partition-by", "none", str(src)]) == 0
    assert [p.name for p in out.iterdir()] == ["part-0-00000.zstd.parquet"]


@pytest.mark.parametrize("args", [[], ["-o", "-"], ["--zipnum", "x"], ["--no-post-append"],
                                  ["--partition-by", "crawl,url"], ["--rows-per-file", "0"]])
def test_index_parquet_usage_errors(tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    src = generated_warc(tmp_path)
    if "-o" not in args:
        args = [*args, "-o", str(tmp_path / "idx")] if args else args
    assert main(["index", "-f", "parquet", *args, str(src)]) == 2
    assert "warckit index: error:" in capsys.readouterr().err


def test_damaged_input_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = str(corpus_path("warcio/example-trunc.warc"))
    assert main(["index", "-f", "parquet", "-o", str(tmp_path / "a"), bad]) == 1
    err = capsys.readouterr().err
    assert "example-trunc.warc" in err and "offset" in err and "Traceback" not in err
    assert not (tmp_path / "a").exists()
    assert main(["index", "-f", "parquet", "--lenient", "-o", str(tmp_path / "b"), bad]) == 0
    err = capsys.readouterr().err
    assert "example-trunc.warc" in err and err.count("\n") >= 1
    assert list((tmp_path / "b").rglob("*.parquet"))
