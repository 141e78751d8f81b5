"""The Parquet flavour of :func:`warckit.spark.index_warcs`: the columnar index, sorted by Spark.

Rows are the columnar row API's (:func:`warckit.columnar.rows.iter_rows`), range-partitioned
on their CDXJ line (which starts with ``url_surtkey``) and sorted within each partition, then
written Hive-partitioned (``crawl=…/subset=…``) with zstd. Each file is sorted by its rows'
CDXJ lines, as :func:`warckit.columnar.write.write_parquet`'s, and the files of
one ``crawl``/``subset`` directory hold consecutive key ranges in the order of their
``part-NNNNN`` numbers. Timestamps are written as ``TIMESTAMP_MICROS`` (UTC), not Spark's
legacy INT96; ``fetch_status`` stays a 16-bit integer: the one-machine writer's schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._job import FileRows
from .read import row_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["parquet_frame", "write_parquet_index"]

#: Spark session settings the write needs (restored afterwards).
_CONF = {
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.parquet.compression.codec": "zstd",
    "spark.sql.parquet.writeLegacyFormat": "false",
}


def parquet_frame(spark: SparkSession, files: Sequence[str], *, types: frozenset[str] | None,
                  lenient: bool, crawl: str | None = None,
                  storage_options: dict[str, Any] | None = None,
                  file_names: dict[str, str] | None = None) -> FileRows:
    """The rows of *files* with the error columns (one task per file)."""
    return row_frame(spark, files, types=types, lenient=lenient, crawl=crawl, storage_options=storage_options,
                     sort_key=True, file_names=file_names)


def write_parquet_index(data: DataFrame, output: str, parts: int, *, overwrite: bool = False) -> list[str]:
    """Write *data* sorted by ``url_surtkey`` into *parts* range partitions under *output*;
    return the Parquet files written (relative to *output*), in key order."""
    spark = data.sparkSession
    saved: dict[str, str | None] = {key: spark.conf.get(key, None) for key in _CONF}
    for key, value in _CONF.items():
        spark.conf.set(key, value)
    try:
        # The CDXJ line starts with url_surtkey: ranges of lines are ranges of keys, and
        # within a file the rows come in the one-machine writer's order.
        ordered = data.repartitionByRange(parts, "_cdxj").sortWithinPartitions(
            "crawl", "subset", "_cdxj").drop("_cdxj")
        (ordered.write.mode("overwrite" if overwrite else "append")
         .partitionBy("crawl", "subset").parquet(output))
    finally:
        for key, old in saved.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)
    return _parquet_files(spark, output)


def _parquet_files(spark: SparkSession, output: str) -> list[str]:
    from . import _output

    found: list[str] = []

    def walk(path: str, rel: str) -> None:
        for name in _output.listdir(path):
            if name.startswith(("_", ".")):
                continue
            child = _output.join(path, name)
            if name.endswith(".parquet"):
                found.append(f"{rel}{name}")
            elif "=" in name:
                walk(child, f"{rel}{name}/")

    walk(output, "")
    return sorted(found)
