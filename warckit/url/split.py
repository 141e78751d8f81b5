"""The immutable split-URL value that canonicalization rules work on.

:meth:`SplitUrl.parse` follows python ``surt``'s ``handyurl.parse`` (itself a port of
webarchive-commons ``URLParser``) so that the ``"ia"`` and ``"google"`` rule sets give
surt's results byte for byte; the one addition is that user-info is kept (surt drops
it while parsing; the IA rules drop it as a rule, the Heritrix rules keep it).

Components are ``bytes`` (UTF-8 for non-ASCII input): percent-decoding can produce
byte sequences that are not UTF-8 (``%E4%EE``), and the rules must carry them.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from .._speedups._surt_py import encode_url, split_hostinfo
from ..errors import UrlError

__all__ = ["SplitUrl"]

_SCHEME_RE = re.compile(rb"[a-zA-Z][a-zA-Z0-9+\-.]*:")
# RFC 2396 Appendix B, as in surt (scheme limited to legal characters).
_SPLIT_RE = re.compile(rb"([a-zA-Z][a-zA-Z0-9+.\-]*):(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SplitUrl:
    """A URL split into components; ``None`` means "absent", ``b""`` means "empty".

    Attributes:
        scheme: As written (case kept), e.g. ``b"http"``.
        userinfo: ``user[:password]`` before ``@`` in the authority, or ``None``.
        host: The host (IPv6 without brackets), or ``None``.
        port: The port number, or ``None`` (an empty ``:`` counts as none; ``:0`` is
            kept as 0 and dropped by the Google/IA rules, as surt does).
        path: The path, or ``None``.
        query: The query without ``?``; ``b""`` for a bare ``?``; ``None`` if absent.
        fragment: The fragment without ``#``, or ``None``.
    """

    scheme: bytes
    userinfo: bytes | None = None
    host: bytes | None = None
    port: int | None = None
    path: bytes | None = None
    query: bytes | None = None
    fragment: bytes | None = None

    @classmethod
    def parse(cls, url: str) -> SplitUrl:
        """Split *url* the way surt's ``handyurl.parse`` does.

        Leading/trailing ASCII whitespace is stripped and ``\\t\\r\\n`` removed
        anywhere; ``http://`` is assumed when no scheme is given; repeated
        ``http(s)://`` prefixes collapse to the last; a host ending in ``:`` loses
        the colon; ``http:////host`` recovers the host from the path.

        >>> SplitUrl.parse("HTTP://user@Example.com:8080/a?b#c")  # doctest: +NORMALIZE_WHITESPACE
        SplitUrl(scheme=b'HTTP', userinfo=b'user', host=b'example.com', port=8080,
                 path=b'/a', query=b'b', fragment=b'c')

        Raises:
            UrlError: Empty, longer than 64 KiB, not encodable, or a bad port.
        """
        data = encode_url(url).strip().translate(None, b"\t\n\r")
        if not data:
            raise UrlError("empty URL")
        if not _SCHEME_RE.match(data):
            data = b"http://" + data
        m = re.match(rb"(?:https?://)+", data)
        if m:
            last = max(data.rfind(b"http://", 0, m.end()), data.rfind(b"https://", 0, m.end()))
            data = data[last:]
        parts = _SPLIT_RE.match(data)
        if parts is None:  # pragma: no cover - the pattern matches any string with a scheme
            raise UrlError(f"cannot split URL {url[:200]!r}")
        scheme, netloc, path, query, fragment = parts.groups()
        userinfo = host = None
        port: int | None = None
        if netloc:
            netloc = netloc.rstrip(b":")
            userinfo_raw, at, hostinfo = netloc.rpartition(b"@")
            userinfo = userinfo_raw if at else None
            host, port = split_hostinfo(hostinfo, url)
            if host:
                # As urllib's .hostname: lower case up to a '%' (IPv6 zone ids keep case).
                name, pct, zone = host.partition(b"%")
                host = name.lower() + pct + zone
            else:
                host = None
        path = path or None
        if host is None and path is not None and scheme.startswith(b"http"):
            # Quirk: http:////www.vikings.com and http:host/x recover the host.
            head, _, tail = path.lstrip(b"/").partition(b"/")
            host, path = head, b"/" + tail
        if not query:
            # surt's last_delimiter: a bare trailing "?" is kept until a rule drops it.
            query = b"" if data.endswith(b"?") else None
        return cls(scheme, userinfo, host, port, path, query, fragment)

    def replace(self, **changes: object) -> SplitUrl:
        """Return a copy with some components replaced."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def geturl(self) -> str:
        """Join the components again (surt's ``handyurl.geturl``).

        Non-ASCII bytes left in components are decoded as UTF-8 with replacement.
        """
        out = [self.scheme, b":"]
        if self.host:
            if self.scheme != b"dns":
                out.append(b"//")
            if self.userinfo is not None:
                out += [self.userinfo, b"@"]
            # IPv6 literals get their brackets back (surt's geturl leaves them off).
            out.append(b"[" + self.host + b"]" if b":" in self.host else self.host)
            if self.port is not None:
                out.append(b":%d" % self.port)
        if self.path:
            out.append(self.path)
        elif self.query is not None or self.fragment is not None:
            out.append(b"/")
        if self.query is not None:
            out += [b"?", self.query]
        if self.fragment is not None:
            out += [b"#", self.fragment]
        return b"".join(out).decode("utf-8", "replace")
