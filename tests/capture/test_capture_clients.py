"""warckit.capture() with each client, over plain HTTP and TLS, against a real loopback
server: the records hold exactly the bytes the server sent, link up, and read back with
warckit, ``warckit check`` and warcio."""

from __future__ import annotations

from pathlib import Path

from archive import pairs, read_back, sha1_label
from clients import call, fetch
from loopback import CHUNKS, GZIPPED, HTML, Loopback

import warckit


def _capture(tmp_path: Path, client: str, srv: Loopback, calls: list) -> tuple[list, list]:
    with warckit.capture(tmp_path / "warcs", prefix="cap") as cap:
        results = fetch(client, srv, calls)
    assert cap.failures == []
    assert len(cap.files) == 1
    return results, pairs(read_back(cap.files))


def test_chunked_gzip_and_plain(tmp_path: Path, client: str, srv: Loopback) -> None:
    results, recorded = _capture(tmp_path, client, srv,
                                 [call("GET", "/plain"), call("GET", "/chunked"),
                                  call("GET", "/gzip")])
    assert [status for status, _ in results] == [200, 200, 200]
    assert results[1][1] == b"".join(CHUNKS)
    assert [r.uri for r, _ in recorded] == [srv.url("/plain"), srv.url("/chunked"),
                                             srv.url("/gzip")]
    for (response, request), path, entity in zip(recorded, ["/plain", "/chunked", "/gzip"],
                                                  [HTML, b"".join(CHUNKS), GZIPPED]):
        # The block is what went over the wire: still chunked, still gzipped.
        assert response.block == srv.sent_for(path)
        assert response.payload_digest == sha1_label(entity)
        assert response.truncated is None
        assert request.head.startswith(f"GET {path} HTTP/1.1\r\n".encode())
        assert b"\r\nHost: 127.0.0.1:%d\r\n" % srv.port in request.head
        assert request.body == b""
        assert request.payload_digest == sha1_label(b"")


def test_redirect_is_two_exchanges(tmp_path: Path, client: str, srv: Loopback) -> None:
    results, recorded = _capture(tmp_path, client, srv, [call("GET", "/redirect")])
    assert results == [(200, HTML)]
    assert [r.uri for r, _ in recorded] == [srv.url("/redirect"), srv.url("/plain")]
    assert recorded[0][0].block == srv.sent_for("/redirect")
    assert recorded[0][0].head.startswith(b"HTTP/1.1 302 Found\r\n")
    assert recorded[1][0].block == srv.sent_for("/plain")


def test_post_head_and_304(tmp_path: Path, client: str, srv: Loopback) -> None:
    body = bytes(range(256)) * 40
    results, recorded = _capture(tmp_path, client, srv, [
        call("POST", "/post", body, Content_Type="application/octet-stream"),
        call("HEAD", "/plain"),
        call("GET", "/cached", If_None_Match='"v1"'),
    ])
    assert [status for status, _ in results] == [201, 200, 304]
    assert srv.received == [body]
    (post, post_req), (head, head_req), (cached, cached_req) = recorded
    assert post_req.head.startswith(b"POST /post HTTP/1.1\r\n")
    assert post_req.body == body
    assert post_req.payload_digest == sha1_label(body)
    assert post.block == srv.sent_for("/post", "POST")
    # HEAD: a Content-Length and no body; the record stops at the head.
    assert head_req.head.startswith(b"HEAD /plain HTTP/1.1\r\n")
    assert head.block == srv.sent_for("/plain", "HEAD")
    assert head.body == b"" and b"Content-Length: %d" % len(HTML) in head.head
    assert cached.block == srv.sent_for("/cached") == b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n'
    assert b'\r\nIf-None-Match: "v1"\r\n' in cached_req.head


def test_keep_alive_gives_a_pair_per_request(tmp_path: Path, srv: Loopback) -> None:
    for client in ("requests", "urllib3", "httpx"):
        srv.sent.clear()
        srv.peers.clear()
        out = tmp_path / client
        with warckit.capture(out) as cap:
            fetch(client, srv, [call("GET", "/chunked"), call("GET", "/plain"),
                                call("GET", "/chunked")])
        assert len(set(srv.peers)) == 1, client  # one connection
        recorded = pairs(read_back(cap.files))
        assert [r.uri for r, _ in recorded] == [srv.url(p) for p in ("/chunked", "/plain", "/chunked")]
        assert [r.block for r, _ in recorded] == [raw for _, _, raw in srv.sent]


def test_response_ending_at_close(tmp_path: Path, client: str, plain: Loopback) -> None:
    results, recorded = _capture(tmp_path, client, plain, [call("GET", "/eof"),
                                                           call("GET", "/plain")])
    assert results == [(200, b"until the end"), (200, HTML)]
    assert [r.block for r, _ in recorded] == [plain.sent_for("/eof"), plain.sent_for("/plain")]
    assert recorded[0][0].truncated is None
