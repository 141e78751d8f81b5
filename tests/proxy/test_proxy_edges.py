"""Edges of ``warckit proxy`` with real clients: HEAD, a server that is down, a response cut
off by its server, an HTTP/1.0 client, many clients at once, rolling files with
``--max-bytes`` and ``--prefix``, the chunked body stored as sent, and start-up errors."""

from __future__ import annotations

import re
import socket
import threading
from pathlib import Path

import pytest
import requests
from captures import (
    assert_warcio_check,
    assert_warckit_check,
    capture_by_url,
    exchanges,
    read_records,
    sha1_label,
    sha1_of,
)
from local_site import BROKEN_SENT, CHUNKED_ENTITY, CHUNKS, Site
from proxy_process import (
    TIMEOUT,
    ProxyDidNotStart,
    ProxyProcess,
    StartProxy,
    free_port,
    proxied_session,
)

import warckit

SCHEMES = ("http", "https")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_head(site: Site, start_proxy: StartProxy, scheme: str) -> None:
    proxy = start_proxy()
    url = site.url("/style.css", scheme)
    r = proxied_session(proxy).head(url, timeout=TIMEOUT)
    assert (r.status_code, r.content) == (200, b"")
    assert r.headers["Content-Length"] == str(len(site.entity("/style.css")))
    files = proxy.finish()
    e = capture_by_url(exchanges(read_records(files)), url)
    assert e.request.first_line.startswith("HEAD ")
    assert (e.response.status, e.response.entity_len) == (200, 0)
    assert e.response.http_header("Content-Length") == str(len(site.entity("/style.css")))
    assert_warckit_check(files)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_server_down_is_502_and_nothing_is_written(start_proxy: StartProxy,
                                                   scheme: str) -> None:
    proxy = start_proxy()
    url = f"{scheme}://127.0.0.1:{free_port()}/text/nobody-listens"
    r = proxied_session(proxy).get(url, timeout=TIMEOUT)
    assert r.status_code == 502, (r.status_code, r.text)
    assert exchanges(read_records(proxy.finish())) == []


@pytest.mark.parametrize("scheme", SCHEMES)
def test_response_cut_off_by_the_server(site: Site, start_proxy: StartProxy,
                                        scheme: str) -> None:
    """docs/proxy.rst: a server that breaks off a response gives a response record with
    ``WARC-Truncated: disconnect``, holding what came."""
    proxy = start_proxy()
    url = site.url("/broken", scheme)
    with pytest.raises(requests.RequestException):
        proxied_session(proxy).get(url, timeout=TIMEOUT).content  # noqa: B018
    files = proxy.finish()
    records = read_records(files)
    rec = capture_by_url(exchanges(records), url).response
    assert dict(rec.warc_headers).get("WARC-Truncated") == "disconnect"
    assert (rec.status, rec.entity) == (200, BROKEN_SENT)
    assert rec.payload_digest == sha1_label(sha1_of(BROKEN_SENT))
    assert_warckit_check(files)


def test_http10_client(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    url = site.url("/text/http10")
    with socket.create_connection((proxy.host, proxy.port), timeout=TIMEOUT) as sock:
        sock.sendall(f"GET {url} HTTP/1.0\r\nUser-Agent: raw-socket\r\n\r\n".encode())
        answer = bytearray()
        while chunk := sock.recv(65536):  # an HTTP/1.0 exchange ends with the connection
            answer += chunk
    head, _, body = bytes(answer).partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].split(b" ")[1] == b"200"
    assert body == site.entity("/text/http10")
    e = capture_by_url(exchanges(read_records(proxy.finish())), url)
    assert e.response.entity == site.entity("/text/http10")
    assert e.request.http_header("User-Agent") == "raw-socket"


def test_many_clients_at_once(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    errors: list[BaseException] = []
    urls = [site.url(f"/text/concurrent-{t}-{n}", SCHEMES[(t + n) % 2])
            for t in range(8) for n in range(6)]

    def client(t: int) -> None:
        try:
            s = proxied_session(proxy)
            for n in range(6):
                url = urls[t * 6 + n]
                r = s.get(url, timeout=TIMEOUT)
                assert r.content == site.entity("/" + url.split("/", 3)[3]), url
            r = s.get(site.url("/image.png", SCHEMES[t % 2]), timeout=TIMEOUT)
            assert r.content == site.entity("/image.png")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(4 * TIMEOUT)
        assert not thread.is_alive()
    assert errors == []
    files = proxy.finish()
    records = read_records(files)
    captures = exchanges(records)
    assert len(captures) == len(urls) + 8
    for url in urls:
        e = capture_by_url(captures, url)
        path = "/" + url.split("/", 3)[3]
        assert e.response.payload_digest == sha1_label(site.entity_sha1(path))
        assert e.response.entity == site.entity(path)
    images = [e for e in captures if e.response.target_uri in
              (site.url("/image.png"), site.url("/image.png", "https"))]
    assert len(images) == 8 and {e.response.entity for e in images} == {site.entity("/image.png")}
    assert_warckit_check(files)


def test_rolling_files_with_max_bytes_and_prefix(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy("--max-bytes", "4000", "--prefix", "crawl")
    s = proxied_session(proxy)
    urls = [site.url(f"/text/roll-{n}", SCHEMES[n % 2]) for n in range(12)]
    for url in urls:
        assert s.get(url, timeout=TIMEOUT).status_code == 200
    files = proxy.finish()
    assert len(files) >= 3, [f.name for f in files]
    for f in files:  # PROXY-CONTRACT: {prefix}-{timestamp}-{serial}-...warc.gz
        assert re.fullmatch(r"crawl-\d{17}-\d{5}-.+\.warc\.gz", f.name), f.name
    serials = [f.name.split("-")[2] for f in files]
    assert serials == [f"{n:05d}" for n in range(len(files))], [f.name for f in files]
    records = read_records(files)
    captures = exchanges(records)  # (each file starts with its warcinfo)
    assert [e.response.target_uri for e in captures] == urls  # in order, none split or lost
    for f in files:
        assert {r.file for r in records if r.file == f} == {f}
    assert_warckit_check(files)
    assert_warcio_check(files, records)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_chunked_body_is_stored_as_sent(site: Site, start_proxy: StartProxy,
                                        scheme: str) -> None:
    """docs/proxy.rst: the response exactly as the server sent it, still chunked; the
    payload digest is the de-chunked entity's."""
    proxy = start_proxy()
    url = site.url("/chunked", scheme)
    assert proxied_session(proxy).get(url, timeout=TIMEOUT).content == CHUNKED_ENTITY
    files = proxy.finish()
    rec = capture_by_url(exchanges(read_records(files)), url).response
    assert rec.http_header("Transfer-Encoding") == "chunked"
    wire = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in CHUNKS if c) + b"0\r\n\r\n"
    with warckit.read_record_at(str(rec.file), rec.offset) as record:
        assert record.payload_stream().read() == wire
    assert rec.payload_digest == sha1_label(sha1_of(CHUNKED_ENTITY))


def _start_fails(tmp_path: Path, ca_cert: Path, *args: str, port: int = 0) -> str:
    """``warckit proxy ARGS`` exits 1 before it listens; its stderr."""
    try:
        proxy = ProxyProcess(tmp_path / "out", ca_cert, *args, port=port)
    except ProxyDidNotStart as failed:
        assert failed.returncode == 1, (failed.returncode, failed.stderr)
        assert "Traceback" not in failed.stderr, failed.stderr
        return failed.stderr
    proxy.finish()
    raise AssertionError(f"warckit proxy {' '.join(args)} started: {proxy.stderr()}")


def test_start_up_error_bad_ca_file(tmp_path: Path) -> None:
    """docs/proxy.rst: a CA file that cannot be read stops it before it listens (exit 1)."""
    bad_ca = tmp_path / "bad-ca.pem"
    bad_ca.write_bytes(b"not a certificate\n")
    assert "bad-ca.pem" in _start_fails(tmp_path, bad_ca)
    assert list((tmp_path / "out").iterdir()) == []


def test_start_up_error_port_in_use(tmp_path: Path, ca_cert: Path,
                                    start_proxy: StartProxy) -> None:
    """docs/proxy.rst: a port in use stops it before it listens (exit 1)."""
    running = start_proxy()
    assert str(running.port) in _start_fails(tmp_path, ca_cert, port=running.port)
    assert list((tmp_path / "out").iterdir()) == []


def test_start_up_error_bad_dedup_database(tmp_path: Path, ca_cert: Path) -> None:
    """docs/proxy.rst: a dedup database that is not one stops it before it listens (exit 1)."""
    bad_db = tmp_path / "bad.db"
    bad_db.write_bytes(b"this is not an SQLite database\n" * 100)
    assert "bad.db" in _start_fails(tmp_path, ca_cert, "--dedup", str(bad_db))
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("scheme", SCHEMES)
def test_large_post_is_recorded_whole(site: Site, start_proxy: StartProxy, scheme: str) -> None:
    """A 5 MiB upload: the request record holds the whole body (spooled, not cut), the
    response the whole echo."""
    proxy = start_proxy()
    body = bytes(range(256)) * (5 * 4096)
    url = site.url(f"/echo?big-{scheme}", scheme)
    r = proxied_session(proxy).post(url, data=body, timeout=TIMEOUT,
                                    headers={"Content-Type": "application/octet-stream"})
    assert r.content == body
    files = proxy.finish()
    e = capture_by_url(exchanges(read_records(files)), url)
    assert (e.request.entity_len, e.request.entity_sha1) == (len(body), sha1_of(body))
    assert (e.response.entity_len, e.response.entity_sha1) == (len(body), sha1_of(body))
    assert e.response.payload_digest == sha1_label(sha1_of(body))
    assert e.request.http_header("Content-Length") == str(len(body))
    assert_warckit_check(files)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_target_uri_keeps_the_url_as_requested(site: Site, start_proxy: StartProxy,
                                               scheme: str) -> None:
    """Percent-escapes, a non-ASCII path and an odd query reach the site and the
    WARC-Target-URI as the client sent them."""
    proxy = start_proxy()
    path = "/text/caf%C3%A9/a%20b?q=%E2%9C%93&empty=&dup=1&dup=2#frag"
    sent = path.split("#", 1)[0]
    r = proxied_session(proxy).get(site.url(path, scheme), timeout=TIMEOUT)
    assert r.content == site.entity(sent)
    assert sent in site.seen_paths(scheme)
    (e,) = exchanges(read_records(proxy.finish()))
    assert e.response.target_uri == site.url(sent, scheme)
