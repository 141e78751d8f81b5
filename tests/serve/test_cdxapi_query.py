"""The CDX API finds what ``warckit query`` finds, on every index form; bad parameters
are refused with the parameter named; new-style lines become pywb's CDXJ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cdxapi_fixtures import Built, built, ours, query_cli, run_warckit  # noqa: F401 - built is a fixture

from warckit.cdx.formats import CdxEntry, CdxjEntry
from warckit.cdx.query import Index
from warckit.errors import UnsortedIndexError, UsageError
from warckit.serve.cdxapi import MAX_SORTED, cdx_response, entry_fields, parse_cdx_request

JQUERY = "http://www.iana.org/_js/2013.1/jquery.js"

#: (CDX API parameters, the same look-up as ``warckit query`` options and URL).
LOOKUPS: list[tuple[list[tuple[str, str]], tuple[str, ...]]] = [
    ([("url", "http://www.iana.org/")], ("http://www.iana.org/",)),
    ([("url", "*.iana.org")], ("--match", "domain", "iana.org")),
    ([("url", "iana.org"), ("matchType", "domain")], ("--match", "domain", "iana.org")),
    ([("url", "www.iana.org"), ("matchType", "host")], ("--match", "host", "www.iana.org")),
    ([("url", "www.iana.org/_css/*")], ("--match", "prefix", "www.iana.org/_css/")),
    ([("url", "example.com/*"), ("from", "2014-01-27T17:12"), ("to", "20140127171251")],
     ("--match", "prefix", "--from", "2014-01-27T17:12", "--to", "20140127171251", "example.com/")),
    ([("url", "*.iana.org"), ("from", "201401262008"), ("to", "2014-01-26T20:10")],
     ("--match", "domain", "--from", "201401262008", "--to", "2014-01-26T20:10", "iana.org")),
    ([("url", "*.iana.org"), ("limit", "11")], ("--match", "domain", "--limit", "11", "iana.org")),
    ([("url", JQUERY), ("closest", "20140126200900"), ("sort", "closest")],
     ("--closest", "20140126200900", JQUERY)),
    ([("url", JQUERY), ("closest", "2014-01-26T20:09:00Z"), ("limit", "4")],
     ("--closest", "2014-01-26T20:09:00Z", "--limit", "4", JQUERY)),
    ([("url", "*.iana.org"), ("closest", "20140126201000"), ("limit", "6")],
     ("--match", "domain", "--closest", "20140126201000", "--limit", "6", "iana.org")),
]


def _ids(case: tuple[list[tuple[str, str]], tuple[str, ...]]) -> str:
    return " ".join(case[1])


@pytest.mark.parametrize("form", ["cdx", "cdxj", "cdx11", "zipnum"])
@pytest.mark.parametrize("case", LOOKUPS, ids=_ids)
def test_same_lines_as_warckit_query(built: Built, form: str,  # noqa: F811
                                     case: tuple[list[tuple[str, str]], tuple[str, ...]]) -> None:
    """``output=text`` (and ``cdxj`` of a CDXJ index) is ``warckit query``'s output."""
    index: Path = getattr(built, form)
    params, argv = case
    expected = query_cli(index, *argv[-1:], *argv[:-1])
    assert expected, argv
    assert ours([index], [*params, ("output", "text")])[1] == expected
    if form in ("cdxj", "zipnum"):
        assert ours([index], params)[1] == expected


def test_stacked_indexes_as_warckit_query(built: Built) -> None:  # noqa: F811
    """Several indexes in one collection: merged in index order, as ``warckit query A B``."""
    status, expected = run_warckit("query", "--match", "domain", str(built.cdxj_a), str(built.cdxj_b),
                                   "iana.org")
    assert status == 0
    body = ours([built.cdxj_a, built.cdxj_b], [("url", "*.iana.org")])[1]
    assert body == expected
    assert body == ours([built.cdxj], [("url", "*.iana.org")])[1]
    # Sources of different forms stack too (each line in its own form for output=text).
    mixed = ours([built.cdxj_a, built.cdxj_b, built.cdx11], [("url", "*.iana.org"), ("output", "text")])[1]
    assert len(mixed.splitlines()) == 2 * len(expected.splitlines())


def test_parquet_source(built: Built, tmp_path: Path) -> None:  # noqa: F811
    """A Parquet index (a str path) is answered as its CDXJ index is."""
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    out = tmp_path / "pq"
    warcs = [str(built.warcs / name) for name in ("dupes.warc.gz", "example.warc.gz", "iana.warc.gz")]
    status, _ = run_warckit("index", "-f", "parquet", "-j", "1", "-o", str(out), *warcs)
    assert status == 0
    cdxj = tmp_path / "same.cdxj"
    assert run_warckit("index", "-s", "-j", "1", "-f", "cdxj", "-o", str(cdxj), *warcs)[0] == 0
    for params in ([("url", "*.iana.org")], [("url", JQUERY), ("closest", "20140126200900"), ("limit", "3")],
                   [("url", "*.iana.org"), ("output", "json"), ("fl", "url,status"), ("filter", "=status:200")]):
        body = ours([str(out)], params)[1]
        assert body and body == ours([cdxj], params)[1]


def test_new_style_converted_to_pywb_cdxj(built: Built) -> None:  # noqa: F811
    """A new-style line becomes the pywb CDXJ ``warckit index -f cdxj`` writes for the same
    record: IA key, 14-digit timestamp, same url/length/offset/filename/status, the sha1
    digest as bare base32 (pywb's own example.cdxj form)."""
    new = ours([built.cdx], [("url", "*.iana.org")])[1].splitlines()
    pywb_form = ours([built.cdxj], [("url", "*.iana.org")])[1].splitlines()
    assert len(new) == len(pywb_form) > 100
    by_place = {}
    for line in pywb_form:
        e = CdxjEntry.parse(line.decode())
        by_place[(e.fields["filename"], e.fields["offset"])] = e
    for line in new:
        got = CdxjEntry.parse(line.decode())
        want = by_place[(got.fields["filename"], got.fields["offset"])]
        assert (got.urlkey, got.timestamp) == (want.urlkey, want.timestamp)
        for name in ("url", "length", "status"):
            if name in want.fields and not (name == "status" and want.fields.get("mime") == "warc/revisit"):
                assert got.fields[name] == want.fields[name], (name, line)
        assert "sha1:" + got.fields["digest"] == want.fields["digest"]
        if want.fields.get("mime") == "warc/revisit":
            assert got.fields["mime"] == "warc/revisit"


def test_entry_fields_of_each_form() -> None:
    line = ("org,iana,www,)/ 2014-01-26T20:06:24.5Z http://www.iana.org/ sha1:OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB "
            'response iana.warc.gz 334 {"length":2258,"status":200,"mime":"text/html"}')
    assert entry_fields(CdxEntry.parse(line)) == {
        "urlkey": "org,iana)/", "timestamp": "20140126200624", "url": "http://www.iana.org/",
        "mime": "text/html", "status": "200", "digest": "OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB",
        "length": "2258", "offset": "334", "filename": "iana.warc.gz"}
    cdxj = CdxjEntry.parse('org,iana)/ 20140126200624 {"u": "http://www.iana.org/\u00e9", "statuscode": 200, '
                           '"l": 2258, "s": "9"}')
    assert entry_fields(cdxj) == {"urlkey": "org,iana)/", "timestamp": "20140126200624",
                                  "url": "http://www.iana.org/%C3%A9", "status": "200", "length": "9"}


# -- bad parameters -----------------------------------------------------------------


@pytest.mark.parametrize(("params", "named"), [
    ([], "url"),
    ([("url", "")], "url"),
    ([("url", "http://")], "url"),
    ([("url", "exa mple.com")], "url"),
    ([("url", "example.com"), ("matchType", "range")], "matchType"),
    ([("url", "*.example.com"), ("matchType", "exact")], "url"),
    ([("url", "example.com/*"), ("matchType", "host")], "url"),
    ([("url", "example.com"), ("from", "2014-1x")], "from"),
    ([("url", "example.com"), ("to", "yesterday")], "to"),
    ([("url", "example.com"), ("from", "2015"), ("to", "2014")], "from"),
    ([("url", "example.com"), ("closest", "201x")], "closest"),
    ([("url", "example.com"), ("sort", "random")], "sort"),
    ([("url", "example.com"), ("limit", "-1")], "limit"),
    ([("url", "example.com"), ("limit", "ten")], "limit"),
    ([("url", "example.com"), ("filter", "~status:(")], "filter"),
    ([("url", "example.com"), ("filter", "!")], "filter"),
    ([("url", "example.com"), ("filter", ":x")], "filter"),
    ([("url", "example.com"), ("fl", "url,,status")], "fl"),
    ([("url", "example.com"), ("output", "xml")], "output"),
    ([("url", "example.com"), ("page", "-1")], "page"),
    ([("url", "example.com"), ("pageSize", "0")], "pageSize"),
])
def test_bad_parameter_named(params: list[tuple[str, str]], named: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_cdx_request(params)
    assert str(info.value).startswith(named), str(info.value)


@pytest.mark.parametrize("param", [("page", "0"), ("pageSize", "5"), ("showNumPages", "true")])
def test_paging_needs_one_zipnum_index(built: Built, param: tuple[str, str]) -> None:  # noqa: F811
    req = parse_cdx_request([("url", "*.iana.org"), param])
    with pytest.raises(UsageError, match=f"^{param[0]}: paging needs a ZipNum index"):
        cdx_response([Index(built.cdxj)], req)
    with pytest.raises(UsageError, match=f"^{param[0]}:"):
        cdx_response([Index(built.zipnum), Index(built.zipnum)], req)


def test_page_out_of_range_raised_by_the_call(built: Built) -> None:  # noqa: F811
    req = parse_cdx_request([("url", "*.iana.org"), ("page", "4")])
    with pytest.raises(UsageError, match="^page: page 4 invalid: the first page is 0, the last is 3"):
        cdx_response([Index(built.zipnum)], req)


def test_last_value_counts_filters_repeat() -> None:
    req = parse_cdx_request([("url", "a.example"), ("limit", "5"), ("limit", "2"), ("filter", "=status:200"),
                             ("filter", "!mime:image"), ("fields", "url"), ("nosuch", "1")])
    assert req.limit == 2 and len(req.filters) == 2 and req.fl == ("url",)
    assert (req.filters[1].invert, req.filters[1].mode, req.filters[1].field) == (True, "contains", "mime")


def test_sort_closest_without_closest_is_index_order(built: Built) -> None:  # noqa: F811
    """pywb's remote index source asks ``closest=&sort=closest`` for a URL's whole list."""
    params = [("url", "http://www.iana.org/_js/2013.1/jquery.js"), ("closest", ""), ("sort", "closest")]
    assert parse_cdx_request(params).closest is None
    assert ours([built.cdxj], params)[1] == ours([built.cdxj], params[:1])[1] != b""


def test_limit_zero_finds_nothing(built: Built) -> None:  # noqa: F811
    assert ours([built.cdxj], [("url", "*.iana.org"), ("limit", "0")])[1] == b""
    assert ours([built.cdxj], [("url", "*.iana.org"), ("limit", "0"), ("sort", "reverse")])[1] == b""


def test_sorting_is_bounded(built: Built, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """reverse / closest hold at most MAX_SORTED captures: more is refused, not cut short."""
    from warckit.serve import cdxapi

    assert MAX_SORTED == 100_000
    monkeypatch.setattr(cdxapi, "MAX_SORTED", 10)
    for sort in ([("sort", "reverse")], [("closest", "2014")]):
        with pytest.raises(UsageError, match="^limit: sort=.* holds at most 10 captures"):
            ours([built.cdxj], [("url", "*.iana.org"), *sort])
        assert len(ours([built.cdxj], [("url", "*.iana.org"), ("limit", "10"), *sort])[1].splitlines()) == 10
    assert len(ours([built.cdxj], [("url", "example.com"), ("sort", "reverse")])[1].splitlines()) == 4


def test_unsorted_index_raised_by_first_next(tmp_path: Path, built: Built) -> None:  # noqa: F811
    lines = built.cdxj.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.cdxj"
    bad.write_bytes(b"".join(lines[5:] + lines[:5]))
    _, body = cdx_response([Index(bad)], parse_cdx_request([("url", "*.iana.org")]))
    with pytest.raises(UnsortedIndexError):
        next(body)


def test_json_output_is_json_lines(built: Built) -> None:  # noqa: F811
    body = ours([built.cdxj], [("url", "example.com"), ("output", "json")])[1]
    rows = [json.loads(line) for line in body.splitlines()]
    assert [r["timestamp"] for r in rows] == sorted(r["timestamp"] for r in rows)
    assert rows[0]["urlkey"] == "com,example)/" and rows[0]["offset"] == "355"


@pytest.mark.parametrize("form", ["cdx", "cdxj", "cdx11", "zipnum"])
def test_pywb_reads_every_form(built: Built, form: str) -> None:  # noqa: F811
    """What pywb's remote index source asks (``closest=…&sort=closest&limit=100&matchType=exact``)
    gets lines pywb's ``CDXObject`` reads into the capture it needs to replay."""
    from pywb.warcserver.index.cdxobject import CDXObject

    params = [("url", "http://www.iana.org/_js/2013.1/jquery.js"), ("closest", "20140126200900"),
              ("sort", "closest"), ("limit", "100"), ("matchType", "exact")]
    body = ours([getattr(built, form)], params)[1]
    reference = ours([built.cdxj], params)[1]
    got = [CDXObject(line) for line in body.splitlines()]
    want = [CDXObject(line) for line in reference.splitlines()]
    assert len(got) == len(want) == 17
    for g, w in zip(got, want, strict=True):
        for name in ("urlkey", "timestamp", "url", "length", "offset", "filename"):
            assert g[name] == w[name], name
        assert g["digest"].removeprefix("sha1:") == w["digest"].removeprefix("sha1:") != ""
