"""URL canonicalization as small composable rules over an immutable :class:`SplitUrl`.

A rule is a function ``SplitUrl -> SplitUrl``. A rule set is a tuple of rules applied
in order. Named rule sets:

``"none"``
    Parse and re-join only (surt's ``handyurl.parse`` fix-ups still apply).
``"google"``
    surt's ``GoogleURLCanonicalizer``: drop fragment and user-info, minimal-escape
    the query, canonical host (unescape, IDNA 2003, dots, numeric IPv4, lower case),
    path unescape / dot segments / re-escape.
``"ia"`` (default)
    ``"google"`` then surt's ``IAURLCanonicalizer``: lower-case host, strip
    ``www\\d*.``, strip default port, lower-case path and query, strip session ids,
    strip trailing slash, sort query arguments, drop an empty query. This is what the
    ``cdx`` SURT style uses (through a compiled fast path with the same results).
``"heritrix"`` (and ``"heritrix-2008"`` with IDNA 2008 hosts)
    A Heritrix ``UsableURIFactory``-like fix-up (checked against vectors of its test
    suite): lower-case scheme and host, IDN → punycode (IDNA 2003, strict), reject
    illegal hosts and port 0, strip default port, trim trailing spaces/NBSP, ``\\`` →
    ``/``, remove dot segments, ``/`` for an empty path, escape spaces/controls/
    non-ASCII (and ``"<>\\^`{|}[]`` in the path); keeps user-info, ``www``, case of
    path and query, and the fragment (which ``UsableURIFactory`` itself drops).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._speedups import _surt_py as _h
from ..errors import UrlError
from .idna import IdnaVersion, host_to_ascii
from .split import SplitUrl

__all__ = [
    "RULE_SETS",
    "Rule",
    "canonicalize",
    "canonicalize_split",
    "resolve_rules",
]

#: A canonicalization rule.
Rule = Callable[[SplitUrl], SplitUrl]


# -- Google rules ---------------------------------------------------------------------


def strip_fragment(url: SplitUrl) -> SplitUrl:
    """Drop the fragment."""
    return url.replace(fragment=None) if url.fragment is not None else url


def strip_userinfo(url: SplitUrl) -> SplitUrl:
    """Drop ``user:password@``."""
    return url.replace(userinfo=None) if url.userinfo is not None else url


def strip_zero_port(url: SplitUrl) -> SplitUrl:
    """Drop ``:0`` (surt reads it as "no port")."""
    return url.replace(port=None) if url.port == 0 else url


def minimal_escape_query(url: SplitUrl) -> SplitUrl:
    """Unescape the query repeatedly, then escape what must be (surt's ``minimalEscape``)."""
    if not url.query:
        return url
    return url.replace(query=_h.escape_once(_h.unescape_repeatedly(url.query)))


def google_host(url: SplitUrl) -> SplitUrl:
    """Canonical host: unescape, IDNA 2003 (raw bytes kept on failure, then escaped),
    ``..`` → ``.``, strip outer dots, numeric IPv4 → dotted quad, lower case."""
    if not url.host:
        return url
    return url.replace(host=_h.google_host(url.host))


def google_path(url: SplitUrl) -> SplitUrl:
    """Unescape the path repeatedly; with a host, resolve dot segments and collapse
    ``//``; re-escape."""
    path = url.path
    if path:
        path = _h.unescape_repeatedly(path)
    if url.host:
        path = _h.normalize_path(path)
    if path:
        path = _h.escape_once(path)
    return url.replace(path=path) if path != url.path else url


# -- IA rules -------------------------------------------------------------------------


def lowercase_host(url: SplitUrl) -> SplitUrl:
    """Lower-case the host."""
    return url.replace(host=url.host.lower()) if url.host else url


def strip_www(url: SplitUrl) -> SplitUrl:
    """Drop a leading ``www.``/``www2.``… label (not for ``dns:``)."""
    if not url.host or url.scheme == b"dns":
        return url
    return url.replace(host=_h.strip_www_label(url.host))


def strip_default_port(url: SplitUrl) -> SplitUrl:
    """Drop ``:80`` for http and ``:443`` for https."""
    default = {b"http": 80, b"https": 443}.get(url.scheme.lower())
    return url.replace(port=None) if url.port is not None and url.port == default else url


def lowercase_path(url: SplitUrl) -> SplitUrl:
    """Lower-case the path (percent-escapes included: ``%C5`` → ``%c5``)."""
    return url.replace(path=url.path.lower()) if url.path else url


def strip_path_session_id(url: SplitUrl) -> SplitUrl:
    """Remove ASP.NET cookieless session ids, ``/(S(…))/page.aspx``."""
    return url.replace(path=_h.strip_path_session_id(url.path)) if url.path else url


def strip_trailing_slash(url: SplitUrl) -> SplitUrl:
    """``/a/`` → ``/a``; ``/`` stays."""
    if url.path and len(url.path) > 1 and url.path.endswith(b"/"):
        return url.replace(path=url.path[:-1])
    return url


def lowercase_query(url: SplitUrl) -> SplitUrl:
    """Lower-case the query."""
    return url.replace(query=url.query.lower()) if url.query else url


def strip_query_session_id(url: SplitUrl) -> SplitUrl:
    """Remove ``jsessionid``, ``phpsessid``, ``sid``, ``ASPSESSIONID…``, ``CFID&CFTOKEN``."""
    if not url.query:
        return url
    return url.replace(query=_h.strip_query_session_id(url.query))


def sort_query(url: SplitUrl) -> SplitUrl:
    """Sort query arguments by (name, value)."""
    return url.replace(query=_h.sort_query(url.query)) if url.query else url


def strip_empty_query(url: SplitUrl) -> SplitUrl:
    """Drop an empty query (``/a?`` → ``/a``)."""
    return url.replace(query=None) if url.query == b"" else url


# -- Heritrix rules -------------------------------------------------------------------


def lowercase_scheme(url: SplitUrl) -> SplitUrl:
    """Lower-case the scheme."""
    return url.replace(scheme=url.scheme.lower())


def heritrix_host(url: SplitUrl) -> SplitUrl:
    """Heritrix host fix-up: unescape, drop trailing spaces and one trailing dot, IDN →
    punycode with IDNA 2003 (strict), lower case; reject what cannot be a host name.

    Raises:
        UrlError: Controls or spaces inside the host, an invalid IDN label, an empty
            label (``a..b``) or a character outside ``[a-z0-9._-]`` (IPv6 literals aside).
    """
    if not url.host:
        return url
    return url.replace(host=_heritrix_host(url.host, "2003"))


def heritrix_host_2008(url: SplitUrl) -> SplitUrl:
    """As :func:`heritrix_host` but with UTS #46 / IDNA 2008."""
    if not url.host:
        return url
    return url.replace(host=_heritrix_host(url.host, "2008"))


_HOST_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789._-")
_IPV6_CHARS = frozenset(b"0123456789abcdef:.")


def _heritrix_host(host: bytes, version: IdnaVersion) -> bytes:
    # Quirk: Heritrix strips trailing (escaped) spaces: http://www.nps-shoes.co.uk%20
    raw = _h.unescape_repeatedly(host).rstrip(b" ")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UrlError(f"host {host!r} is not UTF-8") from None
    ascii_host = host_to_ascii(text, idna=version)
    ascii_host = ascii_host.removesuffix(".")
    result = ascii_host.encode("ascii")
    if b":" in result and not result.translate(None, bytes(_IPV6_CHARS)):
        return result  # IPv6 literal
    if not result or b".." in result or result.startswith(b".") or not set(result) <= _HOST_CHARS:
        raise UrlError(f"illegal host name {text!r}")
    return result


def require_valid_port(url: SplitUrl) -> SplitUrl:
    """Reject port 0 (Heritrix refuses it).

    Raises:
        UrlError: The port is 0.
    """
    if url.port == 0:
        raise UrlError("bad port '0'")
    return url


def require_host(url: SplitUrl) -> SplitUrl:
    """Reject a URL whose scheme needs a host (http, https, ftp, ws, wss) but has none.

    Raises:
        UrlError: No host.
    """
    if not url.host and url.scheme.lower() in _h.NEEDS_HOST:
        raise UrlError(f"no host in {url.geturl()[:200]!r}")
    return url


def remove_dot_segments(url: SplitUrl) -> SplitUrl:
    """RFC 3986 §5.2.4 dot-segment removal (``//`` kept); ``/`` for an empty path."""
    path = url.path or b""
    if url.host is None:
        return url
    if not path:
        return url.replace(path=b"/")
    if b"." not in path:
        return url
    out: list[bytes] = []
    segments = path.split(b"/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == b".":
            if last:
                out.append(b"")
        elif seg == b"..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append(b"")
        else:
            out.append(seg)
    joined = b"/".join(out)
    if not joined.startswith(b"/"):
        joined = b"/" + joined
    return url.replace(path=joined)


_PATH_UNSAFE = frozenset(b'"<>\\^`{|}[]')


def _escape_keep_percent(data: bytes, unsafe: frozenset[int] = frozenset()) -> bytes:
    """Escape controls, space, DEL, non-ASCII and *unsafe*; keep ``%`` escapes as they are."""
    if data.isascii() and not any(c <= 0x20 or c == 0x7F or c in unsafe for c in data):
        return data
    out = bytearray()
    for c in data:
        if c <= 0x20 or c >= 0x7F or c in unsafe:
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out)


_NBSP = "\u00a0".encode()


def heritrix_trim(url: SplitUrl) -> SplitUrl:
    """Trim spaces and NO-BREAK SPACEs from the end of the URL (Heritrix trims both)."""
    for name in ("fragment", "query", "path"):
        value: bytes | None = getattr(url, name)
        if value is None:
            continue
        trimmed = value
        while trimmed.endswith((b" ", _NBSP)):
            trimmed = trimmed[:-1] if trimmed.endswith(b" ") else trimmed[: -len(_NBSP)]
        return url.replace(**{name: trimmed}) if trimmed != value else url
    return url


def heritrix_path_chars(url: SplitUrl) -> SplitUrl:
    """Backslash → ``/`` and NO-BREAK SPACE → space in the path (as browsers and Heritrix)."""
    if not url.path or (b"\\" not in url.path and _NBSP not in url.path):
        return url
    return url.replace(path=url.path.replace(b"\\", b"/").replace(_NBSP, b" "))


def heritrix_escape(url: SplitUrl) -> SplitUrl:
    """Escape what a URI cannot hold: in the path also ``"<>\\^`{|}[]``; in query and
    fragment only controls, space, DEL and non-ASCII (Heritrix keeps ``{curly}`` there)."""
    return url.replace(
        path=_escape_keep_percent(url.path, _PATH_UNSAFE) if url.path else url.path,
        query=_escape_keep_percent(url.query) if url.query else url.query,
        fragment=_escape_keep_percent(url.fragment) if url.fragment else url.fragment,
    )


GOOGLE_RULES: tuple[Rule, ...] = (
    strip_zero_port,
    strip_fragment,
    strip_userinfo,
    minimal_escape_query,
    google_host,
    google_path,
)
IA_RULES: tuple[Rule, ...] = (
    lowercase_host,
    strip_www,
    strip_default_port,
    lowercase_path,
    strip_path_session_id,
    strip_trailing_slash,
    strip_query_session_id,
    lowercase_query,
    sort_query,
    strip_empty_query,
)
HERITRIX_RULES: tuple[Rule, ...] = (
    lowercase_scheme,
    heritrix_host,
    require_host,
    require_valid_port,
    strip_default_port,
    heritrix_trim,
    heritrix_path_chars,
    remove_dot_segments,
    heritrix_escape,
)

#: The named rule sets.
RULE_SETS: dict[str, tuple[Rule, ...]] = {
    "none": (),
    "google": GOOGLE_RULES,
    "ia": GOOGLE_RULES + IA_RULES,
    "ia-only": (strip_zero_port, strip_userinfo, strip_fragment) + IA_RULES,
    "heritrix": HERITRIX_RULES,
    "heritrix-2008": tuple(heritrix_host_2008 if r is heritrix_host else r for r in HERITRIX_RULES),
}


def resolve_rules(rules: str | Sequence[Rule]) -> tuple[Rule, ...]:
    """Return the rule tuple for a rule-set name or a sequence of rules.

    Raises:
        UrlError: Unknown rule-set name.
    """
    if isinstance(rules, str):
        try:
            return RULE_SETS[rules]
        except KeyError:
            names = ", ".join(sorted(RULE_SETS))
            raise UrlError(f"unknown rule set {rules!r} (known: {names})") from None
    return tuple(rules)


def canonicalize_split(url: SplitUrl, rules: str | Sequence[Rule] = "ia") -> SplitUrl:
    """Apply *rules* to an already split URL."""
    for rule in resolve_rules(rules):
        url = rule(url)
    return url


def canonicalize(url: str, rules: str | Sequence[Rule] = "ia") -> str:
    """Return *url* canonicalized by *rules* (a rule-set name or a sequence of rules).

    Args:
        url: The URL.
        rules: ``"ia"`` (default), ``"google"``, ``"ia-only"``, ``"heritrix"``,
            ``"none"``, or your own sequence of ``SplitUrl -> SplitUrl`` functions.

    Returns:
        The canonical URL.

    Raises:
        UrlError: The URL cannot be parsed (empty, too long, bad port) or a rule
            rejects it.

    Example:
        >>> canonicalize("http://www.Example.com:80/a/./b/../c/?b=2&a=1#top")
        'http://example.com/a/c?a=1&b=2'
        >>> canonicalize("http://www.GOOgle.com/", rules="google")
        'http://www.google.com/'
    """
    return canonicalize_split(SplitUrl.parse(url), rules).geturl()
