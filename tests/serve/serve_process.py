"""``warckit serve`` as a child process on a free loopback port, and plain HTTP helpers."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import child


def free_port() -> int:
    """A TCP port nobody listens on right now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Response:
    """What a request got: status, headers (lower-case names), body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def __repr__(self) -> str:
        return f"Response({self.status}, {self.body[:200]!r})"


def request(port: int, path: str, *, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 60) -> Response:
    """One request to 127.0.0.1:*port*; the whole body read (raises on a cut-off body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
    finally:
        conn.close()


class Server:
    """``python -m warckit serve ARGS --port FREE`` until :meth:`stop`."""

    def __init__(self, args: Sequence[str], cwd: str | os.PathLike[str] | None = None,
                 port: int | None = None) -> None:
        self.port = port or free_port()
        self.args = [*args, "--port", str(self.port)]
        self.stderr_path = Path(cwd or ".") / f"serve-{self.port}.log" if cwd else None
        self._err = open(self.stderr_path, "w+b") if self.stderr_path else subprocess.PIPE  # noqa: SIM115
        self.proc = subprocess.Popen(child.warckit_cli("serve", *self.args), cwd=cwd,
                                     env=child.env(), stdout=subprocess.PIPE, stderr=self._err)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"warckit serve exited {self.proc.returncode}: {self.stderr()}")
            try:
                if request(self.port, "/", timeout=5).status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        self.proc.kill()
        raise RuntimeError(f"warckit serve did not answer within {timeout} s: {self.stderr()}")

    def stderr(self) -> str:
        if self.stderr_path is None:
            return ""
        if not self._err.closed:  # type: ignore[union-attr]
            self._err.flush()  # type: ignore[union-attr]
        return self.stderr_path.read_text(errors="replace")

    def get(self, path: str, **kw: object) -> Response:
        return request(self.port, path, **kw)  # type: ignore[arg-type]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Send *sig*; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            if self.stderr_path is not None:
                self._err.close()  # type: ignore[union-attr]
