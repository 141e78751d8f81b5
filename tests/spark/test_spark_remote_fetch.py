"""Remote inputs (a loopback HTTP server honouring Range) and fetch_records."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import ROOT, corpus_path
from remote_servers import RangeServer

import warckit
from warckit.cli import main as warckit_main

NAMES = {"iana.warc.gz": "pywb/iana.warc.gz", "example.warc.gz": "pywb/example.warc.gz",
         "blackbook.arc.gz": "jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("served")
    for name, src in NAMES.items():
        shutil.copyfile(corpus_path(src), root / name)
    shutil.copyfile(ROOT / "examples" / "sample.warc.gz", root / "sample.warc.gz")
    return root


@pytest.fixture
def http(served: Path) -> Iterator[RangeServer]:
    with RangeServer(served) as server:
        yield server


def _cdxj(paths: list[Path], out: Path) -> list[bytes]:
    assert warckit_main(["index", "-f", "cdxj", "--sort", "-o", str(out), *map(str, paths)]) == 0
    return out.read_bytes().splitlines(keepends=True)


def test_remote_inputs_over_http_equal_the_local_index(spark: Any, served: Path, http: RangeServer,
                                                       tmp_path: Path) -> None:
    from warckit.spark import index_warcs

    names = sorted(p.name for p in served.iterdir())
    expected = _cdxj([served / n for n in names], tmp_path / "local.cdxj")
    missing = http.url("no-such.warc.gz")
    summary = index_warcs(spark, [http.url(n) for n in names] + [missing], str(tmp_path / "out"), shards=2)
    got = b"".join(p.read_bytes() for p in sorted((tmp_path / "out").glob("part-*.cdxj"))).splitlines(keepends=True)
    assert got == expected
    assert summary.files_done == len(names)
    assert [(e.input, e.error) for e in summary.failed] == [(missing, "RemoteError")]
    assert summary.failed[0].message.endswith("HTTP 404 Not Found")
    assert http.gets >= len(names)


def _rows(index: list[bytes], served: Path) -> list[tuple[str, int, int, str, str]]:
    """(warc_filename, warc_record_offset, warc_record_length, url, digest) of the
    200-status responses (not revisits) of a CDXJ index."""
    rows = []
    for line in index:
        fields = json.loads(line.split(b" ", 2)[2])
        with warckit.read_record_at(str(served / fields["filename"]), int(fields["offset"])) as record:
            kind = record.type
        if fields.get("status") == "200" and kind == "response":
            rows.append((fields["filename"], int(fields["offset"]), int(fields["length"]), fields["url"],
                         fields["digest"]))
    return rows


def _sha1_b32(data: bytes) -> str:
    return base64.b32encode(hashlib.sha1(data).digest()).decode()


def test_fetch_records_one_ranged_read_each(spark: Any, served: Path, http: RangeServer, tmp_path: Path) -> None:
    from warckit.spark import fetch_records

    index = _cdxj([served / "iana.warc.gz", served / "example.warc.gz"], tmp_path / "i.cdxj")
    rows = _rows(index, served)
    assert len(rows) >= 10
    bad = [("iana.warc.gz", 7, 100, "x", "x"), ("no-such.warc.gz", 0, 10, "x", "x")]
    df = spark.createDataFrame(rows + bad, "warc_filename string, warc_record_offset long, "
                               "warc_record_length long, url string, digest string")
    http.reset_counts()
    fetched = fetch_records(df, prefix=http.url("")).collect()
    assert len(fetched) == len(rows) + 2
    by_key = {(r.warc_filename, r.warc_record_offset): r for r in fetched}
    for name, offset, length, url, digest in rows:
        got = by_key[(name, offset)]
        assert got.error is None and got.record_type == "response" and got.target_uri == url
        assert got.http_status == 200 and got.payload_truncated is False
        assert "sha1:" + _sha1_b32(bytes(got.payload)) == digest  # the payload the digest covers
        with warckit.read_record_at(str(served / name), offset) as record:
            assert bytes(got.payload) == record.payload_stream().read()
            assert [(h.name, h.value) for h in got.http_headers] == list(record.http.headers.fields)
    # One request per good row, for exactly the record's bytes.
    good = {(offset, offset + length) for _n, offset, length, _u, _d in rows}
    assert good <= set(http.ranges)
    assert http.gets == len(rows) + 1  # and one for the bad offset (the missing file gets a 404 on open)
    assert by_key[("iana.warc.gz", 7)].error.startswith("RecordParseError: not a WARC or ARC file")
    assert "(offset 7)" in by_key[("iana.warc.gz", 7)].error
    assert by_key[("no-such.warc.gz", 0)].error.startswith("RemoteError: ")


def test_fetch_records_local_prefix_and_payload_cap(spark: Any, served: Path, tmp_path: Path) -> None:
    from warckit.spark import fetch_records

    rows = _rows(_cdxj([served / "iana.warc.gz"], tmp_path / "i.cdxj"), served)
    df = spark.createDataFrame([r[:3] for r in rows], "warc_filename string, warc_record_offset long, "
                               "warc_record_length long")
    fetched = {r.warc_record_offset: r for r in fetch_records(df, prefix=str(served), max_payload=100).collect()}
    for _name, offset, _length, _url, _digest in rows:
        with warckit.read_record_at(str(served / "iana.warc.gz"), offset) as record:
            payload = record.payload_stream().read()
        got = fetched[offset]
        assert bytes(got.payload) == payload[:100] and got.payload_truncated is (len(payload) > 100)
    assert any(r.payload_truncated for r in fetched.values())
    heads = fetch_records(df, prefix=str(served), with_payload=False).collect()
    assert all(r.payload is None and r.http_status == 200 for r in heads)


def test_s3_glob_manifest_and_fetch_with_storage_options(spark: Any, served: Path, tmp_path: Path) -> None:
    pytest.importorskip("s3fs", reason="s3fs is not installed (pip install 'warckit[remote]')")
    pytest.importorskip("moto", reason="moto is not installed")
    from remote_servers import CountingS3

    from warckit.spark import expand_inputs, fetch_records, index_warcs

    names = ["example.warc.gz", "iana.warc.gz"]
    manifest = tmp_path / "warc.paths"
    manifest.write_text("crawl/" + "\ncrawl/".join(names) + "\n")
    with CountingS3() as s3:
        s3.put("bucket", {**{f"crawl/{n}": served / n for n in names}, "crawl/warc.paths": manifest})
        options = s3.storage_options
        assert expand_inputs("s3://bucket/crawl/*.warc.gz", storage_options=options) == \
            [f"s3://bucket/crawl/{n}" for n in names]
        # The manifest is read on the driver from S3; its relative entries join the base;
        # the executors get the storage options with their tasks.
        summary = index_warcs(spark, [], str(tmp_path / "out"), manifest="s3://bucket/crawl/warc.paths",
                              base_url="s3://bucket/", storage_options=options)
        assert summary.failed == [] and summary.files_done == 2
        expected = _cdxj([served / n for n in names], tmp_path / "local.cdxj")
        assert (tmp_path / "out" / "part-00000.cdxj").read_bytes().splitlines(keepends=True) == expected
        rows = _rows(expected, served)[:5]
        df = spark.createDataFrame([(f"crawl/{r[0]}", r[1], r[2]) for r in rows],
                                   "warc_filename string, warc_record_offset long, warc_record_length long")
        s3.reset_counts()
        fetched = fetch_records(df, prefix="s3://bucket/", storage_options=options).collect()
        assert [r.error for r in fetched] == [None] * len(rows)
        assert ["sha1:" + _sha1_b32(bytes(r.payload)) for r in fetched] == [r[4] for r in rows]
        assert s3.gets == len(rows)  # one ranged GET per record
        assert s3.sent == sum(r[2] for r in rows)  # exactly the records' bytes
