"""warckit query on a sorted plain index at a URL: a binary search by ranged requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from remote_files import local
from remote_servers import RangeServer

from warckit.cdx import Query, run_query
from warckit.cdx.query import Index
from warckit.cli import main
from warckit.errors import UnsortedIndexError


@pytest.fixture(scope="module")
def indexes(served: Path) -> Path:
    """A sorted CDXJ of a corpus WARC (made once) and the same lines unsorted."""
    cdxj = served / "iana.cdxj"
    if not cdxj.exists():
        assert main(["index", "--sort", "-f", "cdxj", "-o", str(cdxj), str(local(served, "iana.warc.gz"))]) == 0
        lines = cdxj.read_bytes().splitlines(keepends=True)
        (served / "unsorted.cdxj").write_bytes(b"".join(lines[::-1]))
    return cdxj


def test_query_a_remote_index_as_the_local_one(http: RangeServer, indexes: Path, capsysbinary: Any) -> None:
    def run(index: str, *argv: str) -> tuple[int, bytes]:
        code = main(["query", index, *argv])
        return code, capsysbinary.readouterr()[0]

    url = http.url(indexes.name)
    for argv in (["http://www.iana.org/"], ["--match", "prefix", "http://www.iana.org/_css/"],
                 ["--json", "http://www.iana.org/_img/bookmark_icon.ico"]):
        remote = run(url, *argv)
        assert remote == run(str(indexes), *argv) and remote[0] == 0 and remote[1]
    assert run(url, "http://nowhere.example/") == (1, b"")


def test_a_remote_index_is_searched_not_downloaded(http: RangeServer, indexes: Path) -> None:
    big = indexes.parent / "big.cdxj"
    if not big.exists():  # past the size a URL is read whole to check its order
        lines = indexes.read_bytes().splitlines(keepends=True)
        pad = [b"ba,example)/%06d 20200101000000 {}\n" % i for i in range(160000)]
        big.write_bytes(b"".join(sorted(lines + pad)))
    assert big.stat().st_size > 1 << 20
    http.reset_counts()
    found = list(run_query([Index(http.url(big.name))], Query("http://www.iana.org/")))
    assert [e.fields["url"] for e in found] == ["http://www.iana.org/"]
    # A binary search: a bounded number of ranges (64 KiB each), whatever the size.
    assert http.sent < big.stat().st_size / 4 and len(http.ranges) <= 30, (http.sent, http.ranges)


def test_an_unsorted_remote_index_is_refused(http: RangeServer, indexes: Path) -> None:
    with pytest.raises(UnsortedIndexError, match="not sorted"):
        list(run_query([Index(http.url("unsorted.cdxj"))], Query("http://www.iana.org/")))


def test_merge_takes_remote_indexes(http: RangeServer, indexes: Path, tmp_path: Path) -> None:
    local_out, remote_out = tmp_path / "local.cdxj", tmp_path / "remote.cdxj"
    unsorted = indexes.parent / "unsorted.cdxj"
    assert main(["merge", "--unsorted", "-o", str(local_out), str(indexes), str(unsorted)]) == 0
    assert main(["merge", "--unsorted", "-o", str(remote_out), http.url(indexes.name),
                 http.url(unsorted.name)]) == 0
    assert remote_out.read_bytes() == local_out.read_bytes()
    assert local_out.read_bytes().count(b"\n") == 2 * indexes.read_bytes().count(b"\n")
    # Presorted merging refuses the unsorted one at a URL as it does locally.
    assert main(["merge", "-o", str(tmp_path / "x"), http.url(indexes.name), http.url(unsorted.name)]) == 1
