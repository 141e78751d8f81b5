"""The ``Warcprox-Meta`` request header: per-request settings a crawler sends the proxy.

The keys are warcprox's (Internet Archive's archiving proxy), so crawlers that speak to
warcprox (Brozzler, Heritrix with its warcprox settings, Webrecorder tools) speak to
``warckit proxy`` unchanged. Supported: ``warc-prefix``, ``dedup-buckets`` (and the older
``dedup-bucket``), ``metadata``, ``blocks``, ``limits``, ``soft-limits`` and ``stats``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import UrlError, WarckitError
from ..url.surt import surt_from_uri

__all__ = ["HEADER", "DEFAULT_BUCKET", "MetaError", "WarcproxMeta", "block_matching", "parse_meta"]

#: The header's name.
HEADER = "Warcprox-Meta"
#: The dedup and stats bucket of requests that name none (warcprox's names).
DEFAULT_BUCKET = "__unspecified__"
ALL_BUCKET = "__all__"
#: A file-name prefix: what the writer's template can hold safely.
_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_LIMIT_KEY = re.compile(r"(?P<bucket>.+)/(?P<sub>total|new|revisit)/(?P<field>urls|wire_bytes)")


class MetaError(WarckitError, ValueError):
    """A ``Warcprox-Meta`` header that is not JSON or holds a bad value (answered with 400)."""


@dataclass(frozen=True)
class WarcproxMeta:
    """The settings of one request.

    Attributes:
        warc_prefix: File series to write to (``None``: the proxy's ``--prefix``).
        dedup_buckets: ``(bucket, "rw" | "ro")`` pairs, in the order given.
        metadata: Written as a ``metadata`` record about the capture (``None``: none).
        blocks: Rules refusing the request with 403.
        limits: ``{"bucket/total|new|revisit/urls|wire_bytes": n}``: refuse with 420 once reached.
        soft_limits: The same, refused with 430.
        stats_buckets: Buckets this capture is counted in (besides ``__all__``).
    """

    warc_prefix: str | None = None
    dedup_buckets: tuple[tuple[str, str], ...] = ((DEFAULT_BUCKET, "rw"),)
    metadata: dict[str, Any] | None = None
    blocks: tuple[dict[str, Any], ...] = ()
    limits: dict[str, int] = field(default_factory=dict)
    soft_limits: dict[str, int] = field(default_factory=dict)
    stats_buckets: tuple[str, ...] = ()


def _limits(value: Any, key: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise MetaError(f"{HEADER}: {key} must be an object")
    out: dict[str, int] = {}
    for name, n in value.items():
        if not _LIMIT_KEY.fullmatch(name) or not isinstance(n, int) or isinstance(n, bool):
            raise MetaError(f"{HEADER}: {key}: {name!r}: want \"bucket/total|new|revisit/"
                            "urls|wire_bytes\": integer")
        out[name] = n
    return out


def parse_meta(value: str | bytes | None) -> WarcproxMeta:
    """The settings in a ``Warcprox-Meta`` header value (``None``: the defaults).

    Raises:
        MetaError: not a JSON object, or a key holds a value of the wrong kind.
    """
    if value is None:
        return WarcproxMeta()
    try:
        data = orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        raise MetaError(f"{HEADER} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MetaError(f"{HEADER} must be a JSON object")
    prefix = data.get("warc-prefix")
    if prefix is not None and (not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix)):
        raise MetaError(f"{HEADER}: warc-prefix {prefix!r}: letters, digits, '.', '_', '-'")
    buckets: list[tuple[str, str]] = []
    if "dedup-buckets" in data:
        given = data["dedup-buckets"]
        if not isinstance(given, dict) or not all(
                isinstance(k, str) and k and v in ("rw", "ro") for k, v in given.items()):
            raise MetaError(f'{HEADER}: dedup-buckets must be {{"bucket": "rw" | "ro", …}}')
        buckets = list(given.items())
    elif "dedup-bucket" in data:
        if not isinstance(data["dedup-bucket"], str) or not data["dedup-bucket"]:
            raise MetaError(f"{HEADER}: dedup-bucket must be a string")
        buckets = [(data["dedup-bucket"], "rw")]
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise MetaError(f"{HEADER}: metadata must be an object")
    blocks = data.get("blocks", [])
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise MetaError(f"{HEADER}: blocks must be a list of objects")
    for rule in blocks:
        _check_rule(rule)
    stats = data.get("stats", {})
    names: list[str] = []
    if not isinstance(stats, dict) or not isinstance(stats.get("buckets", []), list):
        raise MetaError(f'{HEADER}: stats must be {{"buckets": [...]}}')
    for b in stats.get("buckets", []):
        name = b.get("bucket") if isinstance(b, dict) else b
        if not isinstance(name, str) or not name:
            raise MetaError(f"{HEADER}: stats bucket {b!r} has no name")
        names.append(name)
    return WarcproxMeta(
        warc_prefix=prefix,
        dedup_buckets=tuple(buckets) if buckets else ((DEFAULT_BUCKET, "rw"),),
        metadata=metadata,
        blocks=tuple(blocks),
        limits=_limits(data.get("limits", {}), "limits"),
        soft_limits=_limits(data.get("soft-limits", {}), "soft-limits"),
        stats_buckets=tuple(names),
    )


def _check_rule(rule: dict[str, Any]) -> None:
    if "domain" in rule or "surt" in rule:
        key = "domain" if "domain" in rule else "surt"
        if not isinstance(rule[key], str):
            raise MetaError(f"{HEADER}: blocks: {key} must be a string")
        return
    match, value = rule.get("url_match"), rule.get("value")
    if match not in ("STRING_MATCH", "SURT_MATCH", "REGEX_MATCH") or not isinstance(value, str):
        raise MetaError(f"{HEADER}: blocks: a rule needs domain, surt, or url_match "
                        "(STRING_MATCH, SURT_MATCH, REGEX_MATCH) with a value")
    if match == "REGEX_MATCH":
        try:
            re.compile(value)
        except re.error as exc:
            raise MetaError(f"{HEADER}: blocks: bad regular expression {value!r} ({exc})") from None


def _surt_of(url: str) -> str:
    # warcprox compares Heritrix-style SURTs: "http://(com,example,www,)/path".
    try:
        return surt_from_uri(url)
    except UrlError:
        return url


def block_matching(blocks: tuple[dict[str, Any], ...], url: str) -> dict[str, Any] | None:
    """The first rule of *blocks* that *url* falls under, or ``None``.

    ``domain`` matches the host and its subdomains; ``surt`` and ``SURT_MATCH`` are prefixes
    of the URL's SURT (``http://(com,example,)/…``); ``STRING_MATCH`` a prefix of the URL;
    ``REGEX_MATCH`` a regular expression matched at its start.
    """
    if not blocks:
        return None
    host = (urlsplit(url).hostname or "").lower()
    url_surt: str | None = None
    for rule in blocks:
        if "domain" in rule:
            domain = rule["domain"].lower().strip(".")
            if host == domain or host.endswith("." + domain):
                return rule
        elif "surt" in rule or rule.get("url_match") == "SURT_MATCH":
            if url_surt is None:
                url_surt = _surt_of(url)
            if url_surt.startswith(rule.get("surt", rule.get("value", ""))):
                return rule
        elif rule["url_match"] == "STRING_MATCH":
            if url.startswith(rule["value"]):
                return rule
        elif re.match(rule["value"], url):
            return rule
    return None
