"""Fixtures of the remote tests: an HTTP server honouring Range and moto's S3 server,
both real, on loopback, serving copies of corpus files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_paths import CORPUS, ROOT
from remote_servers import CountingS3, RangeServer

#: Files served by both servers: gzip per record, plain WARC, ARC (gzip), a real crawl.
FILES = {
    "sample.warc.gz": ROOT / "examples" / "sample.warc.gz",
    "iana.warc.gz": CORPUS / "pywb" / "iana.warc.gz",
    "wget.warc": CORPUS / "webarchive-commons" / "IAH-urls-wget.warc",
    "cc.warc.gz": CORPUS / "jwarc" / "cc.warc.gz",
    "blackbook.arc.gz": CORPUS / "jwat" / "arc" / "IAH-20080430204825-00000-blackbook.arc.gz",
}


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the served files (the corpus ones when the corpus is there)."""
    root = tmp_path_factory.mktemp("served")
    for name, src in FILES.items():
        if src.exists():
            shutil.copyfile(src, root / name)
    return root


@pytest.fixture
def http(served: Path) -> Iterator[RangeServer]:
    """A fresh RangeServer (switches off, counters at zero) over *served*."""
    with RangeServer(served) as server:
        yield server


@pytest.fixture(scope="session")
def s3_server(served: Path) -> Iterator[CountingS3]:
    with CountingS3() as server:
        server.put("bucket", {p.name: p for p in served.iterdir()})
        yield server


@pytest.fixture
def s3(s3_server: CountingS3) -> CountingS3:
    s3_server.reset_counts()
    return s3_server
