"""read_warcs and the Parquet index against the one-machine row API."""

from __future__ import annotations

import shutil
from datetime import timezone
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import ROOT, corpus_path

from warckit.columnar.rows import cdxj_line, iter_rows, rows_to_table
from warckit.columnar.schema import COLUMNS, arrow_schema
from warckit.columnar.write import write_parquet

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'warckit[spark]')")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

FILES = ["pywb/iana.warc.gz", "pywb/example.warc.gz", "pywb/dupes.warc.gz", "warcio/post-test.warc.gz",
         "jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("pq-inputs")
    out = []
    for name in FILES:
        shutil.copyfile(corpus_path(name), root / Path(name).name)
        out.append(root / Path(name).name)
    shutil.copyfile(ROOT / "examples" / "sample.warc.gz", root / "sample.warc.gz")
    out.append(root / "sample.warc.gz")
    # A robots.txt and a 404, so that three subsets exist.
    import warckit

    with warckit.WarcWriter(root / "gen", prefix="subsets", fsync=False) as writer:
        writer.response("https://example.org/robots.txt", b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n",
                        b"User-agent: *\n", date="2024-03-01T00:00:00Z")
        writer.response("https://example.org/gone", b"HTTP/1.1 404 Not Found\r\n\r\n", b"", date="2024-03-01T00:00:01Z")
    out.extend(Path(f) for f in writer.files)
    return out


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple("" if row[c] is None else str(row[c]) for c in COLUMNS)


def _utc(row: dict[str, Any]) -> dict[str, Any]:
    """*row* with Spark's naive timestamp (in the session's time zone, UTC here) made aware."""
    if row["fetch_time"] is not None:
        row["fetch_time"] = row["fetch_time"].replace(tzinfo=timezone.utc)
    return row


def _one_machine(files: list[Path]) -> list[dict[str, Any]]:
    table = rows_to_table(row for f in files for row in iter_rows(str(f)))
    return sorted(table.to_pylist(), key=_key)


def test_read_warcs_rows_equal_the_row_api(spark: Any, files: list[Path]) -> None:
    from warckit.spark import read_warcs

    df = read_warcs(spark, [str(f) for f in files])
    assert df.columns == list(COLUMNS)
    assert df.rdd.getNumPartitions() == len(files)  # one file per task
    got = sorted((_utc(r.asDict()) for r in df.collect()), key=_key)
    expected = _one_machine(files)
    assert len(got) == len(expected) > 200
    diff = {k for g, e in zip(got, expected) for k in COLUMNS if g[k] != e[k]}
    assert diff == set(), [(g[k], e[k]) for g, e in zip(got, expected) for k in diff if g[k] != e[k]][:5]
    assert got == expected


def test_read_warcs_payload_and_error_rows(spark: Any, files: list[Path], tmp_path: Path) -> None:
    from warckit.spark import read_warcs

    missing = str(tmp_path / "missing.warc.gz")
    df = read_warcs(spark, [str(files[1]), missing], with_payload=True, max_payload=64, with_errors=True)
    rows = df.collect()
    errors = [r for r in rows if r["_error"] is not None]
    assert [(r["_input"], r["_error"], r["url"]) for r in errors] == [(missing, "FileNotFoundError", None)]
    data = [r for r in rows if r["_error"] is None]
    expected = list(iter_rows(str(files[1]), with_payload=True, max_payload=64))
    assert [(bytes(r["payload"]) if r["payload"] is not None else None, r["payload_truncated"]) for r in data] == [
        (e["payload"], e["payload_truncated"]) for e in expected]
    assert any(r["payload_truncated"] for r in data)


def test_parquet_index_equals_the_one_machine_rows(spark: Any, files: list[Path], tmp_path: Path) -> None:
    from warckit.spark import index_warcs

    out = tmp_path / "pq"
    summary = index_warcs(spark, [str(f) for f in files], str(out), format="parquet", shards=2)
    assert summary.failed == [] and summary.files_done == len(files)
    expected = _one_machine(files)
    assert summary.records == len(expected)
    # Hive partitions crawl=…/subset=… (no crawl given: the default name).
    dirs = sorted({str(Path(s).parent) for s in summary.shards})
    assert dirs == ["crawl=unnamed/subset=crawldiagnostics",
                    "crawl=unnamed/subset=robotstxt",
                    "crawl=unnamed/subset=warc"]
    for shard in summary.shards:
        meta = pq.ParquetFile(out / shard)
        rows = meta.read().to_pylist()
        lines = [cdxj_line(r) for r in rows]
        assert lines == sorted(lines)  # each file in CDXJ-line order (so by url_surtkey), as write_parquet's
        column = meta.metadata.row_group(0).column(0)
        assert column.compression == "ZSTD"
        schema = meta.schema_arrow
        want = arrow_schema(partitions=False)
        assert [(f.name, f.type) for f in schema] == [(f.name, f.type) for f in want]  # int16, timestamp[us, UTC]
        assert "INT96" not in str(meta.schema)
    # Globally sorted: within a partition directory, part numbers follow the key ranges.
    warc = sorted(s for s in summary.shards if "subset=warc" in s)
    firsts = [pq.read_table(out / s, columns=["url_surtkey"]).column(0).to_pylist() for s in warc]
    assert len(firsts) == 2 and firsts[0][-1] <= firsts[1][0]
    got = _dataset_rows(out)
    assert sorted(got, key=_key) == expected
    # The one-machine writer: the same rows, the same directories, the same file schema.
    write_parquet([str(f) for f in files], tmp_path / "one")
    assert sorted(_dataset_rows(tmp_path / "one"), key=_key) == sorted(got, key=_key)
    one_files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.parquet"))
    assert sorted({str(p.parent) for p in one_files}) == dirs
    assert [(f.name, f.type) for f in pq.ParquetFile(tmp_path / "one" / one_files[0]).schema_arrow] == \
        [(f.name, f.type) for f in pq.ParquetFile(out / summary.shards[0]).schema_arrow]


def _dataset_rows(root: Path) -> list[dict[str, Any]]:
    table = ds.dataset(root, format="parquet", partitioning=ds.partitioning(
        pa.schema([("crawl", pa.string()), ("subset", pa.string())]), flavor="hive")).to_table()
    got = []
    for row in table.to_pylist():
        got.append({c: row[c] for c in COLUMNS})
    return got


def test_manifest_names_common_crawl_layout_and_fetch_back(spark: Any, files: list[Path], tmp_path: Path) -> None:
    from warckit.spark import fetch_records, index_warcs, read_warcs

    entries = ["crawl-data/CC-MAIN-2024-10/segments/1700000000.1/warc/a.warc.gz",
               "crawl-data/CC-MAIN-2024-10/segments/1700000000.2/crawldiagnostics/b.warc.gz"]
    for entry, src in zip(entries, files[:2]):
        (tmp_path / entry).parent.mkdir(parents=True)
        shutil.copyfile(src, tmp_path / entry)
    (tmp_path / "warc.paths").write_text("\n".join(entries) + "\n")
    df = read_warcs(spark, [], manifest=str(tmp_path / "warc.paths"), base_url=str(tmp_path), manifest_names=True)
    rows = df.select("warc_filename", "crawl", "warc_segment", "subset", "warc_record_offset",
                     "warc_record_length", "content_digest").collect()
    expected = [(entries[0], "CC-MAIN-2024-10", "1700000000.1", "warc")] * len(list(iter_rows(str(files[0])))) + \
        [(entries[1], "CC-MAIN-2024-10", "1700000000.2", "crawldiagnostics")] * len(list(iter_rows(str(files[1]))))
    assert sorted(tuple(r)[:4] for r in rows) == sorted(expected)
    # The names are what fetch_records joins to the base: every record comes back.
    fetched = fetch_records(df.select("warc_filename", "warc_record_offset", "warc_record_length"),
                            prefix=str(tmp_path), with_payload=False).collect()
    assert len(fetched) == len(rows) and all(r.error is None for r in fetched)
    # The CDXJ index names the files the same way.
    summary = index_warcs(spark, [], str(tmp_path / "out"), manifest=str(tmp_path / "warc.paths"),
                          base_url=str(tmp_path), manifest_names=True)
    import json

    names = {json.loads(line.split(b" ", 2)[2])["filename"]
             for line in (tmp_path / "out" / "part-00000.cdxj").read_bytes().splitlines()}
    assert summary.failed == [] and names == set(entries)
