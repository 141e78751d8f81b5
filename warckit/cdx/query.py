"""Look URLs up in sorted indexes by binary search (plain sorted files and ZipNum).

Match types, for a URL whose key is ``K`` (SURT in the index's style):

``exact``
    lines whose key is ``K``;
``prefix``
    keys starting with ``K`` (a trailing ``/`` or ``?`` of the URL is kept, as in pywb:
    ``/foo/`` does not find ``/foobar``);
``host``
    keys of the same host (``com,example)`` …, or ``com,example,www,)`` in new-style);
``domain``
    the host and all its subdomains: new-style keys starting with ``com,example,``;
    classic keys starting with ``com,example)`` or ``com,example,``.

Ports are part of the host: ``example.com:8080`` is not ``example.com``.
Time filters (``from_``, ``to``, ``closest``) accept 14-digit timestamps of any length
(``2014``, ``20140103``) and W3C forms (``2014-01-03T03:03:21.5Z``); bounds are inclusive
at their own precision. Results come in index order (key, then timestamp, bytewise),
merged over all indexes; with ``closest`` they come nearest first.
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from .._util.frozen import Frozen
from .._util.lazy import typing_aliases
from ..errors import ParseError, UnsortedIndexError, UrlError, UsageError
from ..io.sources import open_source
from . import _keys
from ._bisect import bisect_left_line, ended, first_disorder, line_number, previous_line_start
from ._timestamps import lower_bound, record_key, seconds_of, upper_bound
from .formats import (
    AnyEntry,
    CdxEntry,
    CdxjEntry,
    ClassicCdxEntry,
    detect_format,
    header_sorted,
    parse_line,
)
from .sort import is_header

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing: `warckit index` needs none)
if TYPE_CHECKING:
    from typing import IO, Any, Literal

    from .formats import FormatName
    from .zipnum import ZipNumIndex

    MatchType = Literal["exact", "prefix", "host", "domain"]

# MatchType is made on first use (it needs typing).
__getattr__ = typing_aliases(__name__, globals(),
                             MatchType=lambda t: t.Literal["exact", "prefix", "host", "domain"])

__all__ = ["MATCH_TYPES", "Index", "MatchType", "Query", "check_url", "entry_to_dict", "open_index", "query"]

MATCH_TYPES: tuple[MatchType, ...] = ("exact", "prefix", "host", "domain")


class Index:
    """A sorted index that can be range-scanned: a plain file or a ZipNum ``.idx``.

    Args:
        path: Sorted index file (any format), or the ``.idx`` of a ZipNum index. A
            plain index may be a URL (read by ranged requests, :mod:`warckit.io.remote`);
            a ZipNum index is local.
        format: The index format; detected from the first line when omitted.
    """

    def __init__(self, path: str | os.PathLike[str], format: FormatName | None = None) -> None:
        self.path = os.fspath(path)
        self.zipnum: ZipNumIndex | None = None
        if self.path.endswith((".idx", ".summary")):
            from .zipnum import ZipNumIndex  # (an index command that writes none skips its import)

            self.zipnum = ZipNumIndex(self.path)
            first = self.zipnum.first_line()
        else:
            with open_source(self.path) as src:
                first = src.file.readline()
        if format is None and first.strip():
            try:
                format = detect_format(first.decode("utf-8", "replace"))
            except ParseError as exc:
                raise exc.located(source=self.path, offset=0) from None
        self.format: FormatName = format or "cdx"
        #: What the header says about order (new-style CDX only): True, False or None.
        self.declared_sorted = header_sorted(first)
        #: SURT style of the keys: new-style for warckit's CDX, IA style for the others.
        self.key_style = "new-style" if self.format == "cdx" else "cdx"

    def key_of(self, url: str) -> str:
        """The key *url* has in this index."""
        if self.key_style == "new-style":
            return _keys.new_style_key(url)
        return _keys.cdx_key(url)

    def iter_prefix(self, prefix: bytes) -> Iterator[bytes]:
        """Lines starting with *prefix*, in order (header lines skipped).

        Raises:
            UnsortedIndexError: The header says the file is unsorted, or a line the
                search read is out of order (raised before or while yielding lines).
        """
        if self.zipnum is not None:
            source: Iterable[bytes] = self.zipnum.iter_from(prefix)
            for line in source:
                if not line.startswith(prefix):
                    return
                if not is_header(line):
                    yield line
            return
        if self.declared_sorted is False:
            raise UnsortedIndexError(
                self.path, 1, 0, "the header says the index is unsorted; " + _HOW_TO_SORT)
        with open_source(self.path) as src:
            _check_small_file(src.file, self.path)
            yield from _scan_file(src.file, prefix, self.path)

    def iter_all(self) -> Iterator[bytes]:
        """Every line in order (header lines skipped)."""
        return self.iter_prefix(b"")


_HOW_TO_SORT = ("look-ups need a sorted index: sort it with `warckit merge --unsorted -o "
                "SORTED INDEX` (or index with `warckit index --sort`)")


def _disorder(fh: IO[bytes], path: str, start: int, line: bytes, before: bytes) -> UnsortedIndexError:
    """The error for *line* (at *start*) found after *before*, which sorts higher."""
    shown, above = (v[:80].rstrip(b"\r\n").decode("utf-8", "replace") for v in (line, before))
    return UnsortedIndexError(
        path, line_number(fh, start), start,
        f"not sorted: {shown!r} comes after {above!r}; {_HOW_TO_SORT}")


#: Plain index files up to this size are checked line by line before their first
#: look-up in a process (about 3 ms per MiB); larger ones at every line a look-up reads.
FULL_CHECK_BYTES = 8 << 20
#: The same for an index at a URL (every byte of it is fetched to be checked).
REMOTE_FULL_CHECK_BYTES = 1 << 20
#: Files found in order, by (device, inode, size, mtime) or (URL, size): each version is checked once.
_CHECKED: dict[tuple[object, ...], None] = {}
_CHECKED_MAX = 1024


def _check_small_file(fh: IO[bytes], path: str) -> None:
    try:
        st = os.fstat(fh.fileno())
    except OSError:  # a URL: read whole only when small (it is downloaded to be checked)
        size = fh.seek(0, os.SEEK_END)
        if size > REMOTE_FULL_CHECK_BYTES:
            return
        version: tuple[object, ...] = (path, size)
    else:
        if st.st_size > FULL_CHECK_BYTES:
            return
        version = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if version in _CHECKED:
        return
    fh.seek(0)
    previous: bytes | None = None
    pos = 0
    for raw in fh:
        line = ended(raw)
        if previous is not None and line < previous and not line.isspace():
            raise _disorder(fh, path, pos, line, previous)
        if not line.isspace():  # a stray blank line (often the last) is no disorder
            previous = line
        pos += len(raw)
    if len(_CHECKED) >= _CHECKED_MAX:
        _CHECKED.clear()
    _CHECKED[version] = None


def _scan_file(fh: IO[bytes], prefix: bytes, path: str) -> Iterator[bytes]:
    """The lines starting with *prefix*, checking the order of every line read.

    A binary search over unsorted lines silently finds nothing, so the lines the
    search probed, the line before the range and every line of the range must be in
    order; disorder among them raises :class:`UnsortedIndexError`. (Disorder in parts
    of a large file the search never reads cannot be seen without reading it all;
    files up to :data:`FULL_CHECK_BYTES` are checked whole first.)
    """
    seen: list[tuple[int, bytes]] = []
    start = bisect_left_line(fh, prefix, seen)
    if start > 0:
        before_start = previous_line_start(fh, start)
        fh.seek(before_start)
        seen.append((before_start, fh.readline()))
    bad = first_disorder(seen)
    if bad is not None:
        raise _disorder(fh, path, *bad)
    fh.seek(start)
    pos = start
    previous: bytes | None = None
    for raw in fh:
        here = pos
        pos += len(raw)
        line = ended(raw)
        if line.isspace():
            continue
        if previous is not None and line < previous:
            raise _disorder(fh, path, here, line, previous)
        if not line.startswith(prefix):
            if line < prefix:  # past the range, yet lower than the key looked up
                raise _disorder(fh, path, here, line, previous if previous is not None else prefix)
            return
        previous = line
        if not is_header(line):
            yield raw


def open_index(path: str | os.PathLike[str] | Index) -> Index:
    """An :class:`Index` for *path* (returned as is when it already is one)."""
    return path if isinstance(path, Index) else Index(path)


def _host_part(key: str) -> str | None:
    end = key.find(")/")
    return key[:end] if end >= 0 else None


def key_prefixes(key: str, match: MatchType, key_style: str, url: str = "") -> list[str]:
    """The line prefixes that select *match* for a URL of key *key* (sorted).

    The ranges are pywb's (``calc_search_range``): ``prefix`` keeps a trailing ``/`` or
    ``?`` of the URL that the key lost; ``domain`` of a bare TLD (``com``) covers only
    its subdomains. Keys without a SURT host (``dns:…``, ``urn:…``) fall back to a key
    prefix for ``host`` and ``domain`` (pywb finds nothing for them).

    >>> key_prefixes("com,example)/a", "exact", "cdx")
    ['com,example)/a ']
    >>> key_prefixes("com,example)/a", "domain", "cdx")
    ['com,example)/', 'com,example,']
    """
    if match == "exact":
        return [key + " "]
    if match == "prefix":
        if url.endswith("/") and not key.endswith("/"):
            key += "/"
        elif url.endswith("?") and not key.endswith("?"):
            key += "?"
        return [key]
    host = _host_part(key)
    if host is None:  # not a SURT (dns:, urn:, filedesc…): fall back to the key prefix
        return [key]
    if match == "host":
        return [host + ")/"]
    if match == "domain":
        if key_style == "new-style":
            return [host]  # host ends with "," already: com,example,
        if "," not in host:
            return [host + ","]
        return [host + ")/", host + ","]
    raise UsageError(f"unknown match type {match!r}; choose one of {', '.join(MATCH_TYPES)}")


_SPACE = re.compile(r"\s")


def check_url(url: str) -> None:
    """Refuse what no index key can come from (``surt`` alone accepts almost anything).

    Raises:
        UsageError: *url* is empty or has white space, has no host or a bad port, or
            cannot be made a SURT.
    """
    from urllib.parse import urlsplit

    from ..url import surt  # (indexing does not need the URL layer; a query does)

    problem = None
    if not url.strip() or _SPACE.search(url):
        problem = "it is empty or has white space"
    else:
        try:
            if "://" in url or not url.startswith(("dns:", "urn:", "filedesc:", "whois:")):
                parts = urlsplit(url if "://" in url else "http://" + url)
                if not parts.hostname:
                    problem = "it has no host"
                else:
                    parts.port  # noqa: B018 - raises on a bad port
            surt(url)
        except (ValueError, UrlError) as exc:
            problem = str(exc)
    if problem:
        raise UsageError(f"not a URL: {url!r} ({problem})")


class Query(Frozen):
    """A lookup: URL, match type and filters (see :func:`query`).

    Raises:
        UsageError: A bad URL, match type, timestamp or limit.
    """

    __slots__ = (  # noqa: RUF023 (the field order)
        "url", "match", "from_", "to", "closest", "type", "status", "limit",
    )
    url: str
    match: MatchType
    from_: str | None
    to: str | None
    closest: str | None
    type: str | None
    status: str | None
    limit: int | None

    def __init__(self, url: str, match: MatchType = "exact", from_: str | None = None,
                 to: str | None = None, closest: str | None = None, type: str | None = None,
                 status: str | None = None, limit: int | None = None) -> None:
        check_url(url)
        if match not in MATCH_TYPES:
            raise UsageError(f"unknown match type {match!r}; choose one of {', '.join(MATCH_TYPES)}")
        for name, value in (("from", from_), ("to", to), ("closest", closest)):
            if value is not None:
                try:
                    lower_bound(value)
                except ValueError:
                    raise UsageError(f"bad timestamp for {name}: {value!r}") from None
        if limit is not None and limit < 0:
            raise UsageError("limit must not be negative")
        init = object.__setattr__
        init(self, "url", url)
        init(self, "match", match)
        init(self, "from_", from_)
        init(self, "to", to)
        init(self, "closest", closest)
        init(self, "type", type)
        init(self, "status", status)
        init(self, "limit", limit)


def _entry_type(entry: AnyEntry) -> str:
    return entry.record_type


def _matches_filters(entry: AnyEntry, q: Query, low: str | None, high: str | None) -> bool:
    if low is not None or high is not None:
        ts = record_key(entry.timestamp)
        if low is not None and ts < low:
            return False
        if high is not None and ts > high:
            return False
    if q.type is not None:
        wanted = q.type.lower()
        if wanted not in (_entry_type(entry), getattr(entry, "type", None)):
            return False
    return q.status is None or entry.status == q.status


def _run(index: Index, q: Query, low: str | None, high: str | None) -> Iterator[tuple[bytes, AnyEntry]]:
    key = index.key_of(q.url)
    prefixes = set(key_prefixes(key, q.match, index.key_style, q.url))
    if index.key_style == "new-style" and "xn--" in key:
        # An index written with Unicode hosts (--unicode-hosts) is searched too.
        prefixes.update(key_prefixes(_keys.host_unicode(key), q.match, index.key_style, q.url))
    streams = [index.iter_prefix(p.encode("utf-8")) for p in sorted(prefixes)]
    lines = streams[0] if len(streams) == 1 else heapq.merge(*streams)
    fmt = index.format
    for line in lines:
        try:
            # (bytes that are not UTF-8, from another tool's index, are kept as
            # surrogate escapes: the line is shown as it is, never with U+FFFD)
            entry = parse_line(line.decode("utf-8", "surrogateescape"), fmt)
        except ParseError as exc:
            raise exc.located(source=index.path) from None
        if _matches_filters(entry, q, low, high):
            yield line, entry


def query(
    indexes: Sequence[str | os.PathLike[str] | Index] | str | os.PathLike[str] | Index,
    url: str,
    *,
    match: MatchType = "exact",
    from_: str | None = None,
    to: str | None = None,
    closest: str | None = None,
    type: str | None = None,
    status: str | int | None = None,
    limit: int | None = None,
) -> list[AnyEntry]:
    """Look *url* up in one or more sorted indexes (plain files or ZipNum ``.idx``).

    Args:
        indexes: Index paths (or :class:`Index` objects); results are merged.
        url: The URL to look up (made into a key in each index's SURT style).
        match: ``exact``, ``prefix``, ``host`` or ``domain``.
        from_: Earliest timestamp (inclusive, any precision).
        to: Latest timestamp (inclusive at its precision: ``2014`` is all of 2014).
        closest: Sort by distance to this timestamp, nearest first.
        type: Only this record type (``response``, ``revisit`` …).
        status: Only this HTTP status.
        limit: At most this many results.

    Returns:
        Parsed entries (:class:`CdxEntry`, :class:`CdxjEntry` or :class:`ClassicCdxEntry`).

    Raises:
        UsageError: Bad match type, timestamp or limit.

    Example:
        >>> query(["index.cdx"], "http://example.com/", match="prefix", from_="2014")  # doctest: +SKIP
    """
    q = Query(
        url, match, from_, to, closest, type, None if status is None else str(status), limit
    )
    return list(run_query(indexes, q))


def run_query(
    indexes: Sequence[str | os.PathLike[str] | Index] | str | os.PathLike[str] | Index,
    q: Query,
) -> Iterator[AnyEntry]:
    """Run a :class:`Query`; yields entries lazily (except with ``closest``)."""
    if isinstance(indexes, (str, os.PathLike, Index)):
        indexes = [indexes]
    opened = [open_index(i) for i in indexes]
    low = lower_bound(q.from_) if q.from_ is not None else None
    high = upper_bound(q.to) if q.to is not None else None
    runs = [_run(index, q, low, high) for index in opened]
    merged: Iterator[tuple[bytes, AnyEntry]] = (
        runs[0] if len(runs) == 1 else heapq.merge(*runs, key=lambda pair: pair[0])
    )
    if q.closest is not None:
        target = seconds_of(lower_bound(q.closest))

        def distance(pair: tuple[bytes, AnyEntry]) -> tuple[float, bytes]:
            ts = record_key(pair[1].timestamp)
            return (abs(seconds_of(ts) - target) if ts else float("inf"), pair[0])

        ordered = sorted(merged, key=distance)
        merged = iter(ordered)
    entries = (entry for _, entry in merged)
    if q.limit is not None:
        return islice(entries, q.limit)
    return entries


_CLASSIC_NAMES = {
    "N": "urlkey",
    "b": "timestamp",
    "a": "url",
    "m": "mime",
    "s": "status",
    "k": "digest",
    "r": "redirect",
    "M": "robotflags",
    "S": "length",
    "V": "offset",
    "g": "filename",
}


def entry_to_dict(entry: AnyEntry) -> dict[str, Any]:
    """A JSON-ready dict of an entry (the ``--json`` output of ``warckit query``)."""
    if isinstance(entry, CdxEntry):
        out: dict[str, Any] = {
            "urlkey": entry.urlkey,
            "timestamp": entry.timestamp,
            "url": entry.url,
            "digest": entry.digest,
            "type": entry.type,
            "filename": entry.filename,
            "offset": entry.offset,
        }
        out.update(entry.extra)
        return out
    if isinstance(entry, CdxjEntry):
        out = {"urlkey": entry.urlkey, "timestamp": entry.timestamp}
        out.update(entry.fields)
        return out
    assert isinstance(entry, ClassicCdxEntry)
    return {_CLASSIC_NAMES.get(k, k): v for k, v in zip(entry.letters, entry.values)}
