"""``warckit proxy``: an archiving HTTP/HTTPS proxy that writes WARC files (docs/proxy.rst).

Crawlers (Heritrix, Brozzler), browsers and scripts send their traffic through it; every
exchange is written through the guided writer as a response (or a revisit, when the
payload is already in the dedup index) and a request, and per-request settings come in
warcprox's ``Warcprox-Meta`` header. Needs the ``proxy`` extra (h11, cryptography), loaded
on first use of a name.
"""

from __future__ import annotations

from .._util.lazy import lazy_names

__all__ = ["DEFAULT_CA", "ArchivingProxy", "Captured", "CertificateAuthority", "CertificateError",
           "MetaError", "WarcproxMeta", "parse_meta", "serve_in_workers", "spki_sha256"]

_HOMES = {"DEFAULT_CA": "server", "ArchivingProxy": "server", "Captured": "archive",
          "CertificateAuthority": "ca", "CertificateError": "ca", "spki_sha256": "ca",
          "MetaError": "meta", "WarcproxMeta": "meta", "parse_meta": "meta",
          "serve_in_workers": "workers"}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
