"""One connection's bytes, as sent and as received, cut into HTTP/1.x exchanges.

Sans-IO: a tap calls :meth:`ConnectionSplitter.sent` with the bytes the client wrote
and :meth:`~ConnectionSplitter.received` with the bytes it read (plaintext, above
TLS). The splitter finds where each message ends with h11 (a server-role parser per
request; a client-role parser per response, told the request's method so that a
``HEAD`` response has no body), spools each message's exact bytes and hands every
exchange to a callback, in the order of the connection.

Where a message ends is the bytes fed minus the bytes h11 left unconsumed
(``Connection.trailing_data``); those belong to the next message.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from datetime import datetime, timezone
from tempfile import SpooledTemporaryFile
from typing import IO

import h11

from ..errors import HttpParseError

__all__ = ["SPOOL_MEMORY", "ConnectionSplitter", "Exchange", "Message", "Spool"]

#: Bytes of a message kept in memory before its spool moves to a temporary file.
SPOOL_MEMORY = 1 << 20
#: Largest request or response head h11 accepts (h11's default is 16 KiB; cookies grow).
MAX_HEAD = 1 << 20
#: Request fields that frame its body: left out of the request replayed into a
#: response parser, which needs only the method.
_FRAMING = (b"content-length", b"transfer-encoding")


class Spool:
    """One message's bytes as they went over the wire: in memory up to
    :data:`SPOOL_MEMORY`, then in a temporary file. A spool that does not *keep*
    counts the bytes only."""

    def __init__(self, keep: bool = True) -> None:
        self._file: IO[bytes] | None = (
            SpooledTemporaryFile(max_size=SPOOL_MEMORY) if keep else None)  # noqa: SIM115
        self.length = 0

    def write(self, data: bytes | memoryview) -> None:
        self.length += len(data)
        if self._file is not None:
            self._file.write(data)

    def cut(self, length: int) -> None:
        """Drop everything after the first *length* bytes."""
        self.length = length
        if self._file is not None:
            self._file.truncate(length)
            self._file.seek(length)

    def read(self, start: int, end: int) -> bytes:
        """Bytes *start* to *end* (a head: small)."""
        if self._file is None:
            return b""
        self._file.seek(start)
        data = self._file.read(end - start)
        self._file.seek(self.length)
        return data

    def stream_from(self, start: int) -> IO[bytes]:
        """The spool as a stream positioned at *start*, ending at the spool's end."""
        if self._file is None:
            raise ValueError("the spool did not keep its bytes")
        self._file.seek(start)
        return self._file

    def discard(self) -> None:
        """Stop keeping bytes (counting goes on)."""
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class Message:
    """One direction of one exchange: its parser, its bytes and where its parts are.

    Attributes:
        parser: The h11 connection finding the message's end.
        spool: The bytes fed to the parser (the message, then what follows until cut).
        start: Offset of the head in the spool (after interim ``1xx`` responses).
        head_end: Offset of the first body byte, once the head is complete.
        end: Length of the message, once it is complete.
    """

    def __init__(self, parser: h11.Connection, keep: bool = True) -> None:
        self.parser = parser
        self.spool = Spool(keep)
        self.start = 0
        self.head_end: int | None = None
        self.end: int | None = None

    def feed(self, data: bytes | memoryview) -> None:
        self.spool.write(data)
        self.parser.receive_data(bytes(data) if isinstance(data, memoryview) else data)

    def consumed(self) -> int:
        """Bytes of the spool the parser has turned into events."""
        return self.spool.length - len(self.parser.trailing_data[0])

    def finish(self) -> bytes:
        """Mark the message complete at what the parser consumed; return the rest."""
        rest = self.parser.trailing_data[0]
        self.end = self.spool.length - len(rest)
        self.spool.cut(self.end)
        return rest

    @property
    def head(self) -> bytes:
        """The head's exact bytes (empty before the head is complete)."""
        if self.head_end is None:
            return b""
        return self.spool.read(self.start, self.head_end)

    def body(self) -> IO[bytes]:
        """The body as received, as a stream (call once, after :meth:`finish` or a cut)."""
        assert self.head_end is not None
        return self.spool.stream_from(self.head_end)

    @property
    def body_length(self) -> int:
        assert self.head_end is not None
        return self.spool.length - self.head_end


class Exchange:
    """A request and its response on one connection.

    Attributes:
        request: The request message.
        response: The response message, set once the request head is known.
        method: The request method (``"GET"``).
        target: The request target as sent (``"/a?b"``, or absolute through a proxy).
        host: The request's ``Host`` field, ``None`` when absent.
        date: When the request head was complete (UTC).
        status: The final response status, once its head is known.
        truncated: A ``WARC-Truncated`` reason when the response is incomplete.
        switched: The connection stopped speaking HTTP after this exchange
            (``CONNECT`` or ``101 Switching Protocols``).
        keep: Write this exchange (the capture's filter may say no).
        target_uri: The full URI, filled in by the capture.
        ip: The server's IP address, filled in by the capture.
    """

    def __init__(self) -> None:
        self.request = Message(h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD))
        self.response: Message | None = None
        self.method = ""
        self.target = ""
        self.host: str | None = None
        self.date = datetime.now(timezone.utc)
        self.status: int | None = None
        self.truncated: str | None = None
        self.switched = False
        self.keep = True
        self.target_uri = ""
        self.ip: str | None = None
        self.request_done = False
        self.response_done = False

    def close(self) -> None:
        """Free the spools."""
        self.request.spool.close()
        if self.response is not None:
            self.response.spool.close()

    def _start_response(self, request: h11.Request) -> None:
        self.method = request.method.decode("ascii")
        self.target = request.target.decode("ascii")
        host = None
        for name, value in request.headers:
            if name == b"host":
                host = value
        self.host = host.decode("latin-1") if host is not None else None
        self.date = datetime.now(timezone.utc)
        # The response's framing depends on the request's method only; h11 sends only
        # HTTP/1.1 requests, which must have a Host (a CONNECT of urllib3 is 1.0, none).
        headers = [(n, v) for n, v in request.headers if n not in _FRAMING]
        if host is None:
            headers.append((b"host", b"-"))
        parser = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
        parser.send(h11.Request(method=request.method, target=request.target, headers=headers))
        parser.send(h11.EndOfMessage())
        self.response = Message(parser, self.keep)


class ConnectionSplitter:
    """Cut one connection's traffic into exchanges.

    Args:
        on_request: Called with each exchange once its request head is complete
            (to fill :attr:`Exchange.target_uri` and decide :attr:`Exchange.keep`).
        on_exchange: Called with each exchange once both messages are complete, or at
            :meth:`close` if its response head was received; in connection order. The
            spools are freed when it returns.
        source: A name for the connection in error messages.
    """

    def __init__(self, on_request: Callable[[Exchange], None],
                 on_exchange: Callable[[Exchange], None], source: str) -> None:
        self._on_request = on_request
        self._on_exchange = on_exchange
        self.source = source
        self._open: deque[Exchange] = deque()  # in order; the last may still be sending
        self._sending: Exchange | None = None
        self._early = bytearray()  # received before the request head was complete
        self._sent_total = 0
        self._received_total = 0
        #: No more parsing: the connection switched protocols, broke or was closed.
        self.done = False

    # -- the client's side ------------------------------------------------------------

    def sent(self, data: bytes | memoryview) -> None:
        """The client wrote *data*.

        Raises:
            HttpParseError: the bytes are not an HTTP/1.x request stream.
        """
        if self.done or not data:
            return
        with self._errors("request", self._sent_total):
            self._sent_total += len(data)
            self._send(data)

    def _send(self, data: bytes | memoryview) -> None:
        if self._sending is None:
            self._sending = Exchange()
            self._open.append(self._sending)
        exchange = self._sending
        exchange.request.feed(data)
        parser = exchange.request.parser
        while True:
            event = parser.next_event()
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                exchange.request.head_end = exchange.request.consumed()
                exchange._start_response(event)
                self._on_request(exchange)
                if not exchange.keep:
                    exchange.request.spool.discard()
                    assert exchange.response is not None
                    exchange.response.spool.discard()
                if exchange is self._receiving() and self._early:
                    early, self._early = bytes(self._early), bytearray()
                    self._receive(early)
            elif isinstance(event, h11.EndOfMessage):
                rest = exchange.request.finish()
                exchange.request_done = True
                self._sending = None
                self._emit_ready()
                if rest and not self.done:
                    self._send(rest)
                return

    # -- the server's side ------------------------------------------------------------

    def received(self, data: bytes | memoryview) -> None:
        """The client read *data*.

        Raises:
            HttpParseError: the bytes are not the HTTP/1.x responses to the requests.
        """
        if self.done or not data:
            return
        with self._errors("response", self._received_total):
            self._received_total += len(data)
            self._receive(data)

    def _receiving(self) -> Exchange | None:
        for exchange in self._open:
            if not exchange.response_done:
                return exchange
        return None

    def _receive(self, data: bytes | memoryview) -> None:
        exchange = self._receiving()
        if exchange is None or exchange.response is None:
            self._early += data
            return
        exchange.response.feed(data)
        self._pump_response(exchange)

    def _pump_response(self, exchange: Exchange) -> None:
        message = exchange.response
        assert message is not None
        parser = message.parser
        while True:
            event = parser.next_event()
            if event is h11.NEED_DATA:
                return
            if isinstance(event, h11.InformationalResponse):
                message.start = message.consumed()
            elif isinstance(event, h11.Response):
                message.head_end = message.consumed()
                exchange.status = event.status_code
            elif event is h11.PAUSED:
                # CONNECT answered 2xx or 101 Switching Protocols: what follows is no
                # longer HTTP/1.x (a TLS tunnel, a WebSocket).
                message.head_end = message.consumed()
                message.spool.cut(message.head_end)
                exchange.switched = True
                exchange.response_done = True
                self._emit_ready()
                self.close(None)
                return
            elif isinstance(event, h11.EndOfMessage):
                rest = message.finish()
                exchange.response_done = True
                self._emit_ready()
                if rest and not self.done:
                    self._receive(rest)
                return
            elif isinstance(event, h11.ConnectionClosed):
                self.close("disconnect")
                return

    def eof(self) -> None:
        """The client read the end of the stream: the server closed the connection."""
        if self.done:
            return
        exchange = self._receiving()
        if exchange is not None and exchange.response is not None:
            try:
                exchange.response.parser.receive_data(b"")
                self._pump_response(exchange)
            except h11.ProtocolError:
                pass  # closed in the middle of a message: truncated below
        self.close("disconnect")

    def response_closed(self) -> None:
        """The client dropped the response it was reading (http.client closes it when
        complete too: then nothing is pending and nothing happens)."""
        exchange = self._receiving()
        if exchange is not None and exchange.response is not None and (
                exchange.response.spool.length > 0):
            self.close("unspecified")

    def close(self, truncated: str | None = "unspecified") -> None:
        """The connection is over: hand on every exchange whose response head came
        (incomplete ones marked *truncated*), drop the others."""
        if self.done and not self._open:
            return
        self.done = True
        while self._open:
            exchange = self._open.popleft()
            try:
                response = exchange.response
                if response is not None and response.head_end is not None:
                    if not exchange.response_done:
                        exchange.truncated = truncated
                        exchange.response_done = True
                    self._on_exchange(exchange)
            finally:
                exchange.close()
        self._sending = None
        self._early = bytearray()

    def abandon(self) -> None:
        """Stop: drop every exchange in progress without handing it on."""
        self.done = True
        while self._open:
            self._open.popleft().close()
        self._sending = None
        self._early = bytearray()

    def _emit_ready(self) -> None:
        while self._open and self._open[0].request_done and self._open[0].response_done:
            exchange = self._open.popleft()
            try:
                self._on_exchange(exchange)
            finally:
                exchange.close()

    def _errors(self, side: str, offset: int) -> _ParseErrors:
        return _ParseErrors(self, side, offset)


class _ParseErrors:
    """Turn h11's complaints into :class:`HttpParseError` and stop parsing the connection."""

    def __init__(self, splitter: ConnectionSplitter, side: str, offset: int) -> None:
        self._splitter = splitter
        self._side = side
        self._offset = offset

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if exc is None or not isinstance(exc, h11.ProtocolError):
            return
        splitter = self._splitter
        splitter.abandon()
        raise HttpParseError(f"the {self._side} stream is not HTTP/1.x: {exc}",
                             source=splitter.source, offset=self._offset) from exc
