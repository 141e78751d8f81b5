"""``pages/pages.jsonl``: the pages of a WACZ, detected from its captures or given.

The file is JSON Lines: a header ``{"format": "json-pages-1.0", "id": "pages", ...}``
then one object per page with ``id``, ``url``, ``ts`` (W3C date) and ``title``.
A *detected* page is an HTML capture answered 200 (a ``response`` whose HTTP
Content-Type is ``text/html`` or ``application/xhtml+xml``, or such a ``resource``)
fetched with GET. Its title is the HTML ``<title>`` when it is in the first 64 KiB
of the (content-decoded) payload — the record was just read by the indexer, so it is
read again from the page cache — else the URL. Requests made for embeds (images,
scripts, stylesheets) are not HTML, so they are not pages; an HTML frame is.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator
from typing import IO, Any

from ..cdx.capture import Capture
from ..errors import ParseError, WarckitError
from ..io.sources import InputLike
from ..read.reader import read_record_at

__all__ = ["HTML_TYPES", "PAGES_FORMAT", "is_page", "page_line", "page_title", "pages_header",
           "read_pages_file"]

PAGES_FORMAT = "json-pages-1.0"
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: Longest line accepted in a pages file given with ``--pages``.
MAX_PAGE_LINE = 1 << 20
#: Decoded payload bytes searched for a ``<title>``, and the longest title kept.
TITLE_WINDOW = 1 << 16
MAX_TITLE = 300
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_CHARSET = re.compile(r"charset=[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


def page_title(source: InputLike, offset: int, content_type: str | None = None) -> str | None:
    """The ``<title>`` of the HTML page in the record at *offset* (``None`` if there is
    none in the first :data:`TITLE_WINDOW` bytes, or the record cannot be read).

    >>> page_title("examples/sample.warc.gz", 1303)
    'About'
    """
    try:
        with read_record_at(source, offset) as record:
            data = record.content_stream(decode_content=True, max_decoded=TITLE_WINDOW * 64).read(TITLE_WINDOW)
    except (WarckitError, OSError, LookupError):
        return None
    match = _TITLE.search(data)
    if match is None:
        return None
    charset = _CHARSET.search(content_type or "")
    try:
        text = match.group(1).decode(charset.group(1) if charset else "utf-8", "replace")
    except LookupError:
        text = match.group(1).decode("utf-8", "replace")
    title = " ".join(html.unescape(text).split())
    return title[:MAX_TITLE] or None


def _mime(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_page(cap: Capture) -> bool:
    """Whether a capture is a page: HTML, status 200, fetched with GET."""
    if cap.key_suffix or not cap.url or not cap.date:
        return False
    if cap.type == "response":
        return cap.status == "200" and _mime(cap.http_content_type) in HTML_TYPES
    if cap.type == "resource":
        return _mime(cap.content_type) in HTML_TYPES
    return False


def pages_header(id: str = "pages", title: str = "All Pages") -> bytes:
    """The header line of a pages file."""
    return (json.dumps({"format": PAGES_FORMAT, "id": id, "title": title}) + "\n").encode()


def page_line(url: str, ts: str, title: str | None = None) -> bytes:
    """One page line; its ``id`` is derived from *ts* and *url* (stable across runs).

    >>> page_line("https://example.com/", "2024-01-01T00:00:00Z")
    b'{"id": "38e149b20198a9fff29cfbc8", "url": "https://example.com/", "ts": "2024-01-01T00:00:00Z", "title": "https://example.com/"}\\n'
    """
    pid = hashlib.sha1(f"{ts} {url}".encode()).hexdigest()[:24]
    return (json.dumps({"id": pid, "url": url, "ts": ts, "title": title or url}) + "\n").encode()


def read_pages_file(fh: IO[bytes], name: str) -> Iterator[bytes]:
    """The lines of a pages file given by the user, checked: a header first (one is
    made if missing), then objects with a ``url``.

    Raises:
        ParseError: a line is not a JSON object, or a page has no ``url``.
    """
    offset = 0
    first = True
    while True:
        raw = fh.readline(MAX_PAGE_LINE + 1)
        if not raw:
            if first:
                yield pages_header()
            return
        if len(raw) > MAX_PAGE_LINE:
            raise ParseError(f"a line longer than {MAX_PAGE_LINE} bytes", offset=offset, source=name)
        at, offset = offset, offset + len(raw)
        if not raw.strip():
            continue
        try:
            obj: Any = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"not a JSON line ({exc})", offset=at, source=name) from None
        if not isinstance(obj, dict):
            raise ParseError("not a JSON object", offset=at, source=name)
        if first:
            first = False
            if "format" in obj:
                yield json.dumps(obj).encode() + b"\n"
                continue
            yield pages_header()
        if not isinstance(obj.get("url"), str):
            raise ParseError("a page without a url", offset=at, source=name)
        yield json.dumps(obj).encode() + b"\n"
