"""Pure-Python twin of the compiled SURT key maker (``_speedups/surt.pyx``).

:func:`surt_key` is the hot path of indexing: the IA / pywb / OutbackCDX key of a URL,
byte-for-byte what python ``surt`` 0.3.1 gives (``surt.surt(url, **options)``) for every
input it accepts, computed in one pass instead of surt's object pipeline. The
compiled twin has the same name, signature, results and exception types.

The rules are those of ``surt``'s ``handyurl.parse`` + ``GoogleURLCanonicalizer`` +
``IAURLCanonicalizer`` (see ``docs/url.rst`` and SPEC-DIGEST §4.1). The helper
functions (``unescape_repeatedly``, ``escape_once``, ``normalize_path`` …) are also the
building blocks of the composable rules in :mod:`warckit.url.canonicalize`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import UrlError

__all__ = [
    "MAX_URL_LENGTH",
    "NEEDS_HOST",
    "attempt_ip",
    "canonical_host",
    "encode_url",
    "escape_once",
    "google_host",
    "idna2003_host",
    "idna2008_host",
    "normalize_path",
    "reverse_host",
    "sort_query",
    "strip_path_session_id",
    "strip_query_session_id",
    "strip_www_label",
    "surt_key",
    "unescape_repeatedly",
]

#: URLs longer than this many UTF-8 bytes are rejected with :class:`UrlError`.
MAX_URL_LENGTH = 65536

_HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}
#: Bytes ``escape_once`` leaves alone: surt's ``quote_from_bytes`` safe set.
_SAFE = (
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
    b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
)
_ESCAPED = [bytes([c]) if c in _SAFE else b"%%%02X" % c for c in range(256)]
_SCHEME_RE = re.compile(rb"[a-zA-Z][a-zA-Z0-9+\-.]*:")
_IP_RE = re.compile(rb"(?:\d{1,3}\.){3}\d{1,3}\Z")
_DIGITS_DOTS_RE = re.compile(rb"(?:[1-9][0-9]*(?:\.[0-9]+){0,3}|0[0-7]*(?:\.[0-7]+){0,3})\Z")
_WWW_RE = re.compile(rb"www\d*\.")
_ASPX_ONE = re.compile(rb"\((?:[a-z]\([0-9a-z]{24}\))+\)/")
_ASPX_TWO = re.compile(rb"\([0-9a-z]{24}\)/")
_ALNUM = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz")
_ALPHA = frozenset(b"abcdefghijklmnopqrstuvwxyz")
#: Schemes whose URLs are meaningless without a host (``http:`` alone is an error).
NEEDS_HOST = frozenset((b"http", b"https", b"ftp", b"ws", b"wss"))

#: host-canonicalization results, keyed by (raw host, flags); bounded, cleared when full.
_HOST_CACHE: dict[tuple[bytes, int], bytes | UrlError] = {}
_HOST_CACHE_MAX = 8192


def unescape_repeatedly(data: bytes) -> bytes:
    """Decode ``%XX`` escapes until none is left, like surt's ``unescapeRepeatedly``.

    A stack reduction: one pass, linear time, same fixpoint as decoding again and
    again (``%2541`` → ``%41`` → ``A``), but without surt's quadratic blow-up on
    ``%25252525…``.

    Args:
        data: Raw bytes, possibly holding escapes (either hex case).

    Returns:
        The fully unescaped bytes.
    """
    if b"%" not in data:
        return data
    out = bytearray()
    hexval = _HEX
    for c in data:
        out.append(c)
        while len(out) >= 3 and out[-3] == 0x25:
            hi = hexval.get(out[-2])
            lo = hexval.get(out[-1])
            if hi is None or lo is None:
                break
            del out[-3:]
            out.append(hi * 16 + lo)
    return bytes(out)


def escape_once(data: bytes) -> bytes:
    """Percent-escape every byte outside surt's safe set (``%XX`` upper case).

    Controls, space, ``#``, ``%``, DEL and all non-ASCII bytes are escaped.
    """
    if not data.translate(None, _SAFE):
        return data
    table = _ESCAPED
    return b"".join([table[c] for c in data])


def normalize_path(path: bytes | None) -> bytes:
    """Resolve ``.``/``..`` segments and collapse ``//``, like surt's ``normalizePath``.

    Quirk: a ``..`` above the root is kept (``/../a`` stays), and whatever precedes
    the first ``/`` is dropped, as in surt.
    """
    if not path:
        return b"/"
    if path[0] == 0x2F and b"//" not in path and b"/." not in path:
        return path
    kept: list[bytes] = []
    for part in path.split(b"/")[1:]:
        if part == b".":
            continue
        if part == b"..":
            if kept:
                kept.pop()
            else:
                kept.append(part)
        else:
            kept.append(part)
    if not kept:
        return b"/"
    return b"/" + b"".join([p + b"/" for p in kept[:-1] if p]) + kept[-1]


def attempt_ip(host: bytes) -> bytes | None:
    """Return the dotted quad for a numeric IPv4 host form, else ``None``.

    ``3279880203`` → ``195.127.0.11`` (masked to 32 bits), octal ``017.0.0.1`` →
    ``15.0.0.1``, short ``10.0.258`` → ``10.0.1.2`` (``inet_aton`` forms, which is
    what surt's ``gethostbyname_ex`` call resolves them with; no DNS is done here).

    Raises:
        UrlError: The host is a number too long to convert.
    """
    import socket  # (rare: numeric hosts only; keeps the module quick to import)

    if host.isdigit():
        try:
            value = int(host)
        except ValueError:
            raise UrlError(f"numeric host too long ({len(host)} digits)") from None
        return socket.inet_ntoa((value & 0xFFFFFFFF).to_bytes(4, "big")).encode("ascii")
    if _DIGITS_DOTS_RE.match(host):
        try:
            return socket.inet_ntoa(socket.inet_aton(host.decode("ascii"))).encode("ascii")
        except OSError:
            return None
    return None


def idna2003_host(host: bytes, strict: bool) -> bytes:
    """Convert a non-ASCII host with Python's IDNA 2003 codec (surt's behaviour).

    Invalid UTF-8 bytes are ignored, as surt does.

    Raises:
        UrlError: ``strict`` and the codec rejects the host (else it is returned as is).
    """
    try:
        return host.decode("utf-8", "ignore").encode("idna")
    except (UnicodeError, ValueError) as exc:
        if strict:
            shown = host.decode("utf-8", "replace")
            raise UrlError(f"invalid internationalized host {shown!r}: {exc}") from None
        # Quirk: surt keeps the raw bytes when IDNA fails; they are escaped later
        # (http://\x01\x80.com/ -> %01%C2%80.com).
        return host


def idna2008_host(host: bytes) -> bytes:
    """Convert a non-ASCII host with UTS #46 (non-transitional) + IDNA 2008.

    ASCII labels are kept as they are (case included).

    Raises:
        UrlError: Not UTF-8, an empty inner label, or a label IDNA 2008 rejects.
    """
    import idna as _idna  # (rare: non-ASCII hosts only; keeps the module quick to import)

    shown = host.decode("utf-8", "replace")
    try:
        mapped = _idna.uts46_remap(host.decode("utf-8"), std3_rules=False, transitional=False)
    except (UnicodeError, _idna.IDNAError) as exc:
        raise UrlError(f"invalid internationalized host {shown!r}: {exc}") from None
    parts = mapped.split(".")
    labels = []
    for i, label in enumerate(parts):
        if label.isascii():
            if not label and i != len(parts) - 1:
                raise UrlError(f"invalid internationalized host {shown!r}: empty label")
            labels.append(label.encode("ascii"))
            continue
        try:
            labels.append(_idna.alabel(label))
        except (UnicodeError, _idna.IDNAError) as exc:
            raise UrlError(f"invalid internationalized host {shown!r}: {exc}") from None
    return b".".join(labels)


def canonical_host(host: bytes, strip_www: bool, idna2008: bool, strict: bool) -> bytes:
    """Canonicalize a raw host the way surt's Google + IA canonicalizers do.

    Unescape, IDN → punycode, ``..`` → ``.`` and strip dots, numeric IPv4 forms →
    dotted quad, lower case, escape, and (``strip_www``) drop a ``www\\d*.`` prefix.

    Args:
        host: The host as it appears in the URL (user-info and port removed).
        strip_www: Drop a leading ``www.``/``www2.``… label.
        idna2008: Use UTS #46 / IDNA 2008 instead of IDNA 2003 for non-ASCII hosts.
        strict: Raise on hosts that cannot be a DNS name (controls, space, bad IDN)
            instead of escaping them as surt does.

    Returns:
        The canonical host, possibly empty.

    Raises:
        UrlError: ``strict`` and the host is not usable, or a bad IDN with ``idna2008``.
    """
    key = (host, strip_www | (idna2008 << 1) | (strict << 2))
    cached = _HOST_CACHE.get(key)
    if cached is not None:
        if isinstance(cached, UrlError):
            raise UrlError(*cached.args)
        return cached
    try:
        result: bytes | UrlError = _canonical_host(host, strip_www, idna2008, strict)
    except UrlError as exc:
        result = exc
    if len(_HOST_CACHE) >= _HOST_CACHE_MAX:
        _HOST_CACHE.clear()
    _HOST_CACHE[key] = result
    if isinstance(result, UrlError):
        raise UrlError(*result.args)
    return result


def google_host(host: bytes, idna2008: bool = False, strict: bool = False) -> bytes:
    """Canonicalize a host like surt's GoogleURLCanonicalizer (escapes stay upper case).

    Unescape repeatedly, non-ASCII → punycode (IDNA 2003, or UTS #46 with
    ``idna2008``), ``..`` → ``.`` once and strip outer dots, numeric IPv4 forms →
    dotted quad, else lower case and escape.

    Raises:
        UrlError: ``strict`` and the host holds controls/space or a bad IDN label;
            or a bad IDN label with ``idna2008``.
    """
    host = unescape_repeatedly(host)
    if strict and any(c <= 0x20 or c == 0x7F for c in host):
        raise UrlError(f"control character or space in host {host!r}")
    if not host.isascii():
        host = idna2008_host(host) if idna2008 else idna2003_host(host, strict)
    host = host.replace(b"..", b".").strip(b".")
    ip = attempt_ip(host)
    if ip:
        return ip
    return escape_once(host.lower())


def strip_www_label(host: bytes) -> bytes:
    """Drop a leading ``www.``, ``www2.``, ``www34.`` … label (surt's ``massageHost``)."""
    m = _WWW_RE.match(host)
    return host[m.end():] if m else host


def _canonical_host(host: bytes, strip_www: bool, idna2008: bool, strict: bool) -> bytes:
    host = google_host(host, idna2008, strict).lower()
    if strip_www and host:
        m = _WWW_RE.match(host)
        if m:
            host = host[m.end():]
    return host


def reverse_host(host: bytes, reverse_ipaddr: bool = True) -> bytes:
    """``www.example.com`` → ``com,example,www``; dotted quads kept if not ``reverse_ipaddr``."""
    if not reverse_ipaddr and _IP_RE.match(host):
        return host
    parts = host.split(b".")
    parts.reverse()
    return b",".join(parts)


def _strip_aspx(path: bytes, pattern: re.Pattern[bytes]) -> bytes:
    """One of surt's ASP.NET path session-id rules, without regex backtracking.

    Equivalent to ``^(.*/)(<pattern>)([^?]+\\.aspx.*)$`` → groups 1 + 3: the last
    ``/`` after which ``pattern`` matches and the rest has ``.aspx`` before any ``?``.
    """
    slash = len(path)
    while True:
        slash = path.rfind(b"/", 0, slash)
        if slash < 0:
            return path
        m = pattern.match(path, slash + 1)
        if m:
            rest = m.end()
            qmark = path.find(b"?", rest)
            if qmark < 0:
                qmark = len(path)
            if path.find(b".aspx", rest + 1, qmark) >= 0:
                return path[: slash + 1] + path[rest:]


def strip_path_session_id(path: bytes) -> bytes:
    """Remove ASP.NET cookieless session ids (``/(S(…))/x.aspx``) from a lower-cased path."""
    if b".aspx" not in path:
        return path
    return _strip_aspx(_strip_aspx(path, _ASPX_ONE), _ASPX_TWO)


_Check = Callable[[bytes, int], int]


def _strip_last(query: bytes, name: bytes, check: _Check) -> bytes:
    """Drop the last ``name…`` parameter whose value passes *check* (surt regex semantics).

    Matching is case-insensitive (on a lower-cased copy); the cut keeps the case.
    """
    low = query.lower()
    end = len(query)
    while True:
        at = low.rfind(name, 0, end)
        if at < 0:
            return query
        stop = check(low, at + len(name))
        if stop >= 0 and (stop == len(query) or query[stop] == 0x26):
            tail = query[stop + 1:]
            return query[:at] + tail
        end = at + len(name) - 1


def _fixed(length: int, charset: frozenset[int]) -> _Check:
    def check(query: bytes, start: int) -> int:
        stop = start + length
        if stop > len(query):
            return -1
        for c in query[start:stop]:
            if c not in charset:
                return -1
        return stop

    return check


def _asp(query: bytes, start: int) -> int:
    stop = start + 8
    if stop + 25 > len(query) or query[stop] != 0x3D:
        return -1
    for c in query[start:stop]:
        if c not in _ALPHA:
            return -1
    for c in query[stop + 1: stop + 25]:
        if c not in _ALPHA:
            return -1
    return stop + 25


def _cfid(query: bytes, start: int) -> int:
    amp = query.find(b"&", start)
    if amp <= start or not query.startswith(b"&cftoken=", amp):
        return -1
    value = amp + 9
    stop = query.find(b"&", value)
    if stop < 0:
        stop = len(query)
    return stop if stop > value else -1


_QUERY_SESSION_RULES = (
    (b"jsessionid=", _fixed(32, _ALNUM)),
    (b"phpsessid=", _fixed(32, _ALNUM)),
    (b"sid=", _fixed(32, _ALNUM)),
    (b"aspsessionid", _asp),
    (b"cfid=", _cfid),
)


def strip_query_session_id(query: bytes) -> bytes:
    """Remove session-id parameters from a query (case-insensitively), as surt does.

    ``jsessionid``/``phpsessid``/``sid`` = 32 alphanumerics, ``ASPSESSIONIDxxxxxxxx`` =
    24 letters, ``CFID=…&CFTOKEN=…``; each rule removes its last occurrence that is
    followed by ``&`` or the end (surt's greedy ``^(.*)…(?:&(.*))?$``).
    """
    low = query.lower()
    if b"ssi" not in low and b"sid=" not in low and b"cfid=" not in low:
        return query
    for name, check in _QUERY_SESSION_RULES:
        if name in low:
            query = _strip_last(query, name, check)
    return query


def _query_arg_key(arg: bytes) -> list[bytes]:
    return arg.split(b"=", 1)


def sort_query(query: bytes) -> bytes:
    """Sort ``&``-separated arguments by (name, value) tuples, like surt's alphaReorderQuery.

    Quirk: ``a`` sorts before ``a=``, and a trailing ``&`` becomes a leading one.
    """
    if len(query) <= 1 or b"&" not in query:
        return query
    args: list[bytes] = query.split(b"&")
    args.sort(key=_query_arg_key)
    return b"&".join(args)


def split_hostinfo(hostinfo: bytes, url: str) -> tuple[bytes, int | None]:
    """Split ``host[:port]`` (IPv6 in brackets) into the host and the port, if any.

    Raises:
        UrlError: the port is not a number from 0 to 65535.
    """
    if b"[" in hostinfo:
        host, _, port_text = hostinfo.partition(b"[")[2].partition(b"]")
        port_text = port_text.partition(b":")[2]
    else:
        host, _, port_text = hostinfo.partition(b":")
    if not port_text:
        return host, None
    if not port_text.isdigit() or len(port_text.lstrip(b"0")) > 5 or int(port_text) > 65535:
        raise UrlError(f"bad port {port_text.decode('latin-1')!r} in {url[:200]!r}")
    return host, int(port_text)


def encode_url(url: str) -> bytes:
    """UTF-8 bytes of *url*.

    Raises:
        UrlError: Longer than :data:`MAX_URL_LENGTH` or not encodable (lone surrogates).
    """
    if len(url) > MAX_URL_LENGTH:
        raise UrlError(f"URL too long ({len(url)} characters, limit {MAX_URL_LENGTH})")
    try:
        data = url.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UrlError(f"URL is not valid Unicode: {exc}") from None
    if len(data) > MAX_URL_LENGTH:
        raise UrlError(f"URL too long ({len(data)} bytes, limit {MAX_URL_LENGTH})")
    return data


def surt_key(
    url: str | None,
    trailing_comma: bool = False,
    with_scheme: bool = False,
    strip_www: bool = True,
    reverse_ipaddr: bool = True,
    idna2008: bool = False,
    strict: bool = False,
) -> str:
    """Return the IA-canonicalized SURT of *url*, as ``surt.surt(url, **options)`` does.

    Args:
        url: The URL; ``None`` or ``""`` give ``"-"``, ``filedesc…`` is returned as is.
        trailing_comma: ``com,example,)`` instead of ``com,example)``.
        with_scheme: Prefix ``scheme://(``.
        strip_www: Drop a ``www\\d*.`` first label (surt's ``host_massage``).
        reverse_ipaddr: Reverse dotted-quad IPv4 hosts like names.
        idna2008: Convert non-ASCII hosts with UTS #46 / IDNA 2008 (else IDNA 2003).
        strict: Reject hosts with controls, spaces or invalid IDN labels.

    Returns:
        The SURT key.

    Raises:
        UrlError: Too long, not encodable, no host for a scheme that needs one, a port
            that is not a number in 0..65535, or a bad host in strict mode.
    """
    if url is None:
        return "-"
    if not isinstance(url, str):
        raise TypeError(f"url must be str, not {type(url).__name__}")
    if not url:
        return "-"
    data = encode_url(url)
    if url.startswith("filedesc"):
        return url
    data = data.strip()
    if b"\t" in data or b"\n" in data or b"\r" in data:
        data = data.translate(None, b"\t\n\r")
    if not data:
        raise UrlError("empty URL")
    if not _SCHEME_RE.match(data):
        data = b"http://" + data
    elif data[:4] == b"http" and data.startswith((b"http://http", b"https://http")):
        # Quirk: http://https://x -> https://x (surt's ^(https?://)+ collapse).
        pos = last = 0
        while True:
            if data.startswith(b"http://", pos):
                last, pos = pos, pos + 7
            elif data.startswith(b"https://", pos):
                last, pos = pos, pos + 8
            else:
                break
        data = data[last:]

    colon = data.index(b":")
    scheme = data[:colon]
    rest = data[colon + 1:]
    netloc = b""
    if rest[:2] == b"//":
        end = 2
        n = len(rest)
        while end < n and rest[end] not in b"/?#":
            end += 1
        netloc = rest[2:end]
        rest = rest[end:]
    hashmark = rest.find(b"#")
    if hashmark >= 0:
        rest = rest[:hashmark]
    qmark = rest.find(b"?")
    if qmark >= 0:
        path = rest[:qmark]
        query = rest[qmark + 1:]
    else:
        path = rest
        query = b""

    port = 0
    host = b""
    if netloc:
        if netloc[-1] == 0x3A:
            netloc = netloc.rstrip(b":")
        host, found = split_hostinfo(netloc.rpartition(b"@")[2], url)
        if found is not None:
            port = found
    if not host and path and scheme[:4] == b"http":
        # Quirk: http:////host/x and http:host/x recover the host from the path.
        host, _, tail = path.lstrip(b"/").partition(b"/")
        path = b"/" + tail

    if host:
        host = canonical_host(
            host, strip_www and scheme != b"dns", idna2008, strict
        )
    if path and b"%" in path:
        path = unescape_repeatedly(path)
    if host:
        path = normalize_path(path)
    elif scheme.lower() in NEEDS_HOST:
        raise UrlError(f"no host in {url[:200]!r}")
    if path:
        path = escape_once(path).lower()
        if b".aspx" in path:
            path = strip_path_session_id(path)
        if len(path) > 1 and path[-1] == 0x2F:
            path = path[:-1]
    if query:
        query = escape_once(unescape_repeatedly(query)).lower()
        query = sort_query(strip_query_session_id(query))

    if port and scheme.lower() == (b"http" if port == 80 else b"https" if port == 443 else b""):
        port = 0
    if host:
        out = [scheme, b"://(" if scheme != b"dns" else b":("] if with_scheme else []
        out.append(reverse_host(host, reverse_ipaddr))
        if port:
            out.append(b":%d" % port)
        out.append(b",)" if trailing_comma else b")")
    else:
        out = [scheme, b":"]
    if path:
        out.append(path)
    elif query:
        out.append(b"/")
    if query:
        out.append(b"?")
        out.append(query)
    return b"".join(out).decode("ascii")
