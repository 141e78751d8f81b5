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
    A Heritrix ``UsableURIFactory``-like fix-up: lower-case scheme and host, IDN →
    punycode (IDNA 2003, strict), strip default port, remove dot segments, ``/`` for an
    empty path, escape spaces/controls/non-ASCII in path, query and fragment; keeps
    user-info, ``www``, case of path and query, and the fragment.
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
    """Unescape, IDN → punycode with IDNA 2003 (strict), lower case, strip outer dots.

    Raises:
        UrlError: The host holds controls or spaces, or an invalid IDN label.
    """
    if not url.host:
        return url
    return url.replace(host=_heritrix_host(url.host, "2003"))


def require_host(url: SplitUrl) -> SplitUrl:
    """Reject a URL whose scheme needs a host (http, https, ftp, ws, wss) but has none.

    Raises:
        UrlError: No host.
    """
    if not url.host and url.scheme.lower() in _h.NEEDS_HOST:
        raise UrlError(f"no host in {url.geturl()[:200]!r}")
    return url


def heritrix_host_2008(url: SplitUrl) -> SplitUrl:
    """As :func:`heritrix_host` but with UTS #46 / IDNA 2008."""
    if not url.host:
        return url
    return url.replace(host=_heritrix_host(url.host, "2008"))


def _heritrix_host(host: bytes, version: IdnaVersion) -> bytes:
    try:
        text = host.decode("utf-8")
    except UnicodeDecodeError:
        raise UrlError(f"host {host!r} is not UTF-8") from None
    return host_to_ascii(text, idna=version).strip(".").encode("ascii")


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


def _escape_keep_percent(data: bytes) -> bytes:
    """Escape controls, space, ``"<>\\^`{|}`` DEL and non-ASCII; keep ``%`` escapes."""
    out = bytearray()
    for c in data:
        if c <= 0x20 or c >= 0x7F or c in b'"<>\\^`{|}':
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out)


def heritrix_escape(url: SplitUrl) -> SplitUrl:
    """Escape characters a URI cannot hold in path, query and fragment."""
    return url.replace(
        path=_escape_keep_percent(url.path) if url.path else url.path,
        query=_escape_keep_percent(url.query) if url.query else url.query,
        fragment=_escape_keep_percent(url.fragment) if url.fragment else url.fragment,
    )


GOOGLE_RULES: tuple[Rule, ...] = (
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
    strip_default_port,
    remove_dot_segments,
    heritrix_escape,
)

#: The named rule sets.
RULE_SETS: dict[str, tuple[Rule, ...]] = {
    "none": (),
    "google": GOOGLE_RULES,
    "ia": GOOGLE_RULES + IA_RULES,
    "ia-only": (strip_userinfo, strip_fragment) + IA_RULES,
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
