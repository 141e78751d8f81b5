"""Index keys: SURT keys in the two styles, field escaping, and the POST/PUT query append.

The SURT comes straight from the hot SURT function in :mod:`warckit._speedups`, called with
the options :func:`warckit.url.surt` passes for each style (so both give the same keys, and an
index run does not import the URL layer). ``cdx`` style is byte-identical to python
``surt.surt(url)`` (pywb, cdxj-indexer, OutbackCDX); ``new-style`` keeps ``www`` and ends the
host with a comma (``com,example,www,)/path``), so ``com,example,`` is a prefix of every key
of the domain.
"""

from __future__ import annotations

import re

from .._speedups.surt import impl as _surt
from ..errors import WarckitError

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_QUERY_LENGTH",
    "cdx_key",
    "escape_field",
    "host_unicode",
    "method_query",
    "new_style_key",
]

_surt_key = _surt.surt_key

#: Bytes of a request body that become part of the key (pywb / cdxj-indexer limit).
MAX_QUERY_LENGTH = 4096

_UNSAFE_RE = re.compile(r"[\x00-\x20\x7f]")


def _escape_match(match: re.Match[str]) -> str:
    return f"%{ord(match.group()):02X}"


def escape_field(value: str) -> str:
    """Make *value* safe as a space-separated field: controls, space and DEL become ``%XX``.

    ``http://example.com/a b`` → ``http://example.com/a%20b``. Nothing else changes, so a
    value that is already safe is returned as is (and most are).
    """
    if value.isprintable() and " " not in value:
        return value  # (every unsafe character but the space is unprintable: half the regex's time)
    return _UNSAFE_RE.sub(_escape_match, value)


def cdx_key(url: str) -> str:
    """The IA / pywb SURT key, exactly ``surt.surt(url)``; the escaped URL if it has none."""
    try:
        return escape_field(_surt_key(url))
    except (WarckitError, ValueError, TypeError):
        return escape_field(url)


def new_style_key(url: str, *, unicode_host: bool = False) -> str:
    """The new-style SURT key: ``com,example,www,)/path?query``.

    Args:
        url: The URL.
        unicode_host: Show IDN host labels in Unicode instead of punycode.

    Returns:
        The key, with spaces and controls escaped; the escaped URL if it cannot be SURT-ed.
    """
    try:
        # surt(url, style="new-style"): trailing comma, keep www, reverse IPv4, IDNA 2008,
        # strict. Written out as url.surt does: positional, since keywords or *options cost
        # the compiled call a third more; test_index_keys_are_the_url_layers_surts pins the two.
        key = _surt_key(url, True, False, False, True, True, True)
    except (WarckitError, ValueError, TypeError):
        # A host that cannot be a DNS name: the key surt itself would make (IDNA 2003,
        # percent-encoded host) still sorts with its neighbours.
        try:
            key = _surt_key(url, trailing_comma=True, strip_www=False)
        except (WarckitError, ValueError, TypeError):
            return escape_field(url)
    if unicode_host and "xn--" in key:
        key = host_unicode(key)
    return escape_field(key)


def host_unicode(key: str) -> str:
    """Turn the punycode labels in the host part of a SURT key back into Unicode."""
    try:
        from ..url import surt_to_unicode  # (only for the keys with xn-- labels)
    except ImportError:  # pragma: no cover - depends on the build
        pass
    else:
        try:
            return surt_to_unicode(key)
        except (WarckitError, ValueError):
            pass
    end = key.find(")")
    if end < 0:
        return key
    labels = key[:end].split(",")
    for i, label in enumerate(labels):
        if label.startswith("xn--"):
            try:
                labels[i] = label.encode("ascii").decode("idna")
            except UnicodeError:
                pass
    return ",".join(labels) + key[end:]


# -- POST / PUT bodies (SPEC-DIGEST §3.2; pywb 2.6.7 / cdxj-indexer postquery) -----------


def _binary(data: bytes) -> str:
    import base64  # (POST bodies that are not text only)

    return "__wb_post_data=" + base64.b64encode(data).decode("ascii")


def _json_query(data: bytes) -> str:
    import json
    from urllib.parse import urlencode

    values: dict[str, str] = {}
    dupes: dict[str, int] = {}

    def key_of(name: str) -> str:
        if name not in values:
            return name
        dupes[name] = dupes.get(name, 1) + 1
        return f"{name}.{dupes[name]}_"

    def walk(obj: Any, name: str = "") -> None:
        if isinstance(obj, dict):
            for n, v in obj.items():
                walk(v, n)
        elif isinstance(obj, list):
            for v in obj:
                walk(v, name)
        elif name:
            values[key_of(name)] = str(obj)

    try:
        walk(json.loads(data))
    except json.JSONDecodeError:
        if b"\n" not in data:
            raise
        for line in data.split(b"\n"):
            walk(json.loads(line))
    return urlencode(values)


def body_query(content_type: str | None, body: bytes) -> str:
    """The query-string form of a request body, as pywb / cdxj-indexer compute it.

    Form bodies are unquoted, JSON bodies flattened to ``name=value`` pairs (repeated
    names get ``name.N_``), ``text/plain`` tried as JSON, anything else (or anything that
    does not decode) base64-encoded as ``__wb_post_data=…``. At most
    :data:`MAX_QUERY_LENGTH` characters are kept.
    """
    mime = content_type or ""
    query: str
    if mime.startswith("application/x-www-form-urlencoded"):
        from urllib.parse import unquote_plus  # (POST bodies only: indexing GETs needs no urllib)

        try:
            query = unquote_plus(body.decode("utf-8"))
        except UnicodeDecodeError:
            query = _binary(body)
    elif mime.startswith("multipart/"):
        query = _multipart_query(mime, body)
    elif mime.startswith("application/json"):
        try:
            query = _json_query(body)
        except (ValueError, RecursionError):
            query = ""
    elif mime.startswith("text/plain"):
        try:
            query = _json_query(body)
        except (ValueError, RecursionError):
            query = _binary(body)
    else:
        query = _binary(body)
    return query[:MAX_QUERY_LENGTH]


def _multipart_query(mime: str, body: bytes) -> str:
    """Form fields of a multipart body as a query (file parts percent-encoded raw)."""
    from urllib.parse import urlencode

    match = re.search(r"boundary=\"?([^\";]+)\"?", mime)
    if match is None:
        return _binary(body)
    boundary = b"--" + match.group(1).encode("latin-1")
    values: list[tuple[str, str | bytes]] = []
    for part in body.split(boundary)[1:]:
        if part.startswith(b"--"):
            break
        head, sep, content = part.partition(b"\r\n\r\n")
        if not sep:
            continue
        if content.endswith(b"\r\n"):
            content = content[:-2]
        disposition = re.search(rb'name="([^"]*)"', head)
        if disposition is None:
            continue
        name = disposition.group(1).decode("utf-8", "replace")
        if re.search(rb'filename="', head):
            values.append((name, content))
        else:
            values.append((name, content.decode("utf-8", "replace")))
    return urlencode(values, True)


def method_query(method: str, url: str, content_type: str | None, body: bytes | None) -> tuple[str, str]:
    """What a non-GET request appends to its URL before the key is made.

    Args:
        method: The HTTP method (``POST``, ``PUT`` …); upper-cased here.
        url: The WARC-Target-URI.
        content_type: The request's Content-Type.
        body: The request body (``None`` for methods other than POST and PUT).

    Returns:
        ``(request_body_query, suffix)``: the body as a query (``""`` when none) and the
        text to append to *url*: ``?__wb_method=POST&a=1`` (``&`` when *url* has a ``?``).
    """
    method = method.upper()
    query = body_query(content_type, body) if method in ("POST", "PUT") and body is not None else ""
    suffix = ("&" if "?" in url else "?") + "__wb_method=" + method
    if query:
        suffix += "&" + query
    return query, suffix
