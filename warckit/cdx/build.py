"""Index many files into one output: optional parallel processes, sorting, progress.

:func:`write_index` is what ``warckit index`` runs. With ``jobs > 1`` every input file is
indexed in a worker process into a temporary file; the parent then concatenates them in
input order, or feeds them through the external sort (:mod:`warckit.cdx.sort`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import IO, Any

from ..errors import Issue
from .formats import header_line
from .indexer import IndexOptions, index_file
from .sort import DEFAULT_MAX_MEMORY, external_sort

__all__ = ["write_index"]

_BATCH = 2048


def _index_to_file(path: str, options: IndexOptions, tmpdir: str | None) -> tuple[str, int]:
    """Worker: index *path* into a temporary file; return its name and line count."""
    fd, name = tempfile.mkstemp(prefix="warckit-index-", suffix=".part", dir=tmpdir)
    count = 0
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        batch: list[str] = []
        for line in index_file(path, options):
            batch.append(line)
            if len(batch) >= _BATCH:
                out.write(("\n".join(batch) + "\n").encode("utf-8"))
                count += len(batch)
                batch.clear()
        if batch:
            out.write(("\n".join(batch) + "\n").encode("utf-8"))
            count += len(batch)
    return name, count


class _Progress:
    """A tqdm bar over input bytes when stderr is a terminal and tqdm is installed."""

    def __init__(self, paths: Sequence[str], enabled: bool | None) -> None:
        self.bar: Any = None
        if enabled is None:
            enabled = sys.stderr.isatty()
        if not enabled:
            return
        try:
            from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]  # optional extra
        except ImportError:
            return
        total = 0
        for p in paths:
            try:
                total += os.path.getsize(p)
            except OSError:
                pass
        self.bar = tqdm(total=total, unit="B", unit_scale=True, desc="index", file=sys.stderr)

    def done(self, path: str) -> None:
        if self.bar is not None:
            try:
                self.bar.update(os.path.getsize(path))
            except OSError:
                pass

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _lines_in_order(
    paths: Sequence[str],
    options: IndexOptions,
    jobs: int,
    progress: _Progress,
    on_warning: Callable[[Issue], None] | None,
    tmpdir: str | None,
) -> Iterator[bytes]:
    if jobs <= 1 or len(paths) <= 1:
        for path in paths:
            for line in index_file(path, options, on_warning=on_warning):
                yield line.encode("utf-8") + b"\n"
            progress.done(path)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_index_to_file, p, options, tmpdir) for p in paths]
        names: list[str] = []
        try:
            for path, future in zip(paths, futures):
                name, _ = future.result()
                names.append(name)
                progress.done(path)
                with open(name, "rb") as fh:
                    yield from fh
        finally:
            for future in futures:
                if future.done() and future.exception() is None:
                    name = future.result()[0]
                    if name not in names:
                        names.append(name)
            for name in names:
                try:
                    os.unlink(name)
                except OSError:
                    pass


def write_index(
    paths: Iterable[str | os.PathLike[str]],
    out: IO[bytes],
    options: IndexOptions | None = None,
    *,
    sort: bool = False,
    jobs: int = 1,
    header: bool = True,
    max_memory: int = DEFAULT_MAX_MEMORY,
    progress: bool | None = None,
    on_warning: Callable[[Issue], None] | None = None,
    tmpdir: str | None = None,
) -> int:
    """Index WARC/ARC files into *out*.

    Args:
        paths: Input files.
        out: Binary output.
        options: Format and record selection (:class:`IndexOptions`).
        sort: Sort the output bytewise (bounded-memory external sort).
        jobs: Index this many files at once in worker processes.
        header: Write the format's header / legend line first (none for CDXJ).
        max_memory: Memory budget of the sort.
        progress: Show a progress bar (default: when stderr is a terminal).
        on_warning: Receives recoveries in lenient mode (single-process runs only).
        tmpdir: Directory for temporary files.

    Returns:
        The number of index lines written (header excluded).
    """
    opts = options or IndexOptions()
    names = [os.fspath(p) for p in paths]
    bar = _Progress(names, progress)
    head = header_line(opts.format) if header else None
    try:
        lines = _lines_in_order(names, opts, max(1, jobs), bar, on_warning, tmpdir)
        if sort:
            return external_sort(lines, out, max_memory=max_memory, tmpdir=tmpdir, header=head)
        if head is not None:
            out.write(head.encode("utf-8") + b"\n")
        count = 0
        batch: list[bytes] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= _BATCH:
                out.writelines(batch)
                count += len(batch)
                batch.clear()
        out.writelines(batch)
        return count + len(batch)
    finally:
        bar.close()
