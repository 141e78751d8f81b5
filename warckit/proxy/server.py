"""The archiving proxy: HTTP and HTTPS (CONNECT, intercepted) on asyncio, recorded as it goes.

Each client connection is served by one task; HTTP/1.1 messages are framed by ``h11``
on both sides, while the bytes recorded and passed on are the raw bytes of the wire:
the request as sent upstream, the response as received (still chunked, still
content-encoded). A response is spooled (memory up to :data:`SPOOL_MEMORY`, then a
temporary file), handed to the :class:`~warckit.proxy.archive.Archivist`'s thread to be
written, and only then sent to the client with a ``Warcprox-Meta`` header naming the
record: a client never receives a response that is not archived.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import os
import socket
import sqlite3
import ssl
import sys
import tempfile
import threading
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import IO, Any
from urllib.parse import urlsplit

import orjson

from ..errors import UsageError, WarckitError
from ..record.http import find_head_end
from .archive import Archivist, Captured, Exchange
from .meta import HEADER, MetaError, WarcproxMeta, block_matching, parse_meta
from .stats import FLUSH_SECONDS, Stats

__all__ = ["DEFAULT_CA", "ArchivingProxy"]

#: Bytes of a message kept in memory before it spills to a temporary file.
SPOOL_MEMORY = 1 << 20
#: Longest request or response head accepted.
MAX_HEAD = 64 << 10
#: Read size from either side.
READ_SIZE = 256 << 10
#: Seconds to connect upstream / to wait for upstream bytes / for a client's next request.
CONNECT_TIMEOUT = 30.0
READ_TIMEOUT = 120.0
IDLE_TIMEOUT = 120.0
#: Idle upstream connections kept per (scheme, host, port).
POOL_PER_HOST = 8
#: Seconds a stopping proxy lets exchanges under way finish.
GRACE = 10.0
_HOP_BY_HOP = {b"proxy-connection", b"proxy-authorization", b"expect", b"keep-alive"}
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def _default_ca() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "warckit", "proxy-ca.pem")


#: Where the CA file is kept unless ``ca_cert`` says otherwise.
DEFAULT_CA = _default_ca()


def _h11() -> Any:
    try:
        import h11
    except ImportError:
        raise UsageError("warckit proxy needs h11: pip install 'warckit[proxy]'") from None
    return h11


class _Refused(Exception):
    """Answer the client with this status and close (nothing is recorded)."""

    def __init__(self, status: int, reason: str, text: str, meta: Any = None) -> None:
        super().__init__(text)
        self.status, self.reason, self.text, self.meta = status, reason, text, meta


def _reply(status: int, reason: str, body: bytes, *, meta: Any = None,
           content_type: bytes = b"text/plain; charset=utf-8", close: bool = True) -> bytes:
    head = [b"HTTP/1.1 %d %s" % (status, reason.encode()),
            b"Content-Type: " + content_type, b"Content-Length: %d" % len(body)]
    if meta is not None:
        head.append(HEADER.encode() + b": " + orjson.dumps(meta))
    if close:
        head.append(b"Connection: close")
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def _tokens(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> set[bytes]:
    return {t.strip().lower() for k, v in headers if k.lower() == name for t in v.split(b",")}


class _Upstream:
    """An upstream connection and its h11 state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ip: str | None,
                 conn: Any) -> None:
        self.reader, self.writer, self.ip, self.conn = reader, writer, ip, conn

    def close(self) -> None:
        self.writer.close()


class ArchivingProxy:
    """An archiving HTTP/HTTPS proxy writing WARC files (``warckit proxy``; docs/proxy.rst).

    Args:
        directory: Where WARC files go.
        host: Address to listen on (loopback by default).
        port: Port (``0``: any free one).
        prefix: File series of requests that name none in ``Warcprox-Meta``.
        max_bytes: Roll WARC files before this size (``None``: the writer's default).
        dedup: Dedup database of the default bucket (``None``: no deduplication).
        ca_cert: The CA file (created on first use); default :data:`DEFAULT_CA`.
        allow: Client networks served besides loopback (CIDR strings); others are refused.
        spool_dir: Temporary files of large messages (default: the system's).
        writer_options: More :class:`~warckit.write.guided.WarcWriter` keyword arguments.
        stats: Where captures are counted (``--workers``: a
            :class:`~warckit.proxy.stats.SharedStats`); default: this process's own.
    """

    def __init__(self, directory: str | os.PathLike[str], *, host: str = "127.0.0.1",
                 port: int = 8000, prefix: str = "WARC", max_bytes: int | None = None,
                 dedup: str | os.PathLike[str] | None = None,
                 ca_cert: str | os.PathLike[str] | None = None, allow: Iterable[str] = (),
                 spool_dir: str | None = None, writer_options: dict[str, Any] | None = None,
                 stats: Stats | None = None) -> None:
        self._h11 = _h11()
        try:
            self.allow = _LOOPBACK + tuple(ipaddress.ip_network(a, strict=False) for a in allow)
        except ValueError as exc:
            raise UsageError(f"--allow: {exc}") from None
        self.host, self.port = host, port
        try:
            from .ca import CertificateAuthority
        except ImportError:
            raise UsageError("warckit proxy needs cryptography: pip install 'warckit[proxy]'") from None
        self.ca = CertificateAuthority(ca_cert if ca_cert is not None else DEFAULT_CA)
        self.ca_cert_path = self.ca.path
        self.archivist = Archivist(directory, prefix=prefix, max_bytes=max_bytes, dedup=dedup,
                                   writer_options=writer_options, stats=stats)
        self.spool_dir = spool_dir
        self.files: list[str] = []
        self._upstream_tls = ssl.create_default_context()
        # Quirk: an archiving proxy records what servers send, trusted or not (as warcprox).
        self._upstream_tls.check_hostname = False
        self._upstream_tls.verify_mode = ssl.CERT_NONE
        self._upstream_tls.set_alpn_protocols(["http/1.1"])
        self._executor = concurrent.futures.ThreadPoolExecutor(1, "warckit-proxy-archive")
        self._pool: dict[tuple[str, str, int], list[_Upstream]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._busy = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    # -- running -----------------------------------------------------------------------

    async def serve(self, ready: Any = None, sock: socket.socket | None = None) -> None:
        """Listen (on *sock*, a listening socket, if given) and serve until :meth:`stop` (or
        the task is cancelled); then shut down."""
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        if sock is not None:
            self._server = await asyncio.start_server(self._client, sock=sock, limit=MAX_HEAD)
        else:
            self._server = await asyncio.start_server(self._client, self.host, self.port,
                                                      limit=MAX_HEAD)
        sockname = self._server.sockets[0].getsockname()
        self.host, self.port = sockname[0], sockname[1]
        flusher = asyncio.create_task(self._flush_often())
        if ready is not None:
            ready()
        try:
            await self._stopping.wait()
        finally:
            flusher.cancel()
            await asyncio.gather(flusher, return_exceptions=True)
            await self._shutdown()

    async def _flush_often(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            try:
                await loop.run_in_executor(self._executor, self.archivist.flush)
            except (WarckitError, OSError, sqlite3.Error) as exc:  # (tried again next time)
                print(f"warckit proxy: cannot flush statistics or dedup entries: {exc}",
                      file=sys.stderr, flush=True)

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        for _ in range(int(GRACE * 20)):
            if not self._busy:
                break
            await asyncio.sleep(0.05)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for conns in self._pool.values():
            for up in conns:
                up.close()
        self._pool.clear()
        await asyncio.get_running_loop().run_in_executor(self._executor, self.archivist.close)
        self._executor.shutdown(wait=True)
        self.files = list(self.archivist.files)

    def start(self) -> tuple[str, int]:
        """Serve on a background thread; return the address once listening."""
        def run() -> None:
            try:
                asyncio.run(self.serve(self._ready.set))
            except BaseException as exc:  # reported by start() / stop()
                self._failure = exc
                self._ready.set()

        self._thread = threading.Thread(target=run, name="warckit-proxy", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure
        return self.host, self.port

    def request_stop(self) -> None:
        """Ask a running proxy to shut down (any thread; returns at once)."""
        if self._loop is not None and self._stopping is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._stopping.set)
            except RuntimeError:  # the loop closed meanwhile: stopped already
                pass

    def stop(self) -> None:
        """Shut down a proxy started with :meth:`start`: exchanges under way get
        :data:`GRACE` seconds, then every file is closed."""
        self.request_stop()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._failure is not None:
            raise self._failure

    def __enter__(self) -> ArchivingProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one client connection ---------------------------------------------------------

    def _allowed(self, peer: Any) -> bool:
        try:
            ip = ipaddress.ip_address(peer[0])
        except (TypeError, ValueError, IndexError):
            return peer is None or isinstance(peer, str)  # a Unix socket
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in net for net in self.allow)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            if not self._allowed(writer.get_extra_info("peername")):
                return  # never an open proxy
            await self._serve_client(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError,
                asyncio.TimeoutError, asyncio.CancelledError):
            pass  # (cancelled: the proxy is stopping and the grace time is over)
        except Exception as exc:  # noqa: BLE001 - one line, and the proxy serves on
            print(f"warckit proxy: internal error serving {writer.get_extra_info('peername')}: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _next(self, conn: Any, reader: asyncio.StreamReader, timeout: float) -> Any:
        h11 = self._h11
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = await asyncio.wait_for(reader.read(READ_SIZE), timeout)
            conn.receive_data(data)

    async def _serve_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        h11 = self._h11
        leftover = b""
        tunnel: tuple[str, int] | None = None
        while True:
            conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
            if leftover:  # (b"" would tell h11 the client closed)
                conn.receive_data(leftover)
            try:
                event = await self._next(conn, reader, IDLE_TIMEOUT)
            except h11.RemoteProtocolError as exc:
                writer.write(_reply(400, "Bad Request", f"bad request: {exc}\n".encode()))
                return
            if not isinstance(event, h11.Request):
                return  # closed (or idle too long)
            headers = list(event.headers.raw_items())
            target = event.target.decode("ascii", "replace")
            if event.method == b"CONNECT" and tunnel is None:
                tunnel = self._authority(target)
                if tunnel is None:
                    writer.write(_reply(400, "Bad Request", b"CONNECT wants host:port\n"))
                    return
                if not hasattr(writer, "start_tls"):
                    writer.write(_reply(501, "Not Implemented",
                                        b"HTTPS interception needs Python 3.11 or later\n"))
                    return
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
                await writer.start_tls(self.ca.context(tunnel[0]))
                leftover = b""
                continue
            try:
                close = await self._exchange(conn, event, headers, target, tunnel, reader, writer)
            except _Refused as refusal:
                writer.write(_reply(refusal.status, refusal.reason, refusal.text.encode() + b"\n",
                                    meta=refusal.meta))
                await writer.drain()
                return
            if close:
                return
            leftover = conn.trailing_data[0]

    @staticmethod
    def _authority(target: str) -> tuple[str, int] | None:
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit() or not host:
            return None
        return host.strip("[]"), int(port)

    def _local(self, target: str) -> bytes:
        """A request to the proxy itself: ``/status``."""
        if urlsplit(target).path == "/status":
            body = orjson.dumps({"stats": self.archivist.stats.snapshot(), "busy": self._busy,
                                 "files": (self.archivist.file_names()
                                           + self.archivist.stats.other_files()),
                                 "address": [self.host, self.port],
                                 "ca-certificate": self.ca_cert_path},
                                option=orjson.OPT_INDENT_2)
            return _reply(200, "OK", body + b"\n", content_type=b"application/json")
        return _reply(404, "Not Found", b"this is warckit proxy: send absolute-form requests "
                      b"(http://...) or CONNECT; GET /status for statistics\n")

    async def _exchange(self, conn: Any, event: Any, headers: list[tuple[bytes, bytes]],
                        target: str, tunnel: tuple[str, int] | None,
                        reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Pass one request on, record the exchange, answer; True: close the connection."""
        h11 = self._h11
        if tunnel is not None:
            host, port = tunnel
            scheme = "https"
            url = f"https://{host if ':' not in host else '[' + host + ']'}" \
                  f"{'' if port == 443 else f':{port}'}{target}"
            path = target
        else:
            parts = urlsplit(target)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                writer.write(self._local(target))
                await writer.drain()
                return True
            scheme, host = parts.scheme, parts.hostname
            try:
                port = parts.port or (443 if scheme == "https" else 80)
            except ValueError:
                raise _Refused(400, "Bad Request", f"bad port in {target}") from None
            url = target
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            meta = parse_meta(next((v for k, v in headers if k.lower() == b"warcprox-meta"), None))
        except MetaError as exc:
            raise _Refused(400, "Bad Request", str(exc)) from None
        self._check_rules(meta, url)
        close_client = (b"close" in _tokens(headers, b"connection")
                        or (event.http_version == b"1.0"
                            and b"keep-alive" not in _tokens(headers, b"connection")))
        sent = [(k, v) for k, v in headers if k.lower() not in _HOP_BY_HOP
                and k.lower() != b"warcprox-meta"]
        if not any(k.lower() == b"host" for k, _ in sent):
            sent.insert(0, (b"Host", (host if port in (80, 443) else f"{host}:{port}").encode()))
        if conn.client_is_waiting_for_100_continue:
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        self._busy += 1
        try:
            return await self._forward(conn, event, sent, path, scheme, host, port, url, meta,
                                       reader, writer) or close_client
        finally:
            self._busy -= 1

    def _check_rules(self, meta: WarcproxMeta, url: str) -> None:
        rule = block_matching(meta.blocks, url)
        if rule is not None:
            raise _Refused(403, "Forbidden", "request rejected by warckit proxy: blocked by rule "
                           f"found in {HEADER} header: {orjson.dumps(rule).decode()}",
                           {"blocked-by-rule": rule})
        for limits, status, reason in ((meta.limits, 420, "Reached limit"),
                                       (meta.soft_limits, 430, "Reached soft limit")):
            hit = self.archivist.stats.reached(limits)
            if hit is not None:
                bucket = next(iter(hit)).rsplit("/", 2)[0]
                key = "reached-limit" if status == 420 else "reached-soft-limit"
                raise _Refused(status, reason, f"request rejected by warckit proxy: {reason.lower()} "
                               f"{orjson.dumps(hit).decode()}",
                               {"stats": self.archivist.stats.snapshot((bucket,)), key: hit})

    async def _connect(self, scheme: str, host: str, port: int) -> _Upstream:
        idle = self._pool.get((scheme, host, port))
        while idle:
            up = idle.pop()
            if not up.reader.at_eof() and not up.writer.is_closing():
                return up
            up.close()
        tls = self._upstream_tls if scheme == "https" else None
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=tls, server_hostname=host if tls else None,
                                    limit=READ_SIZE), CONNECT_TIMEOUT)
        peer = writer.get_extra_info("peername")
        h11 = self._h11
        return _Upstream(reader, writer, peer[0] if peer else None,
                         h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD))

    def _spool(self) -> IO[bytes]:
        return tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY, dir=self.spool_dir)  # noqa: SIM115

    async def _forward(self, conn: Any, event: Any, sent: list[tuple[bytes, bytes]], path: str,
                       scheme: str, host: str, port: int, url: str, meta: WarcproxMeta,
                       reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        h11 = self._h11
        try:
            up = await self._connect(scheme, host, port)
        except (OSError, asyncio.TimeoutError, TimeoutError) as exc:
            raise _Refused(502, "Bad Gateway", f"cannot connect to {host}:{port}: {exc}") from None
        request, response = self._spool(), self._spool()
        try:
            date = datetime.now(timezone.utc)
            try:
                data = up.conn.send(h11.Request(method=event.method, target=path.encode(),
                                                headers=sent))
            except h11.LocalProtocolError as exc:
                up.close()
                raise _Refused(400, "Bad Request", f"cannot pass the request on: {exc}") from None
            request.write(data)
            up.writer.write(data)
            while True:  # the request body, as the client sends it
                part = await self._next(conn, reader, IDLE_TIMEOUT)
                if isinstance(part, h11.Data):
                    data = up.conn.send(h11.Data(data=part.data))
                elif isinstance(part, h11.EndOfMessage):
                    data = up.conn.send(h11.EndOfMessage())
                else:  # the client went away mid-request: nothing to record
                    up.close()
                    return True
                request.write(data)
                up.writer.write(data)
                await up.writer.drain()
                if isinstance(part, h11.EndOfMessage):
                    break
            length, truncated, reusable, close_delimited = await self._receive(up, response, event.method)
            if length == 0:
                up.close()
                raise _Refused(502, "Bad Gateway", f"{host}:{port} sent no response ({truncated})")
            loop = asyncio.get_running_loop()
            try:
                captured = await loop.run_in_executor(self._executor, self.archivist.record, Exchange(
                    url=url, method=event.method.decode("ascii", "replace"), request=request,
                    response=response, response_length=length, ip=up.ip,
                    date=date, truncated=truncated, meta=meta))
            except (WarckitError, OSError, sqlite3.Error) as exc:
                print(f"warckit proxy: cannot record {url}: {exc}", file=sys.stderr, flush=True)
                up.close()
                raise _Refused(500, "Internal Server Error",
                               f"the response could not be archived: {exc}") from None
            if reusable:
                up.conn.start_next_cycle()
                self._pool.setdefault((scheme, host, port), [])
                if len(self._pool[(scheme, host, port)]) < POOL_PER_HOST:
                    self._pool[(scheme, host, port)].append(up)
                else:
                    up.close()
            else:
                up.close()
            await self._send(response, length, captured, writer)
            return truncated is not None or close_delimited
        finally:
            request.close()
            response.close()

    async def _receive(self, up: _Upstream, spool: IO[bytes],
                       method: bytes) -> tuple[int, str | None, bool, bool]:
        """Spool the raw response: (length, WARC-Truncated reason, reusable, close-delimited)."""
        h11 = self._h11
        fed = 0
        start = 0
        framed = False
        while True:
            try:
                event = up.conn.next_event()
            except h11.RemoteProtocolError:
                return fed - start, "disconnect" if framed else "unspecified", False, True
            if event is h11.NEED_DATA:
                try:
                    data = await asyncio.wait_for(up.reader.read(READ_SIZE), READ_TIMEOUT)
                except (OSError, asyncio.TimeoutError, TimeoutError) as exc:
                    reason = "time" if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) else "disconnect"
                    return self._cut(spool, start, fed), reason, False, True
                up.conn.receive_data(data)
                spool.write(data)
                fed += len(data)
                continue
            if isinstance(event, h11.InformationalResponse) and event.status_code != 101:
                start = fed - len(up.conn.trailing_data[0])  # a 1xx head: not the response
            elif isinstance(event, h11.Response):
                names = {k.lower() for k, _ in event.headers}
                framed = (b"content-length" in names or b"transfer-encoding" in names
                          or method == b"HEAD" or event.status_code in (204, 304))
            elif isinstance(event, h11.EndOfMessage):
                end = fed - len(up.conn.trailing_data[0])
                reusable = (up.conn.our_state is h11.DONE and up.conn.their_state is h11.DONE
                            and not up.conn.trailing_data[0])
                return self._cut(spool, start, end), None, reusable, not framed
            elif isinstance(event, h11.ConnectionClosed):
                return self._cut(spool, start, fed), "disconnect", False, True
            elif event is h11.PAUSED:  # a 101 Switching Protocols: the HTTP part ends here
                end = fed - len(up.conn.trailing_data[0])
                return self._cut(spool, start, end), None, False, True

    @staticmethod
    def _cut(spool: IO[bytes], start: int, end: int) -> int:
        """Keep bytes ``start:end`` of *spool* (moved to its start); return their count."""
        if start:
            spool.seek(start)
            rest = spool.read(end - start)  # Quirk: only after a 1xx head, which is rare
            spool.seek(0)
            spool.write(rest)
        spool.truncate(end - start)
        return end - start

    async def _send(self, spool: IO[bytes], length: int, captured: Captured,
                    writer: asyncio.StreamWriter) -> None:
        spool.seek(0)
        first = spool.read(min(length, READ_SIZE))
        end = find_head_end(first, True)  # (the archivist's own way of finding it)
        header = HEADER.encode() + b": " + captured.header() + b"\r\n"
        if end >= 0:  # the header goes before the blank line that ends the head
            cut = end - (2 if first[end - 2:end] == b"\r\n" else 1)
            writer.write(first[:cut] + header + first[cut:])
        else:
            writer.write(first)
        sent = len(first)
        while sent < length:
            data = spool.read(min(READ_SIZE, length - sent))
            if not data:
                break
            writer.write(data)
            sent += len(data)
            await writer.drain()
        await writer.drain()
