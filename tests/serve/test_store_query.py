"""run_query over a CdxStore answers exactly as over a sorted CDXJ file holding the same lines."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from store_fixtures import HOSTS, PATHS, generated_lines, sorted_cdxj

from warckit.cdx.query import MATCH_TYPES, Query, run_query
from warckit.serve.ingest import LineConverter
from warckit.serve.store import CdxStore


def _answers(index: object, q: Query) -> list[str]:
    return [e.format() for e in run_query([index], q)]  # type: ignore[list-item]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[CdxStore, Path]:
    """A store and a sorted CDXJ file of the same 3000 captures (converted independently)."""
    out = tmp_path_factory.mktemp("storeq")
    lines = generated_lines(3000)
    converter = LineConverter()
    converted = [converter.convert(line) for line in lines]
    cdxj = sorted_cdxj(out / "same.cdxj", [c.line for c in converted if c is not None])
    store = CdxStore(out / "coll.sqlite")
    # posted in three batches, in another order, one of them twice
    store.add(lines[2000:])
    store.add(lines[:1000])
    store.add(lines[1000:2000])
    store.add(lines[:1000])
    return store, cdxj


URLS = [f"http://{h}{p}" for h, p in itertools.product(HOSTS[:6], PATHS[:8])] + [
    "example.com", "*.example.com", "http://example.com/a/*", "http://nothing.example.net/",
    "https://www.example.com/a?y=3&x=2", "example",
]


def test_every_line_is_there_in_file_order(pair: tuple[CdxStore, Path]) -> None:
    store, cdxj = pair
    assert b"".join(store.iter_prefix(b"")) == cdxj.read_bytes()


@pytest.mark.parametrize("match", MATCH_TYPES)
def test_match_types_answer_as_the_file(pair: tuple[CdxStore, Path], match: str) -> None:
    store, cdxj = pair
    found = 0
    for url in URLS:
        q = Query(url.replace("*.", "").replace("/*", "/"), match)  # type: ignore[arg-type]
        want = _answers(cdxj, q)
        assert _answers(store, q) == want, url
        found += len(want)
    assert found > 100  # the comparison is not between two empty answers


@pytest.mark.parametrize(("from_", "to"), [
    ("2014", None), (None, "2012"), ("2013", "2015"), ("201506", "20150715"),
    ("2016-03-01T00:00:00Z", "2017-01"), ("2030", None),
])
def test_time_bounds_answer_as_the_file(pair: tuple[CdxStore, Path], from_: str | None,
                                        to: str | None) -> None:
    store, cdxj = pair
    for url, match in (("example.com", "domain"), ("http://example.com/a", "prefix"),
                       ("http://www.example.com/", "exact"), ("iana.org", "host")):
        q = Query(url, match, from_=from_, to=to)  # type: ignore[arg-type]
        assert _answers(store, q) == _answers(cdxj, q)


@pytest.mark.parametrize("limit", [0, 1, 7, 100, 10_000])
def test_limit_closest_and_filters_answer_as_the_file(pair: tuple[CdxStore, Path], limit: int) -> None:
    store, cdxj = pair
    for q in (Query("example.com", "domain", limit=limit),
              Query("http://example.com/a", "prefix", limit=limit, closest="20150601"),
              Query("example.com", "host", status="404", limit=limit),
              Query("example.org", "domain", type="response", limit=limit, from_="2012")):
        want = _answers(cdxj, q)
        assert _answers(store, q) == want
        assert len(want) == min(limit, len(_answers(cdxj, Query(q.url, q.match, q.from_, q.to,
                                                                 q.closest, q.type, q.status))))


def test_a_store_merges_with_files(pair: tuple[CdxStore, Path], tmp_path: Path) -> None:
    _store, cdxj = pair
    # half the lines in a file, half in the store: the merged answer is the whole file's
    lines = cdxj.read_bytes().splitlines(keepends=True)
    half = tmp_path / "half.cdxj"
    half.write_bytes(b"".join(lines[::2]))
    other = CdxStore(tmp_path / "other.sqlite")
    other.add(lines[1::2])
    q = Query("example.com", "domain")
    merged = [e.format() for e in run_query([half, other], q)]
    assert merged == _answers(cdxj, q)
    other.close()
