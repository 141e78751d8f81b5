"""Host name → Common Crawl's host columns: parts, registry and private suffixes and domains.

The suffixes come from the Public Suffix List as shipped by :mod:`publicsuffixlist`:
the ICANN section alone gives ``url_host_registry_suffix`` and
``url_host_registered_domain`` (``foo.blogspot.com`` → ``com``, ``blogspot.com``); the
whole list, private section included, gives ``url_host_private_suffix`` and
``url_host_private_domain`` (→ ``blogspot.com``, ``foo.blogspot.com``). An unlisted TLD
counts as a suffix of one label (the PSL's ``*`` rule). Hosts are handled in their ASCII
(punycode) form; IP addresses have no parts, suffixes, domains or reversed name (as CC).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from ..errors import UsageError, WarckitError
from ..url.idna import host_to_ascii

__all__ = ["HOST_COLUMNS", "ascii_host", "host_columns"]

#: The columns :func:`host_columns` fills, in schema order.
HOST_COLUMNS: tuple[str, ...] = (
    "url_host_name",
    "url_host_tld",
    "url_host_2nd_last_part",
    "url_host_3rd_last_part",
    "url_host_4th_last_part",
    "url_host_5th_last_part",
    "url_host_registry_suffix",
    "url_host_registered_domain",
    "url_host_private_suffix",
    "url_host_private_domain",
    "url_host_name_reversed",
)

_NONE: tuple[str | None, ...] = (None,) * len(HOST_COLUMNS)


@lru_cache(maxsize=2)
def _lists(icann_only: bool) -> Any:
    try:
        from publicsuffixlist import PublicSuffixList
    except ImportError:
        raise UsageError("the columnar index needs publicsuffixlist: pip install 'warckit[parquet]'") from None

    return PublicSuffixList(only_icann=icann_only)


def ascii_host(host: str) -> str:
    """*host* lower-cased, in punycode when it has non-ASCII labels (IDNA 2008, as
    browsers; the host as given when it cannot be encoded), without a trailing dot.

    >>> ascii_host("Bücher.Example.")
    'xn--bcher-kva.example'
    """
    host = host.rstrip(".")
    if host.isascii():
        return host.lower()
    try:
        return host_to_ascii(host, idna="2008")
    except (ValueError, UnicodeError, WarckitError):
        return host.lower()


def _is_ip(host: str) -> bool:
    if host[:1] == "[" or ":" in host:
        return True
    if not host[-1:].isdigit():
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=65536)
def host_columns(host: str | None) -> tuple[str | None, ...]:
    """The values of :data:`HOST_COLUMNS` for *host* (as in a URL; ``None``: all null).

    >>> host_columns("foo.blogspot.com")[6:]
    ('com', 'blogspot.com', 'blogspot.com', 'foo.blogspot.com', 'com.blogspot.foo')
    >>> host_columns("192.0.2.1")[:2]
    ('192.0.2.1', None)
    """
    if not host:
        return _NONE
    name = ascii_host(host)
    if not name:
        return _NONE
    if _is_ip(name):
        return (name,) + _NONE[1:]
    labels = name.split(".")
    parts = [labels[-i] if i <= len(labels) else None for i in range(1, 6)]
    icann, full = _lists(True), _lists(False)
    return (
        name,
        *parts,
        icann.publicsuffix(name),
        icann.privatesuffix(name),
        full.publicsuffix(name),
        full.privatesuffix(name),
        ".".join(reversed(labels)),
    )
