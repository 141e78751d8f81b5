"""What a Spark task runs: one input file → rows, its failure captured as an error row.

Pure Python (no pyspark import): executors run these functions; the driver modules wrap
them. A file that fails part-way keeps the rows it produced before the error, and adds one
error row naming the input, the error's class, its message and the byte offset.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple, Protocol, cast

from ..cdx.indexer import IndexOptions, index_file
from ..errors import Issue
from ..io.remote import is_url
from ..io.sources import open_source

__all__ = ["Counters", "FileError", "failure", "guarded", "index_lines"]


class FileError(NamedTuple):
    """One failed input: the row of the job's error table."""

    input: str
    error: str
    message: str
    offset: int | None


class _Adder(Protocol):
    def add(self, term: Any) -> None: ...


class Counters(NamedTuple):
    """Spark accumulators a task adds to (anything with ``add``)."""

    files_ok: _Adder
    files_failed: _Adder
    records: _Adder
    issues: _Adder


def failure(source: str, exc: BaseException) -> FileError:
    """The error-table row of *exc*, raised while reading *source*."""
    offset = getattr(exc, "offset", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return FileError(source, type(exc).__name__, str(message), offset if isinstance(offset, int) else None)


def guarded(
    source: str,
    produce: Callable[[Callable[[Issue], None]], Iterator[Any]],
    counters: Counters,
    error_row: Callable[[FileError], Any],
) -> Iterator[Any]:
    """The rows ``produce(on_warning)`` yields for *source*; on an exception, an error
    row (after the rows already yielded) instead of a failed task."""
    issues = 0

    def on_warning(_issue: Issue) -> None:
        nonlocal issues
        issues += 1

    count = 0
    try:
        for row in produce(on_warning):
            count += 1
            yield row
    except Exception as exc:  # noqa: BLE001 - every failure of an input is data, never a failed job
        counters.files_failed.add(1)
        yield error_row(failure(source, exc))
    else:
        counters.files_ok.add(1)
    finally:
        counters.records.add(count)
        counters.issues.add(issues)


def index_lines(source: str, options: IndexOptions, storage_options: dict[str, Any] | None,
                on_warning: Callable[[Issue], None], name: str | None = None) -> Iterator[bytes]:
    """The index lines of *source* (a path or URL), each ending ``\\n`` (the sort key:
    bytewise order of the lines with their newline is ``warckit index --sort``'s order);
    *name* is the file name written into them (default: the base name)."""
    if name is not None:
        options = options.replace(filename=name)
    if is_url(source):
        opts = options if options.filename is not None else options.replace(
            filename=os.path.basename(source.split("?", 1)[0].rstrip("/")))
        with open_source(source, storage_options=storage_options) as fh:
            for line in index_file(cast(IO[bytes], fh.file), opts, on_warning=on_warning):
                yield line.encode("utf-8") + b"\n"
        return
    for line in index_file(source, options, on_warning=on_warning):
        yield line.encode("utf-8") + b"\n"
