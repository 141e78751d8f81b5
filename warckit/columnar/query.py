"""Look URLs up in a Parquet index with DuckDB: the answers ``warckit query`` gives on the CDXJ index.

A :class:`~warckit.cdx.query.Query` is answered as on the sorted CDXJ index of the same
inputs (``warckit index -f cdxj --sort``): the same key ranges
(:func:`~warckit.cdx.query.key_prefixes`, cdx-style SURT keys), the same filters, the same
order (key, timestamp, then the whole line; with ``closest``, nearest first), as
:class:`~warckit.cdx.formats.CdxjEntry` objects rebuilt from the rows
(:func:`~warckit.columnar.rows.cdxj_line`).

Each key range goes to DuckDB as ``url_surtkey >= lo AND url_surtkey < hi``, so row
groups whose key statistics fall outside are skipped; DuckDB sorts by key and timestamp
(spilling to disk past its memory limit) and rows tied on both are ordered by their line
here, one tie group at a time.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator
from itertools import islice
from typing import Any

from ..cdx import _keys
from ..cdx._timestamps import lower_bound, record_key, seconds_of, upper_bound
from ..cdx.formats import CdxjEntry
from ..cdx.query import Query, _matches_filters, key_prefixes
from ..errors import ParseError, UsageError
from .rows import cdxj_line

__all__ = ["QUERY_COLUMNS", "is_parquet_index", "parquet_files", "query_parquet", "run_parquet_query"]

#: The columns a look-up reads.
QUERY_COLUMNS: tuple[str, ...] = (
    "url_surtkey", "cdxj_timestamp", "url", "cdxj_mime", "cdxj_status", "content_digest_algorithm",
    "content_digest", "cdxj_length", "warc_record_offset", "warc_filename", "http_request_body", "http_method",
)
#: DuckDB's memory limit for a look-up (it spills to a temporary directory beyond).
MEMORY_LIMIT = "512MB"
_FETCH = 4096


def is_parquet_index(path: str | os.PathLike[str]) -> bool:
    """Whether *path* names a Parquet index: a directory, or a ``.parquet`` file."""
    text = os.fspath(path)
    return text.endswith(".parquet") or os.path.isdir(text)


def parquet_files(path: str | os.PathLike[str]) -> list[str]:
    """The ``.parquet`` files of an index (*path* itself, or those under the directory,
    sorted; hidden and ``_``-prefixed names skipped, as Spark and Hive do).

    Raises:
        UsageError: *path* does not exist, or the directory holds no Parquet file.
    """
    text = os.fspath(path)
    if os.path.isfile(text):
        return [text]
    if not os.path.isdir(text):
        raise UsageError(f"{text}: no such file or directory")
    found: list[str] = []
    for root, dirs, files in os.walk(text):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found.extend(os.path.join(root, f) for f in sorted(files)
                     if f.endswith(".parquet") and not f.startswith((".", "_")))
    if not found:
        raise UsageError(f"{text}: not a Parquet index (no .parquet files under it)")
    return found


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise UsageError("querying a Parquet index needs duckdb: pip install 'warckit[parquet]'") from None
    return duckdb


_DATABASE: list[Any] = []  # one in-memory database per process: connecting costs ~20 ms


def _cursor(duckdb: Any) -> Any:
    """A fresh cursor (its own connection) on this process's in-memory database."""
    if not _DATABASE:
        con = duckdb.connect(":memory:")
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        _DATABASE.append(con)
    return _DATABASE[0].cursor()


def _successor(prefix: str) -> str | None:
    """The least string above every string that starts with *prefix* (``None``: none is).

    >>> _successor("com,example)/"), _successor("a\U0010ffff")
    ('com,example)0', 'b')
    """
    while prefix and prefix[-1] == "\U0010ffff":
        prefix = prefix[:-1]
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else None


def _ranges(q: Query) -> list[tuple[str, str | None]]:
    """``(lo, hi)`` key ranges of *q* (``hi is None``: exactly ``lo``; ``hi == ""``: no end)."""
    key = _keys.cdx_key(q.url)
    out: list[tuple[str, str | None]] = []
    for prefix in sorted(set(key_prefixes(key, q.match, "cdx", q.url))):
        if prefix.endswith(" "):
            out.append((prefix[:-1], None))
        else:
            out.append((prefix, _successor(prefix) or ""))
    return out


def _rows(path: str, q: Query) -> Iterator[dict[str, Any]]:
    """The rows in *q*'s key ranges, ordered by key and timestamp (ties: any order)."""
    duckdb = _duckdb()
    files = parquet_files(path)
    where: list[str] = []
    params: list[Any] = [files]
    for lo, hi in _ranges(q):
        if hi is None:
            where.append("url_surtkey = ?")
            params.append(lo)
        elif hi == "":
            where.append("url_surtkey >= ?")
            params.append(lo)
        else:
            where.append("(url_surtkey >= ? AND url_surtkey < ?)")
            params.extend((lo, hi))
    sql = (f"SELECT {', '.join(QUERY_COLUMNS)} FROM read_parquet(?, hive_partitioning = false) "
           f"WHERE {' OR '.join(where)}")
    if q.status is not None and q.status != "-":
        sql += " AND cdxj_status = ?"
        params.append(q.status)
    sql += " ORDER BY url_surtkey, cdxj_timestamp"
    con = _cursor(duckdb)
    try:
        try:
            cur = con.execute(sql, params)
        except duckdb.Error as exc:
            raise ParseError(f"not a warckit Parquet index: {_first_line(exc)}", source=path) from None
        while True:
            try:
                batch = cur.fetchmany(_FETCH)
            except duckdb.Error as exc:
                raise ParseError(f"cannot read the Parquet index: {_first_line(exc)}", source=path) from None
            if not batch:
                return
            for values in batch:
                yield dict(zip(QUERY_COLUMNS, values))
    finally:
        con.close()


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _lines_in_order(path: str, q: Query) -> Iterator[str]:
    """CDXJ lines of the rows in *q*'s ranges, in sorted-index order."""
    group: list[str] = []
    group_key: tuple[str, str] | None = None
    for row in _rows(path, q):
        key = (row["url_surtkey"], row["cdxj_timestamp"])
        if key != group_key:
            if group:
                group.sort()
                yield from group
                group.clear()
            group_key = key
        group.append(cdxj_line(row))
    group.sort()
    yield from group


def run_parquet_query(path: str | os.PathLike[str], q: Query) -> Iterator[CdxjEntry]:
    """Run a :class:`~warckit.cdx.query.Query` on the Parquet index at *path*.

    Raises:
        UsageError: duckdb missing, or *path* is not a Parquet index.
        ParseError: The files lack warckit's columns or cannot be read (naming *path*).
    """
    text = os.fspath(path)
    low = lower_bound(q.from_) if q.from_ is not None else None
    high = upper_bound(q.to) if q.to is not None else None
    entries = (entry for entry in (CdxjEntry.parse(line) for line in _lines_in_order(text, q))
               if _matches_filters(entry, q, low, high))
    if q.closest is not None:
        target = seconds_of(lower_bound(q.closest))

        def distance(entry: CdxjEntry) -> tuple[float, str]:
            ts = record_key(entry.timestamp)
            return (abs(seconds_of(ts) - target) if ts else float("inf"), entry.format())

        if q.limit is not None:
            return iter(heapq.nsmallest(q.limit, entries, key=distance))
        return iter(sorted(entries, key=distance))
    if q.limit is not None:
        return islice(entries, q.limit)
    return entries


def query_parquet(
    path: str | os.PathLike[str],
    url: str,
    *,
    match: str = "exact",
    from_: str | None = None,
    to: str | None = None,
    closest: str | None = None,
    type: str | None = None,
    status: str | int | None = None,
    limit: int | None = None,
) -> list[CdxjEntry]:
    """:func:`warckit.cdx.query.query` on a Parquet index (a directory or ``.parquet`` file).

    Example:
        >>> query_parquet("index-dir", "http://example.com/", match="prefix")  # doctest: +SKIP
    """
    q = Query(url, match, from_, to, closest, type, None if status is None else str(status), limit)  # type: ignore[arg-type]
    return list(run_parquet_query(path, q))
