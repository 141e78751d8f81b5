"""``warckit proxy`` records the test site over HTTP and HTTPS for ``requests``: what the
client gets, and what the WARCs hold (checked by warckit and by warcio)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from captures import (
    Exchange,
    Rec,
    assert_capture_metadata,
    assert_warcio_check,
    assert_warckit_check,
    capture_by_url,
    exchanges,
    read_records,
    sha1_label,
    sha1_of,
    warcprox_meta,
)
from local_site import CHUNKED_ENTITY, ETAG, FINAL_TEXT, GZIP_ENTITY, GZIP_TEXT, Site
from proxy_process import TIMEOUT, ProxyProcess, proxied_session

SCHEMES = ("http", "https")
#: Fetched with a plain GET over each scheme.
PATHS = ("/", "/style.css", "/script.js", "/image.png", "/chunked", "/gzip", "/etag",
         "/text/requests", "/missing")
POST_BODY = b"posted \x00\x01\x02 bytes\r\n" * 50


@dataclass
class Recording:
    site: Site
    files: list[Path]
    records: list[Rec]
    captures: list[Exchange]
    answers: dict[str, requests.Response]  # URL -> what the client got (each hop)
    ca_cert: Path


@pytest.fixture(scope="module")
def recorded(site: Site, ca_cert: Path,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recording]:
    proxy = ProxyProcess(tmp_path_factory.mktemp("requests-warcs"), ca_cert)
    answers: dict[str, requests.Response] = {}
    try:
        s = proxied_session(proxy)
        for scheme in SCHEMES:
            for path in PATHS:
                url = site.url(path, scheme)
                answers[url] = s.get(url, timeout=TIMEOUT)
            final = s.get(site.url("/redirect/301", scheme), timeout=TIMEOUT)
            for hop in (*final.history, final):
                answers[hop.url] = hop
            url = site.url("/etag?conditional", scheme)
            answers[url] = s.get(url, headers={"If-None-Match": ETAG}, timeout=TIMEOUT)
            url = site.url(f"/echo?{scheme}", scheme)
            answers[url] = s.post(url, data=POST_BODY, timeout=TIMEOUT,
                                  headers={"Content-Type": "application/octet-stream"})
            url = site.url("/text/with-warcprox-meta", scheme)
            answers[url] = s.get(url, timeout=TIMEOUT, headers={
                "Warcprox-Meta": json.dumps({"stats": {"buckets": ["requests-test"]}})})
    finally:
        files = proxy.finish()
    records = read_records(files)
    yield Recording(site, files, records, exchanges(records), answers, ca_cert)


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def test_the_client_gets_the_site(recorded: Recording) -> None:
    site = recorded.site
    for scheme in SCHEMES:
        got = {_path(u): r for u, r in recorded.answers.items() if u.startswith(scheme + ":")}
        for path in ("/", "/style.css", "/script.js", "/image.png", "/text/requests"):
            assert (got[path].status_code, got[path].content) == (200, site.entity(path))
        assert got["/chunked"].content == CHUNKED_ENTITY
        assert got["/gzip"].headers["Content-Encoding"] == "gzip"
        assert got["/gzip"].content == GZIP_TEXT
        assert (got["/missing"].status_code, got["/missing"].content) == (404, b"not found\n")
        assert [got[p].status_code for p in ("/redirect/301", "/redirect/302")] == [301, 302]
        assert (got["/redirect/final"].status_code, got["/redirect/final"].content) == (
            200, FINAL_TEXT)
        assert (got["/etag?conditional"].status_code, got["/etag?conditional"].content) == (
            304, b"")
        assert got[f"/echo?{scheme}"].content == POST_BODY


def test_warckit_check_passes(recorded: Recording) -> None:
    assert_warckit_check(recorded.files)


def test_warcio_check_passes(recorded: Recording) -> None:
    assert_warcio_check(recorded.files, recorded.records)


def test_one_response_and_request_per_exchange(recorded: Recording) -> None:
    uris = sorted(e.response.target_uri or "" for e in recorded.captures)
    assert uris == sorted(recorded.answers)
    assert {e.response.type for e in recorded.captures} == {"response"}
    for e in recorded.captures:
        assert e.response.ip == "127.0.0.1", e.response.target_uri
        assert e.response.date and e.request.date


def test_payload_digests_are_what_the_site_sent(recorded: Recording) -> None:
    site = recorded.site
    for url, answer in recorded.answers.items():
        rec = capture_by_url(recorded.captures, url).response
        path = _path(url)
        if path.startswith("/echo"):
            expected = POST_BODY
        elif answer.status_code == 304:
            expected = b""
        else:
            expected = site.entity(path)
        assert rec.status == answer.status_code, url
        assert (rec.entity_len, rec.entity) == (len(expected), expected), url
        assert rec.payload_digest == sha1_label(sha1_of(expected)), url


def test_encodings_are_recorded_as_sent(recorded: Recording) -> None:
    for scheme in SCHEMES:
        gz = capture_by_url(recorded.captures, recorded.site.url("/gzip", scheme)).response
        assert gz.http_header("Content-Encoding") == "gzip"
        assert gz.entity == GZIP_ENTITY  # not decoded
        chunked = capture_by_url(recorded.captures, recorded.site.url("/chunked", scheme))
        assert chunked.response.entity == CHUNKED_ENTITY


def test_request_records(recorded: Recording) -> None:
    site = recorded.site
    for url, answer in recorded.answers.items():
        req = capture_by_url(recorded.captures, url).request
        method, target, version = req.first_line.split(" ")
        assert method == answer.request.method and version == "HTTP/1.1", req.first_line
        assert target in (_path(url), url), req.first_line
        port = site.http_port if url.startswith("http:") else site.https_port
        assert req.http_header("Host") == f"127.0.0.1:{port}"
        assert req.http_header("Warcprox-Meta") is None, url
        assert req.entity == (POST_BODY if method == "POST" else b""), url
    for scheme in SCHEMES:
        req = capture_by_url(recorded.captures, site.url("/etag?conditional", scheme)).request
        assert req.http_header("If-None-Match") == ETAG


def test_warcprox_meta_is_not_sent_upstream(recorded: Recording) -> None:
    seen = [s for s in recorded.site.seen if s.path == "/text/with-warcprox-meta"]
    assert sorted(s.scheme for s in seen) == ["http", "https"]
    assert [s.header("Warcprox-Meta") for s in seen] == [None, None]


def test_warcprox_meta_response_header_names_the_record(recorded: Recording) -> None:
    for url, answer in recorded.answers.items():
        meta = warcprox_meta(answer.headers.get("Warcprox-Meta"))
        rec = assert_capture_metadata(meta, recorded.records, "response")
        assert rec.target_uri == url
    assert {f.name for f in recorded.files} == {
        warcprox_meta(a.headers["Warcprox-Meta"])["capture-metadata"]["warc-filename"]
        for a in recorded.answers.values()}
