"""A real HTTP/1.1 server on loopback (plain and TLS) that keeps the bytes it sent.

Each route writes its whole response with one ``wfile.write`` of bytes built here, so a
test can compare a WARC response block with exactly what went on the wire. The TLS
server uses a self-signed certificate for ``127.0.0.1`` and ``localhost`` made with
``cryptography``; clients are given its file to verify against.
"""

from __future__ import annotations

import gzip
import hashlib
import select
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from self_signed import make_certificate

#: The 20 MB download: a repeated 1 KiB pattern (cheap to make, not compressible to nothing).
BIG_SIZE = 20 * 1000 * 1000
_BLOCK = bytes((i * 7 + 13) % 251 for i in range(1024))


def big_body() -> Iterator[bytes]:
    full, rest = divmod(BIG_SIZE, len(_BLOCK))
    for _ in range(full):
        yield _BLOCK
    yield _BLOCK[:rest]


def big_sha1() -> str:
    digest = hashlib.sha1()
    for block in big_body():
        digest.update(block)
    return digest.hexdigest()


HTML = b"<!doctype html><title>t</title><p>hello loopback</p>\n"
GZIPPED = gzip.compress(b"compressible " * 200, mtime=0)
CHUNKS = (b"first chunk,", b" second,", b" and the third")


def _head(status: str, fields: list[tuple[str, str]]) -> bytes:
    lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in fields]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # quiet

    def _send(self, raw: bytes) -> None:
        self.server.sent.append((self.command, self.path, raw))
        self.server.peers.append(self.client_address[1])
        self.wfile.write(raw)
        self.wfile.flush()

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(_head("200 OK", [("Content-Type", "text/html"),
                                    ("Content-Length", str(len(HTML)))]))

    def do_POST(self) -> None:  # noqa: N802
        if self.headers.get("Transfer-Encoding") == "chunked":
            body = b""
            while size := int(self.rfile.readline().split(b";")[0], 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b""):
                pass  # trailer
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.received.append(body)
        answer = b"got " + hashlib.sha1(body).hexdigest().encode()
        self._send(_head("201 Created", [("Content-Type", "text/plain"),
                                         ("Content-Length", str(len(answer)))]) + answer)

    def do_GET(self) -> None:  # noqa: N802
        if self.path.startswith("http://"):  # absolute-form, from a proxy
            self.path = "/" + self.path.split("/", 3)[3]
        path = self.path.split("?")[0]
        if path == "/plain":
            self._send(_head("200 OK", [("Content-Type", "text/html"),
                                        ("Content-Length", str(len(HTML)))]) + HTML)
        elif path == "/chunked":
            body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in CHUNKS) + b"0\r\n\r\n"
            self._send(_head("200 OK", [("Content-Type", "text/plain"),
                                        ("Transfer-Encoding", "chunked")]) + body)
        elif path == "/gzip":
            self._send(_head("200 OK", [("Content-Type", "text/plain"),
                                        ("Content-Encoding", "gzip"),
                                        ("Content-Length", str(len(GZIPPED)))]) + GZIPPED)
        elif path == "/redirect":
            self._send(_head("302 Found", [("Location", "/plain"), ("Content-Length", "0")]))
        elif path == "/cached":
            if self.headers.get("If-None-Match") == '"v1"':
                self._send(_head("304 Not Modified", [("ETag", '"v1"')]))
            else:
                self._send(_head("200 OK", [("ETag", '"v1"'), ("Content-Length", "2")]) + b"v1")
        elif path == "/big":
            head = _head("200 OK", [("Content-Type", "application/octet-stream"),
                                    ("Content-Length", str(BIG_SIZE))])
            self.server.sent.append((self.command, self.path, head))
            self.server.peers.append(self.client_address[1])
            self.wfile.write(head)
            for block in big_body():
                self.wfile.write(block)
            self.wfile.flush()
        elif path == "/short":  # promises 100 bytes, sends 10, hangs up
            self.close_connection = True
            self._send(_head("200 OK", [("Content-Length", "100")]) + b"0123456789")
        elif path == "/eof":  # no length: the body ends when the server closes
            self.close_connection = True
            self._send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                       b"until the end")
        else:
            self._send(_head("404 Not Found", [("Content-Length", "0")]))


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.sent: list[tuple[str, str, bytes]] = []
        self.received: list[bytes] = []
        self.peers: list[int] = []  # the client's port, per response: one per connection


class Loopback:
    """A running server: ``url(path)``, ``sent`` (``(method, path, bytes)`` in order),
    ``peers`` (the client port of each), ``received`` (POST bodies), ``cafile`` (TLS only)."""

    def __init__(self, server: _Server, scheme: str, cafile: Path | None) -> None:
        self._server = server
        self.scheme = scheme
        self.cafile = cafile
        self.port = server.server_address[1]

    @property
    def sent(self) -> list[tuple[str, str, bytes]]:
        return self._server.sent

    @property
    def peers(self) -> list[int]:
        return self._server.peers

    @property
    def received(self) -> list[bytes]:
        return self._server.received

    def url(self, path: str) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def sent_for(self, path: str, method: str = "GET") -> bytes:
        """The bytes sent for the one request of *method* on *path*."""
        found = [raw for m, p, raw in self.sent if p == path and m == method]
        assert len(found) == 1, (path, method, len(found))
        return found[0]


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until one side closes."""
    sockets = [a, b]
    while True:
        readable, _, _ = select.select(sockets, [], [], 30)
        if not readable:
            return
        for s in readable:
            data = s.recv(65536)
            if not data:
                return
            (b if s is a else a).sendall(data)


def _proxy_one(conn: socket.socket) -> None:
    with conn:
        head = b""
        while b"\r\n\r\n" not in head:
            data = conn.recv(65536)
            if not data:
                return
            head += data
        method, target = head.split(b" ", 2)[:2]
        if method == b"CONNECT":
            host, port = target.rsplit(b":", 1)
            rest = head.split(b"\r\n\r\n", 1)[1]
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:  # absolute-form: pass the request on as it is
            host, port = target.split(b"/")[2].rsplit(b":", 1)
            rest = head
        with socket.create_connection((host.decode(), int(port)), timeout=30) as upstream:
            upstream.sendall(rest)
            _pipe(conn, upstream)


@contextmanager
def proxy() -> Iterator[str]:
    """An HTTP proxy on loopback (CONNECT tunnels and absolute-form requests); its URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    stop = threading.Event()
    workers: list[threading.Thread] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            conn.settimeout(30)
            worker = threading.Thread(target=_proxy_one, args=(conn,), daemon=True)
            worker.start()
            workers.append(worker)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


@contextmanager
def serve(tmp: Path | None = None) -> Iterator[Loopback]:
    """Serve on loopback; over TLS when *tmp* (where the certificate goes) is given."""
    server = _Server()
    cafile = None
    if tmp is not None:
        cafile, keyfile = make_certificate(tmp)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cafile, keyfile)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield Loopback(server, "https" if tmp is not None else "http", cafile)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
