"""URL canonicalization, SURT and IDN.

* :func:`surt` — SURT keys in the ``cdx`` (python-surt compatible), ``new-style``
  and ``heritrix`` styles; :func:`surt_key` exposes python surt's options.
* :func:`canonicalize` — composable rules over :class:`SplitUrl`, named rule sets.
* :func:`host_to_ascii` / :func:`host_to_unicode` — IDNA 2003 or 2008.
* :class:`SurtPrefix` / :class:`SurtPrefixSet` — IDN-aware scoping prefixes.
"""

from __future__ import annotations

from .canonicalize import RULE_SETS, Rule, canonicalize, canonicalize_split
from .idna import IdnaVersion, host_to_ascii, host_to_unicode
from .prefix import SurtPrefix, SurtPrefixSet, prefix_from_url
from .split import SplitUrl
from .surt import STYLES, Style, surt, surt_from_uri, surt_key, surt_to_unicode

__all__ = [
    "RULE_SETS",
    "STYLES",
    "IdnaVersion",
    "Rule",
    "SplitUrl",
    "Style",
    "SurtPrefix",
    "SurtPrefixSet",
    "canonicalize",
    "canonicalize_split",
    "host_to_ascii",
    "host_to_unicode",
    "prefix_from_url",
    "surt",
    "surt_from_uri",
    "surt_key",
    "surt_to_unicode",
]
