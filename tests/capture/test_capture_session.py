"""warckit.capture() as a session: large bodies stream, patches come off, one capture at
a time, the filter, a caller's writer, threads, truncation, typed failures."""

from __future__ import annotations

import hashlib
import http.client
import socket
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from archive import pairs, read_back, sha1_label
from loopback import BIG_SIZE, HTML, Loopback, big_body, big_sha1

import warckit
from warckit.errors import CaptureError, HttpParseError, UsageError
from warckit.traffic.exchanges import SPOOL_MEMORY as SPLITTER_MEMORY
from warckit.traffic.exchanges import ConnectionSplitter, Exchange
from warckit.write.encode import SPOOL_MEMORY

ORIGINALS = (http.client.HTTPConnection.send, http.client.HTTPResponse.__init__)


def _httpcore_originals() -> tuple[object, object]:
    from httpcore._async.http11 import AsyncHTTP11Connection
    from httpcore._sync.http11 import HTTP11Connection

    return (HTTP11Connection.handle_request, AsyncHTTP11Connection.handle_async_request)


def _patches_off() -> bool:
    import httpcore  # noqa: F401

    return (http.client.HTTPConnection.send, http.client.HTTPResponse.__init__) == ORIGINALS \
        and _httpcore_originals() == HTTPCORE_ORIGINALS


HTTPCORE_ORIGINALS = _httpcore_originals()


@pytest.mark.parametrize("client", ["requests", "httpx"])
def test_a_20_mb_download_streams_through_a_spool(tmp_path: Path, plain: Loopback,
                                                  client: str) -> None:
    tracemalloc.start()
    try:
        with warckit.capture(tmp_path, compression="none") as cap:
            digest = hashlib.sha1()
            if client == "requests":
                with requests.get(plain.url("/big"), stream=True, timeout=30) as r:
                    for block in r.iter_content(1 << 16):
                        digest.update(block)
            else:
                import httpx

                with httpx.stream("GET", plain.url("/big"), timeout=30) as x:
                    for block in x.iter_raw(1 << 16):
                        digest.update(block)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest.hexdigest() == big_sha1()
    # The 20 MB body was never whole in memory. (The writer keeps up to
    # encode.SPOOL_MEMORY = 8 MiB of a block in memory by design, the spool's move to
    # a file copies that once; the capture's own part is tested below.)
    assert SPOOL_MEMORY == 8 << 20
    assert peak < 0.8 * BIG_SIZE, peak
    response, request = cap.records
    head = plain.sent_for("/big")
    assert response.length > BIG_SIZE
    record = warckit.read_record_at(response.path, response.offset)
    assert record.content_length == len(head) + BIG_SIZE
    assert str(record.payload_digest) == str(response.payload_digest)
    block = hashlib.sha1()
    with record.payload_stream() as stream:
        while chunk := stream.read(1 << 20):
            block.update(chunk)
    assert block.hexdigest() == big_sha1()
    assert warckit.cli.main(["check", response.path]) == 0


def test_the_splitter_spools_a_20_mb_response_to_disk() -> None:
    out: list[tuple[int, str]] = []

    def write(exchange: Exchange) -> None:
        assert exchange.response is not None
        digest = hashlib.sha1()
        with exchange.response.body() as body:
            while chunk := body.read(1 << 16):
                digest.update(chunk)
        out.append((exchange.response.body_length, digest.hexdigest()))

    splitter = ConnectionSplitter(lambda exchange: None, write, "test")
    tracemalloc.start()
    try:
        splitter.sent(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        splitter.received(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % BIG_SIZE)
        pending = bytearray()
        for block in big_body():
            pending += block
            if len(pending) >= 1 << 16:
                splitter.received(pending)
                pending.clear()
        splitter.received(pending)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out == [(BIG_SIZE, big_sha1())]
    assert peak < 3 * SPLITTER_MEMORY, peak  # its 1 MiB in memory, then a file


def test_patches_are_removed_at_exit_also_on_error(tmp_path: Path) -> None:
    assert _patches_off()
    with pytest.raises(KeyError), warckit.capture(tmp_path) as cap:
        assert http.client.HTTPConnection.send is not ORIGINALS[0]
        raise KeyError("boom")
    assert _patches_off()
    assert not cap.active
    with pytest.raises(UsageError, match="closed"):  # the capture's writer was closed
        cap.writer.resource("urn:x", b"", content_type="text/plain")


def test_captures_do_not_nest(tmp_path: Path, plain: Loopback) -> None:
    with warckit.capture(tmp_path / "a") as outer:
        with pytest.raises(UsageError, match="another warckit.capture"):
            with warckit.capture(tmp_path / "b"):
                pass  # pragma: no cover
        requests.get(plain.url("/plain"), timeout=30)  # the outer one still records
    assert [r.type for r in outer.records] == ["response", "request"]
    assert _patches_off()
    again = warckit.capture(tmp_path / "c")
    with again:
        pass
    with pytest.raises(UsageError, match="entered once"):
        again.__enter__()


def test_bad_arguments(tmp_path: Path) -> None:
    with warckit.WarcWriter(tmp_path) as w:
        with pytest.raises(UsageError, match="writer options"):
            warckit.capture(w, prefix="x")
    with pytest.raises(UsageError, match="directory or a warckit.WarcWriter"):
        warckit.capture(42)
    with pytest.raises(UsageError, match="filter must be callable"):
        warckit.capture(tmp_path, filter="yes")  # type: ignore[arg-type]


def test_traffic_outside_the_block_is_not_recorded(tmp_path: Path, plain: Loopback) -> None:
    with requests.Session() as session:
        session.get(plain.url("/plain"), timeout=30)  # before: a pooled connection
        with warckit.capture(tmp_path) as cap:
            session.get(plain.url("/chunked"), timeout=30)  # on that connection
        session.get(plain.url("/gzip"), timeout=30)  # after
    assert len(set(plain.peers)) == 1
    recorded = pairs(read_back(cap.files))
    assert [r.uri for r, _ in recorded] == [plain.url("/chunked")]


def test_filter_sees_the_request(tmp_path: Path, plain: Loopback) -> None:
    seen: list[tuple[str, str, str | None]] = []

    def only_plain(info: warckit.traffic.RequestInfo) -> bool:
        seen.append((info.method, info.url, info.head.headers.first("X-Test")))
        return info.url.endswith("/plain")

    with warckit.capture(tmp_path, filter=only_plain) as cap:
        for path in ("/chunked", "/plain", "/big"):
            requests.get(plain.url(path), headers={"X-Test": path}, timeout=30)
    assert seen == [("GET", plain.url(p), p) for p in ("/chunked", "/plain", "/big")]
    recorded = pairs(read_back(cap.files))
    assert [(r.uri, r.block) for r, _ in recorded] == [(plain.url("/plain"),
                                                        plain.sent_for("/plain"))]


def test_a_callers_writer_stays_open(tmp_path: Path, plain: Loopback) -> None:
    with warckit.WarcWriter(tmp_path, prefix="mine") as writer:
        with warckit.capture(writer) as cap:
            requests.get(plain.url("/plain"), timeout=30)
        assert cap.writer is writer
        note = writer.metadata(plain.url("/plain"), {"via": "capture"},
                               refers_to=cap.records[0])
    records = read_back(writer.files)
    assert [r.type for r in records] == ["response", "request", "metadata"]
    assert records[2].id == note.record_id


def test_threads_share_the_capture(tmp_path: Path, plain: Loopback) -> None:
    paths = ["/plain", "/chunked", "/gzip", "/cached"] * 3
    errors: list[BaseException] = []

    def worker(path: str) -> None:
        try:
            with requests.Session() as s:
                s.get(plain.url(path), timeout=30)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with warckit.capture(tmp_path) as cap:
        threads = [threading.Thread(target=worker, args=(p,)) for p in paths]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert errors == []
    recorded = pairs(read_back(cap.files))  # each pair adjacent and linked
    assert sorted(r.uri for r, _ in recorded) == sorted(plain.url(p) for p in paths)
    for response, _ in recorded:
        assert response.block in {raw for _, _, raw in plain.sent}


def test_a_response_cut_short_is_truncated(tmp_path: Path, plain: Loopback) -> None:
    with warckit.capture(tmp_path) as cap:
        with requests.get(plain.url("/big"), stream=True, timeout=30) as r:
            first = r.raw.read(100_000)
        requests.get(plain.url("/plain"), timeout=30)
    (big, _), (after, _) = pairs(read_back(cap.files))
    assert big.truncated == "unspecified"
    head = plain.sent_for("/big")
    assert big.head == head
    assert big.body[:len(first)] == first and len(first) <= len(big.body) < BIG_SIZE
    assert after.truncated is None and after.block == plain.sent_for("/plain")


@pytest.fixture
def garbage_server() -> Iterator[int]:
    """Answers every connection with bytes that are not HTTP, then closes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(30)

    def serve_one() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(30)
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nBad Header\r\n\r\nhello")

    thread = threading.Thread(target=serve_one, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    listener.close()
    thread.join(timeout=10)


def test_what_cannot_be_recorded_is_a_typed_error_at_exit(tmp_path: Path, plain: Loopback,
                                                           garbage_server: int) -> None:
    url = f"http://127.0.0.1:{garbage_server}/x"
    with pytest.raises(CaptureError) as caught:
        with warckit.capture(tmp_path) as cap:
            # http.client is more lenient than h11: the client gets its response...
            assert requests.get(url, timeout=30).content == b"hello"
            requests.get(plain.url("/plain"), timeout=30)  # ...and the rest is recorded
    (where, error), = caught.value.failures
    assert where == f"http://127.0.0.1:{garbage_server}"
    assert isinstance(error, HttpParseError) and caught.value.__cause__ is error
    assert isinstance(caught.value, warckit.WarckitError)
    recorded = pairs(read_back(cap.files))
    assert [(r.uri, r.block) for r, _ in recorded] == [(plain.url("/plain"), plain.sent_for("/plain"))]
    assert _patches_off()
    assert sha1_label(HTML) == str(recorded[0][0].payload_digest)


def test_a_refused_record_and_a_raising_filter_are_failures(tmp_path: Path,
                                                             plain: Loopback) -> None:
    def picky(info: warckit.traffic.RequestInfo) -> bool:
        if info.url.endswith("/gzip"):
            raise LookupError("no opinion on gzip")
        return True

    writer = warckit.WarcWriter(tmp_path)
    with pytest.raises(CaptureError) as caught:
        with warckit.capture(writer, filter=picky) as cap:
            requests.get(plain.url("/plain"), timeout=30)
            requests.get(plain.url("/gzip"), timeout=30)
            writer.close()  # the script's mistake: the capture's records are refused
            requests.get(plain.url("/chunked"), timeout=30)
            assert [w for w, _ in cap.failures] == [plain.url("/gzip"), plain.url("/chunked")]
    (gzip_url, raised), (chunked_url, refused) = caught.value.failures
    assert isinstance(raised, LookupError) and gzip_url == plain.url("/gzip")
    assert isinstance(refused, UsageError) and chunked_url == plain.url("/chunked")
    assert "2 exchange(s) not recorded" in str(caught.value)
    recorded = pairs(read_back(writer.files))
    assert [r.uri for r, _ in recorded] == [plain.url("/plain")]
