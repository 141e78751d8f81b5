"""The Parquet dataset: schema, Hive directories, per-file order, the CDXJ index's lines, safety."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import child
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from columnar.columnar_data import corpus_files, generated_warc
from corpus_paths import corpus_path

from warckit.cdx.indexer import IndexOptions, index_file
from warckit.columnar import WARCKIT_COLUMNS, cdxj_line
from warckit.columnar.write import write_parquet
from warckit.errors import Issue, ParseError, UsageError


def _inputs(tmp_path: Path) -> list[Path]:
    return [*corpus_files(), generated_warc(tmp_path)]


def _cdxj_lines(paths: list[Path]) -> list[str]:
    return [line for p in paths for line in index_file(p, IndexOptions(format="cdxj"))]


def test_dataset_schema_dirs_order_and_lines(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    out = tmp_path / "idx"
    summary = write_parquet(inputs, out, crawl="CC-MAIN-TEST", rows_per_file=40, detect=False)
    expected = _cdxj_lines(inputs)
    assert summary.rows == len(expected) and summary.inputs == len(inputs)
    dirs = {os.path.dirname(f) for f in summary.files}
    assert dirs == {"crawl=CC-MAIN-TEST/subset=warc", "crawl=CC-MAIN-TEST/subset=crawldiagnostics",
                    "crawl=CC-MAIN-TEST/subset=robotstxt"}
    assert len(summary.files) > len(dirs)  # rows_per_file split the large partition
    schema = pq.read_schema(out / summary.files[0])
    assert schema.field("fetch_status").type == pa.int16()
    assert schema.field("url_port").type == pa.int32()
    assert schema.field("fetch_time").type == pa.timestamp("us", tz="UTC")
    assert schema.field("warc_record_offset").type == pa.int64()
    assert schema.field("warc_record_length").type == pa.int64()
    assert "crawl" not in schema.names and "subset" not in schema.names  # in the directory names
    assert set(WARCKIT_COLUMNS) <= set(schema.names)
    got: list[str] = []
    for name in summary.files:
        table = pq.read_table(out / name)
        assert table.num_rows <= 40
        assert pq.ParquetFile(out / name).metadata.row_group(0).column(0).compression == "ZSTD"
        rows = table.to_pylist()
        lines = [cdxj_line(r) for r in rows]
        keys = [r["url_surtkey"] for r in rows]
        assert lines == sorted(lines) and keys == sorted(keys), name
        got.extend(lines)
    assert sorted(got) == sorted(expected)  # every line of the cdxj index, byte for byte
    table = ds.dataset(out, partitioning="hive").to_table()
    assert set(table.column("crawl").to_pylist()) == {"CC-MAIN-TEST"}
    by_record = {(r["warc_filename"], r["warc_record_offset"]): r for r in table.to_pylist()}
    assert len(by_record) == len(expected)


def test_parallel_and_partition_choices(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    one = write_parquet(inputs, tmp_path / "one", partition_by=(), detect=False)
    two = write_parquet(inputs, tmp_path / "two", partition_by=("subset",), jobs=2, detect=False)
    assert one.rows == two.rows == len(_cdxj_lines(inputs))
    assert all("/" not in f for f in one.files)
    assert {f.split("/")[0] for f in two.files} == {"subset=warc", "subset=crawldiagnostics", "subset=robotstxt"}
    table = pq.read_table(tmp_path / "one" / one.files[0])
    assert {"crawl", "subset"} <= set(table.column_names)
    assert set(table.column("crawl").to_pylist()) == {"unnamed"}  # no crawl given, no crawl-data/ path
    with pytest.raises(UsageError, match="partition columns"):
        write_parquet(inputs, tmp_path / "bad", partition_by=("url",))


def test_existing_directory_and_symlinks(tmp_path: Path) -> None:
    src = generated_warc(tmp_path)
    out = tmp_path / "idx"
    write_parquet([src], out, detect=False)
    before = sorted(p.name for p in out.rglob("*.parquet"))
    with pytest.raises(UsageError, match="not empty"):
        write_parquet([src], out, detect=False)
    assert sorted(p.name for p in out.rglob("*.parquet")) == before
    write_parquet([src], out, detect=False, force=True, partition_by=())
    assert [p.relative_to(out).as_posix() for p in out.rglob("*.parquet")] == ["part-0-00000.zstd.parquet"]
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(UsageError, match="symbolic link"):
        write_parquet([src], link, detect=False, force=True)
    assert list(target.iterdir()) == []
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_damaged_input_strict_and_lenient(tmp_path: Path) -> None:
    bad = corpus_path("warcio/example-trunc.warc")
    with pytest.raises(ParseError) as info:
        write_parquet([bad], tmp_path / "strict", detect=False)
    assert info.value.source is not None and "example-trunc.warc" in str(info.value.source)
    assert info.value.offset is not None
    assert not (tmp_path / "strict").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    issues: list[Issue] = []
    summary = write_parquet([bad], tmp_path / "lenient", detect=False, lenient=True, on_warning=issues.append)
    assert issues and summary.issues == len(issues)
    assert summary.rows == len(list(index_file(bad, IndexOptions(format="cdxj", lenient=True))))


def test_missing_pyarrow_is_a_usage_error(tmp_path: Path) -> None:
    src = generated_warc(tmp_path)
    code = ("sys.modules['pyarrow'] = None\n"
            "from warckit.cli import main\n"
            f"sys.exit(main(['index', '-f', 'parquet', '-o', {str(tmp_path / 'out')!r}, {str(src)!r}]))\n")
    done = subprocess.run(child.python(code), env=child.env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "pip install 'warckit[parquet]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_parallel_damaged_input(tmp_path: Path) -> None:
    good, bad = generated_warc(tmp_path), corpus_path("warcio/example-trunc.warc")
    with pytest.raises(ParseError) as info:
        write_parquet([good, bad], tmp_path / "strict", jobs=2, detect=False)
    assert "example-trunc.warc" in str(info.value) and info.value.offset is not None
    assert not (tmp_path / "strict").exists()
    issues: list[Issue] = []
    summary = write_parquet([good, bad], tmp_path / "lenient", jobs=2, detect=False, lenient=True,
                            on_warning=issues.append)
    assert issues and all(i.source is not None and "example-trunc" in i.source for i in issues)
    assert summary.rows == 4 + len(list(index_file(bad, IndexOptions(format="cdxj", lenient=True))))


def test_wacz_input_gives_the_rows_of_its_warcs(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from warckit.cli import main
    from warckit.wacz import create_wacz

    src = generated_warc(tmp_path)
    package = tmp_path / "pkg.wacz"
    create_wacz([src], package)
    summary = write_parquet([package], tmp_path / "idx", partition_by=(), detect=False)
    rows = pq.read_table(tmp_path / "idx" / summary.files[0]).to_pylist()
    assert main(["index", "-f", "cdxj", "--sort", str(package)]) == 0
    want = capsysbinary.readouterr().out.decode().splitlines()
    assert [cdxj_line(r) for r in rows] == want and len(want) == 4
    assert {r["warc_filename"] for r in rows} == {"generated.warc.gz"}


def test_default_crawl_reads_back_with_pyarrow(tmp_path: Path) -> None:
    """No crawl given: ``crawl=unnamed``, which pyarrow's (and so pandas') plain
    ``read_table(DIR)`` reads (partition values that are all null it cannot)."""
    sample = Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz"
    summary = write_parquet([str(sample)], tmp_path / "idx", detect=False)
    assert [Path(f).parent.as_posix() for f in summary.files] == ["crawl=unnamed/subset=warc"]
    table = pq.read_table(tmp_path / "idx")
    assert table.num_rows == 3
    assert set(table.column("crawl").to_pylist()) == {"unnamed"}
