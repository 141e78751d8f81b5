"""``read_warcs``: the records of many WARC/ARC files as a Spark DataFrame.

One row per indexed record, with the columns of the columnar row API
(:func:`warckit.columnar.rows.iter_rows`: Common Crawl's ``cc-index`` names), produced in
the executors, one input file per task.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, cast

from ..errors import Issue, UsageError
from ..io.remote import is_url
from ..io.sources import open_source
from ._job import FileRows, file_rows
from .inputs import expand_inputs, relative_names

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

__all__ = ["read_warcs", "row_frame", "spark_fields"]

def _spark_type(arrow_type: Any) -> DataType:
    import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]  # the parquet extra
    from pyspark.sql import types as T

    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return T.StringType()
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return T.BinaryType()
    if pa.types.is_boolean(arrow_type):
        return T.BooleanType()
    if pa.types.is_int16(arrow_type):
        return T.ShortType()
    if pa.types.is_int32(arrow_type):
        return T.IntegerType()
    if pa.types.is_int64(arrow_type):
        return T.LongType()
    if pa.types.is_timestamp(arrow_type):
        # tz-aware instants are Spark's TIMESTAMP; written as Parquet TIMESTAMP_MICROS (UTC).
        return T.TimestampType() if arrow_type.tz else T.TimestampNTZType()
    raise TypeError(f"no Spark type for the Arrow type {arrow_type}")


def spark_fields(*, with_payload: bool = False) -> list[StructField]:
    """The row API's columns (:func:`warckit.columnar.schema.arrow_schema`) as Spark fields."""
    from pyspark.sql.types import BinaryType, BooleanType, StructField

    from ..columnar.schema import arrow_schema

    # Every column is nullable here: an error row (see ._job) has no data.
    fields = [StructField(f.name, _spark_type(f.type), True) for f in arrow_schema()]
    if with_payload:
        fields += [StructField("payload", BinaryType(), True), StructField("payload_truncated", BooleanType(), True)]
    return fields


def _types(record_types: Sequence[str] | str | None) -> frozenset[str] | None:
    from ..cdx.indexer import ALL_TYPES

    if record_types is None:
        return None
    if isinstance(record_types, str):
        if record_types.strip().lower() == "all":
            return ALL_TYPES
        record_types = record_types.split(",")
    return frozenset(t.strip().lower() for t in record_types if t.strip())


def row_frame(
    spark: SparkSession,
    files: Sequence[str],
    *,
    types: frozenset[str] | None = None,
    lenient: bool = False,
    with_payload: bool = False,
    max_payload: int | None = None,
    crawl: str | None = None,
    storage_options: dict[str, Any] | None = None,
    sort_key: bool = False,
    file_names: dict[str, str] | None = None,
) -> FileRows:
    """The rows of *files* (one task per file) with the error columns (see :mod:`._job`);
    *sort_key* adds ``_cdxj``, each row's CDXJ line (UTF-8): the one-machine writer's order."""
    from pyspark.sql.types import BinaryType, StructField

    from ..columnar.rows import cdxj_line

    fields = spark_fields(with_payload=with_payload)
    names = [f.name for f in fields]
    if sort_key:
        fields.append(StructField("_cdxj", BinaryType(), True))
    kwargs: dict[str, Any] = {"lenient": lenient, "with_payload": with_payload}
    if types is not None:
        kwargs["types"] = types
    if max_payload is not None:
        kwargs["max_payload"] = max_payload
    if crawl is not None:
        kwargs["crawl"] = crawl

    def produce(source: str, name: str | None, on_warning: Callable[[Issue], None]) -> Iterator[tuple[Any, ...]]:
        from ..columnar.rows import iter_rows

        if is_url(source):
            name = name or os.path.basename(source.split("?", 1)[0].rstrip("/"))
            with open_source(source, storage_options=storage_options) as fh:
                for row in iter_rows(cast(IO[bytes], fh.file), filename=name, on_warning=on_warning, **kwargs):
                    yield _values(row)
            return
        for row in iter_rows(source, filename=name, on_warning=on_warning, **kwargs):
            yield _values(row)

    def _values(row: dict[str, Any]) -> tuple[Any, ...]:
        values = tuple(row.get(n) for n in names)
        return values + (cdxj_line(row).encode("utf-8"),) if sort_key else values

    return file_rows(spark, files, fields, produce, file_names)


def read_warcs(
    spark: SparkSession,
    inputs: str | Sequence[str],
    *,
    manifest: str | Sequence[str] | None = None,
    base_url: str | None = None,
    record_types: Sequence[str] | str | None = None,
    with_payload: bool = False,
    max_payload: int | None = None,
    lenient: bool = False,
    crawl: str | None = None,
    manifest_names: bool = False,
    storage_options: dict[str, Any] | None = None,
    with_errors: bool = False,
) -> DataFrame:
    """The records of WARC/ARC files as a DataFrame (lazy: nothing is read until an action).

    Args:
        spark: The session.
        inputs: Paths, globs, URLs (see :func:`warckit.spark.expand_inputs`); one task each.
        manifest: Manifest file(s) of inputs, one per line; *base_url* prefixes their
            relative entries (cc-pyspark's ``--input_base_url``).
        record_types: Record types read (default: the row API's; ``"all"``).
        with_payload: Add ``payload`` (binary: the payload as stored, at most
            *max_payload* bytes) and ``payload_truncated`` (it was longer).
        max_payload: See *with_payload* (default: the row API's).
        lenient: Read damaged files leniently.
        crawl: The ``crawl`` partition value of every row.
        manifest_names: ``warc_filename`` of a manifest entry joined to *base_url* is the
            entry as written (``crawl-data/CC-MAIN-…/segments/…/warc/x.warc.gz``, which
            also gives ``crawl``, ``warc_segment`` and ``subset``, as in Common Crawl's
            index), instead of its base name; :func:`~warckit.spark.fetch_records` with
            ``prefix=base_url`` then finds the records.
        storage_options: fsspec options for remote inputs and manifests.
        with_errors: Keep one *error row* per failed input, with the columns ``_input``,
            ``_error`` (the error's class), ``_message`` and ``_offset`` (null on data
            rows). Without it a failed input contributes the rows read before its error.

    Returns:
        A DataFrame with the columns of :data:`warckit.columnar.schema.COLUMNS`
        (and the payload's), one row per indexed record.

    Raises:
        UsageError: no inputs, an empty glob, or pyarrow missing.
    """
    try:
        import pyarrow  # type: ignore[import-untyped,unused-ignore]  # noqa: F401  # the row API's schema
    except ImportError:
        raise UsageError("read_warcs needs pyarrow (pip install 'warckit[spark]')") from None
    files = expand_inputs(inputs, manifest=manifest, base_url=base_url, storage_options=storage_options)
    file_names = relative_names(manifest, base_url, storage_options) if manifest_names else None
    job = row_frame(spark, files, types=_types(record_types), lenient=lenient, with_payload=with_payload,
                    max_payload=max_payload, crawl=crawl, storage_options=storage_options, file_names=file_names)
    return job.frame if with_errors else job.data()
