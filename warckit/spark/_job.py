"""The shape every job shares: one input file per task, rows and error rows in one DataFrame.

The files become an RDD of ``len(files)`` partitions (one file per task); each task turns
its file into rows with :func:`warckit.spark._tasks.guarded`, so a failed file adds one
*error row* instead of failing the job. The DataFrame has the data columns, then
``_input``, ``_error``, ``_message``, ``_offset``: on a data row ``_error`` is null, on an
error row the data columns are. Rows cross from the Python workers to the JVM through
Spark's RDD → DataFrame conversion, which needs no pandas (``mapInArrow`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import Issue
from ._tasks import Counters, FileError, guarded

if TYPE_CHECKING:
    from pyspark import Accumulator
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructField

__all__ = ["ERROR_COLUMNS", "FileRows", "file_rows"]

#: The error columns that follow the data columns.
ERROR_COLUMNS = ("_input", "_error", "_message", "_offset")

#: ``produce(source, name, on_warning)``: the data tuples of one file; *name* is the file
#: name to record (``None``: the indexer's default, the base name).
Produce = Callable[[str, "str | None", Callable[[Issue], None]], Iterator[tuple[Any, ...]]]


@dataclass
class FileRows:
    """A job's rows (data and error rows) and the accumulators its tasks add to."""

    frame: DataFrame
    files: int
    files_ok: Accumulator[int]
    files_failed: Accumulator[int]
    records: Accumulator[int]
    issues: Accumulator[int]

    def data(self) -> DataFrame:
        """The data rows, without the error columns."""
        from pyspark.sql.functions import col

        return self.frame.where(col("_error").isNull()).drop(*ERROR_COLUMNS)

    def errors(self) -> list[FileError]:
        """The error rows (one per failed input), in input order (runs a job)."""
        from pyspark.sql.functions import col

        rows = self.frame.where(col("_error").isNotNull()).select(*ERROR_COLUMNS).collect()
        return [FileError(r[0], r[1], r[2], r[3]) for r in rows]


def _partition(produce: Produce, width: int, counters: Counters) -> Callable[[Iterable[tuple[str, str | None]]], Iterator[tuple[Any, ...]]]:
    blank = (None,) * width
    tail = (None, None, None, None)

    def run(sources: Iterable[tuple[str, str | None]]) -> Iterator[tuple[Any, ...]]:
        for source, name in sources:

            def rows(on_warning: Callable[[Issue], None], source: str = source,
                     name: str | None = name) -> Iterator[tuple[Any, ...]]:
                for row in produce(source, name, on_warning):
                    yield row + tail

            yield from guarded(source, rows, counters, lambda err: blank + tuple(err))

    return run


def file_rows(spark: SparkSession, files: Sequence[str], fields: list[StructField], produce: Produce,
              names: Mapping[str, str] | None = None) -> FileRows:
    """The rows of *files*, one task per file: ``produce(source, name, on_warning)`` yields
    the data tuples (matching *fields*) of one file in an executor; *names* gives the file
    name some sources are recorded under (the task carries it, not every closure)."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    sc = spark.sparkContext
    acc = [sc.accumulator(0) for _ in range(4)]
    counters = Counters(*acc)
    schema = StructType([
        *fields,
        StructField("_input", StringType()), StructField("_error", StringType()),
        StructField("_message", StringType()), StructField("_offset", LongType()),
    ])
    named = [(f, (names or {}).get(f)) for f in files]
    rdd = sc.parallelize(named, max(1, len(named))).mapPartitions(
        _partition(produce, len(fields), counters)
    )
    frame = spark.createDataFrame(rdd, schema, verifySchema=False)
    return FileRows(frame, len(files), *acc)
