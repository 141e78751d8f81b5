"""pywb's CDX server API over sorted indexes: plain functions, no web framework.

:func:`parse_cdx_request` reads a query string's ``(name, value)`` pairs into a
:class:`CdxRequest`; :func:`cdx_response` answers it from one or more sources (an
:class:`~warckit.cdx.query.Index` or the path of a Parquet index), lazily, with the
Content-Type and the body in chunks. The lines found are ``warckit query``'s for the same
index; the operations after the look-up are pywb's (``cdxops``): ``filter``, then
``closest`` / ``reverse`` / ``limit``, then the output form (docs/serve-api.rst).
"""

from __future__ import annotations

import heapq
import json
import re
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Literal

from ..cdx._timestamps import lower_bound, record_key, seconds_of, upper_bound
from ..cdx.formats import AnyEntry, CdxjEntry
from ..cdx.query import MATCH_TYPES, Index, MatchType, Query, _run
from ..errors import UsageError
from .fields import FIELD_ALIASES, entry_fields, pywb_cdxj_line, pywb_record
from .pages import page_count, page_lines

__all__ = [
    "CONTENT_TYPES",
    "MAX_SORTED",
    "CdxFilter",
    "CdxRequest",
    "Source",
    "cdx_response",
    "entry_fields",
    "parse_cdx_request",
    "url_request",
]


Output = Literal["cdxj", "json", "text"]
#: Content-Type of each output form (pywb's).
CONTENT_TYPES: dict[str, str] = {"cdxj": "text/x-cdxj", "json": "text/x-ndjson", "text": "text/plain"}
#: Most captures ``sort=reverse`` or ``closest`` hold at once (pywb's default ``limit``):
#: a larger answer needs a ``limit`` up to this.
MAX_SORTED = 100_000
#: Body bytes gathered into one chunk.
CHUNK_BYTES = 1 << 16

Source = Index | str


@dataclass(frozen=True, slots=True)
class CdxFilter:
    """One ``filter`` value, ``[!][=|~][field:]expr`` (pywb's ``CDXFilter``).

    Attributes:
        invert: ``!``: keep what does not match.
        mode: ``exact`` (``=``), ``regex`` (``~``, matched at the start of the value)
            or ``contains`` (no modifier).
        field: The pywb field name (aliases such as ``mimetype`` resolved); ``""``
            means the whole index line.
        expr: The text or regular expression.
    """

    invert: bool
    mode: Literal["exact", "regex", "contains"]
    field: str
    expr: str
    regex: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, text: str) -> CdxFilter:
        """Parse a ``filter`` value.

        Raises:
            UsageError: Empty, or a bad regular expression.
        """
        rest = text
        invert = rest.startswith("!")
        if invert:
            rest = rest[1:]
        mode: Literal["exact", "regex", "contains"] = "contains"
        if rest.startswith("="):
            mode, rest = "exact", rest[1:]
        elif rest.startswith("~"):
            mode, rest = "regex", rest[1:]
        field, sep, expr = rest.partition(":")
        if not sep:
            field, expr = "", rest
        elif not field:
            raise UsageError(f"filter: no field name before ':' in {text!r}")
        if not expr and not field:
            raise UsageError(f"filter: empty filter {text!r}; use [!][=|~]field:expr")
        regex = None
        if mode == "regex":
            try:
                regex = re.compile(expr)
            except re.error as exc:
                raise UsageError(f"filter: bad regular expression in {text!r}: {exc}") from None
        return cls(invert, mode, FIELD_ALIASES.get(field, field), expr, regex)

    def __call__(self, value: str) -> bool:
        if self.mode == "exact":
            matched = value == self.expr
        elif self.mode == "contains":
            matched = self.expr in value
        else:
            assert self.regex is not None
            matched = self.regex.match(value) is not None
        return matched != self.invert


@dataclass(frozen=True, slots=True)
class CdxRequest:
    """A CDX server API request (see :func:`parse_cdx_request` for the parameters)."""

    url: str
    match: MatchType = "exact"
    from_: str | None = None
    to: str | None = None
    closest: str | None = None
    sort: Literal["reverse", "closest"] | None = None
    limit: int | None = None
    filters: tuple[CdxFilter, ...] = ()
    fl: tuple[str, ...] | None = None
    output: Output = "cdxj"
    page: int | None = None
    page_size: int | None = None
    show_num_pages: bool = False
    #: The look-up, made (and its URL checked) once by :func:`parse_cdx_request`.
    lookup: Query | None = field(default=None, compare=False, repr=False)

    def query(self) -> Query:
        """The :class:`~warckit.cdx.query.Query` of the look-up (before pywb's operations)."""
        return self.lookup or Query(self.url, self.match, self.from_, self.to)


def url_request(url: str) -> CdxRequest:
    """The request for every capture of *url* in index order (a TimeMap's, a TimeGate's).

    Raises:
        UsageError: *url* is not a URL (the message names the ``url`` parameter).
    """
    try:
        return CdxRequest(url, lookup=Query(url))
    except UsageError as exc:
        raise UsageError(f"url: {exc}") from None


_SINGLE = ("url", "matchType", "from", "to", "closest", "sort", "limit", "fl", "fields",
           "output", "page", "pageSize", "showNumPages")


def _int(name: str, value: str, least: int) -> int:
    try:
        number = int(value, 10)
    except ValueError:
        raise UsageError(f"{name}: not a whole number: {value!r}") from None
    if number < least:
        raise UsageError(f"{name} must be at least {least}, not {number}")
    return number


def _bool(value: str) -> bool:
    """pywb's ``to_bool``: anything but empty, ``0``, ``false``, ``f``, ``off`` is true."""
    return bool(value) and value.lower() not in ("0", "false", "f", "off")


def parse_cdx_request(params: Sequence[tuple[str, str]]) -> CdxRequest:
    """Read the CDX server API parameters from a query string's ``(name, value)`` pairs.

    ``filter`` may repeat; for the others the last value counts (pywb reads the query
    string into a dict). Unknown parameters are ignored, as pywb does.

    Raises:
        UsageError: A parameter is missing or bad; the message names it and its value.

    >>> from warckit.serve.cdxapi import parse_cdx_request
    >>> req = parse_cdx_request([("url", "*.example.com"), ("filter", "!=status:404"), ("fl", "url,status")])
    >>> req.url, req.match, req.filters[0].invert, req.filters[0].mode, req.fl
    ('example.com', 'domain', True, 'exact', ('url', 'status'))
    """
    one: dict[str, str] = {}
    filters: list[CdxFilter] = []
    for name, value in params:
        if name == "filter":
            filters.append(CdxFilter.parse(value))
        elif name in _SINGLE:
            one[name] = value
    url = one.get("url", "")
    if not url:
        raise UsageError("url: the url parameter is required")
    match_text = one.get("matchType", "")
    if match_text and match_text not in MATCH_TYPES:
        raise UsageError(f"matchType: unknown match type {match_text!r}; choose one of {', '.join(MATCH_TYPES)}")
    if url.startswith("*."):
        if match_text not in ("", "domain"):
            raise UsageError(f"url: {url!r} is a domain wildcard, but matchType is {match_text}")
        url, match_text = url[2:], "domain"
    elif url.endswith("*"):
        if match_text not in ("", "prefix"):
            raise UsageError(f"url: {url!r} is a prefix wildcard, but matchType is {match_text}")
        url, match_text = url[:-1], "prefix"
    match: MatchType = "exact"
    for known in MATCH_TYPES:
        if known == match_text:
            match = known
    stamps: dict[str, str | None] = {}
    for name in ("from", "to", "closest"):
        stamp = one.get(name) or None
        if stamp is not None:
            try:
                lower_bound(stamp)
            except ValueError:
                raise UsageError(f"{name}: not a timestamp: {stamp!r}") from None
        stamps[name] = stamp
    if stamps["from"] and stamps["to"] and lower_bound(stamps["from"]) > upper_bound(stamps["to"]):
        raise UsageError(f"from: {stamps['from']} is after to={stamps['to']}")
    try:  # (the timestamps are good: only the URL can fail here)
        lookup = Query(url, match, stamps["from"], stamps["to"])
    except UsageError as exc:
        raise UsageError(f"url: {exc}") from None
    sort_text = one.get("sort", "")
    sort: Literal["reverse", "closest"] | None = None
    if sort_text == "reverse":
        sort = "reverse"
    elif sort_text == "closest":
        # Quirk: pywb sorts by closest= alone and ignores sort=closest without it (its
        # own remote index source sends "closest=&sort=closest" for a URL's whole list).
        sort = "closest"
    elif sort_text:
        raise UsageError(f"sort: unknown sort {sort_text!r}; choose reverse or closest")
    limit = _int("limit", one["limit"], 0) if one.get("limit") else None
    fl_text = one.get("fl") or one.get("fields")
    fl = None
    if fl_text:
        fl = tuple(name.strip() for name in fl_text.split(","))
        if not all(fl):
            raise UsageError(f"fl: empty field name in {fl_text!r}")
    output_text = one.get("output") or "cdxj"
    if output_text not in CONTENT_TYPES:
        raise UsageError(f"output: {output_text!r} not supported; choose cdxj, json or text")
    output: Output = "json" if output_text == "json" else "text" if output_text == "text" else "cdxj"
    page = _int("page", one["page"], 0) if one.get("page") else None
    page_size = _int("pageSize", one["pageSize"], 1) if one.get("pageSize") else None
    return CdxRequest(
        url, match, stamps["from"], stamps["to"], stamps["closest"], sort, limit, tuple(filters),
        fl, output, page, page_size, _bool(one.get("showNumPages", "")), lookup,
    )


# -- the look-up ---------------------------------------------------------------------

Found = tuple[bytes, AnyEntry]


def _bounds(req: CdxRequest) -> tuple[str | None, str | None]:
    return (lower_bound(req.from_) if req.from_ else None, upper_bound(req.to) if req.to else None)


def _parquet_run(path: str, q: Query) -> Iterator[Found]:
    from ..columnar.query import run_parquet_query  # pyarrow / duckdb are extras

    for entry in run_parquet_query(path, q):
        yield (entry.format() + "\n").encode("utf-8"), entry


def _found(sources: Sequence[Source], req: CdxRequest) -> Iterator[Found]:
    """Every ``(line, entry)`` of the look-up, merged over *sources* in index order."""
    q = req.query()
    low, high = _bounds(req)
    runs: list[Iterator[Found]] = []
    for source in sources:
        if isinstance(source, str):
            runs.append(_parquet_run(source, q))
        else:
            runs.append(_run(source, q, low, high))
    if len(runs) == 1:
        return runs[0]
    return heapq.merge(*runs, key=lambda pair: pair[0])


def _filtered(found: Iterator[Found], filters: tuple[CdxFilter, ...]) -> Iterator[Found]:
    for line, entry in found:
        record: dict[str, Any] | None = None
        keep = True
        for flt in filters:
            if flt.field:
                if record is None:
                    record = pywb_record(entry)
                value = record.get(flt.field, "")
                text = value if isinstance(value, str) else str(value)
            else:
                text = line.rstrip().decode("utf-8", "replace")
            if not flt(text):
                keep = False
                break
        if keep:
            yield line, entry


def _too_many(what: str) -> UsageError:
    return UsageError(f"limit: {what} holds at most {MAX_SORTED} captures at once and more "
                      f"were found: narrow the query or give limit={MAX_SORTED} or less")


def _closest(found: Iterator[Found], closest: str, limit: int | None) -> Iterator[Found]:
    """The *limit* captures nearest to *closest*, nearest first (ties in index order)."""
    target = seconds_of(lower_bound(closest))
    unbounded = limit is None or limit > MAX_SORTED
    keep = MAX_SORTED if limit is None or limit > MAX_SORTED else limit
    heap: list[tuple[float, int, bytes, AnyEntry]] = []  # the farthest on top (keys negated)
    order = count()
    for line, entry in found:
        ts = record_key(entry.timestamp)
        distance = abs(seconds_of(ts) - target) if ts else float("inf")
        item = (-distance, -next(order), line, entry)
        if len(heap) < keep:
            heapq.heappush(heap, item)
        elif unbounded:
            raise _too_many("sort=closest")
        elif item > heap[0]:
            heapq.heapreplace(heap, item)
    for _, _, line, entry in sorted(heap, reverse=True):
        yield line, entry


def _reverse(found: Iterator[Found], limit: int | None) -> Iterator[Found]:
    """The last *limit* captures, last first."""
    unbounded = limit is None or limit > MAX_SORTED
    kept: deque[Found] = deque(maxlen=None if unbounded else limit)
    for pair in found:
        kept.appendleft(pair)
        if unbounded and len(kept) > MAX_SORTED:
            raise _too_many("sort=reverse")
    yield from kept


def _limited(found: Iterator[Found], limit: int | None) -> Iterator[Found]:
    if limit is None:
        yield from found
        return
    if limit == 0:
        return
    for n, pair in enumerate(found, 1):
        yield pair
        if n >= limit:
            return


def _ordered(found: Iterator[Found], req: CdxRequest) -> Iterator[Found]:
    """pywb's order of operations: closest wins over reverse; limit applies to each."""
    if req.limit == 0:
        return iter(())
    if req.closest is not None:
        return _closest(found, req.closest, req.limit)
    if req.sort == "reverse":
        return _reverse(found, req.limit)
    return _limited(found, req.limit)


def _format(found: Iterator[Found], req: CdxRequest) -> Iterator[str]:
    fl, output = req.fl, req.output
    for line, entry in found:
        if output == "cdxj":
            if fl is None and isinstance(entry, CdxjEntry):
                yield entry.format() + "\n"
            else:
                yield pywb_cdxj_line(entry, None, fl) + "\n"
        elif output == "json":
            rec = pywb_record(entry)
            if fl is None:
                if any(name[:1] == "_" for name in rec):  # pywb leaves these out
                    rec = {k: v for k, v in rec.items() if not k.startswith("_")}
                yield json.dumps(rec) + "\n"
            else:
                yield json.dumps({name: rec[name] for name in fl if name in rec}) + "\n"
        elif fl is None:
            yield entry.format() + "\n"
        else:
            rec = pywb_record(entry)
            yield " ".join(str(rec.get(name, "-")) for name in fl) + "\n"


def _chunks(texts: Iterator[str]) -> Iterator[bytes]:
    """Lines gathered into chunks of about :data:`CHUNK_BYTES`."""
    buf: list[bytes] = []
    size = 0
    for text in texts:
        data = text.encode("utf-8")
        buf.append(data)
        size += len(data)
        if size >= CHUNK_BYTES:
            yield b"".join(buf)
            buf.clear()
            size = 0
    if buf:
        yield b"".join(buf)


def cdx_response(sources: Sequence[Source], req: CdxRequest) -> tuple[str, Iterator[bytes]]:
    """Answer *req* from *sources*: ``(Content-Type, body chunks)``.

    The body is made lazily with bounded memory (``sort=reverse`` and ``closest`` hold at
    most :data:`MAX_SORTED` captures). Errors known before the first line (a paging
    parameter on an index that is not ZipNum, a page out of range) are raised by the call;
    an unsorted or damaged index by the first ``next()``.

    Raises:
        UsageError: ``page``, ``pageSize`` or ``showNumPages`` on anything but one ZipNum
            index; a page out of range.
    """
    if not sources:
        raise UsageError("the collection has no index")
    paged = req.page is not None or req.page_size is not None or req.show_num_pages
    if paged:
        name = "showNumPages" if req.show_num_pages else "page" if req.page is not None else "pageSize"
        only = sources[0] if len(sources) == 1 else None
        if not isinstance(only, Index) or only.zipnum is None:
            raise UsageError(f"{name}: paging needs a ZipNum index (.idx) and this collection "
                             "has " + ("several indexes" if len(sources) > 1 else "another kind"))
        if req.show_num_pages:
            return CONTENT_TYPES[req.output], iter([page_count(only, req.query(), req.page_size)])
        found: Iterator[Found] = page_lines(only, req.query(), req.page or 0, req.page_size)
    else:
        found = _found(sources, req)
    if req.filters:
        found = _filtered(found, req.filters)
    body = _chunks(_format(_ordered(found, req), req))
    return CONTENT_TYPES[req.output], body

