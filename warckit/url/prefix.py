"""SURT prefixes for crawl scoping, IDN-aware.

Heritrix decides "in scope" by testing whether the SURT of a URL starts with one of
a set of SURT prefixes (``SurtPrefixSet``). Heritrix computes the SURT from the
punycode (ASCII) host only, so an operator who writes the prefix with the Unicode
host (``http://(is,landsbókasafn,``) never matches anything.

warckit's choice: **by default a URL matches when either the punycode form or the
Unicode form of its SURT starts with a prefix** (``match_unicode=True``). Prefixes may
therefore be written either way, and a punycode prefix keeps working exactly as in
Heritrix. ``match_unicode=False`` gives Heritrix's punycode-only behaviour.

Prefixes are compared lower-cased, the way ``SURT.fromURI`` lower-cases SURTs.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import UrlError
from .surt import surt, surt_to_unicode

__all__ = ["SurtPrefix", "SurtPrefixSet", "prefix_from_url", "url_surts"]


def url_surts(url: str, *, match_unicode: bool = True) -> tuple[str, ...]:
    """The heritrix-style SURT forms of *url* to test against prefixes.

    Returns:
        ``(punycode_form,)`` or ``(punycode_form, unicode_form)`` when the host has
        punycode labels and ``match_unicode``.

    Raises:
        UrlError: The URL is not valid (see :func:`warckit.url.surt`).
    """
    ascii_form = surt(url, style="heritrix")
    if not match_unicode or "xn--" not in ascii_form:
        return (ascii_form,)
    unicode_form = surt_to_unicode(ascii_form)
    return (ascii_form,) if unicode_form == ascii_form else (ascii_form, unicode_form)


def prefix_from_url(url: str) -> str:
    """Derive a SURT prefix from a seed URL the way Heritrix does for seeds.

    ``http://example.com`` (no path) → ``http://(com,example,`` (the host and its
    subdomains); ``http://example.com/`` → ``http://(com,example,)/`` (that host only);
    ``http://example.com/dir/page`` → ``http://(com,example,)/dir/`` (up to the last
    ``/``).

    Raises:
        UrlError: The URL is not valid.
    """
    text = url.strip()
    scheme_end = text.find("://")
    rest = text[scheme_end + 3:] if scheme_end >= 0 else text
    has_path = any(c in rest for c in "/?#")
    full = surt(text, style="heritrix")
    if not has_path and full.endswith(")/"):
        return full[:-2]
    close = full.find(")")
    slash = full.rfind("/", close + 1 if close >= 0 else 0)
    return full[: slash + 1] if slash >= 0 else full


@dataclass(frozen=True, slots=True)
class SurtPrefix:
    """One SURT prefix, e.g. ``http://(is,l``.

    Attributes:
        prefix: The prefix (stored lower-cased).
        match_unicode: Also match the Unicode form of a URL's host (default).
    """

    prefix: str
    match_unicode: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "prefix", self.prefix.lower())

    def matches(self, url: str) -> bool:
        """True if *url*'s SURT (punycode, or Unicode when enabled) starts with the prefix.

        Example:
            >>> SurtPrefix("http://(is,l").matches("http://landsbókasafn.is/")
            True
            >>> SurtPrefix("http://(is,l", match_unicode=False).matches("http://landsbókasafn.is/")
            False
        """
        return any(
            form.startswith(self.prefix)
            for form in url_surts(url, match_unicode=self.match_unicode)
        )


@dataclass(frozen=True)
class SurtPrefixSet:
    """A sorted set of SURT prefixes with ``O(log n)`` lookup per URL form.

    Redundant prefixes (those that start with another prefix of the set) are
    dropped, so at most one prefix can match a string, and it is the one just
    before the string in sort order (found with :mod:`bisect`).

    Attributes:
        prefixes: The reduced, sorted prefixes (lower-cased).
        match_unicode: Also match the Unicode form of a URL's host (default).
    """

    prefixes: tuple[str, ...]
    match_unicode: bool = True
    _sorted: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __init__(self, prefixes: Iterable[str], *, match_unicode: bool = True) -> None:
        reduced: list[str] = []
        for p in sorted({p.lower() for p in prefixes}):
            if reduced and p.startswith(reduced[-1]):
                continue
            reduced.append(p)
        object.__setattr__(self, "prefixes", tuple(reduced))
        object.__setattr__(self, "match_unicode", match_unicode)
        object.__setattr__(self, "_sorted", reduced)

    @classmethod
    def from_urls(cls, urls: Iterable[str], *, match_unicode: bool = True) -> SurtPrefixSet:
        """Build the set from seed URLs with :func:`prefix_from_url`."""
        return cls((prefix_from_url(u) for u in urls), match_unicode=match_unicode)

    def __len__(self) -> int:
        return len(self.prefixes)

    def __iter__(self) -> Iterator[str]:
        return iter(self.prefixes)

    def prefix_of_surt(self, surt_text: str) -> str | None:
        """The prefix that *surt_text* starts with, or ``None``."""
        at = bisect.bisect_right(self._sorted, surt_text)
        if at and surt_text.startswith(self._sorted[at - 1]):
            return self._sorted[at - 1]
        return None

    def matching_prefix(self, url: str) -> str | None:
        """The prefix that *url* falls under, or ``None``.

        Raises:
            UrlError: The URL is not valid.
        """
        for form in url_surts(url, match_unicode=self.match_unicode):
            found = self.prefix_of_surt(form)
            if found is not None:
                return found
        return None

    def matches(self, url: str) -> bool:
        """True if *url* falls under one of the prefixes (invalid URLs never match)."""
        try:
            return self.matching_prefix(url) is not None
        except UrlError:
            return False
