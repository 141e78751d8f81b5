"""Up-front argument checks of the guided writer's record methods.

A wrong type must fail before anything is written, as a :class:`~warckit.errors.UsageError`
that names the method and the parameter (``response(): body must be bytes, a binary
stream or an iterable of bytes, not str``), not as a ``TypeError`` from deep inside the
encoder. Each check returns the value to use (a mapping of fields becomes a list of
pairs; an iterable body is wrapped so that each chunk is checked as it is read).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from ..errors import UsageError

__all__ = [
    "check_body",
    "check_common",
    "check_date",
    "check_digest",
    "check_fields",
    "check_http_head",
    "check_int",
    "check_refs",
    "check_str",
]

_BYTES = (bytes, bytearray, memoryview)


def _fail(method: str, name: str, wanted: str, value: object) -> UsageError:
    return UsageError(f"{method}(): {name} must be {wanted}, not {type(value).__name__}")


def check_str(method: str, name: str, value: object, *, optional: bool = False) -> None:
    """*value* is a ``str`` (or ``None`` when *optional*)."""
    if isinstance(value, str) or (optional and value is None):
        return
    raise _fail(method, name, "a str" + (" or None" if optional else ""), value)


def check_int(method: str, name: str, value: object) -> None:
    """*value* is an ``int`` (not a bool) or ``None``."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return
    raise _fail(method, name, "an int or None", value)


def check_date(method: str, value: object, name: str = "date") -> None:
    """*value* is a ``datetime``, a WARC-Date string or ``None``."""
    if value is None or isinstance(value, (datetime, str)):
        return
    raise _fail(method, name, "a datetime, a WARC-Date str or None", value)


def check_digest(method: str, name: str, value: object) -> None:
    """*value* is a digest string (``sha1:…``), a :class:`~warckit.record.digests.Digest` or ``None``."""
    from ..record.digests import Digest

    if value is None or isinstance(value, (str, Digest)):
        return
    raise _fail(method, name, "a str such as 'sha1:…', a Digest or None", value)


def check_http_head(method: str, value: object, name: str = "http_head") -> None:
    """*value* is the raw head (bytes-like) or an object with a ``raw`` bytes attribute."""
    if isinstance(value, _BYTES) or isinstance(getattr(value, "raw", None), bytes):
        return
    raise _fail(method, name, "the raw HTTP head bytes (or an HttpHead)", value)


def _checked_chunks(method: str, name: str, chunks: Iterable[Any]) -> Iterator[bytes | bytearray | memoryview]:
    for chunk in chunks:
        if not isinstance(chunk, _BYTES):
            raise UsageError(f"{method}(): {name} must yield bytes chunks, not "
                             f"{type(chunk).__name__}; nothing was written")
        yield chunk


def check_body(method: str, value: Any, name: str = "body") -> Any:
    """*value* is bytes, a binary stream, an iterable of bytes or ``None``; returns the
    body to write (an iterable is wrapped to check each chunk)."""
    if value is None or isinstance(value, _BYTES):
        return value
    if isinstance(value, io.TextIOBase):
        raise UsageError(f"{method}(): {name} is a text stream; open the file in binary "
                         "mode ('rb')")
    if hasattr(value, "read"):
        return value
    if isinstance(value, str) or not isinstance(value, Iterable):
        hint = " (encode it first)" if isinstance(value, str) else ""
        raise UsageError(f"{method}(): {name} must be bytes, a binary stream or an iterable "
                         f"of bytes, not {type(value).__name__}{hint}")
    return _checked_chunks(method, name, value)


def check_fields(method: str, name: str, value: object, *,
                 optional: bool = True) -> list[tuple[str, str]] | None:
    """*value* is a mapping or an iterable of ``(name, value)`` pairs of str; returns
    the pairs (``None`` stays ``None`` when *optional*)."""
    if value is None and optional:
        return None
    wanted = "a mapping or (name, value) pairs of str"
    if isinstance(value, (str, *_BYTES)):
        block = "block=" if method == "warcinfo" else "body="
        hint = f"; pass a raw block as {block}" if name == "fields" else ""
        raise UsageError(f"{method}(): {name} must be {wanted}, not {type(value).__name__}{hint}")
    if isinstance(value, Mapping):
        pairs: list[Any] = list(value.items())
    elif isinstance(value, Iterable):
        pairs = list(value)
    else:
        raise _fail(method, name, wanted, value)
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and isinstance(pair[0], str) and isinstance(pair[1], str)):
            raise UsageError(f"{method}(): {name} must be {wanted}; got the item {pair!r}")
    return [(k, v) for k, v in pairs]


def check_refs(method: str, name: str, value: object, *, many: bool) -> None:
    """*value* is a record reference (a written or read record, an ID str), a sequence of
    them when *many*, or ``None``."""
    if value is None:
        return
    items = list(value) if many and isinstance(value, (list, tuple)) else [value]
    for item in items:
        if isinstance(item, str) or isinstance(getattr(item, "record_id", None), str):
            continue
        wanted = "a record, a record ID str" + (" or a list of them" if many else "")
        raise _fail(method, name, wanted, item)


def check_common(method: str, target_uri: object, *, date: object = None, ip: object = None,
             concurrent_to: object = None, extra_headers: object = (),
             uri_optional: bool = False) -> list[tuple[str, str]]:
    """Check the arguments every record method shares; return the extra headers as pairs."""
    check_str(method, "target_uri", target_uri, optional=uri_optional)
    check_date(method, date)
    check_str(method, "ip", ip, optional=True)
    check_refs(method, "concurrent_to", concurrent_to, many=True)
    return check_fields(method, "extra_headers", extra_headers, optional=False) or []
