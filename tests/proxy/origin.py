"""A loopback origin server answering each path with exact bytes (for the proxy's wire tests).

``ROUTES[path]`` is the raw response (head and body, as sent); a callable gets the raw
request and the socket and does what it likes (break off, wait, send a 1xx first).
Requests are framed by ``Content-Length`` only (the tests send no chunked requests to
it); several on one connection are answered in turn.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Union

Route = Union[bytes, Callable[[bytes, socket.socket], bool]]


class Origin:
    """Serve *routes* on 127.0.0.1 (any port) on a thread; ``requests`` keeps what came."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.requests: list[bytes] = []
        self.connections = 0
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        buf = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    buf += data
                head, _, rest = buf.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(rest) < length:
                    data = conn.recv(65536)
                    if not data:
                        return
                    rest += data
                request, buf = head + b"\r\n\r\n" + rest[:length], rest[length:]
                self.requests.append(request)
                path = head.split(b" ", 2)[1].decode()
                route = self.routes.get(path, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                if callable(route):
                    if not route(request, conn):
                        return
                else:
                    conn.sendall(route)
                    if b"connection: close" in route.split(b"\r\n\r\n")[0].lower():
                        return

    def close(self) -> None:
        self._sock.close()
