"""Memento (RFC 7089) over the collection's indexes: a TimeMap and a TimeGate.

The mementos of a URL are the captures an exact look-up finds (responses, revisits and
resources; not the request and metadata records a new-style index also lists), in index
order. A memento's URI is the replay template's (``--replay``, e.g.
``http://pywb:8080/coll/{timestamp}/{url}``) when there is one, else the service's own
``/{coll}/record?filename=…&offset=…&length=…``. Datetimes are RFC 1123 (``Sun, 26 Jan
2014 20:06:24 GMT``), in UTC, to the second.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Iterator, Sequence
from email.utils import formatdate, parsedate_tz
from urllib.parse import quote, urlencode

from ..cdx._timestamps import record_key, seconds_of
from ..cdx.formats import AnyEntry, CdxEntry
from ..errors import UsageError
from .cdxapi import CdxRequest, Source, _closest, _found, _reverse, url_request
from .fields import pywb_record

__all__ = ["LINK_FORMAT", "http_date", "parse_http_date", "timegate_response", "timemap_response"]

LINK_FORMAT = "application/link-format"
#: Record types that are mementos (``arc-`` prefix removed).
_MEMENTO_TYPES = frozenset({"response", "revisit", "resource"})


def http_date(seconds: float) -> str:
    """RFC 1123 date of *seconds* since the epoch.

    >>> from warckit.serve.memento import http_date
    >>> http_date(1390766784)
    'Sun, 26 Jan 2014 20:06:24 GMT'
    """
    return formatdate(int(seconds), usegmt=True)


def parse_http_date(text: str) -> float:
    """Seconds since the epoch of an RFC 1123 date (``Accept-Datetime``).

    Raises:
        UsageError: Not an RFC 1123 date in GMT.

    >>> from warckit.serve.memento import parse_http_date
    >>> parse_http_date("Sun, 26 Jan 2014 20:06:24 GMT")
    1390766784
    """
    parts = parsedate_tz(text.strip())
    if parts is None or not text.strip().endswith(("GMT", "UTC", "+0000")) or parts[9] not in (0, None):
        raise UsageError(f"Accept-Datetime: not an RFC 1123 date in GMT: {text!r}")
    try:
        return calendar.timegm(parts[:6] + (0, 1, 0))
    except (ValueError, OverflowError):
        raise UsageError(f"Accept-Datetime: not a date: {text!r}") from None


def _mementos(sources: Sequence[Source], req: CdxRequest) -> Iterator[tuple[bytes, AnyEntry]]:
    for line, entry in _found(sources, req):
        if isinstance(entry, CdxEntry) and entry.record_type not in _MEMENTO_TYPES:
            continue
        if record_key(entry.timestamp):
            yield line, entry


def _seconds(entry: AnyEntry) -> float:
    return seconds_of(record_key(entry.timestamp))


#: What stays as it is in a URI written into a link or a header: RFC 3986's reserved and
#: unreserved characters and ``%``. The rest (space, ``<>"``, non-ASCII) is
#: percent-encoded: a ``>`` would end the link, and headers must be ASCII.
_URI_SAFE = ":/?#[]@!$&'()*+,;=%~"


def _uri(text: str) -> str:
    return quote(text, safe=_URI_SAFE)


def _uris(url: str, base: str, coll: str) -> tuple[str, str]:
    """The TimeGate and TimeMap URIs of *url* on this service."""
    return _uri(f"{base}/{coll}/timegate/{url}"), _uri(f"{base}/{coll}/timemap/link/{url}")


def _memento_uri(entry: AnyEntry, base: str, coll: str, replay: str | None) -> str:
    rec = pywb_record(entry)
    if replay:
        ts = record_key(entry.timestamp)[:14]
        return _uri(replay.replace("{timestamp}", ts).replace("{url}", str(rec.get("url", entry.original_url))))
    query = {"filename": str(rec.get("filename", "")), "offset": str(rec.get("offset", ""))}
    length = rec.get("length")
    if length not in (None, "-", ""):
        query["length"] = str(length)
    return f"{base}/{coll}/record?{urlencode(query)}"


def _link(uri: str, seconds: float, rel: str) -> str:
    return f'<{uri}>; rel="{rel}"; datetime="{http_date(seconds)}"'


def timemap_response(sources: Sequence[Source], url: str, *, base: str, coll: str,
                     replay: str | None) -> tuple[str, Iterator[bytes]]:
    """A TimeMap of *url* in ``application/link-format`` (RFC 7089 §5.1), streamed.

    The original resource and the TimeGate first, then each memento in index order
    (``first memento``, ``memento`` …, ``last memento``), then the TimeMap itself
    (``self``, with ``from`` and ``until`` when there are mementos). No memento: the
    links to the original, the TimeGate and the TimeMap only.

    Raises:
        UsageError: *url* is not a URL.
    """
    req = url_request(url)
    timegate, timemap = _uris(url, base, coll)

    def body() -> Iterator[bytes]:
        yield f'<{_uri(url)}>; rel="original",\n<{timegate}>; rel="timegate",\n'.encode()
        previous: tuple[str, float] | None = None  # a link's rel waits for the next memento
        count = 0
        earliest = latest = 0.0
        for _, entry in _mementos(sources, req):
            if previous is not None:
                yield (_link(*previous, "first memento" if count == 1 else "memento") + ",\n").encode()
            seconds = _seconds(entry)
            previous = (_memento_uri(entry, base, coll, replay), seconds)
            count += 1
            earliest = seconds if count == 1 else min(earliest, seconds)
            latest = max(latest, seconds) if count > 1 else seconds
        self_link = f'<{timemap}>; rel="self"; type="{LINK_FORMAT}"'
        if previous is not None:
            rel = "first last memento" if count == 1 else "last memento"
            yield (_link(*previous, rel) + ",\n").encode()
            self_link += f'; from="{http_date(earliest)}"; until="{http_date(latest)}"'
        yield (self_link + "\n").encode()

    return LINK_FORMAT, body()


def timegate_response(sources: Sequence[Source], url: str, accept_datetime: str | None, *,
                      base: str, coll: str, replay: str | None) -> tuple[int, dict[str, str], bytes]:
    """A TimeGate answer (RFC 7089 §4.1, pattern 2.2): ``(status, headers, body)``.

    302 to the memento nearest to *accept_datetime* (the latest without one; the earlier
    of two equally near), with ``Vary: accept-datetime`` and a ``Link`` to the original,
    the TimeMap and the memento; 400 for a malformed ``Accept-Datetime`` or URL; 404 when
    the URL has no memento.
    """
    timemap = _uris(url, base, coll)[1]
    vary = {"Vary": "accept-datetime", "Content-Type": "text/plain; charset=utf-8"}
    try:
        req = url_request(url)
        wanted = None if accept_datetime is None else parse_http_date(accept_datetime)
    except UsageError as exc:
        return 400, vary, (str(exc) + "\n").encode()
    found = _mementos(sources, req)
    if wanted is None:
        best = next(_reverse(found, 1), None)
    else:
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(wanted))
        best = next(_closest(found, stamp, 1), None)
    links = f'<{_uri(url)}>; rel="original", <{timemap}>; rel="timemap"; type="{LINK_FORMAT}"'
    if best is None:
        return 404, {**vary, "Link": links}, f"no memento of {url} in {coll}\n".encode()
    entry = best[1]
    uri = _memento_uri(entry, base, coll, replay)
    headers = {
        **vary,
        "Location": uri,
        "Link": f'{links}, {_link(uri, _seconds(entry), "memento")}',
    }
    return 302, headers, b""
