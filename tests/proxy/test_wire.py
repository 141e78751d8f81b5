"""The proxy on the wire, in-process: the bytes recorded are the bytes that crossed it, and
what the client gets, what is refused and what is deduplicated are exactly right."""

from __future__ import annotations

import base64
import gzip
import hashlib
import http.client
import json
import socket
import ssl
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("h11")
pytest.importorskip("cryptography")

from origin import Origin

import warckit
from warckit.cli import main
from warckit.proxy import ArchivingProxy, CertificateAuthority

BODY = b"<html>hello</html>\n"
PLAIN = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (
    len(BODY), BODY)
GZ = gzip.compress(b"squeezed " * 100, mtime=0)
CHUNKED = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n"
           + b"".join(b"%x\r\n%s\r\n" % (len(GZ[i:i + 7]), GZ[i:i + 7]) for i in range(0, len(GZ), 7))
           + b"0\r\n\r\n")
UNTIL_CLOSE = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + b"x" * 5000


def _cut_short(request: bytes, conn: socket.socket) -> bool:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"y" * 300)
    return False  # then close


def _until_close(request: bytes, conn: socket.socket) -> bool:
    conn.sendall(UNTIL_CLOSE)
    return False


def _early_hints(request: bytes, conn: socket.socket) -> bool:
    conn.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")
    conn.sendall(PLAIN)
    return True


def _echo(request: bytes, conn: socket.socket) -> bool:
    body = request.partition(b"\r\n\r\n")[2]
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    return True


def _switching(request: bytes, conn: socket.socket) -> bool:
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\n\r\n\x81\x05hello")
    return False


ROUTES = {"/ws": _switching, "/plain": PLAIN, "/same": PLAIN, "/chunked": CHUNKED, "/cut": _cut_short,
          "/close": _until_close, "/hints": _early_hints, "/echo": _echo}


@pytest.fixture
def origin() -> Iterator[Origin]:
    o = Origin(dict(ROUTES))
    yield o
    o.close()


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[ArchivingProxy]:
    p = ArchivingProxy(tmp_path / "out", port=0, ca_cert=tmp_path / "ca.pem",
                       dedup=tmp_path / "dedup.sqlite")
    p.start()
    yield p
    p.stop()


def _connect(proxy: ArchivingProxy) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(proxy.host, proxy.port, timeout=30)


def _get(proxy: ArchivingProxy, url: str, *, conn: http.client.HTTPConnection | None = None,
         method: str = "GET", body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    c = conn or _connect(proxy)
    c.request(method, url, body=body, headers=headers or {})
    resp = c.getresponse()
    return resp, resp.read()


def _records(proxy: ArchivingProxy) -> list[tuple[dict[str, str], bytes, str]]:
    """(WARC headers, block, file name) of every record of every file, warcinfo left out."""
    proxy.stop()
    out = []
    for path in sorted(proxy.files):
        for rec in warckit.open(path):
            if rec.type != "warcinfo":
                out.append((dict(rec.headers.fields), rec.read_block(), Path(path).name))
    return out


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def test_a_chunked_gzip_response_is_recorded_as_sent(origin: Origin, proxy: ArchivingProxy) -> None:
    resp, body = _get(proxy, origin.url("/chunked"))
    assert resp.status == 200 and gzip.decompress(body) == b"squeezed " * 100
    said = json.loads(resp.headers["Warcprox-Meta"])["capture-metadata"]
    records = _records(proxy)
    (response, block, name), (request, request_block, _) = records
    assert response["WARC-Type"] == "response" and request["WARC-Type"] == "request"
    assert block == CHUNKED  # still chunked, still gzip: the wire's bytes
    assert response["WARC-Payload-Digest"] == _sha1(GZ)  # the entity, chunking removed
    assert response["WARC-Target-URI"] == origin.url("/chunked")
    assert response["WARC-IP-Address"] == "127.0.0.1"
    assert request["WARC-Concurrent-To"] == response["WARC-Record-ID"]
    assert request_block == origin.requests[0]  # what went upstream, exactly
    assert said["record-id"] == response["WARC-Record-ID"] and said["type"] == "response"
    assert said["warc-filename"] == name and said["timestamp"] == response["WARC-Date"]
    with open(proxy.files[0], "rb") as f:
        f.seek(said["offset"])
        assert next(iter(warckit.open(f))).record_id == response["WARC-Record-ID"]
    assert main(["check", *proxy.files]) == 0


def test_keep_alive_on_both_sides(origin: Origin, proxy: ArchivingProxy) -> None:
    conn = _connect(proxy)
    for path in ("/plain", "/chunked", "/echo"):
        resp, _ = _get(proxy, origin.url(path), conn=conn, method="POST" if path == "/echo" else "GET",
                       body=b"a=1&b=2" if path == "/echo" else None)
        assert resp.status == 200
    assert origin.connections == 1  # one upstream connection, reused
    records = _records(proxy)
    assert [(h["WARC-Type"], h["WARC-Target-URI"].rsplit("/", 1)[1]) for h, _, _ in records] == [
        ("response", "plain"), ("request", "plain"), ("response", "chunked"),
        ("request", "chunked"), ("response", "echo"), ("request", "echo")]
    assert records[4][1].endswith(b"\r\n\r\na=1&b=2")
    assert records[5][1] == origin.requests[2] and records[5][1].endswith(b"\r\n\r\na=1&b=2")


def test_a_response_read_until_close(origin: Origin, proxy: ArchivingProxy) -> None:
    resp, body = _get(proxy, origin.url("/close"))
    assert body == b"x" * 5000
    assert resp.will_close  # the client's connection ends with the body
    (response, block, _), _ = _records(proxy)
    assert block == UNTIL_CLOSE and "WARC-Truncated" not in response


def test_a_response_broken_off_is_kept_truncated(origin: Origin, proxy: ArchivingProxy) -> None:
    conn = _connect(proxy)
    conn.request("GET", origin.url("/cut"))
    resp = conn.getresponse()
    with pytest.raises(http.client.IncompleteRead) as caught:
        resp.read()
    assert caught.value.partial == b"y" * 300
    (response, block, _), _ = _records(proxy)
    assert response["WARC-Truncated"] == "disconnect"
    assert block == b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"y" * 300


def test_an_informational_head_is_not_the_response(origin: Origin, proxy: ArchivingProxy) -> None:
    resp, body = _get(proxy, origin.url("/hints"))
    assert (resp.status, body) == (200, BODY)
    (response, block, _), _ = _records(proxy)
    assert block == PLAIN


def test_a_protocol_switch_ends_the_exchange(origin: Origin, proxy: ArchivingProxy) -> None:
    with socket.create_connection((proxy.host, proxy.port), timeout=30) as s:
        s.sendall(f"GET {origin.url('/ws')} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\n\r\n".encode())
        got = b""
        while data := s.recv(65536):
            got += data
    assert got.startswith(b"HTTP/1.1 101 Switching Protocols\r\n") and got.endswith(b"\r\n\r\n")
    (response, block, _), _ = _records(proxy)
    assert block == (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\n\r\n")  # the frames after it are not HTTP


def test_the_header_is_stripped_and_metadata_written(origin: Origin, proxy: ArchivingProxy) -> None:
    meta = {"metadata": {"seed": "http://e.org/", "hops": 2}, "warc-prefix": "job"}
    resp, _ = _get(proxy, origin.url("/plain"), headers={"Warcprox-Meta": json.dumps(meta)})
    assert resp.status == 200
    assert b"warcprox-meta" not in origin.requests[0].lower()
    response, request, metadata = _records(proxy)
    assert b"warcprox-meta" not in request[1].lower()
    assert metadata[0]["WARC-Type"] == "metadata"
    assert metadata[0]["WARC-Refers-To"] == response[0]["WARC-Record-ID"]
    assert metadata[1] == b'seed: http://e.org/\r\nhops: 2\r\n\r\n'
    assert response[2].startswith("job-")


def test_revisits_and_buckets(origin: Origin, proxy: ArchivingProxy) -> None:
    ro = {"Warcprox-Meta": json.dumps({"dedup-buckets": {"b": "ro"}})}
    rw = {"Warcprox-Meta": json.dumps({"dedup-buckets": {"b": "rw"}})}
    _get(proxy, origin.url("/plain"), headers=ro)   # bucket b empty, and not added to
    _get(proxy, origin.url("/plain"), headers=ro)
    _get(proxy, origin.url("/plain"), headers=rw)   # added
    resp, body = _get(proxy, origin.url("/same"), headers=ro)  # another URL, same payload
    assert body == BODY
    assert json.loads(resp.headers["Warcprox-Meta"])["capture-metadata"]["type"] == "revisit"
    _get(proxy, origin.url("/plain"))                # the default bucket: new
    _get(proxy, origin.url("/plain"))                # … then a revisit
    heads = [h for h, _, _ in _records(proxy) if h["WARC-Type"] != "request"]
    assert [h["WARC-Type"] for h in heads] == ["response"] * 3 + ["revisit", "response", "revisit"]
    revisit = heads[3]
    assert revisit["WARC-Refers-To"] == heads[2]["WARC-Record-ID"]
    assert revisit["WARC-Refers-To-Target-URI"] == origin.url("/plain")
    assert revisit["WARC-Target-URI"] == origin.url("/same")
    assert revisit["WARC-Payload-Digest"] == _sha1(BODY)
    assert heads[5]["WARC-Refers-To"] == heads[4]["WARC-Record-ID"]
    assert (Path(proxy.archivist.dedup).parent / "dedup.b.sqlite").is_file()


def test_blocks_limits_and_bad_headers_are_refused(origin: Origin, proxy: ArchivingProxy) -> None:
    block = {"blocks": [{"url_match": "STRING_MATCH", "value": origin.url("/pl")}]}
    resp, body = _get(proxy, origin.url("/plain"), headers={"Warcprox-Meta": json.dumps(block)})
    assert resp.status == 403 and b"blocked by rule" in body
    assert json.loads(resp.headers["Warcprox-Meta"]) == {"blocked-by-rule": block["blocks"][0]}
    resp, body = _get(proxy, origin.url("/plain"), headers={"Warcprox-Meta": "{oops"})
    assert resp.status == 400 and b"Warcprox-Meta is not JSON" in body
    limit = {"Warcprox-Meta": json.dumps({"stats": {"buckets": ["job"]},
                                          "limits": {"job/total/urls": 2}})}
    assert [_get(proxy, origin.url("/echo"), headers=limit)[0].status for _ in range(3)] == [200, 200, 420]
    resp, _ = _get(proxy, origin.url("/echo"), headers=limit)
    said = json.loads(resp.headers["Warcprox-Meta"])
    assert said["reached-limit"] == {"job/total/urls": 2}
    assert said["stats"]["job"]["total"]["urls"] == 2
    soft = {"Warcprox-Meta": json.dumps({"soft-limits": {"__all__/new/urls": 2}})}
    assert _get(proxy, origin.url("/echo"), headers=soft)[0].status == 430
    assert len(origin.requests) == 2  # nothing refused went upstream
    assert len(_records(proxy)) == 4  # nor was written


def test_status_and_unreachable_servers(origin: Origin, proxy: ArchivingProxy) -> None:
    _get(proxy, origin.url("/plain"))
    resp, body = _get(proxy, "/status")
    status = json.loads(body)
    assert resp.status == 200 and status["stats"]["__all__"]["new"] == {"urls": 1,
                                                                        "wire_bytes": len(PLAIN)}
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    port = dead.getsockname()[1]
    dead.close()
    resp, body = _get(proxy, f"http://127.0.0.1:{port}/x")
    assert resp.status == 502 and f"cannot connect to 127.0.0.1:{port}".encode() in body
    assert len(_records(proxy)) == 2


def test_only_loopback_clients_unless_allowed(tmp_path: Path) -> None:
    p = ArchivingProxy(tmp_path, port=0, ca_cert=tmp_path / "ca.pem", allow=["10.1.0.0/16"])
    assert p._allowed(("127.0.0.1", 1)) and p._allowed(("::1", 1, 0, 0))
    assert p._allowed(("::ffff:127.0.0.1", 1, 0, 0)) and p._allowed(("10.1.2.3", 1))
    assert not p._allowed(("10.2.0.1", 1)) and not p._allowed(("192.168.1.1", 1))
    assert not ArchivingProxy(tmp_path, port=0, ca_cert=tmp_path / "ca.pem")._allowed(("10.1.2.3", 1))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="HTTPS interception needs Python 3.11")
def test_https_through_connect(tmp_path: Path, proxy: ArchivingProxy) -> None:
    server_ca = CertificateAuthority(tmp_path / "origin-ca.pem")  # the site's own certificate
    tls = server_ca.context("127.0.0.1")

    def handshake_then_plain(request: bytes, conn: socket.socket) -> bool:
        raise AssertionError("unreachable")

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        raw, _ = listener.accept()
        with tls.wrap_socket(raw, server_side=True) as conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            conn.sendall(PLAIN)
            time.sleep(0.5)

    import threading
    threading.Thread(target=serve, daemon=True).start()
    client_tls = ssl.create_default_context(cafile=proxy.ca_cert_path)
    conn = http.client.HTTPSConnection(proxy.host, proxy.port, context=client_tls, timeout=30)
    conn.set_tunnel("127.0.0.1", port)
    conn.request("GET", "/secure?a=1")
    resp = conn.getresponse()
    assert (resp.status, resp.read()) == (200, BODY)
    assert resp.headers["Warcprox-Meta"]
    (response, block, _), (request, request_block, _) = _records(proxy)
    assert response["WARC-Target-URI"] == f"https://127.0.0.1:{port}/secure?a=1"
    assert block == PLAIN
    assert request_block.startswith(b"GET /secure?a=1 HTTP/1.1\r\n")
    listener.close()


def test_many_clients_at_once(origin: Origin, proxy: ArchivingProxy) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def client(n: int) -> list[int]:
        conn = _connect(proxy)
        out = []
        for i in range(5):
            resp, body = _get(proxy, origin.url("/echo"), conn=conn, method="POST",
                              body=b"client %d request %d" % (n, i))
            assert body == b"client %d request %d" % (n, i)
            out.append(resp.status)
        return out

    with ThreadPoolExecutor(40) as pool:
        statuses = [s for got in pool.map(client, range(40)) for s in got]
    assert statuses == [200] * 200
    records = _records(proxy)
    responses = sorted(block.rpartition(b"\r\n\r\n")[2] for h, block, _ in records
                       if h["WARC-Type"] == "response")
    assert responses == sorted(b"client %d request %d" % (n, i) for n in range(40) for i in range(5))
    assert main(["check", *proxy.files]) == 0
    assert not list(Path(proxy.files[0]).parent.glob("*.open"))
