"""POST/PUT captures: the request body is appended to the key the way pywb does.

A WARC with form, JSON, binary, text/plain, PUT and GET request/response pairs (both
record orders) is written with warcio; warckit's CDXJ and CDX-11 must equal
``cdxj-indexer -p`` byte for byte, and the keys must be those of ``pywb/post-test.cdx``.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from corpus_paths import corpus_path

from warckit.cdx import CdxEntry, IndexOptions, index_file
from warckit.cdx._keys import body_query, method_query
from warckit.cdx.build import write_index
from warckit.cdx.query import query

warcio_writer = pytest.importorskip("warcio.warcwriter")
from warcio.statusandheaders import StatusAndHeaders

PAIRS: list[tuple[str, str, str | None, bytes, str, bool]] = [
    ("http://httpbin.org/post", "POST", "application/x-www-form-urlencoded", b"foo=bar&test=abc", "/post", False),
    ("http://httpbin.org/post", "POST", "application/json", b'{"a": 1, "b": "[]", "c": 3}', "/post", False),
    ("http://httpbin.org/post?foo=bar", "POST", "application/x-www-form-urlencoded", b"data=^", "/post?foo=bar", False),
    ("http://httpbin.org/put", "PUT", "application/octet-stream", b"\x00\x01binary", "/put", False),
    ("http://httpbin.org/post", "POST", "application/json",
     b'{"a": [1, 2, {"a": 3}], "b": {"c": true, "d": null}}', "/post", True),
    ("http://httpbin.org/post", "POST", "text/plain", b"not json at all", "/post", True),
    ("http://httpbin.org/get", "GET", None, b"", "/get", False),
]


def _make_warc(path: Path) -> None:
    with path.open("wb") as fh:
        w = warcio_writer.WARCWriter(fh, gzip=True)
        for url, method, ctype, body, target, request_first in PAIRS:
            resp = w.create_warc_record(
                url, "response", payload=io.BytesIO(b'{"ok": true}'),
                http_headers=StatusAndHeaders("200 OK", [("Content-Type", "application/json")], protocol="HTTP/1.1"),
            )
            headers = [("Host", "httpbin.org"), ("Content-Length", str(len(body)))]
            if ctype:
                headers.append(("Content-Type", ctype))
            req = w.create_warc_record(
                url, "request", payload=io.BytesIO(body),
                http_headers=StatusAndHeaders(f"{method} {target} HTTP/1.1", headers, is_http_request=True),
            )
            if request_first:
                resp.rec_headers.add_header("WARC-Concurrent-To", req.rec_headers.get_header("WARC-Record-ID"))
                w.write_record(req)
                w.write_record(resp)
            else:
                req.rec_headers.add_header("WARC-Concurrent-To", resp.rec_headers.get_header("WARC-Record-ID"))
                w.write_record(resp)
                w.write_record(req)


@pytest.fixture(scope="module")
def post_warc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("post") / "post.warc.gz"
    _make_warc(path)
    return path


def _oracle(path: Path, *flags: str) -> list[str]:
    try:
        out = subprocess.run(["cdxj-indexer", "-p", *flags, str(path)], capture_output=True, text=True, check=True)
    except FileNotFoundError:
        pytest.skip("cdxj-indexer not installed")
    return [line for line in out.stdout.splitlines() if not line.startswith(" CDX")]


def test_cdxj_same_as_cdxj_indexer_post_append(post_warc: Path) -> None:
    assert list(index_file(post_warc, IndexOptions(format="cdxj"))) == _oracle(post_warc)


def test_cdx11_same_as_cdxj_indexer_post_append(post_warc: Path) -> None:
    assert list(index_file(post_warc, IndexOptions(format="cdx11"))) == _oracle(post_warc, "-11")


def test_keys_match_pywb_post_test_cdx(post_warc: Path) -> None:
    ref_keys = {
        line.split(" ")[0]
        for line in corpus_path("pywb/post-test.cdx").read_text().splitlines()
        if not line.startswith(" CDX")
    }
    mine = [line.split(" ")[0] for line in index_file(post_warc, IndexOptions(format="cdx11"))]
    assert ref_keys == set(mine[:3])
    assert mine[3:] == [
        "org,httpbin)/put?__wb_method=put&__wb_post_data=aafiaw5hcnk=",
        "org,httpbin)/post?__wb_method=post&a=1&a.2_=2&a.3_=3&c=true&d=none",
        "org,httpbin)/post?__wb_method=post&__wb_post_data=bm90igpzb24gyxqgywxs",
        "org,httpbin)/get",
    ]


def test_new_style_post_entry(post_warc: Path) -> None:
    entries = [CdxEntry.parse(line) for line in index_file(post_warc)]
    assert [e.urlkey for e in entries][:3] == [
        "org,httpbin,)/post?__wb_method=post&foo=bar&test=abc",
        "org,httpbin,)/post?__wb_method=post&a=1&b=[]&c=3",
        "org,httpbin,)/post?__wb_method=post&data=^&foo=bar",
    ]
    assert entries[0].extra["method"] == "POST"
    assert entries[0].extra["request_body"] == "foo=bar&test=abc"
    assert entries[3].extra["method"] == "PUT"
    assert "method" not in entries[6].extra  # GET


def test_post_capture_can_be_looked_up(post_warc: Path, tmp_path: Path) -> None:
    for fmt in ("cdx", "cdx11"):
        index = tmp_path / f"post.{fmt}"
        with index.open("wb") as out:
            write_index([post_warc], out, IndexOptions(format=fmt), sort=True, progress=False)  # type: ignore[arg-type]
        found = query([index], "http://httpbin.org/post?foo=bar&test=abc&__wb_method=POST")
        assert [e.original_url for e in found] == ["http://httpbin.org/post"]
        prefix = query([index], "http://httpbin.org/post?__wb_method=post", match="prefix")
        assert len(prefix) == 5


def test_no_post_append(post_warc: Path) -> None:
    keys = [line.split(" ")[0] for line in index_file(post_warc, IndexOptions(format="cdx11", post_append=False))]
    assert keys == ["org,httpbin)/post"] * 2 + ["org,httpbin)/post?foo=bar", "org,httpbin)/put"] + [
        "org,httpbin)/post"
    ] * 2 + ["org,httpbin)/get"]


def test_body_query_vectors() -> None:
    assert body_query("application/x-www-form-urlencoded", b"a=1+2&b=%C3%A9") == "a=1 2&b=é"
    assert body_query("application/x-www-form-urlencoded", b"\xff") == "__wb_post_data=/w=="
    assert body_query("application/json", b'{"x": [1, {"x": 2}], "y": false}') == "x=1&x.2_=2&y=False"
    assert body_query("application/json", b"{broken") == ""
    assert body_query("application/json", b'{"a": 1}\n{"a": 2}') == "a=1&a.2_=2"
    assert body_query(None, b"abc") == "__wb_post_data=YWJj"
    multipart = (
        b"--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nhello world\r\n"
        b"--XyZ\r\nContent-Disposition: form-data; name=\"up\"; filename=\"a.bin\"\r\n\r\n\x00\xff\r\n"
        b"--XyZ--\r\n"
    )
    assert body_query("multipart/form-data; boundary=XyZ", multipart) == "f=hello+world&up=%00%FF"
    assert body_query("multipart/form-data", b"x") == "__wb_post_data=eA=="
    assert len(body_query("application/x-www-form-urlencoded", b"a" * 10000)) == 4096
    assert method_query("post", "http://x/y", "application/x-www-form-urlencoded", b"a=1") == (
        "a=1",
        "?__wb_method=POST&a=1",
    )
    assert method_query("DELETE", "http://x/y?z", None, None) == ("", "&__wb_method=DELETE")
