"""Rows → a Hive-partitioned Parquet dataset (zstd), each file sorted as the sorted CDXJ index.

:func:`write_parquet` reads the inputs once, buffering rows per partition
(``crawl=…/subset=…``); a partition's buffer is sorted and written as one file when it
holds ``rows_per_file`` rows, when all buffers together pass ``max_memory`` (the largest is
written) and at the end. Memory is therefore bounded, and each file is sorted by its rows'
CDXJ lines: by ``url_surtkey``, then in the order ``warckit index -f cdxj --sort`` gives
(the whole dataset is not globally sorted: files of one partition overlap in key ranges,
which readers handle by their per-row-group statistics).

The dataset is written into a fresh temporary directory next to *out_dir* and renamed
into place when complete: readers never see half a dataset, a failed run leaves nothing
behind, and nothing is ever written through a symlink. An existing, non-empty *out_dir*
is replaced only with ``force=True``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, cast

from ..cdx.indexer import DEFAULT_TYPES
from ..errors import Issue, ParseError, UsageError, WarckitError
from ..io.atomic import create_exclusive, temporary_name
from ..read.wacz import ARCHIVE_DIR, is_wacz, wacz_warcs
from .rows import cdxj_line, iter_rows
from .schema import COLUMNS, PARTITION_COLUMNS

__all__ = ["DEFAULT_MAX_MEMORY", "DEFAULT_ROWS_PER_FILE", "ROW_GROUP_ROWS", "WriteSummary", "write_parquet"]

#: Rows in one Parquet file at most.
DEFAULT_ROWS_PER_FILE = 1_000_000
#: Estimated bytes of buffered rows, over all partitions, before the largest is written.
DEFAULT_MAX_MEMORY = 512 * 1024 * 1024
#: zstd level: 9 makes the index 8 % smaller than pyarrow's default and costs nothing measurable,
#: the rows being a small part of the work (bench_scale.py).
ZSTD_LEVEL = 9
#: Rows per row group: small enough for key-range look-ups to skip most of a file.
ROW_GROUP_ROWS = 64 * 1024
#: Partition directory value of a null (Hive's, read back as null by Spark, DuckDB, pyarrow).
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
#: Estimated bytes of one buffered row beyond its strings (tuple, ints, datetime, key).
_ROW_OVERHEAD = 1200


@dataclass(slots=True)
class WriteSummary:
    """What :func:`write_parquet` wrote.

    Attributes:
        out_dir: The dataset directory.
        files: The Parquet files written, relative to *out_dir*, sorted.
        rows: Rows written.
        inputs: Input files read.
        issues: Lenient-mode recoveries reported.
    """

    out_dir: str
    files: list[str] = field(default_factory=list)
    rows: int = 0
    inputs: int = 0
    issues: int = 0


def _hive_value(value: str | None) -> str:
    """A partition value as a directory name part, escaped as Hive/Spark do."""
    if value is None or value == "":
        return NULL_PARTITION
    out = []
    for ch in value:
        if ch < " " or ch in '"#%\'*/:=?\\\x7f{[]^':
            out.append(f"%{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(slots=True)
class _Settings:
    root: str
    tag: str
    partition_by: tuple[str, ...]
    data_columns: tuple[str, ...]
    rows_per_file: int
    max_memory: int
    row_options: dict[str, Any]


class _Buffers:
    """Rows per partition, written as sorted files when full."""

    def __init__(self, settings: _Settings) -> None:
        self.s = settings
        self.parts: dict[tuple[str | None, ...], list[tuple[str, tuple[Any, ...]]]] = {}
        self.sizes: dict[tuple[str | None, ...], int] = {}
        self.total = 0
        self.files: list[str] = []
        self.rows = 0
        self._schema: Any = None

    def add(self, row: dict[str, Any]) -> None:
        part = tuple(row[name] for name in self.s.partition_by)
        values = tuple(row[name] for name in self.s.data_columns)
        line = cdxj_line(row)
        size = _ROW_OVERHEAD + 2 * len(line) + sum(len(v) for v in values if isinstance(v, str))
        buf = self.parts.setdefault(part, [])
        buf.append((line, values))
        self.sizes[part] = self.sizes.get(part, 0) + size
        self.total += size
        if len(buf) >= self.s.rows_per_file:
            self.flush(part)
        elif self.total > self.s.max_memory:
            self.flush(max(self.sizes, key=lambda p: self.sizes[p]))

    def flush(self, part: tuple[str | None, ...]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .schema import arrow_schema

        entries = self.parts.pop(part)
        self.total -= self.sizes.pop(part)
        if not entries:
            return
        entries.sort(key=lambda entry: entry[0])
        if self._schema is None:
            full = arrow_schema()
            self._schema = pa.schema([full.field(name) for name in self.s.data_columns])
        columns = list(zip(*(values for _, values in entries)))
        table = pa.Table.from_arrays(
            [pa.array(col, type=self._schema.field(i).type) for i, col in enumerate(columns)],
            schema=self._schema,
        )
        del entries, columns
        rel_dir = os.path.join(*(f"{name}={_hive_value(value)}" for name, value in zip(self.s.partition_by, part))) \
            if self.s.partition_by else ""
        directory = os.path.join(self.s.root, rel_dir)
        os.makedirs(directory, exist_ok=True)
        name = f"part-{self.s.tag}-{len(self.files):05d}.zstd.parquet"
        rel = os.path.join(rel_dir, name) if rel_dir else name
        fd = create_exclusive(os.path.join(self.s.root, rel))
        with os.fdopen(fd, "wb") as fh:
            pq.write_table(table, fh, compression="zstd", compression_level=ZSTD_LEVEL, row_group_size=ROW_GROUP_ROWS)
        self.files.append(rel)
        self.rows += table.num_rows

    def flush_all(self) -> None:
        for part in sorted(self.parts, key=lambda p: tuple(v or "" for v in p)):
            self.flush(part)


def _write_inputs(paths: Sequence[str], settings: _Settings, on_warning: Callable[[Issue], None] | None
                  ) -> tuple[list[str], int]:
    """Write the rows of *paths* into the dataset under construction; (files, rows)."""
    buffers = _Buffers(settings)
    for path in paths:
        for row in _input_rows(path, settings.row_options, on_warning):
            buffers.add(row)
    buffers.flush_all()
    return buffers.files, buffers.rows


def _input_rows(path: str, options: dict[str, Any], on_warning: Callable[[Issue], None] | None
                ) -> Iterator[dict[str, Any]]:
    """The rows of one input; a WACZ gives those of its WARCs, named as in its own index
    (their paths under ``archive/``), as ``warckit index`` does."""
    if not is_wacz(path):
        yield from iter_rows(path, on_warning=on_warning, **options)
        return
    with wacz_warcs(path) as warcs:
        for warc in warcs:
            yield from iter_rows(cast(IO[bytes], warc), filename=warc.member[len(ARCHIVE_DIR):],
                                 on_warning=on_warning, **options)


def _worker(paths: Sequence[str], settings: _Settings) -> tuple[list[str], int, list[Issue], str | None]:
    """A process of a parallel run: (files, rows, recoveries, the path that failed)."""
    issues: list[Issue] = []
    try:
        files, rows = _write_inputs(paths, settings, issues.append)
    except WarckitError as exc:
        return [], 0, issues, f"{exc}"
    return files, rows, issues, None


def _check_out_dir(out_dir: str, force: bool) -> bool:
    """Whether *out_dir* exists (as a directory to replace); raise if it must not be touched."""
    try:
        st = os.lstat(out_dir)
    except FileNotFoundError:
        return False
    import stat

    if stat.S_ISLNK(st.st_mode):
        raise UsageError(f"{out_dir}: is a symbolic link; give the dataset directory itself")
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{out_dir}: exists and is not a directory")
    if os.listdir(out_dir) and not force:
        raise UsageError(f"{out_dir}: exists and is not empty (use --force to replace it)")
    return True


def write_parquet(
    inputs: Iterable[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    crawl: str | None = None,
    partition_by: Sequence[str] = PARTITION_COLUMNS,
    rows_per_file: int = DEFAULT_ROWS_PER_FILE,
    max_memory: int = DEFAULT_MAX_MEMORY,
    types: Iterable[str] = DEFAULT_TYPES,
    detect: bool = True,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    jobs: int = 1,
    force: bool = False,
) -> WriteSummary:
    """Index WARC/ARC files into a Parquet dataset at *out_dir* (see the module doc).

    Args:
        inputs: WARC/ARC files, or WACZ packages (the WARCs inside them).
        out_dir: The dataset directory (created; replaced only with *force*).
        crawl: The ``crawl`` value of every row (default: from a ``crawl-data/NAME/``
            path, else ``unnamed``).
        partition_by: Partition columns, a subset of ``("crawl", "subset")`` in any
            order (``()``: no partition directories; the columns are then in the files).
        rows_per_file: Rows per file at most.
        max_memory: Estimated bytes of rows buffered at once (divided among *jobs*).
        types: Record types indexed.
        detect: Run the content detectors (:mod:`warckit.columnar.detect`).
        lenient: Read damaged files leniently.
        on_warning: Receives every lenient-mode recovery.
        jobs: Worker processes (inputs are shared out among them whole).
        force: Replace an existing non-empty *out_dir*.

    Raises:
        UsageError: pyarrow is missing, a bad argument, or *out_dir* may not be written.
        ParseError: Damaged input in strict mode (nothing is written then).
    """
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise UsageError("the Parquet index needs pyarrow: pip install 'warckit[parquet]'") from None
    parts = tuple(partition_by)
    unknown = [p for p in parts if p not in PARTITION_COLUMNS]
    if unknown or len(set(parts)) != len(parts):
        raise UsageError(f"partition columns must be distinct ones of {', '.join(PARTITION_COLUMNS)}; "
                         f"got {', '.join(parts) or 'none'}")
    if rows_per_file < 1 or max_memory < 1 or jobs < 1:
        raise UsageError("rows_per_file, max_memory and jobs must be positive")
    paths = [os.fspath(p) for p in inputs]
    dest = os.path.abspath(os.fspath(out_dir))
    exists = _check_out_dir(dest, force)
    parent = os.path.dirname(dest)
    tmp = temporary_name(os.path.join(parent, "." + os.path.basename(dest)), ".tmp")
    try:
        os.mkdir(tmp)  # fails on anything already there, symlinks included
    except OSError as exc:
        raise UsageError(f"{dest}: cannot create the dataset next to it ({exc.strerror})") from None
    summary = WriteSummary(os.fspath(out_dir), inputs=len(paths))
    counted: list[Issue] = []

    def report(issue: Issue) -> None:
        counted.append(issue)
        if on_warning is not None:
            on_warning(issue)

    try:
        jobs = min(jobs, max(1, len(paths)))
        base = _Settings(
            tmp, "0", parts, tuple(c for c in COLUMNS if c not in parts), rows_per_file,
            max(1, max_memory // jobs),
            {"crawl": crawl, "types": frozenset(types), "lenient": lenient, "detect": detect},
        )
        if jobs == 1:
            summary.files, summary.rows = _write_inputs(paths, base, report)
        else:
            _parallel(paths, base, jobs, report, summary)
        summary.files.sort()
        summary.issues = len(counted)
        _publish(tmp, dest, exists)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


def _parallel(paths: Sequence[str], base: _Settings, jobs: int, report: Callable[[Issue], None],
              summary: WriteSummary) -> None:
    """Share the inputs out among *jobs* processes (round robin, largest first)."""
    from ..read.workers import process_pool

    def size(p: str) -> int:
        try:
            return os.path.getsize(p)
        except OSError:
            return 0

    ordered = sorted(paths, key=size, reverse=True)
    groups = [ordered[i::jobs] for i in range(jobs)]
    with process_pool(jobs) as pool:
        futures = [
            pool.submit(_worker, group, _Settings(base.root, str(i), base.partition_by, base.data_columns,
                                                  base.rows_per_file, base.max_memory, base.row_options))
            for i, group in enumerate(groups)
        ]
        results = [f.result() for f in futures]
    for group, (files, rows, issues, error) in zip(groups, results):
        for issue in issues:
            report(issue)
        if error is not None:
            # Read the inputs again here: the error is raised as it is, naming file and offset.
            for path in group:
                for _ in _input_rows(path, {**base.row_options, "detect": False}, None):
                    pass
            raise ParseError(error)
        summary.files.extend(files)
        summary.rows += rows


def _publish(tmp: str, dest: str, exists: bool) -> None:
    """Rename the finished dataset *tmp* to *dest* (moving an old one aside first)."""
    if not exists:
        os.rename(tmp, dest)
        return
    if not os.listdir(dest):
        os.rename(tmp, dest)  # an empty directory is replaced in one step
        return
    old = f"{tmp[:-4]}.old"
    os.rename(dest, old)
    try:
        os.rename(tmp, dest)
    except OSError:
        os.rename(old, dest)
        raise
    shutil.rmtree(old, ignore_errors=True)
