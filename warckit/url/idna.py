"""IDN hosts: Unicode ↔ punycode with an explicit IDNA 2003 / IDNA 2008 choice.

* ``"2003"`` — Python's ``str.encode("idna")`` (nameprep + punycode, RFC 3490). This
  is what python ``surt`` and Heritrix (Java ``IDN.toASCII``) use, so it is the
  default of the ``cdx`` and ``heritrix`` SURT styles: ``faß.de`` → ``fass.de``.
* ``"2008"`` — UTS #46 non-transitional mapping + IDNA 2008 via the ``idna``
  package, what browsers use today and the default of the ``new-style`` SURT:
  ``faß.de`` → ``xn--fa-hia.de``.

Percent-encoded UTF-8 hosts are unescaped first (``%E2%98%83.com`` → ``xn--n3h.com``).
"""

from __future__ import annotations

from typing import Literal

from .._speedups._surt_py import idna2003_host, idna2008_host, unescape_repeatedly
from ..errors import UrlError

__all__ = ["IdnaVersion", "host_to_ascii", "host_to_unicode"]

#: Which IDNA rules to apply to non-ASCII hosts.
IdnaVersion = Literal["2003", "2008"]


def host_to_ascii(host: str, *, idna: IdnaVersion = "2003") -> str:
    """Return the ASCII (punycode) form of *host*, lower-cased.

    Args:
        host: A host name, Unicode or ASCII, possibly percent-encoded UTF-8.
        idna: ``"2003"`` (Python codec, matches surt/Heritrix) or ``"2008"`` (UTS #46).

    Returns:
        The host in ASCII, e.g. ``"xn--bcher-kva.ch"``.

    Raises:
        UrlError: A label is not a valid IDN under the chosen rules, or the host
            holds controls or spaces.

    Example:
        >>> host_to_ascii("Bücher.ch")
        'xn--bcher-kva.ch'
        >>> host_to_ascii("faß.de"), host_to_ascii("faß.de", idna="2008")
        ('fass.de', 'xn--fa-hia.de')
    """
    try:
        raw = unescape_repeatedly(host.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise UrlError(f"host is not valid Unicode: {exc}") from None
    if any(c <= 0x20 or c == 0x7F for c in raw):
        raise UrlError(f"control character or space in host {host!r}")
    if raw.isascii():
        return raw.decode("ascii").lower()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UrlError(f"host {host!r} is not UTF-8 after unescaping") from None
    if idna == "2003":
        return idna2003_host(raw, strict=True).decode("ascii").lower()
    if idna == "2008":
        return idna2008_host(raw).decode("ascii").lower()
    raise UrlError(f"unknown IDNA version {idna!r} (use '2003' or '2008')")


def label_to_unicode(label: str) -> str:
    """Decode one ``xn--`` label (IDNA 2008 first, then plain punycode); others unchanged.

    Raises:
        UrlError: The label starts with ``xn--`` but is not valid punycode.
    """
    if label[:4].lower() != "xn--":
        return label
    import idna as _idna  # (only for punycode labels; keeps start-up quick)

    try:
        return _idna.ulabel(label)
    except (_idna.IDNAError, UnicodeError, ValueError):
        pass
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError) as exc:
        raise UrlError(f"invalid punycode label {label!r}: {exc}") from None


def host_to_unicode(host: str) -> str:
    """Return *host* with every punycode label decoded, for display.

    Args:
        host: An ASCII host such as ``"xn--bcher-kva.ch"``.

    Returns:
        The Unicode host, e.g. ``"bücher.ch"``; labels that are not punycode are kept.

    Raises:
        UrlError: A ``xn--`` label is not valid punycode.

    Example:
        >>> host_to_unicode("www.xn--landsbkasafn-5hb.is")
        'www.landsbókasafn.is'
    """
    return ".".join(label_to_unicode(label) for label in host.split("."))
