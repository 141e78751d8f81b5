"""Columnar (Parquet) index: Common Crawl's ``cc-index`` table schema, built from warckit's captures.

:func:`iter_rows` turns a WARC/ARC file into rows (one per CDXJ line), :func:`write_parquet`
writes them as a Hive-partitioned Parquet dataset, and :func:`query_parquet` answers
``warckit query`` look-ups on it with DuckDB. pyarrow and duckdb are optional
(``pip install 'warckit[parquet]'``): they are imported only by the functions that need them.
"""

from __future__ import annotations

from .query import query_parquet, run_parquet_query
from .rows import (
    DEFAULT_CRAWL,
    DEFAULT_MAX_PAYLOAD,
    cdxj_line,
    iter_rows,
    rows_to_batch,
    rows_to_table,
)
from .schema import CC_COLUMNS, COLUMNS, PARTITION_COLUMNS, WARCKIT_COLUMNS, arrow_schema
from .write import WriteSummary, write_parquet

__all__ = [
    "CC_COLUMNS",
    "COLUMNS",
    "DEFAULT_CRAWL",
    "DEFAULT_MAX_PAYLOAD",
    "PARTITION_COLUMNS",
    "WARCKIT_COLUMNS",
    "WriteSummary",
    "arrow_schema",
    "cdxj_line",
    "iter_rows",
    "query_parquet",
    "rows_to_batch",
    "rows_to_table",
    "run_parquet_query",
    "write_parquet",
]
