"""A WACZ over HTTP and S3: read, listed, checked, indexed and queried by ranged requests
(end of central directory -> directory -> index -> record), never downloaded whole."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from remote_files import local
from remote_servers import CountingS3, RangeServer

import warckit
from warckit.cdx import Query, run_query
from warckit.cli import main
from warckit.wacz import WaczIndex, create_wacz


@pytest.fixture(scope="module")
def package(served: Path) -> Path:
    """A WACZ of two corpus WARCs in the served directory (ZipNum index, as large sets get)."""
    out = served / "two.wacz"
    if not out.exists():
        create_wacz([local(served, "iana.warc.gz"), local(served, "cc.warc.gz")], out,
                    plain_max_lines=10)
    return out


def _records(source: Any, **options: Any) -> list[tuple[object, ...]]:
    with warckit.open(source, **options) as reader:
        return [(r.offset, r.type, r.target_uri, r.payload_stream().read()) for r in reader]


def test_reading_a_remote_wacz_gives_the_local_records(http: RangeServer, package: Path) -> None:
    records = _records(http.url(package.name))
    assert records == _records(package)
    assert len(records) > 40


def test_query_and_one_record_move_a_small_part_of_the_package(http: RangeServer, package: Path) -> None:
    with WaczIndex(package) as index:
        entry = next(run_query([index], Query("http://www.iana.org/_css/2013.1/screen.css")))
        with index.record(entry) as record:
            expected = record.payload_stream().read()
    http.reset_counts()
    with WaczIndex(http.url(package.name)) as index:
        entry = next(run_query([index], Query("http://www.iana.org/_css/2013.1/screen.css")))
        with index.record(entry) as record:
            assert record.payload_stream().read() == expected
    size = package.stat().st_size
    assert http.sent < size / 4, (http.sent, size, http.ranges)
    assert http.gets <= 12, http.ranges


def test_cli_on_a_remote_wacz(http: RangeServer, package: Path, capsysbinary: Any) -> None:
    url = http.url(package.name)

    def run(*argv: str) -> tuple[int, bytes]:
        code = main(list(argv))
        return code, capsysbinary.readouterr()[0]

    code, remote = run("ls", url)
    assert code == 0 and remote.replace(url.encode(), str(package).encode()) == run("ls", str(package))[1]
    code, remote = run("index", "-f", "cdxj", url)
    assert (code, remote) == run("index", "-f", "cdxj", str(package))
    code, remote = run("check", url)
    assert code == 0 and remote.count(b"\n") == run("check", str(package))[1].count(b"\n")
    code, remote = run("query", url, "http://www.iana.org/")
    assert code == 0 and remote and remote == run("query", str(package), "http://www.iana.org/")[1]


def test_a_wacz_on_s3(s3: CountingS3, package: Path) -> None:
    s3.put("bucket", {package.name: package})
    url = f"s3://bucket/{package.name}"
    assert _records(url, storage_options=s3.storage_options) == _records(package)
    with WaczIndex(url, storage_options=s3.storage_options) as index:
        entry = next(run_query([index], Query("http://www.iana.org/")))
        with index.record(entry) as record:
            assert record.target_uri == "http://www.iana.org/"


def test_create_a_wacz_from_warcs_at_urls(http: RangeServer, served: Path, tmp_path: Path) -> None:
    names = ["iana.warc.gz", "cc.warc.gz"]
    local_out, remote_out = tmp_path / "local.wacz", tmp_path / "remote.wacz"
    create_wacz([local(served, n) for n in names], local_out, titles=True)
    create_wacz([http.url(n) for n in names], remote_out, titles=True)
    assert _records(remote_out) == _records(local_out)
    with zipfile.ZipFile(local_out) as a, zipfile.ZipFile(remote_out) as b:
        for name in ("archive/iana.warc.gz", "archive/cc.warc.gz", "indexes/index.cdx",
                     "pages/pages.jsonl"):
            assert a.read(name) == b.read(name)


def test_cli_creates_and_validates_at_urls(http: RangeServer, served: Path, tmp_path: Path) -> None:
    local(served, "iana.warc.gz")  # (skips without the corpus)
    out = tmp_path / "cli.wacz"
    assert main(["wacz", "create", "-o", str(out), http.url("iana.warc.gz")]) == 0
    (served / "cli.wacz").write_bytes(out.read_bytes())
    assert main(["wacz", "validate", http.url("cli.wacz")]) == 0
    damaged = bytearray(out.read_bytes())
    damaged[2000] ^= 0xFF  # inside archive/iana.warc.gz: its hash no longer holds
    (served / "damaged.wacz").write_bytes(bytes(damaged))
    assert main(["wacz", "validate", http.url("damaged.wacz")]) == 1
