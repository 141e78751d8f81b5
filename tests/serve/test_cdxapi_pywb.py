"""The CDX API gives pywb's answers: pywb's own CDX operations (``cdx_load`` over its
``FileIndexSource`` / ``ZipNumIndexSource``) run in-process on the same index files, for
every parameter, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from cdxapi_fixtures import Built, built, ours, pywb  # noqa: F401 - built is a fixture
from corpus_paths import CORPUS

pytest.importorskip("pywb")

IANA = "http://www.iana.org/"
JQUERY = "http://www.iana.org/_js/2013.1/jquery.js"

#: Parameter sets, each run in every output form (pywb's names and values).
CASES: list[list[tuple[str, str]]] = [
    [("url", IANA)],
    [("url", "example.com")],
    [("url", "*.iana.org")],
    [("url", "iana.org"), ("matchType", "domain")],
    [("url", "www.iana.org"), ("matchType", "host")],
    [("url", "iana.org/_css/*")],
    [("url", "http://www.iana.org/_css/"), ("matchType", "prefix")],
    [("url", "*.iana.org"), ("from", "20140126200700"), ("to", "20140126201000")],
    [("url", "*.iana.org"), ("from", "201401262007"), ("to", "2014012620")],
    [("url", "*.iana.org"), ("to", "201401")],
    [("url", "*.iana.org"), ("limit", "7")],
    [("url", "*.iana.org"), ("sort", "reverse")],
    [("url", "*.iana.org"), ("sort", "reverse"), ("limit", "4")],
    [("url", JQUERY), ("sort", "reverse"), ("limit", "1")],
    [("url", JQUERY), ("closest", "20140126200900"), ("sort", "closest"), ("limit", "5")],
    [("url", JQUERY), ("closest", "20140126201050")],
    [("url", JQUERY), ("closest", "20140126200900"), ("sort", "closest"), ("limit", "5"),
     ("filter", "=mime:warc/revisit")],
    [("url", "*.iana.org"), ("filter", "=status:200")],
    [("url", "*.iana.org"), ("filter", "!=status:200")],
    [("url", "*.iana.org"), ("filter", "~mime:text/.*")],
    [("url", "*.iana.org"), ("filter", "mimetype:css")],
    [("url", "*.iana.org"), ("filter", "!mime:image"), ("filter", "~url:.*\\.(js|css)$")],
    [("url", "*.iana.org"), ("filter", "!~urlkey:org,iana\\)/_")],
    [("url", "*.iana.org"), ("filter", "dupes.warc.gz")],
    [("url", "*.iana.org"), ("filter", "~org,iana\\)/_img")],
    [("url", "*.iana.org"), ("filter", "=length:546"), ("filter", "=status:200")],
    [("url", "*.iana.org"), ("filter", "=nosuchfield:")],
    [("url", "*.iana.org"), ("fl", "urlkey,timestamp,status")],
    [("url", "*.iana.org"), ("fl", "url,length,offset,filename,nosuchfield")],
    [("url", "*.iana.org"), ("fl", "timestamp"), ("sort", "reverse"), ("limit", "3"),
     ("filter", "~status:3")],
    [("url", "example.com/*"), ("fl", "digest,mime,status")],
]
OUTPUTS = ("cdxj", "json", "text")


def _case_id(case: list[tuple[str, str]]) -> str:
    return "&".join(f"{k}={v}" for k, v in case)


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_cdxj_index_as_pywb(built: Built, case: list[tuple[str, str]], output: str) -> None:  # noqa: F811
    params = [*case, ("output", output)]
    expected = pywb([built.cdxj], params)
    ctype, body = ours([built.cdxj], params)
    assert body == expected
    assert ctype == {"cdxj": "text/x-cdxj", "json": "text/x-ndjson", "text": "text/plain"}[output]


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_cdx11_index_as_pywb(built: Built, case: list[tuple[str, str]], output: str) -> None:  # noqa: F811
    """A CDX-11 index: pywb's field names by position, its CDXJ conversion of the line."""
    params = [*case, ("output", output)]
    assert ours([built.cdx11], params)[1] == pywb([built.cdx11], params)


def test_cases_find_something(built: Built) -> None:  # noqa: F811
    """No case passes by both sides finding nothing (except the filter that excludes all)."""
    empty = [_case_id(c) for c in CASES if not ours([built.cdxj], c)[1]]
    assert empty == []


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", CASES[:16], ids=_case_id)
def test_stacked_indexes_as_pywb(built: Built, case: list[tuple[str, str]], output: str) -> None:  # noqa: F811
    """Two indexes of one collection are merged as pywb merges its sources."""
    params = [*case, ("output", output)]
    body = ours([built.cdxj_a, built.cdxj_b], params)[1]
    assert body == pywb([built.cdxj_a, built.cdxj_b], params)
    assert body == ours([built.cdxj], params)[1]


# -- ZipNum -------------------------------------------------------------------------

ZIPNUM_CASES: list[list[tuple[str, str]]] = [
    [("url", "*.iana.org"), ("showNumPages", "true")],
    [("url", "*.iana.org"), ("showNumPages", "1"), ("pageSize", "3")],
    [("url", IANA), ("showNumPages", "true")],
    [("url", "example.com"), ("showNumPages", "true")],
    [("url", "nothing.example.org"), ("showNumPages", "true")],
    [("url", "zzz.example"), ("showNumPages", "true")],
    [("url", "*.iana.org"), ("page", "0")],
    [("url", "*.iana.org"), ("page", "1")],
    [("url", "*.iana.org"), ("page", "3")],
    [("url", "*.iana.org"), ("page", "2"), ("pageSize", "2")],
    [("url", "*.iana.org"), ("page", "17"), ("pageSize", "2")],
    [("url", "*.iana.org"), ("page", "0"), ("pageSize", "1"), ("fl", "urlkey,timestamp")],
    [("url", JQUERY), ("page", "0"), ("pageSize", "1")],
    [("url", "iana.org/_css/*"), ("page", "1"), ("pageSize", "1"), ("filter", "=status:200"),
     ("sort", "reverse")],
    [("url", "iana.org/_css/*"), ("pageSize", "1000"), ("limit", "9")],
]


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", ZIPNUM_CASES, ids=_case_id)
def test_zipnum_pages_as_pywb(built: Built, case: list[tuple[str, str]], output: str) -> None:  # noqa: F811
    params = [*case, ("output", output)]
    assert ours([built.zipnum], params)[1] == pywb([built.zipnum], params)


def test_zipnum_answers_are_real(built: Built) -> None:  # noqa: F811
    assert ours([built.zipnum], [("url", "*.iana.org"), ("showNumPages", "1")])[1] == \
        b'{"pages": 4, "pageSize": 10, "blocks": 37}\n'
    assert ours([built.zipnum], [("url", "nothing.example.org"), ("showNumPages", "1")])[1] == \
        b'{"pages": 0, "pageSize": 10, "blocks": 0}\n'
    page = ours([built.zipnum], [("url", "*.iana.org"), ("page", "1"), ("pageSize", "2"),
                                 ("fl", "timestamp"), ("output", "text")])[1]
    assert len(page.splitlines()) == 10


def _pywb_sample() -> Path:
    path = CORPUS / "pywb" / "zipnum-sample.idx"
    if not path.exists():
        pytest.skip("pywb's zipnum-sample not in the corpus")
    return path


@pytest.mark.parametrize("case", [
    [("url", "*.iana.org"), ("showNumPages", "1")],
    [("url", "iana.org/_css/*"), ("showNumPages", "1"), ("pageSize", "1")],
    [("url", "*.iana.org"), ("page", "1"), ("pageSize", "2"), ("output", "json")],
    [("url", "*.iana.org"), ("page", "0"), ("pageSize", "4"), ("output", "text"), ("fl", "url,length")],
    [("url", "http://www.iana.org/_css/2013.1/fonts/opensans-bold.ttf"), ("page", "0"),
     ("output", "cdxj")],
], ids=_case_id)
def test_pywb_zipnum_sample(case: list[tuple[str, str]]) -> None:
    """pywb's own ZipNum sample (blocks without a final newline, its .loc)."""
    idx = _pywb_sample()
    body = ours([idx], case)[1]
    assert body == pywb([idx], case)
    assert body


def test_random_requests_as_pywb(built: Built) -> None:  # noqa: F811
    """Seeded random mixes of every parameter: pywb's bytes each time (refused requests,
    from after to or an empty filter, which pywb answers empty or unfiltered, aside)."""
    import random

    from warckit.errors import UsageError

    lines = built.cdxj.read_bytes().splitlines()
    keys = sorted({line.split(b" ")[0].decode() for line in lines})
    stamps = sorted({line.split(b" ")[1].decode() for line in lines})
    names = ["status", "mime", "url", "urlkey", "digest", "length", "offset", "filename", "timestamp",
             "mimetype", "statuscode", "s", "l", "nosuch"]
    rng = random.Random(11)
    compared = 0
    for _ in range(400):
        sources = rng.choice([[built.cdxj], [built.cdx11], [built.cdxj_a, built.cdxj_b]])
        host, _, path = rng.choice(keys).partition(")")
        match = rng.choice(["exact", "exact", "prefix", "host", "domain"])
        params = [("url", ".".join(reversed(host.split(","))) + path), ("matchType", match)]
        for bound in ("from", "to"):
            if rng.random() < 0.3:
                params.append((bound, rng.choice(stamps)[: rng.choice([4, 8, 10, 12, 14])]))
        r = rng.random()
        if r < 0.25 and match == "exact":
            params.append(("closest", rng.choice(stamps)))
        elif r < 0.45:
            params.append(("sort", "reverse"))
        if rng.random() < 0.5:
            params.append(("limit", str(rng.randrange(1, 20))))
        for _ in range(rng.choice([0, 0, 1, 2])):
            value = rng.choice(["200", "text", "3", "warc/revisit", "", "iana", "^h", "1"])
            mod = rng.choice(["", "=", "~", "!", "!=", "!~"])
            field = rng.choice(names) + ":" if rng.random() < 0.9 else ""
            params.append(("filter", f"{mod}{field}{value}"))
        if rng.random() < 0.4:
            params.append(("fl", ",".join(rng.sample(names, rng.randrange(1, 4)))))
        params.append(("output", rng.choice(OUTPUTS)))
        try:
            body = ours(sources, params)[1]
        except UsageError:
            continue
        assert body == pywb(sources, params), params
        compared += 1
    assert compared > 380
