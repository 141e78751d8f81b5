"""``--archive NAME=URL``: WARCs behind an HTTP server (with Range) or in S3 (moto), served
by ``/warcs`` and ``/record`` exactly as local ones."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("fsspec")

from corpus_paths import CORPUS
from serve_process import Server

from warckit.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "remote"))
from remote_servers import CountingS3, RangeServer

NAMES = {"iana.warc.gz": "pywb/iana.warc.gz", "example.warc": "warcio/example.warc"}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    root = tmp_path_factory.mktemp("remote-warcs")
    for name, rel in NAMES.items():
        shutil.copyfile(CORPUS / rel, root / name)
    assert main(["index", "-f", "cdxj", "--sort", "-o", str(root / "index.cdxj"),
                 *(str(root / n) for n in NAMES)]) == 0
    return root


def _check_served(server: Server, files: Path) -> None:
    data = (files / "iana.warc.gz").read_bytes()
    size = len(data)
    whole = server.get("/web/warcs/iana.warc.gz")
    assert whole.status == 200 and whole.body == data
    head = server.get("/web/warcs/iana.warc.gz", method="HEAD")
    assert head.status == 200 and head.headers["content-length"] == str(size)
    part = server.get("/web/warcs/iana.warc.gz", headers={"Range": "bytes=334-2591"})
    assert part.status == 206 and part.body == data[334:2592]
    assert part.headers["content-range"] == f"bytes 334-2591/{size}"
    assert server.get("/web/warcs/iana.warc.gz",
                      headers={"Range": f"bytes={size}-"}).status == 416
    assert server.get("/web/warcs/missing.warc.gz").status == 404
    assert server.get("/web/record?filename=iana.warc.gz&offset=334").body == data[334:2592]
    assert server.get("/web/record?filename=iana.warc.gz&offset=334&length=2258").body == \
        data[334:2592]
    plain = (files / "example.warc").read_bytes()
    assert server.get("/web/record?filename=example.warc&offset=488").body == plain[488:1197]


@pytest.fixture
def http(files: Path) -> Iterator[RangeServer]:
    with RangeServer(files) as server:
        yield server


def test_archive_at_an_http_prefix(files: Path, http: RangeServer, tmp_path: Path) -> None:
    server = Server([f"web={files / 'index.cdxj'}", "--archive", f"web={http.url('')}"],
                    cwd=tmp_path)
    try:
        _check_served(server, files)
        assert http.gets > 0
        # A remote location that fails is 502, naming it.
        http.status = 500
        failed = server.get("/web/warcs/iana.warc.gz")
        assert failed.status == 502 and http.url("iana.warc.gz") in failed.text, failed
    finally:
        http.status = None
        assert server.stop() == 0


def test_archive_in_s3(files: Path, tmp_path: Path) -> None:
    pytest.importorskip("moto")
    with CountingS3() as s3:
        s3.put("bucket", {n: files / n for n in NAMES})
        options = ["--storage-option", "key=testing", "--storage-option", "secret=testing",
                   "--storage-option", f"client_kwargs.endpoint_url={s3.endpoint}",
                   "--storage-option", "client_kwargs.region_name=us-east-1"]
        for workers in ("1", "2"):  # the options reach worker processes too
            server = Server([f"web={files / 'index.cdxj'}", "--archive", "web=s3://bucket/warcs",
                             "--archive", "web=s3://bucket/", *options, "--workers", workers],
                            cwd=tmp_path)
            try:
                _check_served(server, files)
            finally:
                assert server.stop() == 0
        assert s3.gets > 0
