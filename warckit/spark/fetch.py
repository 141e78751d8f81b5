"""``fetch_records``: the records an index points at, one ranged read each, in executors.

Common Crawl's index-driven jobs: select rows from the columnar index (``warc_filename``,
``warc_record_offset``, ``warc_record_length``), then fetch just those records. Each row is
one :func:`warckit.read_record_at` with its length, that is one request for exactly the
record's bytes; a row that cannot be fetched gets an ``error`` instead of failing the job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..read.reader import read_record_at
from ._tasks import failure
from .inputs import join_base

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["DEFAULT_MAX_PAYLOAD", "FETCH_COLUMNS", "fetch_one", "fetch_records"]

#: Payload bytes kept per record by default (the rest is cut, ``payload_truncated``).
DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024
#: The columns :func:`fetch_records` adds.
FETCH_COLUMNS = ("record_type", "target_uri", "http_status", "http_headers", "payload",
                 "payload_truncated", "error")
_NEEDED = ("warc_filename", "warc_record_offset", "warc_record_length")


def _read_up_to(stream: Any, size: int) -> bytes:
    """At most *size* bytes of *stream*: all of them unless it ends first (a raw
    stream's ``read`` may return fewer than asked)."""
    parts: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def fetch_one(
    filename: str | None,
    offset: int | None,
    length: int | None,
    *,
    prefix: str | None = None,
    storage_options: dict[str, Any] | None = None,
    with_payload: bool = True,
    max_payload: int = DEFAULT_MAX_PAYLOAD,
) -> tuple[Any, ...]:
    """The :data:`FETCH_COLUMNS` of one record (what each executor does per row)."""
    if not filename or offset is None or offset < 0:
        return (None,) * 6 + ("UsageError: the row has no warc_filename or warc_record_offset",)
    source = join_base(filename, prefix)
    try:
        with read_record_at(source, offset, length=length or None, storage_options=storage_options) as record:
            http = record.http
            headers = [(k, v) for k, v in http.headers.fields] if http is not None else None
            payload: bytes | None = None
            truncated: bool | None = None
            if with_payload:
                payload = _read_up_to(record.payload_stream(), max_payload + 1)
                truncated = len(payload) > max_payload
                payload = payload[:max_payload]
            return (record.type, record.target_uri, record.http_status, headers, payload, truncated, None)
    except Exception as exc:  # noqa: BLE001 - a bad row is data: its error, never a failed job
        err = failure(source, exc)
        where = f" (offset {err.offset})" if err.offset is not None else ""
        return (None,) * 6 + (f"{err.error}: {err.message}{where}",)


def fetch_records(
    df: DataFrame,
    *,
    prefix: str | None = None,
    storage_options: dict[str, Any] | None = None,
    with_payload: bool = True,
    max_payload: int = DEFAULT_MAX_PAYLOAD,
) -> DataFrame:
    """*df* with the records its rows point at fetched (lazily, in executors).

    Args:
        df: Rows with ``warc_filename``, ``warc_record_offset`` and ``warc_record_length``
            (Common Crawl's columnar index, or :func:`warckit.spark.read_warcs`).
        prefix: Joined to relative file names (``https://data.commoncrawl.org/``,
            ``s3://commoncrawl/`` or a local directory).
        storage_options: fsspec options (credentials, endpoint).
        with_payload: Fetch the payload (else only the heads are read).
        max_payload: Payload bytes kept per record; a longer one is cut there and
            flagged ``payload_truncated``.

    Returns:
        *df*'s columns and ``record_type``, ``target_uri``, ``http_status``,
        ``http_headers`` (name/value pairs, in order), ``payload`` (the payload as stored:
        the bytes ``WARC-Payload-Digest`` is computed over), ``payload_truncated`` and
        ``error`` (``"ErrorClass: message (offset N)"``, or null).

    Raises:
        UsageError: a needed column is missing, or an added one already exists.
    """
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        BooleanType,
        IntegerType,
        StringType,
        StructField,
        StructType,
    )

    missing = [c for c in _NEEDED if c not in df.columns]
    if missing:
        raise UsageError(f"fetch_records needs the column(s) {', '.join(missing)}")
    clash = [c for c in FETCH_COLUMNS if c in df.columns]
    if clash:
        raise UsageError(f"fetch_records adds the column(s) {', '.join(clash)}, which the DataFrame already has")
    if max_payload < 0:
        raise UsageError("max_payload must not be negative")
    header = StructType([StructField("name", StringType()), StructField("value", StringType())])
    schema = StructType([
        *df.schema.fields,
        StructField("record_type", StringType()), StructField("target_uri", StringType()),
        StructField("http_status", IntegerType()), StructField("http_headers", ArrayType(header)),
        StructField("payload", BinaryType()), StructField("payload_truncated", BooleanType()),
        StructField("error", StringType()),
    ])
    names = list(df.columns)
    at = [names.index(c) for c in _NEEDED]

    def run(rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        for row in rows:
            values = tuple(row)
            yield values + fetch_one(values[at[0]], values[at[1]], values[at[2]], prefix=prefix,
                                     storage_options=storage_options, with_payload=with_payload,
                                     max_payload=max_payload)

    return df.sparkSession.createDataFrame(df.rdd.mapPartitions(run), schema, verifySchema=False)
