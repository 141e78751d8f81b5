"""SURT (Sort-friendly URI Reordering Transform) in the styles web archives use.

Styles:

``"cdx"``
    The IA / pywb / OutbackCDX index key: byte for byte what python ``surt`` 0.3.1
    gives by default — ``com,example)/path?a=1&b=2`` (www stripped, query sorted,
    lower case, no scheme, no trailing comma). Computed by the compiled
    ``warckit._speedups._surt_c`` (or its pure twin).
``"new-style"``
    The key of the new-style CDX: ``com,example,www,)/path`` — no scheme, trailing
    comma, ``www`` kept unless ``strip_www=True``, otherwise the ``cdx``
    canonicalization; IDN hosts with UTS #46 / IDNA 2008, and hosts that cannot be
    DNS names are errors rather than percent-encoded.
``"heritrix"``
    The SURT Heritrix uses for crawl scoping: its URI fix-up (rule set
    ``"heritrix"``) then ``SURT.fromURI``: ``http://(org,archive,www,:8080@user:pass)/a#f``.
"""

from __future__ import annotations

import re
from typing import Literal

from .._speedups.surt import impl as _impl
from ..errors import UrlError
from .canonicalize import canonicalize
from .idna import IdnaVersion, label_to_unicode

__all__ = ["STYLES", "Style", "surt", "surt_from_uri", "surt_key", "surt_to_unicode"]

#: The SURT styles :func:`surt` knows.
Style = Literal["cdx", "new-style", "heritrix"]
STYLES: tuple[str, ...] = ("cdx", "new-style", "heritrix")


# org.archive.util.SURT.URI_SPLITTER (webarchive-commons), Java \w and \S are ASCII.
_URI_SPLITTER = re.compile(
    r"(\w+://)(?:([-\w.!~*'()%;:&=+$,]+?)(@))?"
    r"(?:((?:\d{1,3}\.){3}\d{1,3})|(\S+?))(:\d+)?(/\S*)?\Z",
    re.ASCII,
)
_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]")


def _check_idna(idna: str) -> bool:
    if idna == "2003":
        return False
    if idna == "2008":
        return True
    raise UrlError(f"unknown IDNA version {idna!r} (use '2003' or '2008')")


def surt_key(
    url: str | None,
    *,
    trailing_comma: bool = False,
    with_scheme: bool = False,
    strip_www: bool = True,
    reverse_ipaddr: bool = True,
    idna: IdnaVersion = "2003",
    strict: bool = False,
) -> str:
    """IA-canonicalized SURT with python ``surt``'s options (``surt.surt(url, **options)``).

    Args:
        url: The URL. ``None``/``""`` give ``"-"``; ``filedesc…`` comes back as is;
            ``dns:``, ``mailto:``, ``warcinfo:`` … (no authority) come back
            canonicalized but not reordered.
        trailing_comma: ``com,example,)`` instead of ``com,example)``.
        with_scheme: Prefix ``http://(``.
        strip_www: Drop a leading ``www\\d*.`` label (surt's ``host_massage``).
        reverse_ipaddr: Reverse dotted-quad IPv4 hosts as if they were names.
        idna: ``"2003"`` (surt's behaviour) or ``"2008"`` for non-ASCII hosts.
        strict: Reject hosts with controls/spaces or invalid IDN labels instead of
            percent-encoding them as surt does.

    Returns:
        The SURT key.

    Raises:
        UrlError: The URL is longer than 64 KiB, not encodable, has a bad port, has
            no host although its scheme needs one, or (strict / IDNA 2008) a bad host.
    """
    return str(
        _impl.surt_key(
            url,
            trailing_comma,
            with_scheme,
            strip_www,
            reverse_ipaddr,
            _check_idna(idna),
            strict,
        )
    )


def surt_from_uri(uri: str, *, preserve_case: bool = False) -> str:
    """Heritrix's ``SURT.fromURI``: reorder an already fixed-up URI, no canonicalization.

    ``scheme://(tld,domain,:port@userinfo)/path?query#fragment``; dotted-quad hosts
    are not reversed; everything is lower-cased unless ``preserve_case``. A URI that
    is not ``scheme://authority…`` (or holds whitespace) is returned unchanged.

    Example:
        >>> surt_from_uri("http://user:pass@www.archive.org:8080/movies/movies.php")
        'http://(org,archive,www,:8080@user:pass)/movies/movies.php'
    """
    if len(uri) > _impl.MAX_URL_LENGTH:
        raise UrlError(f"URI too long ({len(uri)} characters)")
    if _WHITESPACE.search(uri):
        return uri
    m = _URI_SPLITTER.match(uri)
    if m is None:
        return uri
    scheme, userinfo, at, ip, host, port, path = m.groups()
    out = [scheme, "("]
    if ip is not None:
        out.append(ip)
    else:
        # Quirk: Java walks the host backwards and never looks at its last character,
        # so a trailing dot stays glued to the last label ("a." -> "a.,").
        seg_end = len(host)
        for i in range(len(host) - 1, -1, -1):
            if i > 0 and host[i - 1] != ".":
                continue
            out.append(host[i:seg_end])
            out.append(",")
            seg_end = i - 1
    out += [port or "", at or "", userinfo or "", ")", path or ""]
    result = "".join(out)
    return result if preserve_case else result.lower()


def surt(
    url: str | None,
    *,
    style: Style = "cdx",
    strip_www: bool | None = None,
    idna: IdnaVersion | None = None,
) -> str:
    """Return the SURT of *url* in the given style.

    Args:
        url: The URL.
        style: ``"cdx"`` (default), ``"new-style"`` or ``"heritrix"``.
        strip_www: Drop a leading ``www\\d*.`` label. Default: ``True`` for ``cdx``,
            ``False`` for ``new-style``; ``heritrix`` never strips it.
        idna: ``"2003"`` or ``"2008"`` for Unicode hosts. Default: ``"2003"`` for
            ``cdx`` and ``heritrix``, ``"2008"`` for ``new-style``.

    Returns:
        The SURT string.

    Raises:
        UrlError: Bad input (see :func:`surt_key`), an unknown style, or for
            ``heritrix``/``new-style`` a host that cannot be a DNS name.

    Example:
        >>> surt("https://www.Example.com/a?b=1&a=2")
        'com,example)/a?a=2&b=1'
        >>> surt("https://www.Example.com/a?b=1&a=2", style="new-style")
        'com,example,www,)/a?a=2&b=1'
        >>> surt("http://user:pw@www.Example.com:8080/a#top", style="heritrix")
        'http://(com,example,www,:8080@user:pw)/a#top'
    """
    if style == "cdx":
        if strip_www is None and idna is None:
            # the indexing hot path: straight into the compiled twin
            key: str = _impl.surt_key(url)
            return key
        return surt_key(
            url,
            strip_www=True if strip_www is None else strip_www,
            idna="2003" if idna is None else idna,
        )
    if style == "new-style":
        if strip_www is None and idna is None:
            # the new-style index's hot path, as surt_key below calls the compiled twin:
            # trailing comma, keep www, reverse IPv4, IDNA 2008, strict
            key = _impl.surt_key(url, True, False, False, True, True, True)
            return key
        return surt_key(
            url,
            trailing_comma=True,
            strip_www=False if strip_www is None else strip_www,
            idna="2008" if idna is None else idna,
            strict=True,
        )
    if style == "heritrix":
        if url is None or not url.strip():
            raise UrlError("empty URL")
        if strip_www:
            raise UrlError("the heritrix style never strips www")
        fixed = canonicalize(url, rules="heritrix" if idna in (None, "2003") else "heritrix-2008")
        return surt_from_uri(fixed)
    raise UrlError(f"unknown SURT style {style!r} (known: {', '.join(STYLES)})")


def surt_to_unicode(surt_text: str) -> str:
    """Decode the punycode labels of the host part of a SURT (``…(is,xn--…,`` → Unicode).

    Works on ``heritrix`` (``http://(is,xn--…,)/``), ``cdx`` and ``new-style`` keys, and
    on SURT prefixes that end inside the host.

    Raises:
        UrlError: A ``xn--`` label is not valid punycode.
    """
    if "xn--" not in surt_text:
        return surt_text
    open_at = surt_text.find("(")
    start = open_at + 1 if open_at >= 0 and "://(" in surt_text[: open_at + 1] else 0
    close = surt_text.find(")", start)
    end = close if close >= 0 else len(surt_text)
    host = surt_text[start:end]
    # stop at a port or user-info (heritrix puts them after the last comma)
    cut = len(host)
    for sep in (":", "@"):
        at = host.find(sep)
        if 0 <= at < cut:
            cut = at
    labels = ",".join(label_to_unicode(label) for label in host[:cut].split(","))
    return surt_text[:start] + labels + host[cut:] + surt_text[end:]
