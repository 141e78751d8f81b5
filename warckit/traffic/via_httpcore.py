"""The tap on httpcore's HTTP/1.1 connections, under httpx (sync and async).

``HTTP11Connection.handle_request`` (``AsyncHTTP11Connection.handle_async_request``)
is patched to put a :class:`TapStream` between the connection and its network stream
before each request: the stream httpcore reads and writes is above TLS, so the tap sees
the plaintext HTTP/1.1 bytes, as written and as read. A connection from the pool made
before the capture is tapped from its next request on. HTTP/2 connections
(``httpx.Client(http2=True)``) are not tapped.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from .session import Capture, ConnectionInfo, Tap

__all__ = ["AsyncTapStream", "TapStream", "install"]


class TapStream:
    """A network stream that shows what goes through it to a tap."""

    def __init__(self, inner: Any, tap: Tap) -> None:
        self.inner = inner
        self.tap = tap

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self.inner.read(max_bytes, timeout=timeout)
        self.tap.received(data)
        if not data:
            self.tap.eof()
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, timeout=timeout)
        self.tap.sent(buffer)

    def close(self) -> None:
        try:
            self.tap.close()
        finally:
            self.inner.close()

    def start_tls(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.start_tls(*args, **kwargs)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class AsyncTapStream:
    """The asynchronous :class:`TapStream`."""

    def __init__(self, inner: Any, tap: Tap) -> None:
        self.inner = inner
        self.tap = tap

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = await self.inner.read(max_bytes, timeout=timeout)
        self.tap.received(data)
        if not data:
            self.tap.eof()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.inner.write(buffer, timeout=timeout)
        self.tap.sent(buffer)

    async def aclose(self) -> None:
        try:
            self.tap.close()
        finally:
            await self.inner.aclose()

    async def start_tls(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.start_tls(*args, **kwargs)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


def _info(origin: Any, stream: Any) -> ConnectionInfo:
    address = None
    try:
        address = stream.get_extra_info("server_addr")
    except Exception:  # noqa: BLE001, S110 - a stream that cannot tell: no WARC-IP-Address
        pass
    ip = str(address[0]) if isinstance(address, tuple) and address else None
    return ConnectionInfo(origin.scheme.decode("ascii"), origin.host.decode("ascii"),
                          origin.port, ip)


def _tapped(capture: Capture, conn: Any, wrapper: type[TapStream] | type[AsyncTapStream]) -> None:
    stream = conn._network_stream
    if isinstance(stream, wrapper):
        if stream.tap.capture is capture:
            return
        stream = stream.inner  # left by an earlier capture
    conn._network_stream = wrapper(stream, capture.new_tap(_info(conn._origin, stream)))


def install(capture: Capture) -> Callable[[], None]:
    """Patch httpcore (when installed) to feed *capture*; return the undo."""
    if importlib.util.find_spec("httpcore") is None:
        return lambda: None
    try:
        from httpcore._async.http11 import AsyncHTTP11Connection
        from httpcore._sync.http11 import HTTP11Connection

        original_sync = HTTP11Connection.handle_request
        original_async = AsyncHTTP11Connection.handle_async_request
    except (ImportError, AttributeError) as exc:  # httpcore's insides changed
        # The http.client traffic is still recorded; CaptureError says what was not.
        capture._fail("httpcore", UsageError(
            f"this httpcore is not supported ({exc}): httpx traffic is not recorded"))
        return lambda: None

    def handle_request(self: HTTP11Connection, request: Any) -> Any:
        _tapped(capture, self, TapStream)
        return original_sync(self, request)

    async def handle_async_request(self: AsyncHTTP11Connection, request: Any) -> Any:
        _tapped(capture, self, AsyncTapStream)
        return await original_async(self, request)

    HTTP11Connection.handle_request = handle_request  # type: ignore[method-assign]
    AsyncHTTP11Connection.handle_async_request = handle_async_request  # type: ignore[method-assign]

    def undo() -> None:
        HTTP11Connection.handle_request = original_sync  # type: ignore[method-assign]
        AsyncHTTP11Connection.handle_async_request = original_async  # type: ignore[method-assign]

    return undo
