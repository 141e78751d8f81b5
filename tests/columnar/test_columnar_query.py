"""DuckDB look-ups on the Parquet index answer as ``warckit query`` on the sorted CDXJ index."""

from __future__ import annotations

import random
import subprocess
from itertools import pairwise
from pathlib import Path

import child
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from columnar.columnar_data import corpus_files, generated_warc

from warckit.cdx.build import write_index
from warckit.cdx.indexer import IndexOptions
from warckit.cdx.query import MATCH_TYPES, Query, run_query
from warckit.cli import main
from warckit.columnar import iter_rows
from warckit.columnar.query import query_parquet, run_parquet_query
from warckit.columnar.write import write_parquet
from warckit.errors import ParseError, UsageError

FILTERS: list[dict[str, object]] = [
    {}, {"limit": 1}, {"closest": "2014"}, {"closest": "20200101003030", "limit": 2},
    {"from_": "2010", "to": "2017"}, {"to": "2011-06"}, {"status": "200"}, {"status": "302"},
    {"type": "revisit"}, {"type": "response", "limit": 3},
]


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """(parquet dir, sorted cdxj, the URLs in them); small files so each partition has several."""
    tmp = tmp_path_factory.mktemp("columnar-query")
    inputs = [*corpus_files(), generated_warc(tmp)]
    pq_dir = tmp / "pq"
    write_parquet(inputs, pq_dir, rows_per_file=25, detect=False)
    cdxj = tmp / "index.cdxj"
    with open(cdxj, "wb") as out:
        write_index(inputs, out, IndexOptions(format="cdxj"), sort=True)
    urls = sorted({r["url"] for p in inputs for r in iter_rows(p, detect=False) if r["url"]})
    return pq_dir, cdxj, urls


def _both(pq_dir: Path, cdxj: Path, q: Query) -> tuple[list[str], list[str]]:
    return ([e.format() for e in run_query([cdxj], q)], [e.format() for e in run_parquet_query(pq_dir, q)])


@pytest.mark.slow
def test_same_matches_in_the_same_order(indexes: tuple[Path, Path, list[str]]) -> None:
    pq_dir, cdxj, urls = indexes
    rng = random.Random(17)
    chosen = set(rng.sample(urls, 10))
    # ties (one URL, many captures), POST, IDN, IPv6, ports, redirects, robots.txt
    chosen |= {u for u in urls if "bücher" in u.lower() or "[" in u or "/form" in u or "post" in u}
    chosen |= {"http://www.archive.org/", "http://netarkivet.dk/", "http://example.com/", "http://com/",
               "http://cctr.umkc.edu:80/", "http://nothing.invalid/"}
    found = 0
    for i, url in enumerate(sorted(chosen)):
        for j, match in enumerate(MATCH_TYPES):
            for extra in [{}, *FILTERS[(i + j) % 3::3]]:  # every filter, over the URLs
                q = Query(url, match, **extra)  # type: ignore[arg-type]
                want, got = _both(pq_dir, cdxj, q)
                assert got == want, (url, match, extra)
                found += len(want)
    assert found > 300


def test_ties_and_post_keys(indexes: tuple[Path, Path, list[str]]) -> None:
    pq_dir, cdxj, _ = indexes
    want, got = _both(pq_dir, cdxj, Query("http://www.archive.org/", "domain"))
    assert got == want and len(want) > 40
    keys = [line.split(" ", 2)[:2] for line in got]
    assert any(a == b for a, b in pairwise(keys))  # equal key and timestamp: line order decides
    post = query_parquet(pq_dir, "http://example.org/form", match="prefix")
    assert [e.urlkey for e in post] == ["org,example)/form?__wb_method=post&a=1&b=two"]


def test_cli_output_is_byte_equal(indexes: tuple[Path, Path, list[str]],
                                  capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    pq_dir, cdxj, _ = indexes
    for args in (["--match", "domain", "http://archive.org/"], ["--json", "--match", "host", "http://example.com/"],
                 ["--closest", "2008", "--limit", "3", "--match", "domain", "http://archive.org/"],
                 ["--match", "prefix", "http://xn--bcher-kva.example:8080/"]):
        assert main(["query", str(cdxj), *args]) == 0
        want = capsysbinary.readouterr().out
        assert main(["query", str(pq_dir), *args]) == 0
        assert capsysbinary.readouterr().out == want
        assert want
    assert main(["query", str(pq_dir), "http://nothing.invalid/"]) == 1
    one_file = next(pq_dir.rglob("*.parquet"))
    rows = pq.read_table(one_file).to_pylist()
    assert main(["query", str(one_file), rows[0]["url"]]) == 0
    assert capsysbinary.readouterr().out


def test_errors_name_the_index(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="not a Parquet index"):
        query_parquet(empty, "http://example.com/")
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), other)
    with pytest.raises(ParseError) as info:
        query_parquet(other, "http://example.com/")
    assert info.value.source == str(other) and "url_surtkey" in str(info.value)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(ParseError) as info:
        query_parquet(junk, "http://example.com/")
    assert info.value.source == str(junk)


def test_cli_errors_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1 not really")
    assert main(["query", str(junk), "http://example.com/"]) == 1
    assert str(junk) in capsys.readouterr().err
    assert main(["query", str(tmp_path / "nope.parquet"), "http://example.com/"]) == 2
    assert main(["query", str(tmp_path), str(junk), "http://example.com/"]) == 2


def test_missing_duckdb_is_a_usage_error(indexes: tuple[Path, Path, list[str]]) -> None:
    pq_dir = indexes[0]
    code = ("sys.modules['duckdb'] = None\n"
            "from warckit.cli import main\n"
            f"sys.exit(main(['query', {str(pq_dir)!r}, 'http://example.com/']))\n")
    done = subprocess.run(child.python(code), env=child.env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "pip install 'warckit[parquet]'" in done.stderr and "Traceback" not in done.stderr
