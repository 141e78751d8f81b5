"""The test site itself, without the proxy: every page answers as the proxy tests expect."""

from __future__ import annotations

import gzip
import hashlib
import socket
import ssl

import pytest
import requests
from local_site import (
    BROKEN_LENGTH,
    BROKEN_SENT,
    CHUNKED_ENTITY,
    CHUNKS,
    ETAG,
    FINAL_TEXT,
    GZIP_TEXT,
    IMAGE_PNG,
    INDEX_HTML,
    LARGE_SIZE,
    LAST_MODIFIED,
    SLOW_CHUNKS,
    Site,
    large_sha1,
)
from proxy_process import TIMEOUT

SCHEMES = ("http", "https")


def _session(site: Site) -> requests.Session:
    s = requests.Session()
    s.trust_env = False  # no proxy from the environment
    s.verify = str(site.cert_path)
    return s


def _raw(site: Site, scheme: str, request: bytes) -> bytes:
    """The whole answer to *request* (sent with ``Connection: close``), bytes as on the wire."""
    port = site.http_port if scheme == "http" else site.https_port
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    if scheme == "https":
        context = ssl.create_default_context(cafile=str(site.cert_path))
        sock = context.wrap_socket(sock, server_hostname="127.0.0.1")
    with sock:
        sock.sendall(request)
        out = bytearray()
        while chunk := sock.recv(65536):
            out += chunk
    return bytes(out)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pages(site: Site, scheme: str) -> None:
    s = _session(site)
    r = s.get(site.url("/", scheme), timeout=TIMEOUT)
    assert (r.status_code, r.content) == (200, INDEX_HTML)
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    for path in ("/style.css", "/script.js", "/image.png", "/text/anything"):
        r = s.get(site.url(path, scheme), timeout=TIMEOUT)
        assert (r.status_code, r.content) == (200, site.entity(path)), path
    assert site.entity("/image.png") == IMAGE_PNG and IMAGE_PNG.startswith(b"\x89PNG\r\n")
    r = s.get(site.url("/missing", scheme), timeout=TIMEOUT)
    assert (r.status_code, r.content) == (404, b"not found\n")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_chunked_is_chunked_on_the_wire(site: Site, scheme: str) -> None:
    raw = _raw(site, scheme, b"GET /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"\r\nTransfer-Encoding: chunked" in head and b"Content-Length" not in head
    assert body == b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in CHUNKS if c) + b"0\r\n\r\n"
    assert requests.get(site.url("/chunked", scheme), verify=str(site.cert_path),
                        timeout=TIMEOUT).content == CHUNKED_ENTITY


@pytest.mark.parametrize("scheme", SCHEMES)
def test_gzip(site: Site, scheme: str) -> None:
    r = _session(site).get(site.url("/gzip", scheme), timeout=TIMEOUT, stream=True)
    raw = r.raw.read(decode_content=False)
    assert r.headers["Content-Encoding"] == "gzip"
    assert raw == site.entity("/gzip") and gzip.decompress(raw) == GZIP_TEXT


@pytest.mark.parametrize("scheme", SCHEMES)
def test_redirect_chain(site: Site, scheme: str) -> None:
    r = _session(site).get(site.url("/redirect/301", scheme), timeout=TIMEOUT)
    assert [h.status_code for h in r.history] == [301, 302]
    assert [h.headers["Location"] for h in r.history] == ["/redirect/302", "/redirect/final"]
    assert (r.status_code, r.url, r.content) == (200, site.url("/redirect/final", scheme),
                                                 FINAL_TEXT)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_conditional_requests(site: Site, scheme: str) -> None:
    s, url = _session(site), site.url("/etag", scheme)
    r = s.get(url, timeout=TIMEOUT)
    assert (r.status_code, r.headers["ETag"], r.headers["Last-Modified"]) == (200, ETAG,
                                                                              LAST_MODIFIED)
    for headers in ({"If-None-Match": ETAG}, {"If-None-Match": f'"other", {ETAG}'},
                    {"If-Modified-Since": LAST_MODIFIED},
                    {"If-Modified-Since": "Wed, 02 Dec 2026 00:00:00 GMT"}):
        r = s.get(url, headers=headers, timeout=TIMEOUT)
        assert (r.status_code, r.content, r.headers["ETag"]) == (304, b"", ETAG), headers
    for headers in ({"If-None-Match": '"other"'},
                    {"If-Modified-Since": "Mon, 30 Nov 2026 00:00:00 GMT"}):
        r = s.get(url, headers=headers, timeout=TIMEOUT)
        assert (r.status_code, r.content) == (200, site.entity("/etag")), headers


@pytest.mark.parametrize("scheme", SCHEMES)
def test_post_echo(site: Site, scheme: str) -> None:
    body = bytes(range(256)) * 3
    r = _session(site).post(site.url("/echo?x=1", scheme), data=body, timeout=TIMEOUT,
                            headers={"Content-Type": "application/x-test"})
    assert (r.status_code, r.content, r.headers["Content-Type"]) == (200, body,
                                                                     "application/x-test")
    seen = [s for s in site.seen if s.method == "POST" and s.scheme == scheme][-1]
    assert (seen.path, seen.body) == ("/echo?x=1", body)


def test_large_download(site: Site) -> None:
    r = requests.get(site.url("/large"), stream=True, timeout=TIMEOUT)
    assert int(r.headers["Content-Length"]) == LARGE_SIZE
    h, n = hashlib.sha1(), 0
    for block in r.iter_content(1 << 20):
        h.update(block)
        n += len(block)
    assert (n, h.digest()) == (LARGE_SIZE, large_sha1())
    assert site.entity_sha1("/large") == large_sha1()
    assert len(site.entity("/large")) == LARGE_SIZE


@pytest.mark.parametrize("scheme", SCHEMES)
def test_broken_response_is_cut_off(site: Site, scheme: str) -> None:
    raw = _raw(site, scheme, b"GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert f"Content-Length: {BROKEN_LENGTH}".encode() in head
    assert body == BROKEN_SENT and len(body) < BROKEN_LENGTH


def test_slow_page(site: Site) -> None:
    assert requests.get(site.url("/slow"), timeout=TIMEOUT).content == b"".join(SLOW_CHUNKS)


def test_site_logs_requests_with_their_headers(site: Site) -> None:
    requests.get(site.url("/text/logged"), headers={"X-Probe": "42"}, timeout=TIMEOUT)
    seen = [s for s in site.seen if s.path == "/text/logged"]
    assert [(s.scheme, s.method, s.header("x-probe")) for s in seen] == [("http", "GET", "42")]
