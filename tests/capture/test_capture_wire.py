"""The less common shapes of traffic: through a proxy (a CONNECT tunnel for https,
absolute-form requests for http), an interim 100 Continue, a server that hangs up."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from archive import pairs, read_back, sha1_label
from loopback import HTML, Loopback, proxy

import warckit


def _through_proxy(client: str, srv: Loopback, proxy_url: str, path: str) -> bytes:
    if client == "requests":
        import requests

        verify = str(srv.cafile) if srv.cafile else True
        with requests.Session() as s:
            return s.get(srv.url(path), proxies={"http": proxy_url, "https": proxy_url},
                         verify=verify, timeout=30).content
    if client == "urllib3":
        import urllib3

        with urllib3.ProxyManager(proxy_url, ca_certs=str(srv.cafile) if srv.cafile else None,
                                  timeout=30) as pool:
            return bytes(pool.request("GET", srv.url(path)).data)
    import httpx

    context = ssl.create_default_context(cafile=str(srv.cafile)) if srv.cafile else True
    with httpx.Client(proxy=proxy_url, verify=context, timeout=30) as c:
        return c.get(srv.url(path)).content


@pytest.mark.parametrize("client", ["requests", "urllib3", "httpx"])
def test_through_a_proxy(tmp_path: Path, srv: Loopback, client: str) -> None:
    with proxy() as proxy_url, warckit.capture(tmp_path) as cap:
        assert _through_proxy(client, srv, proxy_url, "/chunked") == b"first chunk, second, and the third"
        assert _through_proxy(client, srv, proxy_url, "/plain") == HTML
    assert cap.failures == []
    recorded = [(r, q) for r, q in pairs(read_back(cap.files))]  # no CONNECT exchange
    assert [r.uri for r, _ in recorded] == [srv.url("/chunked"), srv.url("/plain")]
    assert [r.block for r, _ in recorded] == [srv.sent_for("/chunked"), srv.sent_for("/plain")]
    request = recorded[1][1].head
    if srv.scheme == "https":  # through the tunnel, as to the server itself
        assert request.startswith(b"GET /plain HTTP/1.1\r\n")
    else:  # the proxy is asked for the whole URL
        assert request.startswith(b"GET " + srv.url("/plain").encode() + b" HTTP/1.1\r\n")


@pytest.mark.parametrize("client", ["requests", "httpx"])
def test_interim_100_continue_is_left_out(tmp_path: Path, plain: Loopback, client: str) -> None:
    body = b"payload " * 100
    with warckit.capture(tmp_path) as cap:
        headers = {"Expect": "100-continue"}
        if client == "requests":
            import requests

            status = requests.post(plain.url("/post"), data=body, headers=headers,
                                   timeout=30).status_code
        else:
            import httpx

            status = httpx.post(plain.url("/post"), content=body, headers=headers,
                                timeout=30).status_code
    assert status == 201
    (response, request), = pairs(read_back(cap.files))
    # The server wrote "HTTP/1.1 100 Continue" first (http.server does, on Expect);
    # the record starts at the final response.
    assert response.block == plain.sent_for("/post", "POST")
    assert response.head.startswith(b"HTTP/1.1 201 Created\r\n")
    assert request.body == body and request.payload_digest == sha1_label(body)


@pytest.mark.parametrize("client", ["requests", "httpx"])
def test_a_server_hanging_up_truncates(tmp_path: Path, plain: Loopback, client: str) -> None:
    with warckit.capture(tmp_path) as cap:
        if client == "requests":
            import requests

            with pytest.raises(requests.exceptions.ChunkedEncodingError):
                requests.get(plain.url("/short"), timeout=30)
        else:
            import httpx

            with pytest.raises(httpx.RemoteProtocolError):
                httpx.get(plain.url("/short"), timeout=30)
    (response, _), = pairs(read_back(cap.files))
    assert response.truncated == "disconnect"
    assert response.block == plain.sent_for("/short")
    assert response.body == b"0123456789"


def test_streamed_request_bodies(tmp_path: Path, plain: Loopback) -> None:
    import http.client
    import io

    import requests

    parts = [b"one,", b"two,", b"three"]
    with warckit.capture(tmp_path) as cap:
        # requests sends a generator chunked, one send() per chunk and per framing.
        assert requests.post(plain.url("/post"), data=iter(parts), timeout=30).status_code == 201
        # http.client reads a file-like body in blocks.
        conn = http.client.HTTPConnection("127.0.0.1", plain.port, timeout=30)
        conn.request("POST", "/post", body=io.BytesIO(b"x" * 20000),
                     headers={"Content-Length": "20000"})
        assert conn.getresponse().read().startswith(b"got ")
        conn.close()
    assert plain.received == [b"".join(parts), b"x" * 20000]
    (_, chunked), (_, filed) = pairs(read_back(cap.files))
    assert b"\r\nTransfer-Encoding: chunked\r\n" in chunked.head
    assert chunked.body == b"4\r\none,\r\n4\r\ntwo,\r\n5\r\nthree\r\n0\r\n\r\n"
    assert chunked.payload_digest == sha1_label(b"".join(parts))  # the entity, de-chunked
    assert filed.body == b"x" * 20000 and filed.uri == plain.url("/post")
