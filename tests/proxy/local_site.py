"""A small web site on loopback, over HTTP and HTTPS at once, for the proxy's tests.

(Not ``site.py``, as the brief first named it: Python imports its own :mod:`site` at
start-up, so a test module of that name could never be imported by name.)

Every page is deterministic, so a test knows the exact entity bytes the site sent and
compares them with what the proxy recorded: :meth:`Site.entity`. The site logs every
request it receives (:attr:`Site.seen`), so a test can also show that the proxy did or did
not forward a request, and what it forwarded.
"""

from __future__ import annotations

import email.utils
import gzip
import hashlib
import http.server
import random
import socket
import ssl
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from self_signed import make_certificate

#: Size of ``/large``: 30 MiB and a bit, so no block boundary lines up with it.
LARGE_SIZE = 30 * 1024 * 1024 + 12_345
_BLOCK = 1 << 20

#: ``/etag``'s validators: a conditional request with either gets 304.
ETAG = '"etag-v1"'
LAST_MODIFIED = "Tue, 01 Dec 2026 12:00:00 GMT"


def _png() -> bytes:
    """A 4x4 RGB PNG, built by hand (no imaging library)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    rows = b"".join(b"\x00" + b"".join(bytes((50 * x, 60 * y, 200)) for x in range(4))
                    for y in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


INDEX_HTML = b"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>warckit proxy test site</title>
<link rel="stylesheet" href="/style.css">
<script src="/script.js"></script>
</head><body>
<h1 id="title">The proxy test site</h1>
<p>Captured through <code>warckit proxy</code>.</p>
<img id="pixel" src="/image.png" width="4" height="4" alt="four by four">
<p><a href="/chunked">chunked</a> <a href="/gzip">gzip</a> <a href="/redirect/301">redirect</a></p>
</body></html>
"""
STYLE_CSS = b"body { font-family: sans-serif; color: #123456; }\nh1 { color: #654321; }\n"
SCRIPT_JS = (b"document.addEventListener('DOMContentLoaded', function () {\n"
             b"  var p = document.createElement('p');\n"
             b"  p.id = 'script-ran';\n"
             b"  p.textContent = 'script ran: ' + document.getElementById('title').textContent;\n"
             b"  document.body.appendChild(p);\n"
             b"});\n")
IMAGE_PNG = _png()
#: ``/chunked``'s chunks, written one chunk-size line each (the last chunk is the empty one).
CHUNKS = (b"first chunk\n", b"x" * 1000 + b"\n", b"", b"third\r\nwith a CRLF inside\n",
          bytes(range(256)))
CHUNKED_ENTITY = b"".join(CHUNKS)
GZIP_TEXT = b"".join(b"line %d of the gzip-encoded page\n" % i for i in range(400))
GZIP_ENTITY = gzip.compress(GZIP_TEXT, compresslevel=9, mtime=0)
REDIRECTS = {"/redirect/301": (301, "/redirect/302"), "/redirect/302": (302, "/redirect/final")}
FINAL_TEXT = b"the end of the redirect chain\n"
ETAG_TEXT = b"a resource that does not change (ETag and Last-Modified)\n"
NOT_FOUND = b"not found\n"
#: ``/slow``'s chunks, a pause (SLOW_PAUSE s) before each: a response still arriving.
SLOW_CHUNKS = (b"slow one\n", b"slow two\n", b"slow three\n")
SLOW_PAUSE = 0.5
#: ``/broken`` promises BROKEN_LENGTH bytes, sends BROKEN_SENT, and closes the connection.
BROKEN_LENGTH = 10_000
BROKEN_SENT = b"the first hundred bytes of a response cut off by its server. " * 2

#: path -> (content type, entity) of the fixed pages answering 200.
PAGES: dict[str, tuple[str, bytes]] = {
    "/": ("text/html; charset=utf-8", INDEX_HTML),
    "/style.css": ("text/css", STYLE_CSS),
    "/script.js": ("application/javascript", SCRIPT_JS),
    "/image.png": ("image/png", IMAGE_PNG),
    "/redirect/final": ("text/plain", FINAL_TEXT),
    "/etag": ("text/plain", ETAG_TEXT),
}


def text_entity(path: str) -> bytes:
    """The body of any ``/text/...`` page: names the path (a fresh URL for each test)."""
    return f"text page {path}\n".encode()


@cache
def _large_base() -> bytes:
    return random.Random(20261202).randbytes(_BLOCK)


def large_blocks(size: int = LARGE_SIZE) -> Iterator[bytes]:
    """``/large`` in 1 MiB blocks: seeded random bytes (incompressible), each block stamped
    with its number, so a block recorded twice or out of order changes the digest."""
    base = _large_base()
    for n, start in enumerate(range(0, size, _BLOCK)):
        block = struct.pack(">Q", n) + base[8:]
        yield block[: min(_BLOCK, size - start)]


@cache
def large_sha1(size: int = LARGE_SIZE) -> bytes:
    """SHA-1 of ``/large`` (computed once)."""
    h = hashlib.sha1()
    for block in large_blocks(size):
        h.update(block)
    return h.digest()


@dataclass(frozen=True)
class Seen:
    """One request the site received."""

    scheme: str
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # a stuck client frees its thread
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        pass

    def _log(self, body: bytes) -> None:
        self.server.site._record(Seen(self.server.scheme, self.command, self.path,
                                      tuple(self.headers.items()), body))

    def _send(self, status: int, headers: list[tuple[str, str]], body: bytes = b"") -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        self._log(b"")
        path = self.path.split("?", 1)[0]
        if path in PAGES:
            kind, body = PAGES[path]
            if path == "/etag":
                if self._not_modified():
                    self._send(304, [("ETag", ETAG), ("Last-Modified", LAST_MODIFIED)])
                    return
                self._send(200, [("Content-Type", kind), ("ETag", ETAG),
                                 ("Last-Modified", LAST_MODIFIED)], body)
                return
            self._send(200, [("Content-Type", kind)], body)
        elif path in REDIRECTS:
            status, location = REDIRECTS[path]
            self._send(status, [("Location", location), ("Content-Type", "text/plain")],
                       f"moved to {location}\n".encode())
        elif path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in CHUNKS:
                if piece:  # (an empty chunk would end the body)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/gzip":
            self._send(200, [("Content-Type", "text/plain; charset=utf-8"),
                             ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")],
                       GZIP_ENTITY)
        elif path == "/large":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(self.server.site.large_size))
            self.end_headers()
            if self.command != "HEAD":
                for block in large_blocks(self.server.site.large_size):
                    self.wfile.write(block)
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for piece in SLOW_CHUNKS:
                time.sleep(SLOW_PAUSE)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/broken":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(BROKEN_LENGTH))
            self.end_headers()
            self.wfile.write(BROKEN_SENT)
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif path.startswith("/text/"):
            self._send(200, [("Content-Type", "text/plain; charset=utf-8")], text_entity(path))
        else:
            self._send(404, [("Content-Type", "text/plain")], NOT_FOUND)

    def _not_modified(self) -> bool:
        if (tag := self.headers.get("If-None-Match")) is not None:
            return ETAG in (t.strip() for t in tag.split(","))
        if (since := self.headers.get("If-Modified-Since")) is not None:
            try:
                when = email.utils.parsedate_to_datetime(since)
            except (TypeError, ValueError):
                return False
            return when >= email.utils.parsedate_to_datetime(LAST_MODIFIED)
        return False

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        self._log(body)
        if self.path.split("?", 1)[0] != "/echo":
            self._send(404, [("Content-Type", "text/plain")], NOT_FOUND)
            return
        kind = self.headers.get("Content-Type") or "application/octet-stream"
        self._send(200, [("Content-Type", kind)], body)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, site: Site, scheme: str, context: ssl.SSLContext | None) -> None:
        self.site = site
        self.scheme = scheme
        self.context = context
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        if self.context is not None:
            # The handshake happens on the handler's thread, at its first read.
            sock = self.context.wrap_socket(sock, server_side=True,
                                            do_handshake_on_connect=False)
        return sock, addr


class Site:
    """The site on two loopback ports (HTTP, HTTPS) until :meth:`stop`; a context manager."""

    def __init__(self, cert_dir: Path, large_size: int = LARGE_SIZE) -> None:
        self.large_size = large_size
        self.cert_path, key_path = make_certificate(cert_dir, stem="site-", common_name="warckit test site")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_path, key_path)
        self._lock = threading.Lock()
        self._seen: list[Seen] = []
        self._servers = [_Server(self, "http", None), _Server(self, "https", context)]
        self._threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.1},
                                          name=f"site-{s.scheme}", daemon=True)
                         for s in self._servers]
        for thread in self._threads:
            thread.start()

    @property
    def http_port(self) -> int:
        return int(self._servers[0].server_address[1])

    @property
    def https_port(self) -> int:
        return int(self._servers[1].server_address[1])

    def url(self, path: str, scheme: str = "http") -> str:
        """The absolute URL of *path* over *scheme* (``http`` or ``https``)."""
        port = self.http_port if scheme == "http" else self.https_port
        return f"{scheme}://127.0.0.1:{port}{path}"

    def entity(self, path: str) -> bytes:
        """The entity a GET of *path* answers with (de-chunked, still content-encoded)."""
        path = path.split("?", 1)[0]
        if path in PAGES:
            return PAGES[path][1]
        if path in REDIRECTS:
            return f"moved to {REDIRECTS[path][1]}\n".encode()
        if path == "/chunked":
            return CHUNKED_ENTITY
        if path == "/gzip":
            return GZIP_ENTITY
        if path == "/large":
            return b"".join(large_blocks(self.large_size))
        if path.startswith("/text/"):
            return text_entity(path)
        if path == "/broken":
            return BROKEN_SENT
        if path == "/slow":
            return b"".join(SLOW_CHUNKS)
        return NOT_FOUND

    def entity_sha1(self, path: str) -> bytes:
        """SHA-1 of :meth:`entity` (without building ``/large`` in memory)."""
        if path.split("?", 1)[0] == "/large":
            return large_sha1(self.large_size)
        return hashlib.sha1(self.entity(path)).digest()

    def _record(self, seen: Seen) -> None:
        with self._lock:
            self._seen.append(seen)

    @property
    def seen(self) -> list[Seen]:
        """The requests received so far, in order."""
        with self._lock:
            return list(self._seen)

    def seen_paths(self, scheme: str | None = None) -> list[str]:
        return [s.path for s in self.seen if scheme is None or s.scheme == scheme]

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(10)
            assert not thread.is_alive(), thread.name

    def __enter__(self) -> Site:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
