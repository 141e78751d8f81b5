"""The proxy's CA file: made once (0600, exclusively), reused, refused when damaged; host
certificates that a client trusting the CA accepts."""

from __future__ import annotations

import os
import socket
import ssl
import stat
import threading
from pathlib import Path

import pytest

pytest.importorskip("cryptography")

from cryptography import x509

from warckit.proxy.ca import CertificateAuthority, CertificateError, spki_sha256


def test_made_on_first_use_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "ca.pem"
    ca = CertificateAuthority(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    pem = path.read_bytes()
    assert pem.count(b"-----BEGIN CERTIFICATE-----") == 1 and b"PRIVATE KEY-----" in pem
    again = CertificateAuthority(path)
    assert again.certificate == ca.certificate and path.read_bytes() == pem
    basic = ca.certificate.extensions.get_extension_for_class(x509.BasicConstraints).value
    assert basic.ca is True
    assert len(__import__("base64").b64decode(ca.spki_sha256)) == 32
    assert spki_sha256(ca.certificate_pem) == ca.spki_sha256


def test_a_planted_link_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    link = tmp_path / "ca.pem"
    link.symlink_to(victim)  # dangling: the CA would be written through it
    with pytest.raises(CertificateError, match="ca.pem: not a PEM CA certificate"):
        CertificateAuthority(link)
    assert not victim.exists()


def test_damaged_or_wrong_files_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_bytes(b"not a certificate\n")
    with pytest.raises(CertificateError, match="bad.pem: not a PEM CA certificate with its private key"):
        CertificateAuthority(bad)
    ca = CertificateAuthority(tmp_path / "ca.pem")
    leaf = tmp_path / "leaf.pem"  # a host certificate with a key: not a CA
    leaf.write_bytes(ca.host_certificate_pem("example.com") + ca._leaf_key_pem)
    with pytest.raises(CertificateError, match="leaf.pem: the certificate is not a CA certificate"):
        CertificateAuthority(leaf)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_client_trusting_the_ca_accepts_the_host_certificate(tmp_path: Path, host: str) -> None:
    ca = CertificateAuthority(tmp_path / "ca.pem")
    server_ctx = ca.context(host)
    assert ca.context(host.upper()) is server_ctx  # cached, case-insensitive
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with server_ctx.wrap_socket(conn, server_side=True) as tls:
            tls.sendall(tls.recv(10))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client_ctx = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            client_ctx.wrap_socket(raw, server_hostname=host) as tls:
        tls.sendall(b"ping")
        assert tls.recv(10) == b"ping"
        assert tls.getpeercert()["subject"] == ((("commonName", host),),)
    thread.join(10)
    listener.close()
    other = ssl.create_default_context()  # the system's roots do not know this CA
    with socket.create_server(("127.0.0.1", 0)) as l2:
        t2 = threading.Thread(target=lambda: _accept_tls(l2, server_ctx), daemon=True)
        t2.start()
        with socket.create_connection(l2.getsockname(), timeout=10) as raw, \
                pytest.raises(ssl.SSLCertVerificationError):
            other.wrap_socket(raw, server_hostname=host)
        t2.join(10)


def _accept_tls(listener: socket.socket, ctx: ssl.SSLContext) -> None:
    conn, _ = listener.accept()
    try:
        ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError):
        conn.close()
