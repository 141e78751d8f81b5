"""Real servers on loopback for the remote tests (and benchmarks/remote.py): an HTTP
server that honours ``Range`` (with switches for misbehaving), and moto's S3 server
behind a WSGI layer that counts the bytes it sends."""

from __future__ import annotations

import http.server
import os
import re
import socket
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class RangeServer(http.server.ThreadingHTTPServer):
    """Serves files of *root* on 127.0.0.1 with ``Range`` support.

    Switches (set them between requests): ``ignore_range`` (answer 200 with the whole
    body), ``status`` (answer every request with it, e.g. 403), ``drop_after`` (close the
    connection after that many body bytes of a GET), ``stall`` (seconds to wait before
    a GET's body). Counters: ``sent`` (body bytes), ``gets`` (GET requests), ``ranges``
    (the ``(start, end)`` of each GET).
    """

    daemon_threads = True
    block_on_close = True

    def __init__(self, root: Path) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root = root
        self.ignore_range = False
        self.status: int | None = None
        self.drop_after: int | None = None
        self.stall = 0.0
        self.released = threading.Event()
        self.lock = threading.Lock()
        self.sent = 0
        self.gets = 0
        self.heads = 0
        self.ranges: list[tuple[int, int]] = []
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="range-server", daemon=True)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-answer (the tests make them) is no failure

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{name}"

    def reset_counts(self) -> None:
        with self.lock:
            self.sent = 0
            self.gets = 0
            self.requests = 0
            self.heads = 0
            self.ranges = []

    def __enter__(self) -> RangeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.shutdown()
        self.server_close()
        self._thread.join(5)
        assert not self._thread.is_alive(), "the test HTTP server did not stop"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: RangeServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body are separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK add 40 ms to every request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _target(self) -> Path | None:
        path = self.server.root / self.path.lstrip("/").split("?")[0]
        return path if path.is_file() else None

    def do_HEAD(self) -> None:
        with self.server.lock:
            self.server.heads += 1
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        srv = self.server
        if srv.status is not None:
            self.send_response(srv.status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path = self._target()
        if path is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = path.stat().st_size
        start, end = 0, size
        m = _RANGE.match(self.headers.get("Range", ""))
        partial = bool(m) and not srv.ignore_range
        if partial and m:
            start = int(m.group(1))
            end = min(int(m.group(2)) + 1, size) if m.group(2) else size
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        self.send_response(206 if partial else 200)
        self.send_header("Content-Length", str(end - start))
        if partial:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        if not srv.ignore_range:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if not body:
            return
        with srv.lock:
            srv.gets += 1
            srv.ranges.append((start, end))
        if srv.stall:
            srv.released.wait(srv.stall)  # (set when the server stops)
        limit = end - start if srv.drop_after is None else min(end - start, srv.drop_after)
        try:
            with open(path, "rb") as fh:
                fh.seek(start)
                left = limit
                while left > 0:
                    data = fh.read(min(left, 1 << 16))
                    if not data:
                        break
                    with srv.lock:  # (counted before it is sent: the client may be done first)
                        srv.sent += len(data)
                    self.wfile.write(data)
                    left -= len(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (a read that stopped early)
        if srv.drop_after is not None:
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(2)


class CountingS3:
    """moto's S3 server on 127.0.0.1 (a random port), counting the body bytes it sends.

    ``sent``: bytes of GET response bodies; ``gets``: GET requests; ``requests``: requests
    on objects (HEAD included).
    """

    def __init__(self) -> None:
        from moto.server import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log(self, *args: Any) -> None:
                pass

        self._app = DomainDispatcherApplication(create_backend_app)
        self.sent = 0
        self.gets = 0
        self.requests = 0
        self.lock = threading.Lock()
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, request_handler=Quiet)
        self.endpoint = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto-s3", daemon=True)

    def _wsgi(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        on_object = "/" in environ.get("PATH_INFO", "/")[1:]
        counted = environ.get("REQUEST_METHOD") == "GET" and on_object
        with self.lock:
            self.requests += on_object
            self.gets += counted
        result = self._app(environ, start_response)
        return self._count(result) if counted else result

    def _count(self, result: Iterable[bytes]) -> Iterator[bytes]:
        try:
            for chunk in result:
                with self.lock:
                    self.sent += len(chunk)
                yield chunk
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()

    @property
    def storage_options(self) -> dict[str, Any]:
        return {"key": "testing", "secret": "testing",
                "client_kwargs": {"endpoint_url": self.endpoint, "region_name": "us-east-1"}}

    def put(self, bucket: str, files: dict[str, Path]) -> None:
        """Create *bucket* and upload *files* (key → local path)."""
        import boto3

        client = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                              aws_access_key_id="testing", aws_secret_access_key="testing")
        try:
            client.create_bucket(Bucket=bucket)
        except client.exceptions.BucketAlreadyOwnedByYou:
            pass
        for key, path in files.items():
            client.upload_file(os.fspath(path), bucket, key)

    def reset_counts(self) -> None:
        with self.lock:
            self.sent = 0
            self.gets = 0
            self.requests = 0

    def __enter__(self) -> CountingS3:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        assert not self._thread.is_alive(), "the test S3 server did not stop"
