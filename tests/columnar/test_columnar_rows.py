"""Rows of the columnar index: field values of chosen records, and the CDXJ line each rebuilds."""

from __future__ import annotations

import base64
import gzip
import hashlib
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import child
import pytest
from columnar.columnar_data import FRENCH, corpus_files, generated_records, generated_warc
from corpus_paths import corpus_path

from warckit.cdx.indexer import ALL_TYPES, IndexOptions, index_file
from warckit.columnar import COLUMNS, cdxj_line, iter_rows
from warckit.columnar.detect import available
from warckit.columnar.domains import host_columns
from warckit.columnar.rows import _fetch_time
from warckit.errors import Issue, ParseError

UTC = timezone.utc


def _by_offset(path: Path, **kwargs: object) -> dict[int, dict[str, object]]:
    return {r["warc_record_offset"]: r for r in iter_rows(path, **kwargs)}  # type: ignore[arg-type]


def test_every_row_has_every_column_in_order(tmp_path: Path) -> None:
    for row in iter_rows(generated_warc(tmp_path)):
        assert tuple(row) == COLUMNS


def test_post_capture_keeps_the_wb_method_key() -> None:
    rows = _by_offset(corpus_path("warcio/post-test.warc.gz"))
    assert sorted(rows) == [0, 1196, 2395]  # the responses; the POST requests only pair
    r = rows[1196]
    assert r["url_surtkey"] == "org,httpbin)/post?__wb_method=post&a=1&b=[]&c=3"
    assert (r["http_method"], r["http_request_body"]) == ("POST", "A=1&B=[]&C=3")
    assert r["fetch_time"] == datetime(2014, 6, 10, 0, 11, 51, tzinfo=UTC)
    assert (r["fetch_status"], r["warc_record_length"], r["record_type"]) == (200, 723, "response")
    assert (r["content_digest_algorithm"], r["content_digest"]) == ("sha1", "M7YCTM7HS3YKYQTAWQVMQSQZBNEOXGU2")
    # httpbin.org is itself a private suffix of the Public Suffix List
    assert (r["url_host_registered_domain"], r["url_host_private_suffix"], r["url_host_private_domain"]) == \
        ("httpbin.org", "httpbin.org", None)


def test_revisit_and_its_original() -> None:
    rows = _by_offset(corpus_path("warcio/example.warc.gz"))
    orig, rev = rows[784], rows[2621]
    assert orig["record_type"] == "response" and rev["record_type"] == "revisit"
    assert orig["content_digest"] == rev["content_digest"] == "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK"
    assert (orig["warc_record_length"], rev["warc_record_length"]) == (1228, 586)
    assert (orig["cdxj_mime"], rev["cdxj_mime"]) == ("text/html", "warc/revisit")
    assert rev["content_mime_detected"] is None and rev["content_languages"] is None
    assert orig["record_id"] == "urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005"
    assert orig["fetch_time"] == datetime(2017, 3, 6, 4, 2, 6, tzinfo=UTC)


def test_arc_record_with_explicit_port() -> None:
    rows = _by_offset(corpus_path("jwat/arc/small_BNF.arc"))
    r = rows[146]
    assert r["url"] == "http://cctr.umkc.edu:80/user/jbenz/tst.htm"
    assert r["url_surtkey"] == "edu,umkc,cctr)/user/jbenz/tst.htm"
    assert r["url_port"] == 80  # written in the URL: kept (CC: null only when not given)
    assert (r["url_host_registered_domain"], r["url_host_3rd_last_part"]) == ("umkc.edu", "cctr")
    assert r["record_id"] is None and r["record_type"] == "response"


def test_redirect_location_and_subset() -> None:
    rows = _by_offset(corpus_path("jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz"))
    r = rows[1592076]
    assert (r["fetch_status"], r["fetch_redirect"]) == (301, "http://www.archive.org/donate/")
    assert r["subset"] == "crawldiagnostics"
    assert rows[150903]["fetch_redirect"] == "/images/lma.jpg?cnt=0"  # as written, not resolved


def test_generated_records_field_by_field(tmp_path: Path) -> None:
    rows = list(iter_rows(generated_warc(tmp_path), crawl="CC-TEST", segment="1700000000.1"))
    idn, blog, ipv6, post = rows
    html = FRENCH.encode("iso-8859-1")
    digest = base64.b32encode(hashlib.sha1(html).digest()).decode()
    assert idn["url_surtkey"] == "example,xn--bcher-kva:8080)/seite?q=1"
    assert idn["url_host_name"] == "xn--bcher-kva.example"
    assert idn["url_host_name_reversed"] == "example.xn--bcher-kva"
    assert (idn["url_port"], idn["url_path"], idn["url_query"]) == (8080, "/seite", "q=1")
    assert idn["fetch_time"] == datetime(2026, 11, 30, 9, 0, 0, 123456, tzinfo=UTC)
    assert idn["cdxj_timestamp"] == "20261130090000"
    assert idn["content_digest"] == digest  # computed: the record has no payload digest
    assert (idn["content_mime_type"], idn["content_charset"]) == ("text/html", "ISO-8859-1")
    assert (idn["crawl"], idn["warc_segment"], idn["subset"]) == ("CC-TEST", "1700000000.1", "warc")
    assert blog["fetch_time"] == datetime(2017, 1, 1, tzinfo=UTC)  # the leap second rolls over
    assert blog["fetch_redirect"] == "https://foo.blogspot.com/new"
    assert [blog[c] for c in ("url_host_registry_suffix", "url_host_registered_domain",
                              "url_host_private_suffix", "url_host_private_domain")] == \
        ["com", "blogspot.com", "blogspot.com", "foo.blogspot.com"]
    assert (blog["url_protocol"], blog["url_port"], blog["subset"]) == ("https", None, "crawldiagnostics")
    assert ipv6["url_host_name"] == "2001:db8::1" and ipv6["url_host_tld"] is None
    assert ipv6["url_host_registered_domain"] is None and ipv6["subset"] == "robotstxt"
    assert post["url_surtkey"] == "org,example)/form?__wb_method=post&a=1&b=two"
    assert (post["http_method"], post["http_request_body"]) == ("POST", "a=1&b=two")
    assert post["warc_record_offset"] == sum(len(gzip.compress(r, mtime=0)) for r in generated_records()[:4])


@pytest.mark.skipif(not all(available().values()), reason="puremagic / pycld2 / python-iso639 not installed")
def test_detectors_fill_mime_and_languages(tmp_path: Path) -> None:
    idn, blog, ipv6, post = iter_rows(generated_warc(tmp_path))
    assert (idn["content_mime_detected"], idn["content_languages"]) == ("text/html", "fra")
    assert (ipv6["content_mime_detected"], post["content_mime_detected"]) == ("text/plain", "application/json")
    assert blog["content_mime_detected"] is None  # no payload
    off = next(iter(iter_rows(generated_warc(tmp_path), detect=False)))
    assert (off["content_mime_detected"], off["content_languages"]) == (None, None)


def test_payload_is_the_stored_payload_up_to_the_cap(tmp_path: Path) -> None:
    html = FRENCH.encode("iso-8859-1")
    first = next(iter(iter_rows(generated_warc(tmp_path), with_payload=True)))
    assert (first["payload"], first["payload_truncated"]) == (html, False)
    cut = next(iter(iter_rows(generated_warc(tmp_path), with_payload=True, max_payload=10)))
    assert (cut["payload"], cut["payload_truncated"]) == (html[:10], True)
    assert cut["content_languages"] == first["content_languages"]  # detection reads its own head


def test_host_columns() -> None:
    assert host_columns("www.bbc.co.uk")[:8] == (
        "www.bbc.co.uk", "uk", "co", "bbc", "www", None, "co.uk", "bbc.co.uk")
    assert host_columns("Bücher.example.")[0] == "xn--bcher-kva.example"
    assert host_columns("10.0.0.1") == ("10.0.0.1",) + (None,) * 10
    assert host_columns(None) == (None,) * 11


def test_fetch_time_forms() -> None:
    assert _fetch_time("2016-01") == datetime(2016, 1, 1, tzinfo=UTC)
    assert _fetch_time("2020-01-01T00:30:00+01:00") == datetime(2019, 12, 31, 23, 30, tzinfo=UTC)
    assert _fetch_time("2026-11-30T09:00:00.1234567Z") == datetime(2026, 11, 30, 9, 0, 0, 123456, tzinfo=UTC)
    assert _fetch_time("not a date") is None


def test_cdxj_line_equals_the_cdxj_index_line(tmp_path: Path) -> None:
    paths = [*corpus_files(), generated_warc(tmp_path)]
    assert len(paths) > 5
    for path in paths:
        lines = list(index_file(path, IndexOptions(format="cdxj")))
        rows = list(iter_rows(path, detect=False))
        assert [cdxj_line(r) for r in rows] == lines, path
        assert len(lines) > 0


def test_cdxj_line_on_a_generated_corpus(bench_warc) -> None:  # type: ignore[no-untyped-def]
    path = bench_warc("domain", 3)
    lines = list(index_file(path, IndexOptions(format="cdxj")))
    assert [cdxj_line(r) for r in iter_rows(path, detect=False)] == lines
    assert len(lines) > 20


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi"
    head = (b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/caf\xe9\r\n"
            b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(http))
    path = tmp_path / "latin1.warc"
    path.write_bytes(head + http + b"\r\n\r\n")
    with pytest.raises(ParseError) as info:
        list(iter_rows(path))
    assert (info.value.source, info.value.offset) == (str(path), 0)
    issues: list[Issue] = []
    (row,) = iter_rows(path, lenient=True, on_warning=issues.append)
    assert (row["url"], row["url_path"]) == ("http://example.com/caf%E9", "/caf%E9")
    assert row["url_surtkey"] == "com,example)/caf%e9"  # the SURT of the repaired URL
    assert [(i.code, i.offset) for i in issues] == [("not-utf8", 0)]
    assert issues[0].message.endswith(": url")


def test_every_type_and_lenient_reading_keep_the_cdxj_lines(tmp_path: Path) -> None:
    for path in corpus_files():
        opts = IndexOptions(format="cdxj", types=ALL_TYPES)
        assert [cdxj_line(r) for r in iter_rows(path, types=ALL_TYPES)] == list(index_file(path, opts)), path
    for name in ("warcio/example-trunc.warc", "warcio/bad.arc", "warcio/example-wrong-chunks.warc.gz"):
        path = corpus_path(name)
        opts = IndexOptions(format="cdxj", types=ALL_TYPES, lenient=True)
        issues: list[Issue] = []
        rows = list(iter_rows(path, types=ALL_TYPES, lenient=True, on_warning=issues.append))
        assert [cdxj_line(r) for r in rows] == list(index_file(path, opts)), name
        assert rows and issues, name
    warcinfo = next(r for r in iter_rows(corpus_path("warcio/example.warc"), types=ALL_TYPES))
    assert (warcinfo["record_type"], warcinfo["url_surtkey"], warcinfo["url"]) == ("warcinfo", "-", "")


def test_without_the_extras(tmp_path: Path) -> None:
    src = generated_warc(tmp_path)
    code = ("for m in ('pyarrow', 'duckdb', 'puremagic', 'pycld2', 'iso639'): sys.modules[m] = None\n"
            "import warckit.columnar as c\n"
            "from warckit.cli import main\n"
            f"rows = list(c.iter_rows({str(src)!r}))\n"
            "assert len(rows) == 4 and all(r['content_mime_detected'] is None for r in rows)\n"
            "assert rows[0]['content_languages'] is None and rows[0]['url_host_registered_domain']\n"
            f"sys.exit(main(['index', '-f', 'cdxj', {str(src)!r}]))\n")
    done = subprocess.run(child.python(code), env=child.env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 4


def test_missing_publicsuffixlist_is_a_usage_error(tmp_path: Path) -> None:
    src = generated_warc(tmp_path)
    code = ("sys.modules['publicsuffixlist'] = None\n"
            "from warckit.cli import main\n"
            f"sys.exit(main(['index', '-f', 'parquet', '-o', {str(tmp_path / 'out')!r}, {str(src)!r}]))\n")
    done = subprocess.run(child.python(code), env=child.env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert "publicsuffixlist: pip install 'warckit[parquet]'" in done.stderr and "Traceback" not in done.stderr
