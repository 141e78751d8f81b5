"""Memento (RFC 7089): the TimeMap lists what the exact look-up finds, in link-format with
RFC 1123 datetimes; the TimeGate redirects to the capture nearest Accept-Datetime."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from cdxapi_fixtures import Built, built, query_cli  # noqa: F401 - built is a fixture

from warckit.cdx.formats import CdxjEntry
from warckit.cdx.query import Index
from warckit.errors import UsageError
from warckit.serve.memento import http_date, parse_http_date, timegate_response, timemap_response

JQUERY = "http://www.iana.org/_js/2013.1/jquery.js"
BASE = "http://127.0.0.1:8080"
LINK = re.compile(r'<([^>]*)>; rel="([^"]*)"(?:; type="[^"]*")?(?:; datetime="([^"]*)")?'
                  r'(?:; from="([^"]*)"; until="([^"]*)")?')


def _timemap(index: Path, url: str, replay: str | None = None) -> bytes:
    ctype, body = timemap_response([Index(index)], url, base=BASE, coll="c", replay=replay)
    assert ctype == "application/link-format"
    return b"".join(body)


def _captures(index: Path, url: str) -> list[CdxjEntry]:
    return [CdxjEntry.parse(line) for line in query_cli(index, url).decode().splitlines()]


def test_timemap_lists_every_capture(built: Built) -> None:  # noqa: F811
    from warcio.timeutils import timestamp_to_http_date

    text = _timemap(built.cdxj, JQUERY).decode()
    links = [LINK.fullmatch(part.strip()) for part in text.rstrip("\n").split(",\n")]
    assert all(links), text
    found = [m.groups() for m in links if m]
    assert found[0] == (JQUERY, "original", None, None, None)
    assert found[1] == (f"{BASE}/c/timegate/{JQUERY}", "timegate", None, None, None)
    captures = _captures(built.cdxj, JQUERY)
    mementos = found[2:-1]
    assert len(mementos) == len(captures) == 17
    for (uri, rel, dt, *_), cap in zip(mementos, captures, strict=True):
        q = parse_qs(urlsplit(uri).query)
        assert uri.startswith(f"{BASE}/c/record?")
        assert (q["filename"], q["offset"], q["length"]) == (
            [cap.fields["filename"]], [cap.fields["offset"]], [cap.fields["length"]])
        assert dt == timestamp_to_http_date(cap.timestamp)  # pywb's RFC 1123 form
    assert [m[1] for m in mementos] == ["first memento"] + ["memento"] * 15 + ["last memento"]
    assert found[-1] == (f"{BASE}/c/timemap/link/{JQUERY}", "self", None,
                         "Sun, 26 Jan 2014 20:06:25 GMT", "Mon, 27 Jan 2014 17:12:39 GMT")


def test_timemap_same_from_new_style_index(built: Built) -> None:  # noqa: F811
    """A new-style index lists request and metadata records too: they are no mementos."""
    assert _timemap(built.cdx, JQUERY) == _timemap(built.cdxj, JQUERY)
    assert _timemap(built.zipnum, JQUERY) == _timemap(built.cdxj, JQUERY)


def test_timemap_single_and_none(built: Built) -> None:  # noqa: F811
    one = _timemap(built.cdxj, "http://www.iana.org/domains/example").decode()
    assert one.count('rel="first last memento"; datetime="Tue, 28 Jan 2014 05:15:39 GMT"') == 1
    none = _timemap(built.cdxj, "http://nothing.example/").decode()
    assert none == (f'<http://nothing.example/>; rel="original",\n<{BASE}/c/timegate/http://nothing.example/>; '
                    f'rel="timegate",\n<{BASE}/c/timemap/link/http://nothing.example/>; rel="self"; '
                    'type="application/link-format"\n')


def test_timemap_replay_template(built: Built) -> None:  # noqa: F811
    text = _timemap(built.cdxj, JQUERY, replay="http://pywb:8080/coll/{timestamp}/{url}").decode()
    assert f'<http://pywb:8080/coll/20140126200625/{JQUERY}>; rel="first memento"' in text
    assert f'<http://pywb:8080/coll/20140127171239/{JQUERY}>; rel="last memento"' in text


def test_timemap_bad_url(built: Built) -> None:  # noqa: F811
    with pytest.raises(UsageError, match="^url: "):
        timemap_response([Index(built.cdxj)], "http://", base=BASE, coll="c", replay=None)


@pytest.mark.parametrize(("accept", "location_ts"), [
    ("Sun, 26 Jan 2014 20:09:00 GMT", "20140126200912"),   # 12 s after, 35 s before the one prior
    ("Sun, 26 Jan 2014 20:08:20 GMT", "20140126200816"),   # 4 s from 20:08:16, 5 s from 20:08:25
    ("Sat, 01 Jan 2000 00:00:00 GMT", "20140126200625"),   # before all: the first
    ("Fri, 01 Jan 2100 00:00:00 GMT", "20140127171239"),   # after all: the last
    (None, "20140127171239"),                              # absent: the latest
])
def test_timegate_nearest(built: Built, accept: str | None, location_ts: str) -> None:  # noqa: F811
    replay = "http://pywb/c/{timestamp}/{url}"
    status, headers, body = timegate_response([Index(built.cdxj)], JQUERY, accept, base=BASE, coll="c",
                                              replay=replay)
    assert (status, body) == (302, b"")
    assert headers["Location"] == f"http://pywb/c/{location_ts}/{JQUERY}"
    assert headers["Vary"] == "accept-datetime"
    assert headers["Link"] == (
        f'<{JQUERY}>; rel="original", <{BASE}/c/timemap/link/{JQUERY}>; rel="timemap"; '
        f'type="application/link-format", <{headers["Location"]}>; rel="memento"; '
        f'datetime="{http_date(parse_http_date_of(location_ts))}"')


def parse_http_date_of(ts: str) -> float:
    import calendar
    import time

    return calendar.timegm(time.strptime(ts, "%Y%m%d%H%M%S"))


def test_timegate_record_uri(built: Built) -> None:  # noqa: F811
    status, headers, _ = timegate_response([Index(built.cdx)], JQUERY, "Sun, 26 Jan 2014 20:06:00 GMT",
                                           base=BASE, coll="c", replay=None)
    assert status == 302
    assert headers["Location"] == f"{BASE}/c/record?filename=iana.warc.gz&offset=7311&length=33449"


@pytest.mark.parametrize("accept", ["yesterday", "2014-01-26T20:09:00Z", "Sun, 26 Jan 2014 20:09:00 +0100",
                                    "Sun, 26 Jan 2014 20:09 GMT x", ""])
def test_timegate_bad_accept_datetime(built: Built, accept: str) -> None:  # noqa: F811
    status, headers, body = timegate_response([Index(built.cdxj)], JQUERY, accept, base=BASE, coll="c",
                                              replay=None)
    assert status == 400
    assert body.startswith(b"Accept-Datetime: ")
    assert "Location" not in headers


def test_timegate_nothing(built: Built) -> None:  # noqa: F811
    status, headers, body = timegate_response([Index(built.cdxj)], "http://nothing.example/", None,
                                              base=BASE, coll="c", replay=None)
    assert status == 404 and "Location" not in headers
    assert body == b"no memento of http://nothing.example/ in c\n"
    assert timegate_response([Index(built.cdxj)], "http://", None, base=BASE, coll="c", replay=None)[0] == 400


def test_http_dates() -> None:
    assert http_date(1390766784) == "Sun, 26 Jan 2014 20:06:24 GMT"
    assert parse_http_date("Sun, 26 Jan 2014 20:06:24 GMT") == 1390766784
    with pytest.raises(UsageError):
        parse_http_date("Sun, 26 Jan 2014 20:06:24 EST")


def test_uris_are_ascii_and_closed(built: Built) -> None:  # noqa: F811
    """A URL with non-ASCII, ``>`` or ``"`` is percent-encoded in links and headers."""
    url = 'http://example.com/caf\u00e9>"x'
    status, headers, _ = timegate_response([Index(built.cdxj)], url, None, base=BASE, coll="c", replay=None)
    assert status == 404
    assert headers["Link"] == ('<http://example.com/caf%C3%A9%3E%22x>; rel="original", '
                               f'<{BASE}/c/timemap/link/http://example.com/caf%C3%A9%3E%22x>; rel="timemap"; '
                               'type="application/link-format"')
    assert all(v.isascii() for v in headers.values())
    assert _timemap(built.cdxj, url).startswith(b'<http://example.com/caf%C3%A9%3E%22x>; rel="original",\n')
