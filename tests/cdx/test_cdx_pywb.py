"""pywb's own CDX loading code reads warckit's CDXJ, CDX-11, CDX-9 and ZipNum output.

pywb (2.10) is a test-only dependency here (``pip install pywb``); the tests are skipped
without it, and on Python 3.13 and later, where pywb cannot be imported (it imports the
``cgi`` module, removed in 3.13). The reverse direction is tested too: warckit reads
pywb's ZipNum sample.
"""

from __future__ import annotations

import io
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import corpus_path

from warckit.cdx import IndexOptions, index_file
from warckit.cdx.build import write_index
from warckit.cdx.query import Index, query
from warckit.cdx.zipnum import ZipNumIndex, write_zipnum

if sys.version_info >= (3, 13):
    pytest.skip(
        "pywb 2.x imports the cgi module, removed in Python 3.13: the pywb oracle runs on Python 3.10-3.12",
        allow_module_level=True,
    )
pywb_cdx = pytest.importorskip("pywb.warcserver.index.cdxobject", reason="pywb is not installed (pip install pywb)")
from pywb.warcserver.index.indexsource import FileIndexSource
from pywb.warcserver.index.query import CDXQuery
from pywb.warcserver.index.zipnum import ZipNumIndexSource

WARCS = [
    "pywb/example.warc.gz",
    "pywb/dupes.warc.gz",
    "pywb/iana.warc.gz",
    "pywb/example2.warc.gz",
    "pywb/example-wget-1-14.warc.gz",
    "pywb/example-wpull.warc.gz",
    "pywb/httpbin-resource.warc.gz",
    "pywb/example-url-agnostic-orig.warc.gz",
    "pywb/example-url-agnostic-revisit.warc.gz",
    "warc-specifications/hello-world.warc.gz",
    "jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz",
    "netarchivesuite/arc/fyensdk.arc",
]


def _build(tmp_path: Path, fmt: str) -> Path:
    out = tmp_path / f"all.{fmt}"
    with out.open("wb") as fh:
        write_index(
            [corpus_path(w) for w in WARCS],
            fh,
            IndexOptions(format=fmt),  # type: ignore[arg-type]
            sort=True,
            progress=False,
            on_warning=lambda issue: None,
        )
    return out


def _pywb_lookup(source: Any, url: str, match: str) -> list[str]:
    # pageSize: pywb's ZipNum returns one page of blocks (default 10) per query.
    params: dict[str, Any] = {"url": url, "matchType": match, "pageSize": "100000"}
    CDXQuery(params)
    return [c.to_text().rstrip("\n") if hasattr(c, "to_text") else str(c) for c in source.load_index(params)]


def _urls(index: Path) -> list[str]:
    entries = Index(index)
    urls = []
    for line in entries.iter_all():
        text = line.decode("utf-8")
        if entries.format == "cdxj":
            import json

            urls.append(json.loads(text.split(" ", 2)[2])["url"])
        else:
            urls.append(text.split(" ")[2])
    return sorted(set(urls))


@pytest.mark.parametrize("fmt", ["cdxj", "cdx11", "cdx9"])
def test_pywb_cdxobject_parses_every_line(fmt: str) -> None:
    count = 0
    for name in WARCS:
        opts = IndexOptions(format=fmt)  # type: ignore[arg-type]
        for line in index_file(corpus_path(name), opts):
            obj = pywb_cdx.CDXObject(line.encode("utf-8"))
            assert obj["urlkey"] == line.split(" ", 1)[0]
            assert obj["timestamp"] == line.split(" ", 2)[1]
            assert obj["offset"].isdigit()
            assert fmt == "cdx9" or obj["length"].isdigit()
            assert obj["filename"] in {Path(w).name for w in WARCS}
            count += 1
    assert count == 949


@pytest.mark.parametrize("fmt", ["cdxj", "cdx11"])
def test_pywb_file_index_source_same_results(tmp_path: Path, fmt: str) -> None:
    index = _build(tmp_path, fmt)
    source = FileIndexSource(str(index))
    urls = _urls(index)
    assert len(urls) > 300
    reader = Index(index)
    skipped = 0
    for url in urls:
        for match in ("exact", "prefix", "host", "domain"):
            if match in ("host", "domain") and ")/" not in reader.key_of(url):
                # dns:/urn: keys have no SURT host: pywb finds nothing, warckit falls
                # back to a key-prefix match (deliberate difference).
                skipped += 1
                continue
            expected = _pywb_lookup(source, url, match)
            mine = [e.format() for e in query([index], url, match=match)]  # type: ignore[arg-type]
            assert mine == expected, (url, match)
    assert skipped < len(urls)


def test_pywb_reads_warckit_zipnum(tmp_path: Path) -> None:
    plain = _build(tmp_path, "cdx11")
    with plain.open("rb") as fh:
        paths = write_zipnum(fh, tmp_path / "zn", block_lines=7)
    zipnum = ZipNumIndexSource(paths.idx)
    plain_source = FileIndexSource(str(plain))
    urls = _urls(plain)
    for url in urls:
        for match in ("exact", "prefix", "host", "domain"):
            expected = _pywb_lookup(plain_source, url, match)
            assert _pywb_lookup(zipnum, url, match) == expected, (url, match)
            if match in ("host", "domain") and ")/" not in Index(plain).key_of(url):
                continue  # see test_pywb_file_index_source_same_results
            mine = [e.format() for e in query([paths.idx], url, match=match)]  # type: ignore[arg-type]
            assert mine == expected, (url, match)


def _sample_lines() -> list[str]:
    data = corpus_path("pywb/zipnum-sample.cdx.gz").read_bytes()
    lines: list[str] = []
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        lines += d.decompress(data).decode("utf-8").splitlines()
        data = d.unused_data
    return lines


def test_warckit_reads_pywb_zipnum_sample() -> None:
    idx = corpus_path("pywb/zipnum-sample.idx")
    lines = _sample_lines()
    assert len(lines) == 188  # members do not end with a newline: split per member
    reader = ZipNumIndex(idx)
    assert list(reader.locations) == ["zipnum"]  # the bogus first path is skipped
    assert [line.decode("utf-8").rstrip("\n") for line in reader.iter_from(b"")] == lines
    pywb_source = ZipNumIndexSource(str(idx))
    for url in sorted({line.split(" ")[2] for line in lines}):
        for match in ("exact", "prefix", "domain"):
            expected = _pywb_lookup(pywb_source, url, match)
            mine = [e.format() for e in query([idx], url, match=match)]  # type: ignore[arg-type]
            assert mine == expected, (url, match)


def test_pywb_zipnum_sample_exact_lookup() -> None:
    idx = corpus_path("pywb/zipnum-sample.idx")
    found = query([idx], "http://www.iana.org/_css/2013.1/print.css", from_="20140126200900", to="201401262010")
    tail = " http://www.iana.org/_css/2013.1/print.css warc/revisit - VNBXHMUNWJQC5OWWGZ3X7GM5C7X6ZAB4 - - "
    assert [e.format() for e in found] == [
        "org,iana)/_css/2013.1/print.css 20140126200912" + tail + "536 662904 iana.warc.gz",
        "org,iana)/_css/2013.1/print.css 20140126200929" + tail + "537 693076 iana.warc.gz",
        "org,iana)/_css/2013.1/print.css 20140126201054" + tail + "526 707519 iana.warc.gz",
    ]


def test_zipnum_bad_loc_reports_missing_part() -> None:
    from warckit.errors import ParseError

    idx = corpus_path("pywb/zipnum-bad.idx")
    reader = ZipNumIndex(idx)
    # 'bar' has a path that does not exist, 'foo2' none at all, 'foo' is not listed.
    assert set(reader.locations) == {"zipnum"}
    with pytest.raises(ParseError, match="no location for part 'foo'"):
        list(reader.iter_from(b""))


def test_cdxj_written_in_one_go_is_loadable(tmp_path: Path) -> None:
    buf = io.BytesIO()
    write_index([corpus_path("pywb/post-test.cdxj").with_name("iana.warc.gz")], buf,
                IndexOptions(format="cdxj"), sort=True, progress=False)
    out = tmp_path / "iana.cdxj"
    out.write_bytes(buf.getvalue())
    assert _pywb_lookup(FileIndexSource(str(out)), "http://www.iana.org/", "exact")[0] == (
        'org,iana)/ 20140126200624 {"url": "http://www.iana.org/", "mime": "text/html", '
        '"status": "200", "digest": "sha1:OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB", "length": "2258", '
        '"offset": "334", "filename": "iana.warc.gz"}'
    )
