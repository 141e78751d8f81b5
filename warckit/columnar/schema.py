"""The columnar index schema: Common Crawl's flat ``cc-index`` table plus warckit's own columns.

Column names and types follow Common Crawl's ``cc-index-schema-flat.json`` (the table
Athena, Spark and DuckDB users query), with these deviations:

* ``warc_record_offset`` and ``warc_record_length`` are ``int64`` (CC: ``int32``), so
  records past 2 GiB in a file keep their offsets.
* ``url_port``, ``fetch_status`` and the host parts may be null where CC's are not
  (a capture without a URL or HTTP status: ``resource``/``metadata`` records).
* warckit adds ``record_type``, ``record_id``, ``content_digest_algorithm`` and the
  ``cdxj_*``/``http_*`` columns, which rebuild each row's CDXJ line byte for byte
  (:func:`warckit.columnar.rows.cdxj_line`).

``crawl`` and ``subset`` are the partition columns (Hive directories ``crawl=…/subset=…``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CC_COLUMNS", "COLUMNS", "PARTITION_COLUMNS", "WARCKIT_COLUMNS", "arrow_schema"]

#: (name, arrow type name) of Common Crawl's columns, in CC's order.
_CC: tuple[tuple[str, str], ...] = (
    ("url_surtkey", "string"),
    ("url", "string"),
    ("url_host_name", "string"),
    ("url_host_tld", "string"),
    ("url_host_2nd_last_part", "string"),
    ("url_host_3rd_last_part", "string"),
    ("url_host_4th_last_part", "string"),
    ("url_host_5th_last_part", "string"),
    ("url_host_registry_suffix", "string"),
    ("url_host_registered_domain", "string"),
    ("url_host_private_suffix", "string"),
    ("url_host_private_domain", "string"),
    ("url_host_name_reversed", "string"),
    ("url_protocol", "string"),
    ("url_port", "int32"),
    ("url_path", "string"),
    ("url_query", "string"),
    ("fetch_time", "timestamp"),
    ("fetch_status", "int16"),
    ("fetch_redirect", "string"),
    ("content_digest", "string"),
    ("content_mime_type", "string"),
    ("content_mime_detected", "string"),
    ("content_charset", "string"),
    ("content_languages", "string"),
    ("content_truncated", "string"),
    ("warc_filename", "string"),
    ("warc_record_offset", "int64"),
    ("warc_record_length", "int64"),
    ("warc_segment", "string"),
)

#: warckit's own columns (see :doc:`/columnar` for what each holds).
_WARCKIT: tuple[tuple[str, str], ...] = (
    ("record_type", "string"),
    ("record_id", "string"),
    ("content_digest_algorithm", "string"),
    ("cdxj_timestamp", "string"),
    ("cdxj_mime", "string"),
    ("cdxj_status", "string"),
    ("cdxj_length", "int64"),
    ("http_method", "string"),
    ("http_request_body", "string"),
)

_PARTITIONS: tuple[tuple[str, str], ...] = (("crawl", "string"), ("subset", "string"))

#: Common Crawl's data column names, in order.
CC_COLUMNS: tuple[str, ...] = tuple(name for name, _ in _CC)
#: warckit's added column names, in order.
WARCKIT_COLUMNS: tuple[str, ...] = tuple(name for name, _ in _WARCKIT)
#: The partition columns.
PARTITION_COLUMNS: tuple[str, ...] = tuple(name for name, _ in _PARTITIONS)
#: Every column of a row, in order: CC's, warckit's, then the partition columns.
COLUMNS: tuple[str, ...] = CC_COLUMNS + WARCKIT_COLUMNS + PARTITION_COLUMNS

#: Columns CC declares non-null that warckit also always fills.
_NOT_NULL = frozenset({"url_surtkey", "url", "url_protocol", "warc_filename", "warc_record_offset", "record_type"})


def arrow_schema(*, partitions: bool = True) -> Any:
    """The :class:`pyarrow.Schema` of a row (needs pyarrow: ``pip install 'warckit[parquet]'``).

    Args:
        partitions: Include ``crawl`` and ``subset`` (a Hive-partitioned file leaves
            them to its directory names).

    >>> schema = arrow_schema()  # doctest: +SKIP
    >>> str(schema.field("fetch_time").type)  # doctest: +SKIP
    'timestamp[us, tz=UTC]'
    """
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int16": pa.int16(),
        "int32": pa.int32(),
        "int64": pa.int64(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    columns = _CC + _WARCKIT + (_PARTITIONS if partitions else ())
    return pa.schema([pa.field(name, types[kind], nullable=name not in _NOT_NULL) for name, kind in columns])
