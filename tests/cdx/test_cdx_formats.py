"""Line formats: exact new-style lines, round trips, escaping, headers, timestamps."""

from __future__ import annotations

import calendar
import io
import json

import pytest
from corpus_paths import corpus_path
from hypothesis import given
from hypothesis import strategies as st

from warckit.cdx import (
    ALL_TYPES,
    CDX9_LEGEND,
    CDX11_LEGEND,
    NEW_STYLE_HEADER,
    NEW_STYLE_UNSORTED_HEADER,
    CdxEntry,
    CdxjEntry,
    ClassicCdxEntry,
    IndexOptions,
    detect_format,
    index_file,
)
from warckit.cdx._keys import escape_field, new_style_key
from warckit.cdx._timestamps import (
    digits_of,
    lower_bound,
    record_key,
    seconds_of,
    to_14_digits,
    to_w3c,
    upper_bound,
)
from warckit.cdx.build import write_index
from warckit.cdx.capture import Capture
from warckit.cdx.formats import _dumps, header_sorted
from warckit.cdx.lines import capture_line
from warckit.errors import ParseError, UsageError


def test_new_style_lines_of_hello_world() -> None:
    lines = list(index_file(corpus_path("warc-specifications/hello-world.warc.gz"), IndexOptions(types=ALL_TYPES)))
    assert lines[2] == (
        "io,github,iipc,)/warc-specifications/primers/web-archive-formats/hello-world.txt "
        "2015-07-08T21:55:13Z "
        "http://iipc.github.io/warc-specifications/primers/web-archive-formats/hello-world.txt "
        "sha1:XMABAYFTCASBJ5QATNBILSXH6PSZEMG4 response hello-world.warc.gz 907 "
        '{"length":723,"id":"urn:uuid:3C74F309-6B37-461C-B982-1B5C447C3C0E","status":200,'
        '"mime":"text/plain","payload_length":13}'
    )
    types = [CdxEntry.parse(line).type for line in lines]
    assert types == ["warcinfo", "request", "response", "metadata", "resource", "resource"]
    request = CdxEntry.parse(lines[1])
    assert request.extra == {
        "length": 461,
        "id": "urn:uuid:8DCD2661-1B5A-445C-B4F4-2ACEB69A900B",
        "payload_length": 0,
        "method": "GET",
    }
    assert request.digest == "sha1:KPXGFZD2D2326ZWSEZP3S2MJ6GMBCD4E"  # block digest: no payload digest
    resource = CdxEntry.parse(lines[4])
    assert resource.extra["concurrent_to"] == ["urn:uuid:29189A0E-B75F-4450-950B-BB6D1AF9CE10"]


def test_default_types_skip_request_and_warcinfo() -> None:
    lines = list(index_file(corpus_path("warc-specifications/hello-world.warc.gz")))
    assert [CdxEntry.parse(line).type for line in lines] == ["response", "metadata", "resource", "resource"]


def test_revisit_entry() -> None:
    path = corpus_path("warc-specifications/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz")
    (line,) = index_file(path)
    entry = CdxEntry.parse(line)
    assert entry.type == "revisit"
    assert entry.timestamp == "2014-11-29T09:30:53Z"
    assert entry.extra["profile"] == "identical-payload-digest"
    assert entry.extra["refers_to_uri"] == "http://bl.uk/subjects/news-media/"
    assert entry.extra["refers_to_date"] == "2014-11-29T09:18:39Z"
    assert entry.extra["status"] == 200


def test_arc_entries() -> None:
    lines = list(index_file(corpus_path("netarchivesuite/arc/input-1.arc"), IndexOptions(types=ALL_TYPES)))
    assert lines[1] == (
        "dns:www.trineogkaare.dk 2006-02-03T10:54:22Z dns:www.trineogkaare.dk - arc-resource "
        'input-1.arc 1402 {"length":123,"mime":"text/dns","payload_length":56}'
    )
    assert CdxEntry.parse(lines[0]).type == "arc-warcinfo"
    assert CdxEntry.parse(lines[1]).record_type == "resource"


def test_fractional_timestamp_kept() -> None:
    (info, response) = index_file(corpus_path("pywb/example-url-agnostic-orig.warc.gz"), IndexOptions(types=ALL_TYPES))
    assert CdxEntry.parse(info).timestamp == "2014-03-04T05:14:21.000Z"  # precision as written
    assert CdxEntry.parse(response).timestamp == "2013-07-02T19:54:02Z"
    (cdx11,) = index_file(corpus_path("pywb/example-url-agnostic-orig.warc.gz"), IndexOptions(format="cdx11"))
    assert cdx11.split(" ")[1] == "20130702195402"


def test_spaces_are_never_inside_fields() -> None:
    (line,) = index_file(corpus_path("warcio/example-space-in-url.arc"), IndexOptions(lenient=True))
    assert len(line.split(" ")) == 8
    entry = CdxEntry.parse(line)
    assert entry.url == (
        "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False"
    )
    e = CdxEntry.build("k", "2014", "u", "-", "resource", "f", 0, {"note": "a b\tc"})
    assert e.json == '{"note":"a\\u0020b\\tc"}'
    assert " " not in e.format().split(" ", 7)[7]
    assert json.loads(e.json) == {"note": "a b\tc"}
    assert escape_field("a b\x00\x7f\n") == "a%20b%00%7F%0A"
    assert escape_field("http://x/é") == "http://x/é"


def test_header_sorts_first_and_is_detected() -> None:
    assert NEW_STYLE_HEADER == "!warckit-cdx 1.0 sorted urlkey timestamp url digest type filename offset json"
    assert NEW_STYLE_UNSORTED_HEADER == (
        "!warckit-cdx 1.0 unsorted urlkey timestamp url digest type filename offset json")
    assert NEW_STYLE_UNSORTED_HEADER.encode() < b"-"
    assert detect_format(NEW_STYLE_UNSORTED_HEADER) == "cdx"
    assert header_sorted(NEW_STYLE_HEADER) is True
    assert header_sorted(NEW_STYLE_UNSORTED_HEADER.encode() + b"\n") is False
    # Written before the order was recorded, and the classic legend: no claim.
    assert header_sorted("!warckit-cdx 1.0 urlkey timestamp url digest type filename offset json") is None
    assert header_sorted(CDX11_LEGEND) is None
    assert NEW_STYLE_HEADER.encode() < b"-"  # the key of records without a URL
    assert NEW_STYLE_HEADER.encode() < b"0"
    assert detect_format(NEW_STYLE_HEADER) == "cdx"
    assert detect_format(CDX11_LEGEND) == "cdx11"
    assert detect_format(CDX9_LEGEND) == "cdx9"
    assert detect_format('com,example)/ 20140101000000 {"url": "x"}') == "cdxj"
    with pytest.raises(ParseError, match="unsupported new-style CDX version '2.0'"):
        detect_format("!warckit-cdx 2.0 urlkey")
    with pytest.raises(ParseError):
        detect_format("one two three four")


def test_sorted_output_with_header() -> None:
    out = io.BytesIO()
    paths = [corpus_path("pywb/example.warc.gz"), corpus_path("pywb/dupes.warc.gz")]
    count = write_index(paths, out, IndexOptions(), sort=True, progress=False)
    lines = out.getvalue().split(b"\n")[:-1]
    assert lines[0] == NEW_STYLE_HEADER.encode()
    assert len(lines) == count + 1 == 16
    assert lines[1:] == sorted(lines[1:])


@given(
    key=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=" \n\r"), min_size=1).filter(
        lambda s: not s.startswith("!")
    ),
    offset=st.integers(min_value=0, max_value=2**63),
    extra=st.dictionaries(st.text(max_size=5), st.one_of(st.integers(-(2**60), 2**60), st.text(max_size=8), st.none())),
)
def test_round_trip_property(key: str, offset: int, extra: dict[str, object]) -> None:
    entry = CdxEntry.build(escape_field(key), "2026-11-30T09:00:00.123456Z", escape_field(key),
                           "sha1:X", "response", "f.warc.gz", offset, extra)
    line = entry.format()
    assert "\n" not in line and len(line.split(" ")) == 8
    parsed = CdxEntry.parse(line)
    assert parsed == entry
    assert parsed.format() == line
    assert parsed.extra == extra


def test_parsers_round_trip_reference_lines() -> None:
    for name in ("pywb/iana.cdxj", "pywb/post-test.cdxj", "pywb/missing-status-text.cdxj"):
        for line in corpus_path(name).read_text().splitlines():
            assert CdxjEntry.parse(line).format() == line
    for name in ("pywb/iana.cdx", "warc-specifications/hello-world.warc.cdx"):
        for line in corpus_path(name).read_text().splitlines()[1:]:
            assert ClassicCdxEntry.parse(line).format() == line
    nas = corpus_path("netarchivesuite/cdx/NAS-20100909163324-00000-mette.kb.dk.warc.cdx").read_text().splitlines()
    assert ClassicCdxEntry.parse(nas[0]).letters == ("N", "b", "a", "m", "s", "k", "r", "V", "g")


def test_bad_lines() -> None:
    with pytest.raises(ParseError, match="not a new-style CDX line"):
        CdxEntry.parse("a b c")
    with pytest.raises(ParseError, match="bad offset"):
        CdxEntry.parse("k t u d response f x {}")
    with pytest.raises(ParseError, match="not a CDXJ line"):
        CdxjEntry.parse("k t nojson")
    with pytest.raises(ParseError, match="11 values|fields"):
        ClassicCdxEntry.parse(corpus_path("warc-specifications/cdx.unsorted.out").read_text().splitlines()[1],
                              ("N", "b", "a", "m", "s", "k", "r", "M", "V", "g"))
    with pytest.raises(UsageError, match="unknown record type"):
        IndexOptions(types=frozenset({"responses"}))
    with pytest.raises(UsageError, match="unknown index format"):
        IndexOptions(format="warc")  # type: ignore[arg-type]


def test_unicode_hosts() -> None:
    assert new_style_key("http://www.bücher.de/a") == "de,xn--bcher-kva,www,)/a"
    assert new_style_key("http://www.bücher.de/a", unicode_host=True) == "de,bücher,www,)/a"
    assert new_style_key("https://www.Example.com/a?b=1&a=2") == "com,example,www,)/a?a=2&b=1"


#: URLs whose keys take each branch of the SURT options: www, IPv4, IDN (2003 and 2008 differ
#: on ß), ports, user info, a bad port, no host, spaces and controls, filedesc, schemes.
_KEY_URLS = ["https://www.Example.com/a?b=1&a=2", "http://www2.example.com:8080/x", "http://192.168.1.10/",
             "http://www.straße.de/", "http://user:pw@host.example/a#f", "http://example.com:99999/",
             "http:///nohost", "http://exa mple.com/a b", "http://example.com/\x01", "filedesc://x.arc",
             "dns:example.com", "HTTP://EXAMPLE.COM./", "http://[::1]:80/", "http://xn--bcher-kva.de/",
             "http://-bad-.example/", "mailto:a@b.example", ""]


@pytest.mark.parametrize("url", _KEY_URLS)
def test_index_keys_are_the_url_layers_surts(url: str) -> None:
    """The index calls the compiled SURT function directly, with the options surt() passes
    for each style: the keys must stay warckit.url.surt's (escaped), or its fallbacks."""
    from warckit.cdx._keys import cdx_key
    from warckit.errors import WarckitError
    from warckit.url import surt

    try:
        expected = escape_field(surt(url, style="cdx"))
    except (WarckitError, ValueError):
        expected = escape_field(url)
    assert cdx_key(url) == expected
    try:
        expected = escape_field(surt(url, style="new-style"))
    except (WarckitError, ValueError):
        return  # (the fallback key: test_unicode_hosts and the corpus tests)
    assert new_style_key(url) == expected


@given(st.text(max_size=40).map(lambda t: "http://" + t))
def test_index_keys_are_the_url_layers_surts_on_any_text(url: str) -> None:
    test_index_keys_are_the_url_layers_surts(url)


def _extra_model(cap: Capture) -> dict[str, object]:
    """The new-style JSON field as an object: what ``cdx.lines`` writes by hand, as it
    wrote it through orjson before (#19)."""
    extra: dict[str, object] = {}
    if cap.length is not None:
        extra["length"] = cap.length
    if cap.record_id:
        extra["id"] = cap.record_id
    if cap.status is not None:
        try:
            extra["status"] = int(cap.status)
        except ValueError:
            extra["status"] = cap.status
    mime = cap.http_content_type if cap.has_http else (cap.content_type if cap.type != "revisit" else None)
    if mime and mime.split(";", 1)[0].strip():
        extra["mime"] = mime.split(";", 1)[0].strip().lower()
    if cap.payload_length is not None and cap.type in ("response", "resource", "revisit", "request"):
        extra["payload_length"] = cap.payload_length
    if cap.type == "revisit":
        for name in ("profile", "refers_to_uri", "refers_to_date"):
            if getattr(cap, name):
                extra[name] = getattr(cap, name)
    if cap.refers_to:
        extra["refers_to"] = cap.refers_to
    if cap.concurrent_to and cap.type in ("metadata", "conversion", "request", "resource"):
        extra["concurrent_to"] = list(cap.concurrent_to)
    if cap.method is not None and (cap.type == "request" or cap.key_suffix):
        extra["method"] = cap.method
    if cap.key_suffix and cap.request_body:
        extra["request_body"] = cap.request_body
    if cap.truncated:
        extra["truncated"] = cap.truncated
    return extra


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_MAYBE_TEXT = st.none() | _TEXT
_MAYBE_INT = st.none() | st.integers(0, 1 << 40)


@given(
    st.builds(
        Capture, url=st.just("http://example.com/"), type=st.sampled_from(sorted(ALL_TYPES)),
        is_arc=st.booleans(), date=st.just("2026-12-05T08:00:00Z"), filename=st.just("a.warc.gz"),
        offset=st.integers(0, 1 << 40), length=_MAYBE_INT, record_id=_MAYBE_TEXT,
        status=st.none() | st.sampled_from(["200", "404", "+1", " 3", "x", "1_0", "٣"]) | _TEXT,
        http_content_type=_MAYBE_TEXT, content_type=_MAYBE_TEXT, payload_length=_MAYBE_INT,
        profile=_MAYBE_TEXT, refers_to=_MAYBE_TEXT, refers_to_uri=_MAYBE_TEXT,
        refers_to_date=_MAYBE_TEXT, concurrent_to=st.lists(_TEXT, max_size=3).map(tuple),
        method=_MAYBE_TEXT, request_body=_MAYBE_TEXT, key_suffix=st.sampled_from(["", "?__wb_method=POST"]),
        truncated=_MAYBE_TEXT, has_http=st.booleans(),
    )
)
def test_new_style_json_is_what_orjson_writes(cap: Capture) -> None:
    expected = _dumps(_extra_model(cap))
    line = capture_line(cap, "cdx")
    assert line.split(" ", 7)[7] == expected
    assert CdxEntry.parse(line).extra == json.loads(expected)


def test_timestamps() -> None:
    assert digits_of("2016-12-31T23:59:60Z") == "20161231235960"
    assert digits_of("2026-11-30T09:00:00.123456Z") == "20261130090000123456"
    assert digits_of("20140103") == "20140103"
    assert record_key("2016-01") == "20160101000000"
    assert record_key("garbage") == ""
    assert lower_bound("2014") == "20140101000000"
    assert upper_bound("2014") == "20141231235960999999999"
    assert upper_bound("20140103030321") == "20140103030321999999999"
    assert upper_bound("2014-01-03T03:03:21.5Z") == "201401030303215999999999"[:23]
    assert to_14_digits("2014-01-03T03:03:21.987Z") == "20140103030321"
    assert to_14_digits("2016-01") == "20160101000000"
    assert to_w3c("20080430204825") == "2008-04-30T20:48:25Z"
    assert to_w3c("200804") == "2008-04"
    assert to_w3c("20080430204825123") == "2008-04-30T20:48:25.123Z"
    assert seconds_of("20161231235960") == seconds_of("20170101000000")
    assert seconds_of("197001010000015") == 1.5
    with pytest.raises(ValueError):
        digits_of("yesterday")


@given(st.from_regex(r"[0-9]{4}(0[0-9]|1[0-2])[0-9]{8}([0-9]{1,9})?", fullmatch=True))
def test_seconds_of_is_calendar_timegm(key: str) -> None:
    """seconds_of does calendar.timegm's arithmetic (day 00 is day 1, a second 60 or an
    hour 99 carries over) without importing calendar."""
    year, month, day = int(key[0:4]), int(key[4:6]) or 1, int(key[6:8]) or 1
    fraction = key[14:]
    try:
        want = calendar.timegm((year, month, day, int(key[8:10]), int(key[10:12]), int(key[12:14]), 0, 0, 0))
    except ValueError:  # (year 0)
        with pytest.raises(ValueError):
            seconds_of(key)
        return
    assert seconds_of(key) == want + (int(fraction) / 10 ** len(fraction) if fraction else 0.0)


@pytest.mark.parametrize("head_size", [200, 4090, 4093, 4094, 4200, 9000, 16_380, 20_000])
def test_http_head_of_any_length_in_a_large_block(tmp_path, head_size: int) -> None:  # type: ignore[no-untyped-def]
    """The index reads a short prefix of a block first, then a longer one: a head on
    either side of either length gives the same status, type and payload length (a head
    past both is parsed in full)."""
    import gzip

    start = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/x-test\r\n"
    pad = head_size - len(start) - len(b"X-Pad: \r\n\r\n")
    http = start + b"X-Pad: " + b"p" * pad + b"\r\n\r\n"
    assert len(http) == head_size
    block = http + b"b" * 50_000
    head = (b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n"
            b"WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            b"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(block))
    path = tmp_path / "h.warc.gz"
    path.write_bytes(gzip.compress(head + block + b"\r\n\r\n", mtime=0))
    [line] = index_file(path, IndexOptions())
    extra = CdxEntry.parse(line).extra
    assert (extra["status"], extra["mime"], extra["payload_length"]) == (404, "text/x-test", 50_000)
