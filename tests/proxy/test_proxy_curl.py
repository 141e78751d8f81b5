"""``curl -x`` through ``warckit proxy`` over HTTP and HTTPS (``--cacert`` the proxy's CA):
what curl gets, and what the WARCs hold."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
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
from local_site import CHUNKED_ENTITY, ETAG, FINAL_TEXT, GZIP_ENTITY, Site
from proxy_process import TIMEOUT, ProxyProcess, clean_env

if shutil.which("curl") is None:
    pytest.skip("curl is not installed", allow_module_level=True)

SCHEMES = ("http", "https")
POST_BODY = bytes(range(256)) * 20


@dataclass
class Answer:
    status: int
    heads: list[list[tuple[str, str]]]  # each hop's header fields
    body: bytes

    def header(self, name: str, hop: int = -1) -> str | None:
        for key, value in self.heads[hop]:
            if key.lower() == name.lower():
                return value
        return None


def curl(proxy: ProxyProcess, url: str, tmp: Path, *args: str) -> Answer:
    body, heads = tmp / "body", tmp / "heads"
    body.write_bytes(b"")  # (curl writes no file for an empty body)
    done = subprocess.run(
        ["curl", "-sS", "--max-time", str(TIMEOUT), "-x", proxy.url, "--cacert",
         str(proxy.ca_cert), "-o", str(body), "-D", str(heads), "-w", "%{http_code}", *args, url],
        capture_output=True, timeout=2 * TIMEOUT, env=clean_env(), check=False)
    assert done.returncode == 0, (url, done.returncode, done.stderr.decode(errors="replace"))
    hops: list[list[tuple[str, str]]] = []
    connect = False  # (the proxy's answer to CONNECT is in the file too)
    for line in heads.read_bytes().decode("latin-1").split("\r\n"):
        if line.startswith("HTTP/"):
            connect = line.split(" ", 2)[1:] == ["200", "Connection established"]
            if not connect:
                hops.append([])
        elif line and not connect:
            key, _, value = line.partition(":")
            hops[-1].append((key.strip(), value.strip()))
    return Answer(int(done.stdout), hops, body.read_bytes())


@dataclass
class Recording:
    site: Site
    files: list[Path]
    records: list[Rec]
    captures: list[Exchange]
    answers: dict[str, Answer]


@pytest.fixture(scope="module")
def recorded(site: Site, ca_cert: Path,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recording]:
    tmp = tmp_path_factory.mktemp("curl")
    proxy = ProxyProcess(tmp / "warcs", ca_cert)
    answers: dict[str, Answer] = {}
    try:
        (tmp / "post").write_bytes(POST_BODY)
        for scheme in SCHEMES:
            for path in ("/", "/image.png", "/chunked", "/gzip", "/text/curl"):
                answers[site.url(path, scheme)] = curl(proxy, site.url(path, scheme), tmp)
            answers[site.url("/redirect/301", scheme)] = curl(
                proxy, site.url("/redirect/301", scheme), tmp, "-L")
            url = site.url("/etag?curl", scheme)
            answers[url] = curl(proxy, url, tmp, "-H", f"If-None-Match: {ETAG}")
            url = site.url("/echo?curl", scheme)
            answers[url] = curl(proxy, url, tmp, "--data-binary", f"@{tmp / 'post'}",
                                "-H", "Content-Type: application/octet-stream")
    finally:
        files = proxy.finish()
    records = read_records(files)
    yield Recording(site, files, records, exchanges(records), answers)


def test_curl_gets_the_site(recorded: Recording) -> None:
    site = recorded.site
    for scheme in SCHEMES:
        a = recorded.answers
        for path in ("/", "/image.png", "/text/curl"):
            assert (a[site.url(path, scheme)].status, a[site.url(path, scheme)].body) == (
                200, site.entity(path))
        assert a[site.url("/chunked", scheme)].body == CHUNKED_ENTITY
        assert a[site.url("/gzip", scheme)].body == GZIP_ENTITY  # curl without --compressed
        redirect = a[site.url("/redirect/301", scheme)]
        assert (redirect.status, len(redirect.heads), redirect.body) == (200, 3, FINAL_TEXT)
        assert (a[site.url("/etag?curl", scheme)].status, a[site.url("/etag?curl", scheme)].body
                ) == (304, b"")
        assert a[site.url("/echo?curl", scheme)].body == POST_BODY


def test_warckit_check_passes(recorded: Recording) -> None:
    assert_warckit_check(recorded.files)


def test_warcio_check_passes(recorded: Recording) -> None:
    assert_warcio_check(recorded.files, recorded.records)


def test_captures(recorded: Recording) -> None:
    site = recorded.site
    expected: dict[str, bytes] = {}
    for scheme in SCHEMES:
        for path in ("/", "/image.png", "/chunked", "/gzip", "/text/curl", "/redirect/301",
                     "/redirect/302", "/redirect/final"):
            expected[site.url(path, scheme)] = site.entity(path)
        expected[site.url("/etag?curl", scheme)] = b""
        expected[site.url("/echo?curl", scheme)] = POST_BODY
    assert sorted(e.response.target_uri or "" for e in recorded.captures) == sorted(expected)
    for url, entity in expected.items():
        e = capture_by_url(recorded.captures, url)
        assert (e.response.type, e.response.ip) == ("response", "127.0.0.1")
        assert e.response.entity == entity, url
        assert e.response.payload_digest == sha1_label(sha1_of(entity)), url
        assert e.request.entity == (POST_BODY if "/echo" in url else b""), url
    for scheme in SCHEMES:
        e = capture_by_url(recorded.captures, site.url("/etag?curl", scheme))
        assert (e.response.status, e.request.http_header("If-None-Match")) == (304, ETAG)


def test_warcprox_meta_names_each_record(recorded: Recording) -> None:
    for url, answer in recorded.answers.items():
        for hop in range(len(answer.heads)):
            rec = assert_capture_metadata(warcprox_meta(answer.header("Warcprox-Meta", hop)),
                                          recorded.records, "response")
            if hop == len(answer.heads) - 1 and len(answer.heads) == 1:
                assert rec.target_uri == url
