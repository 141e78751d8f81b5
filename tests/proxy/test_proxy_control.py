"""The proxy as a service: ``/status``, the record on disk before the client has the
response, clean shutdown on SIGTERM and SIGINT, and the library API (``ArchivingProxy``)."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from captures import (
    assert_capture_metadata,
    assert_warckit_check,
    capture_by_url,
    exchanges,
    read_records,
    sha1_label,
    warcprox_meta,
)
from local_site import Site
from proxy_process import TIMEOUT, StartProxy, proxied_session, warc_files

import warckit


def test_status(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    for scheme in ("http", "https"):
        assert s.get(site.url("/text/status", scheme), timeout=TIMEOUT).status_code == 200
    conn = http.client.HTTPConnection(proxy.host, proxy.port, timeout=TIMEOUT)
    conn.request("GET", "/status")
    r = conn.getresponse()
    body = r.read()
    conn.close()
    assert (r.status, r.getheader("Content-Type")) == (200, "application/json")
    status = json.loads(body)
    assert status["stats"]["__all__"]["total"]["urls"] == 2
    open_files = sorted(p.name for p in proxy.out.iterdir() if p.name.endswith(".open"))
    assert len(open_files) == 1
    # PROXY-CONTRACT: {"stats": {...}, "files": [...], ...}
    assert "files" in status, sorted(status)
    names = [Path(f).name for f in status["files"]]
    assert names in ([open_files[0]], [open_files[0].removesuffix(".open")]), status["files"]


def test_ca_file(start_proxy: StartProxy) -> None:
    """PROXY-CONTRACT: one PEM with a CA certificate and its key, created once, then reused
    (clients configured once keep working); the path is the one announced."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    proxy = start_proxy()
    assert proxy.announced_ca == str(proxy.ca_cert)
    pem = proxy.ca_cert.read_bytes()
    cert = x509.load_pem_x509_certificate(pem)
    key = serialization.load_pem_private_key(pem, password=None)
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    assert key.public_key().public_bytes(*spki) == cert.public_key().public_bytes(*spki)
    assert proxy.ca_cert.stat().st_mode & 0o077 == 0  # the key is private
    proxy.finish()
    again = start_proxy()
    assert again.ca_cert.read_bytes() == pem
    again.finish()


def test_record_is_on_disk_when_the_client_gets_the_response(site: Site,
                                                              start_proxy: StartProxy) -> None:
    """PROXY-CONTRACT: the client receives the response only after it is written: the
    record the header names is readable from the open file at its offset."""
    proxy = start_proxy()
    s = proxied_session(proxy)
    for scheme in ("http", "https"):
        r = s.get(site.url("/image.png", scheme), timeout=TIMEOUT)
        cm = warcprox_meta(r.headers.get("Warcprox-Meta"))["capture-metadata"]
        (path,) = [p for p in proxy.out.iterdir() if p.name.startswith(cm["warc-filename"])]
        with warckit.read_record_at(str(path), cm["offset"]) as record:
            assert (record.type, record.record_id) == ("response", cm["record-id"])
            assert record.target_uri == site.url("/image.png", scheme)
            assert record.content_stream().read() == r.content == site.entity("/image.png")
    proxy.finish()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_shutdown_with_idle_keepalive_clients(site: Site, start_proxy: StartProxy,
                                              sig: int) -> None:
    """A signal with client connections open (idle, kept alive, over HTTP and through a
    CONNECT tunnel): exit 0, every file closed, and nothing but the proxy's own lines on
    stderr (no traceback)."""
    proxy = start_proxy()
    s = proxied_session(proxy)  # (requests keeps its connections open between requests)
    for scheme in ("http", "https"):
        assert s.get(site.url(f"/text/shutdown-{sig}", scheme), timeout=TIMEOUT).ok
    assert proxy.stop(sig) == 0, proxy.stderr()
    assert [p.name for p in proxy.out.iterdir() if p.name.endswith(".open")] == []
    assert "Traceback" not in proxy.stderr(), proxy.stderr()
    assert [ln for ln in proxy.stderr().splitlines() if ln.strip()] == [
        ln for ln in proxy.stderr().splitlines() if ln.startswith("warckit proxy: ")]
    files = warc_files(proxy.out)
    assert sorted(e.response.target_uri or "" for e in exchanges(read_records(files))) == sorted(
        site.url(f"/text/shutdown-{sig}", scheme) for scheme in ("http", "https"))
    assert_warckit_check(files)


def _wait_until_seen(site: Site, path: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while path not in site.seen_paths():
        assert time.monotonic() < deadline, f"the site never got {path}"
        time.sleep(0.02)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_sigterm_lets_the_exchange_under_way_finish(site: Site, start_proxy: StartProxy,
                                                    scheme: str) -> None:
    """docs/proxy.rst: on SIGTERM, exchanges under way get ten seconds to finish: a response
    still arriving from the server (``/slow``: 1.5 s) reaches the client and the WARC."""
    proxy = start_proxy()
    path = f"/slow?{scheme}"
    got: list[bytes] = []
    errors: list[BaseException] = []

    def client() -> None:
        try:
            got.append(proxied_session(proxy).get(site.url(path, scheme),
                                                  timeout=TIMEOUT).content)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    _wait_until_seen(site, path)  # the proxy forwarded it: the exchange is under way
    proxy.proc.send_signal(signal.SIGTERM)
    thread.join(2 * TIMEOUT)
    assert not thread.is_alive()
    assert errors == [] and got == [site.entity("/slow")]
    files = proxy.finish()
    e = capture_by_url(exchanges(read_records(files)), site.url(path, scheme))
    assert e.response.entity == site.entity("/slow")
    assert e.response.payload_digest == sha1_label(site.entity_sha1("/slow"))
    assert_warckit_check(files)


def _non_loopback_ipv4() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            return None
        ip = str(s.getsockname()[0])
    return None if ip.startswith("127.") else ip


def _raw_get(host: str, port: int, url: str) -> bytes:
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        sock.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = bytearray()
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    return bytes(answer)


def test_only_loopback_and_allowed_clients_are_served(site: Site,
                                                      start_proxy: StartProxy) -> None:
    """Never an open proxy: a client from another address gets nothing (and nothing is
    fetched or written) unless --allow names its network."""
    ip = _non_loopback_ipv4()
    if ip is None:
        pytest.skip("this machine has no address besides loopback")
    refused = start_proxy("--host", ip)
    assert refused.host == ip
    url = site.url("/text/not-allowed")
    answer = _raw_get(ip, refused.port, url)
    assert b" 200 " not in answer.split(b"\r\n", 1)[0], answer[:300]
    assert "/text/not-allowed" not in site.seen_paths()
    assert exchanges(read_records(refused.finish())) == []
    allowed = start_proxy("--host", ip, "--allow", f"{ip}/32")
    url = site.url("/text/allowed-client")
    answer = _raw_get(ip, allowed.port, url)
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 200 OK", answer[:300]
    assert answer.endswith(site.entity("/text/allowed-client"))
    e = capture_by_url(exchanges(read_records(allowed.finish())), url)
    assert e.response.entity == site.entity("/text/allowed-client")


def test_library_api(site: Site, tmp_path: Path, ca_cert: Path) -> None:
    pytest.importorskip("h11")
    from warckit.proxy import ArchivingProxy

    import requests

    with ArchivingProxy(tmp_path / "out", port=0, ca_cert=str(ca_cert), prefix="lib") as proxy:
        host, port = proxy.host, proxy.port
        assert proxy.ca_cert_path == str(ca_cert)
        s = requests.Session()
        s.trust_env = False
        s.proxies = {"http": f"http://{host}:{port}", "https": f"http://{host}:{port}"}
        s.verify = proxy.ca_cert_path
        answers = {site.url("/gzip", scheme): s.get(site.url("/gzip", scheme), timeout=TIMEOUT)
                   for scheme in ("http", "https")}
    files = [Path(f) for f in proxy.files]
    assert files and all(f.name.startswith("lib-") and f.exists() for f in files)
    assert sorted(files) == warc_files(tmp_path / "out")
    records = read_records(files)
    captures = exchanges(records)
    for url, r in answers.items():
        e = capture_by_url(captures, url)
        assert e.response.entity == site.entity("/gzip")
        assert e.response.payload_digest == sha1_label(site.entity_sha1("/gzip"))
        assert_capture_metadata(warcprox_meta(r.headers.get("Warcprox-Meta")), records,
                                "response")
    assert_warckit_check(files)


def test_library_start_returns_the_address(tmp_path: Path, ca_cert: Path, site: Site) -> None:
    pytest.importorskip("h11")
    from warckit.proxy import ArchivingProxy

    proxy = ArchivingProxy(tmp_path / "out", host="127.0.0.1", port=0, ca_cert=str(ca_cert))
    host, port = proxy.start()
    try:
        assert host == "127.0.0.1" and port > 0
        conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
        conn.request("GET", site.url("/text/library-start"))
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, site.entity("/text/library-start"))
        conn.close()
    finally:
        proxy.stop()
    assert [Path(f).name for f in proxy.files] == [p.name for p in warc_files(tmp_path / "out")]
