"""Input expansion and the multi-shard ZipNum writer: no Spark needed (these always run)."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
from pathlib import Path

import child
import pytest
from corpus_paths import ROOT

from warckit.cdx.zipnum import ZipNumIndex, write_zipnum_blocks, write_zipnum_summary
from warckit.errors import ParseError, UsageError
from warckit.spark.inputs import expand_inputs, join_base, read_manifest


def test_import_warckit_spark_does_not_import_pyspark() -> None:
    code = "import warckit.spark, warckit.spark.__main__\nassert 'pyspark' not in sys.modules, 'pyspark imported'\n"
    subprocess.run(child.python(code), env=child.env(), check=True)


def test_paths_directories_globs_and_order(tmp_path: Path) -> None:
    for name in ("b.warc.gz", "a.warc", "c.arc.gz", "notes.txt", "sub/d.WARC.GZ"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    missing = tmp_path / "missing.warc.gz"
    got = expand_inputs([str(tmp_path / "*.warc*"), str(tmp_path), str(missing), "https://h/x.warc.gz"])
    assert got == [str(tmp_path / "a.warc"), str(tmp_path / "b.warc.gz"), str(tmp_path / "c.arc.gz"),
                   str(tmp_path / "sub" / "d.WARC.GZ"), str(missing), "https://h/x.warc.gz"]
    rel = os.path.relpath(tmp_path / "a.warc")
    assert expand_inputs(rel) == [str(tmp_path / "a.warc")]  # absolute: executors run elsewhere
    with pytest.raises(UsageError, match="no file matches"):
        expand_inputs(str(tmp_path / "*.nothing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no WARC/ARC files"):
        expand_inputs(str(tmp_path / "empty"))
    with pytest.raises(UsageError, match="no input files"):
        expand_inputs([])


def test_url_glob_through_fsspec() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    for name in ("x/1.warc.gz", "x/2.warc.gz", "x/3.txt"):
        fs.pipe(f"/{name}", b"")
    try:
        assert expand_inputs("memory://x/*.warc.gz") == ["memory:///x/1.warc.gz", "memory:///x/2.warc.gz"]
    finally:
        fs.rm("/x", recursive=True)


def test_manifest_plain_and_gzip_with_base(tmp_path: Path) -> None:
    text = "# Common Crawl style\ncrawl-data/A/x.warc.gz\n\n/abs/y.warc.gz\ns3://b/z.warc.gz\n"
    (tmp_path / "m.txt").write_text(text)
    (tmp_path / "m.paths.gz").write_bytes(gzip.compress(text.encode()))
    base = "https://data.commoncrawl.org/"
    expected = [base + "crawl-data/A/x.warc.gz", "/abs/y.warc.gz", "s3://b/z.warc.gz"]
    assert read_manifest(str(tmp_path / "m.txt"), base=base) == expected
    assert read_manifest(str(tmp_path / "m.paths.gz"), base=base) == expected
    assert join_base("x.warc.gz", "s3://bucket/prefix") == "s3://bucket/prefix/x.warc.gz"
    assert expand_inputs(manifest=str(tmp_path / "m.txt"), base_url=str(tmp_path))[0] == \
        str(tmp_path / "crawl-data/A/x.warc.gz")
    with pytest.raises(UsageError, match="cannot be read"):
        read_manifest(str(tmp_path / "absent.txt"))
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UsageError, match="cannot be read"):
        read_manifest(str(tmp_path / "bin.txt"))


def _lines(n: int, prefix: str) -> list[bytes]:
    return [f"{prefix}{i:04d} 2024010100{i % 60:04d} {{}}\n".encode() for i in range(n)]


def test_zipnum_shards_and_summary_read_back(tmp_path: Path) -> None:
    parts = [_lines(25, "com,a)/"), _lines(7, "com,b)/"), _lines(30, "org,c)/")]
    shards = []
    for n, lines in enumerate(parts):
        name = f"part-{n:05d}.cdx.gz"
        with open(tmp_path / name, "wb") as out:
            blocks = write_zipnum_blocks(lines, out, block_lines=10)
        assert [k for k, _o, _l in blocks] == [lines[i].rsplit(b" ", 1)[0] for i in range(0, len(lines), 10)]
        shards.append((name, name, blocks))
    idx, loc = io.BytesIO(), io.BytesIO()
    assert write_zipnum_summary(shards, idx, loc) == 3 + 1 + 3
    (tmp_path / "index.idx").write_bytes(idx.getvalue())
    (tmp_path / "index.loc").write_bytes(loc.getvalue())
    entries = idx.getvalue().decode().splitlines()
    assert [e.split("\t")[1] for e in entries] == ["part-00000.cdx.gz"] * 3 + ["part-00001.cdx.gz"] + \
        ["part-00002.cdx.gz"] * 3
    assert [e.split("\t")[4] for e in entries] == [str(i) for i in range(1, 8)]  # numbered across shards
    reader = ZipNumIndex(tmp_path / "index.idx")
    assert list(reader.iter_from(b"")) == [line for lines in parts for line in lines]
    assert list(reader.iter_from(b"com,b)/0003")) == parts[1][3:] + parts[2]
    with pytest.raises(ParseError, match="out of order"):
        write_zipnum_summary([shards[1], shards[0]], io.BytesIO(), io.BytesIO())
    with pytest.raises(ParseError, match="not sorted"):
        write_zipnum_blocks([b"b 1 {}\n", b"a 1 {}\n"], io.BytesIO())


def test_cli_usage_errors_need_no_spark(tmp_path: Path) -> None:
    run = child.python("from warckit.spark.__main__ import main\nsys.exit(main(sys.argv[1:]))")
    sample = str(ROOT / "examples" / "sample.warc.gz")
    for args, message in ((["index", "-o", str(tmp_path)], b"give at least one INPUT"),
                          (["index", sample], b"the following arguments are required: -o/--output"),
                          (["index", "-o", str(tmp_path / "o"), "--storage-option", "novalue", sample],
                           b"--storage-option must be KEY=VALUE"),
                          (["nope"], b"invalid choice")):
        result = subprocess.run([*run, *args], env=child.env(), capture_output=True, check=False)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and b"Traceback" not in result.stderr
