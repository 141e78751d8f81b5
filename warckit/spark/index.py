"""``index_warcs``: a globally sorted index of many WARC/ARC files, built by Spark.

Executors index one file per task (:func:`warckit.cdx.indexer.index_file`, or the
columnar row API for Parquet); only the index lines (or rows) are shuffled, never records.
The lines are range-partitioned on their bytes and sorted within each partition (Spark's
sort, which spills), so shard ``part-00000`` holds the smallest lines and the shards'
concatenation is ``warckit index --sort``'s output, line for line.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..cdx.formats import header_line
from ..cdx.indexer import ALL_TYPES, DEFAULT_TYPES, IndexOptions
from ..cdx.zipnum import DEFAULT_BLOCK_LINES, write_zipnum_blocks, write_zipnum_summary
from ..errors import UsageError
from . import _output
from ._job import FileRows, file_rows
from ._tasks import FileError, index_lines
from .inputs import expand_inputs, relative_names

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["DEFAULT_SHARD_LINES", "ERRORS_FILE", "INDEX_FORMATS", "IndexSummary", "index_warcs"]

log = logging.getLogger("warckit.spark")

#: Output formats of :func:`index_warcs`.
IndexFormat = Literal["parquet", "cdxj", "new-style", "cdx", "zipnum"]
INDEX_FORMATS: tuple[str, ...] = ("parquet", "cdxj", "new-style", "zipnum")
#: Index lines per shard when *shards* is not given (Common Crawl's shards hold ~10⁷).
DEFAULT_SHARD_LINES = 10_000_000
#: The error table, under the output directory: one JSON object per failed input.
ERRORS_FILE = "_errors/errors.jsonl"
#: The ZipNum summary and location files, under the output directory.
ZIPNUM_IDX = "index.idx"
ZIPNUM_LOC = "index.loc"


@dataclass
class IndexSummary:
    """What :func:`index_warcs` did.

    Attributes:
        output: The output directory.
        format: The output format.
        files: Inputs given (after expansion).
        files_done: Inputs read to the end.
        records: Index lines (or Parquet rows) written.
        issues: Recoveries made in lenient mode.
        shards: The files written (names under *output*), in key order.
        failed: One entry per input that failed: ``(input, error class, message, offset)``;
            the lines it gave before the error are in the index.
    """

    output: str
    format: str
    files: int
    files_done: int
    records: int
    issues: int
    shards: list[str] = field(default_factory=list)
    failed: list[FileError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every input was read to the end."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data."""
        data = asdict(self)
        data["failed"] = [e._asdict() for e in self.failed]
        return data


def _types(record_types: Sequence[str] | str | None) -> frozenset[str]:
    if record_types is None:
        return DEFAULT_TYPES
    if isinstance(record_types, str):
        if record_types.strip().lower() == "all":
            return ALL_TYPES
        record_types = record_types.split(",")
    return frozenset(t.strip().lower() for t in record_types if t.strip())


def _line_frame(spark: SparkSession, files: list[str], options: IndexOptions,
                storage_options: dict[str, Any] | None, names: dict[str, str] | None) -> FileRows:
    from pyspark.sql.types import BinaryType, StructField

    def produce(source: str, name: str | None, on_warning: Any) -> Iterator[tuple[bytes]]:
        for line in index_lines(source, options, storage_options, on_warning, name):
            yield (line,)

    return file_rows(spark, files, [StructField("line", BinaryType())], produce, names)


def _write_cdx_shards(lines: DataFrame, output: str, suffix: str, head: str | None,
                      storage_options: dict[str, Any] | None) -> list[tuple[int, str, int]]:
    """Each sorted partition as ``part-NNNNN<suffix>`` (with *head* first): ``(n, name, lines)``."""

    def write(index: int, rows: Iterable[Any]) -> Iterator[tuple[int, str, int]]:
        name = f"part-{index:05d}{suffix}"
        count = 0
        with _output.open_write(_output.join(output, name), storage_options) as out:
            if head is not None:
                out.write(head.encode("utf-8") + b"\n")
            batch: list[bytes] = []
            for row in rows:
                batch.append(row[0])
                if len(batch) >= 4096:
                    out.writelines(batch)
                    count += len(batch)
                    batch.clear()
            out.writelines(batch)
            count += len(batch)
        yield index, name, count

    return sorted(lines.rdd.mapPartitionsWithIndex(write).collect())


def _write_zipnum_shards(lines: DataFrame, output: str, block_lines: int,
                         storage_options: dict[str, Any] | None) -> list[tuple[int, str, int, list[tuple[bytes, int, int]]]]:
    """Each sorted partition as a ZipNum shard ``part-NNNNN.cdx.gz``: ``(n, name, lines, blocks)``."""

    def write(index: int, rows: Iterable[Any]) -> Iterator[tuple[int, str, int, list[tuple[bytes, int, int]]]]:
        name = f"part-{index:05d}.cdx.gz"
        count = 0

        def counted() -> Iterator[bytes]:
            nonlocal count
            for row in rows:
                count += 1
                yield bytes(row[0])

        with _output.open_write(_output.join(output, name), storage_options) as out:
            blocks = write_zipnum_blocks(counted(), out, block_lines=block_lines)
        yield index, name, count, blocks

    return sorted(lines.rdd.mapPartitionsWithIndex(write).collect())


def _write_errors(output: str, failed: list[FileError], storage_options: dict[str, Any] | None) -> None:
    _output.makedirs(_output.join(output, "_errors"), storage_options)
    with _output.open_write(_output.join(output, ERRORS_FILE), storage_options) as out:
        for error in failed:
            out.write(json.dumps(error._asdict(), ensure_ascii=False).encode("utf-8") + b"\n")


def index_warcs(
    spark: SparkSession,
    inputs: str | Sequence[str],
    output: str,
    *,
    format: IndexFormat = "cdxj",
    manifest: str | Sequence[str] | None = None,
    base_url: str | None = None,
    record_types: Sequence[str] | str | None = None,
    lenient: bool = False,
    post_append: bool = True,
    shards: int | None = None,
    block_lines: int = DEFAULT_BLOCK_LINES,
    zipnum_format: Literal["cdxj", "new-style", "cdx"] = "cdxj",
    crawl: str | None = None,
    manifest_names: bool = False,
    storage_options: dict[str, Any] | None = None,
    overwrite: bool = False,
) -> IndexSummary:
    """Index WARC/ARC files with Spark into a globally sorted, sharded index in *output*.

    Args:
        spark: The session (its master decides where executors run).
        inputs: Paths, globs, URLs (see :func:`warckit.spark.expand_inputs`).
        output: A directory (local, or shared by the cluster) or a fsspec URL.
        format: ``cdxj`` (pywb), ``new-style`` (``warckit index``'s default ``cdx``),
            ``zipnum`` (gzip shards, ``index.idx`` and ``index.loc``) or ``parquet``
            (the columnar row API's schema, Hive-partitioned by ``crawl`` / ``subset``).
        manifest: Manifest file(s) of inputs, one per line; *base_url* prefixes their
            relative entries.
        record_types: Record types indexed (default as ``warckit index``; ``"all"``).
        lenient: Read damaged files leniently (recoveries are counted in ``issues``).
        post_append: Append POST/PUT request bodies to the key (as ``warckit index``).
        shards: Output shards (range partitions); default one per
            :data:`DEFAULT_SHARD_LINES` lines.
        block_lines: Lines per ZipNum block.
        zipnum_format: The line format inside a ZipNum index.
        crawl: Parquet: the ``crawl`` partition value of every row.
        manifest_names: Record a manifest entry joined to *base_url* under the entry as
            written (``crawl-data/CC-MAIN-…/x.warc.gz``, as Common Crawl's indexes do)
            instead of its base name.
        storage_options: fsspec options for remote inputs, manifests and output.
        overwrite: Write into a non-empty *output* (files of the same names are replaced).

    Returns:
        The summary (also logged on the ``warckit.spark`` logger). A failed input never
        fails the job: it is listed in ``failed`` and in ``_errors/errors.jsonl``.

    Raises:
        UsageError: bad arguments, no inputs, or *output* not empty without *overwrite*.
    """
    fmt = "cdx" if format == "new-style" else format
    if fmt not in ("parquet", "cdxj", "cdx", "zipnum"):
        raise UsageError(f"unknown index format {format!r}; choose one of {', '.join(INDEX_FORMATS)}")
    if shards is not None and shards < 1:
        raise UsageError("shards must be at least 1")
    if block_lines < 1:
        raise UsageError("block_lines must be at least 1")
    line_format = ("cdx" if zipnum_format == "new-style" else zipnum_format) if fmt == "zipnum" else fmt
    types = _types(record_types)
    if fmt == "parquet":
        try:
            import pyarrow  # type: ignore[import-untyped,unused-ignore]  # noqa: F401  # the row API's schema
        except ImportError:
            raise UsageError("the Parquet index needs pyarrow (pip install 'warckit[spark]')") from None
    else:
        options = IndexOptions(format=line_format, types=types, post_append=post_append,  # type: ignore[arg-type]
                               lenient=lenient)
    files = expand_inputs(inputs, manifest=manifest, base_url=base_url, storage_options=storage_options)
    file_names = relative_names(manifest, base_url, storage_options) if manifest_names else None
    if _output.listdir(output, storage_options) and not overwrite:
        raise UsageError(f"{output}: the output directory is not empty (overwrite=True / --force to write into it)")
    _output.makedirs(output, storage_options)

    from pyspark import StorageLevel

    if fmt == "parquet":
        from .parquet import parquet_frame, write_parquet_index

        job = parquet_frame(spark, files, types=types, lenient=lenient, crawl=crawl,
                            storage_options=storage_options, file_names=file_names)
    else:
        job = _line_frame(spark, files, options, storage_options, file_names)
    job.frame = job.frame.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        failed = job.errors()  # the one pass over the inputs; later passes read the cache
        data = job.data()
        records = data.count()
        counted = (int(job.files_ok.value), int(job.files_failed.value), int(job.records.value))
        exact = (job.files - len(failed), len(failed), records)
        if counted != exact:  # accumulators count a task again when Spark reruns it
            log.warning("index_warcs: the accumulators (files ok, failed, records) say %s, the output %s: "
                        "a task ran more than once", counted, exact)
        parts = shards or max(1, math.ceil(records / DEFAULT_SHARD_LINES))
        if fmt == "parquet":
            names = write_parquet_index(data, output, parts, overwrite=overwrite)
        else:
            ordered = data.repartitionByRange(parts, "line").sortWithinPartitions("line")
            if fmt == "zipnum":
                written = _write_zipnum_shards(ordered, output, block_lines, storage_options)
                with _output.open_write(_output.join(output, ZIPNUM_IDX), storage_options) as idx, \
                        _output.open_write(_output.join(output, ZIPNUM_LOC), storage_options) as loc:
                    write_zipnum_summary(((name, name, blocks) for _n, name, _c, blocks in written if blocks),
                                         idx, loc)
                names = [name for _n, name, _c, _b in written]
            else:
                suffix = ".cdxj" if fmt == "cdxj" else ".cdx"
                head = header_line(fmt, is_sorted=True)
                names = [name for _n, name, _c in _write_cdx_shards(ordered, output, suffix, head, storage_options)]
    finally:
        job.frame.unpersist()
    _write_errors(output, failed, storage_options)
    summary = IndexSummary(
        output=output, format="new-style" if fmt == "cdx" else fmt, files=job.files,
        files_done=job.files - len({e.input for e in failed}), records=records,
        issues=int(job.issues.value), shards=names, failed=failed,
    )
    log.info("index_warcs: %s", json.dumps(summary.to_dict(), ensure_ascii=False))
    return summary
