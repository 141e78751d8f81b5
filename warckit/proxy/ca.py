"""The proxy's certificate authority: one PEM file, and a certificate per host on the fly.

HTTPS through the proxy is intercepted: the client's ``CONNECT host:443`` is answered by
the proxy itself, with a certificate for *host* signed by this CA, so the client must
trust the CA (``curl --cacert``, ``requests`` ``verify=``, Chromium
``--ignore-certificate-errors-spki-list``). The CA file holds the certificate and its
private key; it is created on first use (exclusively, mode 0600) and reused afterwards, so
clients configured once keep working.

Host certificates share one key (made at start) and are cached: signing is about 1 ms.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import ssl
import tempfile
import threading
from collections import OrderedDict

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..errors import WarckitError

__all__ = ["CertificateAuthority", "CertificateError", "spki_sha256"]

#: Host contexts kept (least recently used dropped first).
CACHE_SIZE = 1024
_CA_NAME = "warckit proxy CA"


class CertificateError(WarckitError):
    """The CA file cannot be read, is not a CA certificate with its key, or cannot be made."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


def spki_sha256(cert_pem: bytes) -> str:
    """Base64 SHA-256 of a certificate's SubjectPublicKeyInfo (Chromium's
    ``--ignore-certificate-errors-spki-list``, HPKP pins)."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


class CertificateAuthority:
    """The CA in *path* (created if missing) and the TLS contexts it signs for hosts.

    Raises:
        CertificateError: *path* exists but holds no CA certificate and key, or cannot
            be written.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if not os.path.exists(self.path):
            self._create()
        try:
            with open(self.path, "rb") as f:
                pem = f.read(1 << 20)
            self.certificate = x509.load_pem_x509_certificate(pem)
            key = serialization.load_pem_private_key(pem, password=None)
        except (OSError, ValueError, TypeError) as exc:
            raise CertificateError(self.path, f"not a PEM CA certificate with its private "
                                   f"key ({exc})") from None
        if not isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
            raise CertificateError(self.path, "the key is neither an EC nor an RSA key")
        self._key = key
        basic = self.certificate.extensions.get_extension_for_class(x509.BasicConstraints)
        if not basic.value.ca:
            raise CertificateError(self.path, "the certificate is not a CA certificate")
        #: The CA certificate alone, PEM (what clients are given to trust).
        self.certificate_pem = self.certificate.public_bytes(serialization.Encoding.PEM)
        self._leaf_key = ec.generate_private_key(ec.SECP256R1())
        self._leaf_key_pem = self._leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption())
        self._contexts: OrderedDict[str, ssl.SSLContext] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def spki_sha256(self) -> str:
        """Base64 SHA-256 of the CA's public key (Chromium's SPKI list)."""
        return spki_sha256(self.certificate_pem)

    def _create(self) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, _CA_NAME),
                          x509.NameAttribute(NameOID.ORGANIZATION_NAME, "warckit")])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=3650))
                .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                             crl_sign=True, content_commitment=False,
                                             key_encipherment=False, data_encipherment=False,
                                             key_agreement=False, encipher_only=False,
                                             decipher_only=False), critical=True)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                               critical=False)
                .sign(key, hashes.SHA256()))
        pem = (cert.public_bytes(serialization.Encoding.PEM)
               + key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            # O_EXCL + O_NOFOLLOW: never follow a planted link, never overwrite a CA made
            # meanwhile by another proxy starting at once (then that one is read).
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return
        except OSError as exc:
            raise CertificateError(self.path, f"cannot create the CA file ({exc.strerror})") from None
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
            f.flush()
            os.fsync(f.fileno())

    def context(self, host: str) -> ssl.SSLContext:
        """A server-side TLS context presenting a certificate for *host* (cached)."""
        host = host.lower().rstrip(".")
        with self._lock:
            ctx = self._contexts.get(host)
            if ctx is not None:
                self._contexts.move_to_end(host)
                return ctx
        ctx = self._make_context(host)
        with self._lock:
            self._contexts[host] = ctx
            while len(self._contexts) > CACHE_SIZE:
                self._contexts.popitem(last=False)
        return ctx

    def host_certificate_pem(self, host: str) -> bytes:
        """A PEM certificate for *host* signed by the CA (DNS name or IP address SAN)."""
        try:
            alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alt = x509.DNSName(host)
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host[:64])]))
                .issuer_name(self.certificate.subject)
                .public_key(self._leaf_key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=365))
                .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                               critical=False)
                .sign(self._key, hashes.SHA256()))
        return cert.public_bytes(serialization.Encoding.PEM)

    def _make_context(self, host: str) -> ssl.SSLContext:
        chain = self.host_certificate_pem(host) + self.certificate_pem
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.set_alpn_protocols(["http/1.1"])
        # load_cert_chain reads files only: a private file that lives for one call.
        with tempfile.NamedTemporaryFile(prefix="warckit-host-", suffix=".pem") as f:
            os.chmod(f.name, 0o600)
            f.write(chain + self._leaf_key_pem)
            f.flush()
            ctx.load_cert_chain(f.name)
        return ctx
