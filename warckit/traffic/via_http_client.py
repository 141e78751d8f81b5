"""The tap on :mod:`http.client`, under urllib3, requests and urllib.request.

Two patches on the classes, removed by the function :func:`install` returns:
``HTTPConnection.send`` (every byte a connection writes goes through it: the head from
``endheaders``, each body block, the ``CONNECT`` of a proxy tunnel) and
``HTTPResponse.__init__``, which wraps the response's buffered reader so that every
byte the response consumes is seen, as read: exactly the response's bytes, however
``http.client`` reads them (lines, blocks, ``readinto``), and never what the buffer read
ahead. Both see plaintext: the socket of an HTTPS connection is already TLS-wrapped.
A connection is known by its socket (a new socket, a new tap).
"""

from __future__ import annotations

import http.client
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .session import Capture, ConnectionInfo, Tap

__all__ = ["TapReader", "install"]


class TapReader:
    """A response's reader that shows every byte read to the connection's tap."""

    def __init__(self, fp: Any, tap: Tap) -> None:
        self._fp = fp
        self._tap = tap

    # The reader is the buffered reader of a blocking socket: read(n) and readinto()
    # return less than asked only at the end of the stream (a timeout raises).

    def read(self, amt: int | None = None) -> bytes:
        data: bytes = self._fp.read(amt)
        self._tap.received(data)
        if amt is None or amt < 0 or len(data) < amt:
            self._tap.eof()
        return data

    def read1(self, n: int = -1) -> bytes:
        data: bytes = self._fp.read1(n)
        self._tap.received(data)
        if not data and n:
            self._tap.eof()
        return data

    def readinto(self, buffer: Any) -> int:
        n: int = self._fp.readinto(buffer)
        view = memoryview(buffer).cast("B")
        self._tap.received(view[:n])
        if n < len(view):
            self._tap.eof()
        return n

    def readline(self, limit: int = -1) -> bytes:
        line: bytes = self._fp.readline(limit)
        self._tap.received(line)
        if not line.endswith(b"\n") and (limit is None or limit < 0 or len(line) < limit):
            self._tap.eof()
        return line

    def close(self) -> None:
        try:
            self._tap.response_closed()
        finally:
            self._fp.close()

    def __getattr__(self, name: str) -> Any:  # peek, closed, fileno, flush…
        return getattr(self._fp, name)


def _info(conn: Any, sock: Any) -> ConnectionInfo:
    tls = hasattr(sock, "getpeercert")  # ssl.SSLSocket, urllib3's SSLTransport
    host = getattr(conn, "_tunnel_host", None) or conn.host
    port = getattr(conn, "_tunnel_port", None) if getattr(conn, "_tunnel_host", None) else conn.port
    ip = None
    candidates: list[Any] = [sock, getattr(sock, "socket", None)]
    for candidate in candidates:
        try:
            ip = str(candidate.getpeername()[0])
            break
        except (AttributeError, OSError, IndexError, TypeError):
            continue
    return ConnectionInfo("https" if tls else "http", str(host), port, ip)


def install(capture: Capture) -> Callable[[], None]:
    """Patch :mod:`http.client` to feed *capture*; return the undo."""
    connection_class = http.client.HTTPConnection
    response_class = http.client.HTTPResponse
    original_send = connection_class.send
    original_init = response_class.__init__
    taps: weakref.WeakKeyDictionary[Any, Tap] = weakref.WeakKeyDictionary()
    lock = threading.Lock()  # connections of several threads come and go

    def tap_for(conn: Any) -> Tap | None:
        sock = conn.sock
        if sock is None:
            return None
        with lock:
            tap = taps.get(sock)
        if tap is None:
            tap = capture.new_tap(_info(conn, sock))
            with lock:
                tap = taps.setdefault(sock, tap)
        return tap

    def send(self: http.client.HTTPConnection, data: Any) -> None:
        if self.sock is None and self.auto_open:
            self.connect()  # as the original would, so that the socket is known
        tap = tap_for(self)
        if tap is None:
            original_send(self, data)
            return
        if hasattr(data, "read"):
            encode = self._is_textIO(data)  # type: ignore[attr-defined]
            while block := data.read(self.blocksize):
                if encode:
                    block = block.encode("iso-8859-1")
                original_send(self, block)
                tap.sent(block)
            return
        try:
            view = memoryview(data).cast("B")
        except TypeError:  # an iterable of bytes-like chunks
            for chunk in data:
                original_send(self, chunk)
                tap.sent(memoryview(chunk).cast("B"))
            return
        original_send(self, data)
        tap.sent(view)

    def init(self: http.client.HTTPResponse, sock: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, sock, *args, **kwargs)
        with lock:
            tap = taps.get(sock)
        if tap is not None and tap.active:
            self.fp = TapReader(self.fp, tap)  # type: ignore[assignment]

    connection_class.send = send  # type: ignore[method-assign]
    response_class.__init__ = init  # type: ignore[method-assign]

    def undo() -> None:
        connection_class.send = original_send  # type: ignore[method-assign]
        response_class.__init__ = original_init  # type: ignore[method-assign]

    return undo
