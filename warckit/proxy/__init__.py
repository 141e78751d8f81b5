"""``warckit proxy``: an archiving HTTP/HTTPS proxy that writes WARC files (docs/proxy.rst).

Crawlers (Heritrix, Brozzler), browsers and scripts send their traffic through it; every
exchange is written through the guided writer as a response (or a revisit, when the
payload is already in the dedup index) and a request, and per-request settings come in
warcprox's ``Warcprox-Meta`` header. Needs the ``proxy`` extra (h11, cryptography), loaded
on first use of a name.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["DEFAULT_CA", "ArchivingProxy", "Captured", "CertificateAuthority", "CertificateError",
           "MetaError", "WarcproxMeta", "parse_meta", "serve_in_workers", "spki_sha256"]

_HOMES = {"DEFAULT_CA": "server", "ArchivingProxy": "server", "Captured": "archive",
          "CertificateAuthority": "ca", "CertificateError": "ca", "spki_sha256": "ca",
          "MetaError": "meta", "WarcproxMeta": "meta", "parse_meta": "meta",
          "serve_in_workers": "workers"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'warckit.proxy' has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
