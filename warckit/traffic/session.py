"""The capture session: one per process at a time; per-connection taps feeding it.

:class:`Capture` installs the library taps it is given (``via_http_client``,
``via_httpcore``) on entry and removes them on exit, also when the block raises. Each tapped connection gets
a :class:`Tap`: a :class:`~warckit.traffic.exchanges.ConnectionSplitter` behind a lock,
whose complete exchanges the session writes as a ``response`` record and a ``request``
record, the pair under one lock so that the two stay together in the file.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._util.frozen import Frozen
from ..errors import CaptureError, UsageError

if TYPE_CHECKING:
    from .exchanges import Exchange
    from ..record.http import HttpHead
    from ..write.guided import WarcWriter
    from ..write.written import WrittenRecord

__all__ = ["Capture", "ConnectionInfo", "RequestInfo", "Tap"]

_ACTIVE_LOCK = threading.Lock()
_active: Capture | None = None


class RequestInfo(Frozen):
    """What a capture's *filter* is shown of a request (its head is complete; nothing
    of the exchange has been written).

    Attributes:
        method: The request method, e.g. ``"GET"``.
        url: The full URL, as the ``WARC-Target-URI`` would be.
        head: The request head as sent.
    """

    __slots__ = ("head", "method", "url")
    method: str
    url: str
    head: HttpHead

    def __init__(self, method: str, url: str, head: HttpHead) -> None:
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "head", head)


class ConnectionInfo:
    """Where a tapped connection goes: ``scheme`` (``"https"`` when the bytes seen are
    above TLS), the host and port dialled, and the peer's IP address if known."""

    __slots__ = ("host", "ip", "port", "scheme")

    def __init__(self, scheme: str, host: str, port: int | None, ip: str | None) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port
        self.ip = ip

    @property
    def authority(self) -> str:
        default = {"http": 80, "https": 443}.get(self.scheme)
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port in (None, default) else f"{host}:{self.port}"


class Tap:
    """One connection's recorder: the library tap calls :meth:`sent`, :meth:`received`,
    :meth:`eof`, :meth:`response_closed` and :meth:`close`; none of them raises (a
    failure is kept by the capture), and all do nothing once the capture is over."""

    __slots__ = ("__weakref__", "_lock", "_splitter", "capture", "info")

    def __init__(self, capture: Capture, info: ConnectionInfo) -> None:
        from .exchanges import ConnectionSplitter  # (imports h11)

        self.capture = capture
        self.info = info
        self._lock = threading.Lock()
        self._splitter = ConnectionSplitter(self._on_request, capture._write_exchange,
                                            source=f"{info.scheme}://{info.authority}")

    @property
    def active(self) -> bool:
        return self.capture.active and not self._splitter.done

    def sent(self, data: bytes | memoryview) -> None:
        self._call(self._splitter.sent, data)

    def received(self, data: bytes | memoryview) -> None:
        self._call(self._splitter.received, data)

    def eof(self) -> None:
        self._call(self._splitter.eof)

    def response_closed(self) -> None:
        self._call(self._splitter.response_closed)

    def close(self, truncated: str = "unspecified") -> None:
        self._call(self._splitter.close, truncated)

    def _call(self, method: Callable[..., None], *args: Any) -> None:
        if not self.capture.active:
            return
        with self._lock:
            try:
                method(*args)
            except Exception as exc:  # noqa: BLE001 - never break the client's request
                # (not HTTP/1.x, a spool's disk full): stop recording this connection.
                self._splitter.abandon()
                self.capture._fail(self._splitter.source, exc)

    def _on_request(self, exchange: Exchange) -> None:
        exchange.target_uri = _target_uri(self.info, exchange)
        capture = self.capture
        if capture.filter is not None:
            from ..record.http import parse_http_head

            try:
                head = parse_http_head(exchange.request.head, lenient=True)
                exchange.keep = bool(capture.filter(
                    RequestInfo(exchange.method, exchange.target_uri, head)))
            except Exception as exc:  # noqa: BLE001 - the caller's filter: kept, raised at exit
                exchange.keep = False
                capture._fail(exchange.target_uri, exc)
        exchange.ip = self.info.ip


def _target_uri(info: ConnectionInfo, exchange: Exchange) -> str:
    target = exchange.target
    if target.startswith(("http://", "https://")):  # absolute-form: sent to a proxy
        return target
    authority = exchange.host or info.authority
    if not target.startswith("/"):  # "*" (OPTIONS), or the authority-form of CONNECT
        target = "/"
    return f"{info.scheme}://{authority}{target}"


class Capture:
    """A capture of HTTP traffic into WARC records, made by :func:`warckit.capture`
    (which gives it the library taps to install) and entered once.

    Attributes:
        writer: The :class:`~warckit.WarcWriter` the records go to.
        filter: The filter given, or ``None``.
        active: True between entering and the end of the ``with`` block.
    """

    def __init__(self, writer: WarcWriter, *, owned: bool,
                 installers: tuple[Callable[[Capture], Callable[[], None]], ...],
                 filter: Callable[[RequestInfo], bool] | None = None) -> None:  # noqa: A002
        self.writer = writer
        self.filter = filter
        self._installers = installers
        self._owned = owned
        self._write_lock = threading.Lock()
        self._records: list[WrittenRecord] = []
        self._failures: list[tuple[str, BaseException]] = []
        self._taps: weakref.WeakSet[Tap] = weakref.WeakSet()
        # Taps and failures: not under the write lock, so that a new connection or a
        # failure never waits for another thread's record to be written.
        self._state_lock = threading.Lock()
        self._undo: list[Callable[[], None]] = []
        self._pid = os.getpid()
        self.active = False
        self._used = False

    @property
    def records(self) -> list[WrittenRecord]:
        """The records written so far, in file order (a ``response`` then its ``request``)."""
        with self._write_lock:
            return list(self._records)

    @property
    def failures(self) -> list[tuple[str, BaseException]]:
        """``(URL or connection, exception)`` for each exchange or connection not
        recorded so far (:class:`~warckit.errors.CaptureError` at exit lists them)."""
        with self._state_lock:
            return list(self._failures)

    @property
    def files(self) -> list[str]:
        """The WARC files finished so far (all of them after the ``with`` block, when
        the capture made the writer)."""
        return self.writer.files

    def new_tap(self, info: ConnectionInfo) -> Tap:
        """A tap for a new connection (called by the library taps)."""
        tap = Tap(self, info)
        with self._state_lock:
            self._taps.add(tap)
        return tap

    def __enter__(self) -> Capture:
        global _active
        if self._used:
            raise UsageError("a capture can be entered once; call warckit.capture() again")
        with _ACTIVE_LOCK:
            if _active is not None:
                raise UsageError("another warckit.capture() is active in this process; "
                                 "captures do not nest (one records every thread's traffic)")
            _active = self
        self._used = True
        try:
            for install in self._installers:
                self._undo.append(install(self))
            self.active = True
        except BaseException:
            self._uninstall()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        try:
            self._uninstall()
            with self._state_lock:
                taps = list(self._taps)
            for tap in taps:  # exchanges cut short by the end of the block
                tap.close("unspecified")
            with self._write_lock:
                self.active = False
        finally:
            if self._owned:
                self.writer.close()
        if self._failures and exc is None:
            first = self._failures[0][1]
            raise CaptureError(tuple(self._failures)) from first

    def _uninstall(self) -> None:
        global _active
        try:
            while self._undo:
                self._undo.pop()()
        finally:
            with _ACTIVE_LOCK:
                if _active is self:
                    _active = None

    def _fail(self, where: str, exc: BaseException) -> None:
        with self._state_lock:
            self._failures.append((where, exc))

    def _write_exchange(self, exchange: Exchange) -> None:
        if exchange.switched or not exchange.keep or exchange.method == "CONNECT":
            return
        request, response = exchange.request, exchange.response
        assert response is not None and request.head_end is not None
        ip = exchange.ip
        with self._write_lock:
            if not self.active or os.getpid() != self._pid:
                return
            try:
                res = self.writer.response(
                    exchange.target_uri, response.head, response.body(),
                    body_length=response.body_length, ip=ip, date=exchange.date,
                    truncated=exchange.truncated)
                req = self.writer.request(
                    exchange.target_uri, request.head, request.body(),
                    body_length=request.body_length, concurrent_to=res, ip=ip)
            except Exception as exc:  # noqa: BLE001 - kept; CaptureError at exit
                self._fail(exchange.target_uri, exc)
                return
            self._records += (res, req)
