"""``warckit proxy`` as a child process, and the clients the tests drive through it."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import child

#: The one line the proxy prints to stderr once it listens (PROXY-CONTRACT).
READY = re.compile(r"warckit proxy: listening on http://([^:/]+):(\d+)/ \(CA certificate: (.+)\)$")
#: Seconds any step waits for the proxy (start, a request, shutdown).
TIMEOUT = 60


class ProxyDidNotStart(RuntimeError):
    """The proxy exited (or stayed silent) before saying it listens."""

    def __init__(self, message: str, returncode: int | None, stderr: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class ProxyProcess:
    """``python -m warckit proxy --port 0 --out-dir OUT --ca-cert CA ARGS`` until
    :meth:`stop`."""

    def __init__(self, out: Path, ca_cert: Path, *args: str, port: int = 0,
                 timeout: float = TIMEOUT) -> None:
        self.out = out
        self.ca_cert = ca_cert
        out.mkdir(parents=True, exist_ok=True)
        self.argv = ["proxy", "--port", str(port), "--out-dir", str(out), "--ca-cert", str(ca_cert),
                     *args]
        self.proc = subprocess.Popen(child.warckit_cli(*self.argv), env=child.env(),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self._lines: list[str] = []
        self._match: re.Match[str] | None = None
        self._ready = threading.Event()
        self._readers = [threading.Thread(target=self._read, args=(self.proc.stderr, True),
                                          daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stdout, False),
                                          daemon=True)]
        for reader in self._readers:
            reader.start()
        self.returncode: int | None = None
        self._ready.wait(timeout)
        if self._match is None:
            try:
                self.proc.wait(5)  # (it is exiting: the reader saw the end of its stderr)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)
            for reader in self._readers:
                reader.join(TIMEOUT)
            raise ProxyDidNotStart(f"warckit proxy did not say it listens within {timeout} s "
                                   f"(exit {self.proc.returncode}): {self.stderr()}",
                                   self.proc.returncode, self.stderr())
        self.host: str = self._match.group(1)
        self.port: int = int(self._match.group(2))
        self.announced_ca: str = self._match.group(3)

    def _read(self, stream: object, is_stderr: bool) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._lines.append(line)
            if is_stderr and not self._ready.is_set() and (m := READY.search(line)):
                self._match = m
                self._ready.set()
        if is_stderr:
            self._ready.set()  # exited before the line: __init__ reports it

    def stderr(self) -> str:
        """Everything the proxy printed so far (stderr and stdout, interleaved by line)."""
        return "\n".join(self._lines)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send *sig*; the exit status (waits at most :data:`TIMEOUT` s, then kills)."""
        if self.returncode is None:
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
            try:
                self.returncode = self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)
                raise
            finally:
                for reader in self._readers:
                    reader.join(TIMEOUT)
        return self.returncode

    def finish(self) -> list[Path]:
        """Stop with SIGTERM; assert the clean shutdown (exit 0, no ``.open`` file left);
        the WARC files written, sorted by name. (test_proxy_control.py asserts that a
        shutdown prints no traceback.)"""
        code = self.stop()
        assert code == 0, (code, self.stderr())
        left = sorted(p.name for p in self.out.rglob("*.open"))
        assert left == [], left
        return warc_files(self.out)


#: The ``start_proxy`` fixture's type: ``start_proxy(*ARGS, out=DIR)``.
StartProxy = Callable[..., ProxyProcess]


def proxied_session(proxy: ProxyProcess) -> Any:
    """A ``requests`` session sending everything through *proxy*, trusting its CA."""
    import requests

    s = requests.Session()
    s.trust_env = False  # only the proxy given here
    s.proxies = {"http": proxy.url, "https": proxy.url}
    s.verify = str(proxy.ca_cert)
    return s


def warc_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file()
                  and re.search(r"\.warc(\.gz)?$", p.name))


def free_port() -> int:
    """A TCP port nobody listens on right now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env() -> dict[str, str]:
    """The environment without proxy settings (a client uses only the proxy it is given)."""
    return {k: v for k, v in os.environ.items()
            if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}


def spki_sha256(cert_pem: bytes) -> str:
    """Base64 SHA-256 of the first certificate's SubjectPublicKeyInfo in *cert_pem*
    (Chromium's ``--ignore-certificate-errors-spki-list``)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(cert_pem)
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


def chromium() -> str | None:
    """The Chromium executable on the PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


def venv_command(name: str) -> str | None:
    """A console script installed beside this interpreter (warcio, wayback), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    return shutil.which(name)
