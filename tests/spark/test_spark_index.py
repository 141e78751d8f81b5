"""warckit.spark.index_warcs (CDX flavours) against the one-machine ``warckit index --sort``."""

from __future__ import annotations

import gzip
import json
import logging
import shutil
import subprocess
from pathlib import Path
from typing import Any

import child
import pytest
from corpus_paths import ROOT, corpus_path

import warckit
from warckit import _speedups
from warckit.cdx.query import query
from warckit.cdx.zipnum import ZipNumIndex
from warckit.cli import main as warckit_main

#: Corpus files: gzip per record, plain WARC, ARC, POST pairs, revisits, a Heritrix crawl.
CORPUS = [
    "pywb/example.warc.gz",
    "pywb/dupes.warc.gz",
    "pywb/iana.warc.gz",
    "pywb/example-url-agnostic-revisit.warc.gz",
    "warcio/post-test.warc.gz",
    "warcio/example.arc.gz",
    "webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.warc",
    "jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz",
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The corpus files and two generated ones (one of them a copy of the sample under a
    name with a space and a non-ASCII letter)."""
    root = tmp_path_factory.mktemp("inputs")
    files = []
    for name in CORPUS:
        dst = root / Path(name).name
        shutil.copyfile(corpus_path(name), dst)
        files.append(dst)
    shutil.copyfile(ROOT / "examples" / "sample.warc.gz", root / "sample copy é.warc.gz")
    files.append(root / "sample copy é.warc.gz")
    with warckit.WarcWriter(root / "gen", prefix="generated", fsync=False) as writer:
        for i in range(40):
            writer.response(f"https://host{i % 7}.example.org/page/{i}?q={i * 13}",
                            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", b"<html>%d</html>" % i,
                            date=f"2024-01-0{1 + i % 9}T10:00:{i % 60:02d}Z")
    files.extend(Path(f) for f in writer.files)
    return files


def one_machine(args: list[str], out: Path) -> list[bytes]:
    """Lines of ``warckit index ARGS --sort -o OUT`` (header lines dropped)."""
    assert warckit_main(["index", *args, "--sort", "-o", str(out)]) == 0
    return [line for line in out.read_bytes().splitlines(keepends=True) if not line.startswith((b"!", b" CDX"))]


def shard_lines(output: Path, suffix: str) -> list[bytes]:
    lines: list[bytes] = []
    for shard in sorted(output.glob(f"part-*{suffix}")):
        lines.extend(line for line in shard.read_bytes().splitlines(keepends=True) if not line.startswith(b"!"))
    return lines


def test_executors_import_the_tested_warckit(spark: Any) -> None:
    def where(_: Any) -> Any:
        import warckit as w
        from warckit import _speedups as s

        yield w.__file__, s.IMPLEMENTATION

    seen = set(spark.sparkContext.parallelize(range(2), 2).mapPartitions(where).collect())
    assert seen == {(warckit.__file__, _speedups.IMPLEMENTATION)}


@pytest.mark.parametrize(("fmt", "cli_format", "suffix"), [("cdxj", "cdxj", ".cdxj"), ("new-style", "cdx", ".cdx")])
def test_sorted_shards_equal_one_machine_index(spark: Any, inputs: list[Path], tmp_path: Path,
                                               fmt: str, cli_format: str, suffix: str) -> None:
    from warckit.spark import index_warcs

    expected = one_machine(["-f", cli_format, *map(str, inputs)], tmp_path / "one")
    assert len(expected) > 500
    summary = index_warcs(spark, [str(p) for p in inputs], str(tmp_path / "out"), format=fmt, shards=3)  # type: ignore[arg-type]
    assert summary.failed == [] and summary.files == summary.files_done == len(inputs)
    assert summary.records == len(expected)
    assert summary.shards == [f"part-0000{i}{suffix}" for i in range(3)]
    got = shard_lines(tmp_path / "out", suffix)
    assert got == expected
    counts = [len(shard_lines(tmp_path / "out", f"{i}{suffix}")) for i in range(3)]
    assert all(counts) and sum(counts) == len(expected)  # range partitioning used every shard
    if fmt == "new-style":  # each shard is a sorted index of its own, with the header
        first = (tmp_path / "out" / "part-00001.cdx").read_bytes().split(b"\n", 1)[0]
        assert first == b"!warckit-cdx 1.0 sorted urlkey timestamp url digest type filename offset json"
    assert json.loads((tmp_path / "out" / "_errors" / "errors.jsonl").read_text() or "null") is None


def test_zipnum_read_by_warckit_query_and_pywb(spark: Any, inputs: list[Path], tmp_path: Path) -> None:
    pytest.importorskip("pywb", reason="pywb is not installed")
    from pywb.warcserver.index.query import CDXQuery
    from pywb.warcserver.index.zipnum import ZipNumIndexSource

    from warckit.spark import index_warcs

    expected = one_machine(["-f", "cdxj", *map(str, inputs)], tmp_path / "one.cdxj")
    out = tmp_path / "zn"
    summary = index_warcs(spark, [str(p) for p in inputs], str(out), format="zipnum", shards=3, block_lines=50)
    assert summary.shards == ["part-00000.cdx.gz", "part-00001.cdx.gz", "part-00002.cdx.gz"]
    idx = out / "index.idx"
    loc = (out / "index.loc").read_text().splitlines()
    assert loc == [f"{name}\t{name}" for name in summary.shards]
    entries = idx.read_text().splitlines()
    assert [int(e.split("\t")[4]) for e in entries] == list(range(1, len(entries) + 1))
    assert len(entries) == sum(-(-len(gzip.decompress((out / s).read_bytes()).splitlines()) // 50)
                               for s in summary.shards)
    # Every line, in order, through the secondary index.
    assert list(ZipNumIndex(idx).iter_from(b"")) == expected
    # warckit query and pywb give the same answers as the one-machine plain index.
    urls = sorted({json.loads(line.split(b" ", 2)[2])["url"] for line in expected})
    pywb_source = ZipNumIndexSource(str(idx))
    checked = 0
    for url in urls[:: max(1, len(urls) // 40)]:
        plain = [e.format() for e in query([tmp_path / "one.cdxj"], url, match="exact")]  # type: ignore[list-item]
        if not plain:
            continue  # a POST capture (its key carries the request body) or a non-HTTP URL
        assert [e.format() for e in query([idx], url, match="exact")] == plain  # type: ignore[list-item]
        params = {"url": url, "matchType": "exact", "pageSize": "100000"}
        CDXQuery(params)
        assert [c.to_text().rstrip("\n") for c in pywb_source.load_index(params)] == plain
        checked += 1
    assert checked >= 20
    result = subprocess.run(child.warckit_cli("query", str(idx), "http://www.iana.org/"), env=child.env(),
                            capture_output=True, check=True)
    assert result.stdout.splitlines() == [
        line.rstrip(b"\n") for line in expected if line.startswith(b"org,iana)/ ")]


def _corrupt_copy(src: Path, dst: Path) -> int:
    """*src* (gzip per record) with garbage from its eighth member on; the garbage's offset."""
    data = src.read_bytes()
    starts = [i for i in range(len(data) - 2) if data[i:i + 3] == b"\x1f\x8b\x08"]
    cut = starts[7]
    dst.write_bytes(data[:cut] + b"this is no gzip member " * 40)
    return cut


def test_corrupt_and_missing_inputs_are_reported_not_fatal(spark: Any, inputs: list[Path], tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    from warckit.spark import index_warcs

    caplog.set_level(logging.INFO, logger="warckit.spark")

    bad = tmp_path / "bad.warc.gz"
    cut = _corrupt_copy(corpus_path("pywb/iana.warc.gz"), bad)
    missing = tmp_path / "missing.warc.gz"
    good = [str(p) for p in inputs[:3]]
    summary = index_warcs(spark, [good[0], str(bad), str(missing), *good[1:]], str(tmp_path / "out"), shards=2)
    assert summary.files == 5 and summary.files_done == 3
    # The summary is logged; the accumulators agreed with the output (no warning).
    assert [r.levelname for r in caplog.records] == ["INFO"]
    assert json.loads(caplog.records[0].getMessage().split(": ", 1)[1]) == summary.to_dict()
    failed = {e.input: e for e in summary.failed}
    assert set(failed) == {str(bad), str(missing)}
    assert failed[str(missing)].error == "FileNotFoundError" and failed[str(missing)].offset is None
    assert failed[str(bad)].error == "CompressionError" and failed[str(bad)].offset == cut
    # The one-machine indexer stops at the same place with the same message.
    err = subprocess.run(child.warckit_cli("index", str(bad)), env=child.env(), capture_output=True, check=False)
    assert err.returncode == 1 and f"offset {cut}: {failed[str(bad)].message}".encode() in err.stderr
    # The lines the corrupt file gave before its error are kept: the good files' and those.
    before = [line.encode() + b"\n" for line in _lines_before_error(bad)]
    assert len(before) == 3
    expected = sorted(one_machine(["-f", "cdxj", *good], tmp_path / "good.cdxj") + before)
    assert shard_lines(tmp_path / "out", ".cdxj") == expected
    assert summary.records == len(expected)
    table = [json.loads(line) for line in (tmp_path / "out" / "_errors" / "errors.jsonl").read_text().splitlines()]
    assert sorted(table, key=lambda e: e["input"]) == sorted(
        [e._asdict() for e in summary.failed], key=lambda e: e["input"])
    # Lenient mode recovers past the garbage (the file counts as read, the recovery as an issue).
    lenient = index_warcs(spark, [str(bad)], str(tmp_path / "lenient"), lenient=True)
    assert lenient.failed == [] and lenient.issues >= 1 and lenient.records == len(before)


def _lines_before_error(path: Path) -> list[str]:
    from warckit.cdx.indexer import IndexOptions, index_file

    got: list[str] = []
    with pytest.raises(warckit.ParseError):
        got.extend(index_file(str(path), IndexOptions(format="cdxj")))  # (extend keeps what came first)
    return got


def test_manifest_with_relative_entries_and_base(spark: Any, inputs: list[Path], tmp_path: Path) -> None:
    from warckit.spark import expand_inputs, index_warcs

    base = inputs[0].parent
    manifest = tmp_path / "warc.paths.gz"
    names = [p.name for p in inputs[:4]]
    manifest.write_bytes(gzip.compress(("# a comment\n" + "\n".join(names) + "\n\n").encode()))
    assert expand_inputs(manifest=str(manifest), base_url=str(base)) == [str(base / n) for n in names]
    # The output as a URL: the executors write the shards through fsspec.
    summary = index_warcs(spark, [], f"file://{tmp_path / 'out'}", manifest=str(manifest), base_url=str(base))
    assert summary.files_done == 4 and summary.failed == [] and summary.shards == ["part-00000.cdxj"]
    assert (tmp_path / "out" / "_errors" / "errors.jsonl").read_bytes() == b""
    assert shard_lines(tmp_path / "out", ".cdxj") == one_machine(
        ["-f", "cdxj", *(str(base / n) for n in names)], tmp_path / "one")


def test_cli_exit_status_and_summary(spark: Any, inputs: list[Path], tmp_path: Path) -> None:
    good, missing = str(inputs[0]), str(tmp_path / "nope.warc.gz")
    run = child.python("from warckit.spark.__main__ import main\nsys.exit(main(sys.argv[1:]))")
    # One Spark run (a session takes ~15 s to start): a missing input makes the exit status 1.
    done = subprocess.run([*run, "index", "--master", "local[1]", "-f", "new-style", "-o", str(tmp_path / "a"),
                           "--json", good, missing], env=child.env(), capture_output=True, cwd=tmp_path, check=False)
    assert done.returncode == 1, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["files"] == 2 and summary["files_done"] == 1
    assert summary["records"] == len(one_machine(["-f", "cdx", good], tmp_path / "o"))
    assert [(f["input"], f["error"]) for f in summary["failed"]] == [(missing, "FileNotFoundError")]
    assert f"error: {missing}: FileNotFoundError".encode() in done.stderr and b"Traceback" not in done.stderr
    assert b"[Stage " not in done.stderr  # no progress bars in the report
    assert (tmp_path / "a" / "part-00000.cdx").read_bytes().startswith(b"!warckit-cdx 1.0 sorted")
    # Usage errors (exit 2) come before Spark starts.
    again = subprocess.run([*run, "index", "-o", str(tmp_path / "a"), good], env=child.env(), capture_output=True, check=False)
    assert again.returncode == 2 and b"not empty" in again.stderr and b"Traceback" not in again.stderr
    usage = subprocess.run([*run, "index", "-f", "nope", "-o", "x", good], env=child.env(), capture_output=True, check=False)
    assert usage.returncode == 2 and b"Traceback" not in usage.stderr
    nothing = subprocess.run([*run, "index", "-o", str(tmp_path / "c")], env=child.env(), capture_output=True, check=False)
    assert nothing.returncode == 2 and b"give at least one INPUT" in nothing.stderr
