"""Any :class:`~warckit.cdx.query.Index` is a source: the index inside a WACZ, and an index
that is no file at all (as the writable store is) answer as the CDXJ file of their lines."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from pathlib import Path

import pytest
from cdxapi_fixtures import WARCS, Built, built, ours  # noqa: F401 - built is a fixture

from warckit.cdx.query import Index
from warckit.serve.memento import timemap_response

CASES = [
    [("url", "*.iana.org")],
    [("url", "http://www.iana.org/_js/2013.1/jquery.js"), ("closest", "20140126200900"), ("limit", "3"),
     ("output", "json")],
    [("url", "example.com/*"), ("sort", "reverse"), ("output", "text"), ("fl", "timestamp,status,offset")],
    [("url", "*.iana.org"), ("filter", "~mime:image/"), ("to", "20140126200630"), ("output", "json")],
]


class MemoryIndex(Index):
    """Sorted CDXJ lines held in a list: an Index subclass with no file behind it."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = sorted(lines)
        self.path = "memory"
        self.zipnum = None
        self.format = "cdxj"
        self.declared_sorted = None
        self.key_style = "cdx"

    def iter_prefix(self, prefix: bytes) -> Iterator[bytes]:
        for line in self.lines[bisect.bisect_left(self.lines, prefix):]:
            if not line.startswith(prefix):
                return
            yield line


@pytest.mark.parametrize("case", CASES)
def test_index_subclass_without_file(built: Built, case: list[tuple[str, str]]) -> None:  # noqa: F811
    memory = MemoryIndex(built.cdxj.read_bytes().splitlines(keepends=True))
    body = ours([memory], case)[1]
    assert body and body == ours([built.cdxj], case)[1]


def test_memory_index_stacked_with_a_file(built: Built) -> None:  # noqa: F811
    memory = MemoryIndex(built.cdxj_b.read_bytes().splitlines(keepends=True))
    for case in CASES:
        assert ours([built.cdxj_a, memory], case)[1] == ours([built.cdxj], case)[1]
    url = "http://www.iana.org/_js/2013.1/jquery.js"
    stacked = b"".join(timemap_response([Index(built.cdxj_a), memory], url, base="b", coll="c", replay=None)[1])
    single = b"".join(timemap_response([Index(built.cdxj)], url, base="b", coll="c", replay=None)[1])
    assert stacked == single and stacked.count(b"memento") == 17


def test_wacz_index(built: Built, tmp_path: Path) -> None:  # noqa: F811
    """The compressed index of a WACZ (index.cdx.gz + index.idx)."""
    from warckit.wacz import WaczIndex, create_wacz

    wacz = tmp_path / "c.wacz"
    create_wacz([built.warcs / name for name in WARCS], wacz, plain_max_lines=0)
    with WaczIndex(wacz) as index:
        assert index.index_member == "indexes/index.cdx.gz"
        for case in CASES:
            body = ours([index], case)[1]
            assert body and body == ours([built.cdxj], case)[1]


def test_wacz_plain_index(built: Built, tmp_path: Path) -> None:  # noqa: F811
    """The plain index.cdx of a small WACZ (two scans at once for a domain look-up)."""
    from warckit.wacz import WaczIndex, create_wacz

    wacz = tmp_path / "c.wacz"
    create_wacz([built.warcs / name for name in WARCS], wacz)
    with WaczIndex(wacz) as index:
        assert index.index_member == "indexes/index.cdx"
        for case in CASES:
            assert ours([index], case)[1] == ours([built.cdxj], case)[1]
