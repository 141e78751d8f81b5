"""Index many files into one output: optional parallel processes, sorting, progress.

:func:`write_index` is what ``warckit index`` runs. With ``jobs > 1`` every input file is
indexed in a worker process into a temporary file; the parent then concatenates them in
input order, or feeds them through the external sort (:mod:`warckit.cdx.sort`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..read.workers import process_pool
from ..errors import Issue
from ..read.pieces import Forked
from .formats import header_line
from .indexer import IndexOptions, index_file, index_range, split_points
from .sort import DEFAULT_MAX_MEMORY, external_sort

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = ["write_index"]

_BATCH = 2048


def _index_to_file(
    path: str,
    options: IndexOptions,
    tmpdir: str | None,
    read_from: int = 0,
    start: int = 0,
    end: int | None = None,
) -> tuple[str | int, int, list[int]]:
    """Worker: index the records of *path* starting in ``[start, end)`` into a temporary file.

    Returns the file's name, its line count and the offsets of the last record before
    *end* and of the first at or past it (see :func:`~warckit.cdx.indexer.index_range`).
    """
    name = _piece_file(tmpdir)
    try:
        return _index_into(name, path, options, read_from, start, end)
    except BaseException:
        os.unlink(name)
        raise


def _piece_file(tmpdir: str | None) -> str:
    """A new empty temporary file for a piece's lines (a pool worker's: by name)."""
    import tempfile  # (5 ms: only runs that spill or split need it)

    fd, name = tempfile.mkstemp(prefix="warckit-index-", suffix=".part", dir=tmpdir)
    os.close(fd)
    return name


def _anonymous_file(tmpdir: str | None) -> int:
    """A descriptor of a new temporary file without a name, for a forked piece's lines:
    nothing is left behind whatever stops the run (SIGKILL included), and nothing to remove.

    In *tmpdir*, else the first directory :func:`tempfile.gettempdir` tries (``$TMPDIR``,
    ``$TEMP``, ``$TMP``, ``/tmp``) with Linux's ``O_TMPFILE``; where that fails, a
    :func:`_piece_file` unlinked at once (importing tempfile costs 5 ms).
    """
    if hasattr(os, "O_TMPFILE"):
        env = os.environ
        where = tmpdir or env.get("TMPDIR") or env.get("TEMP") or env.get("TMP") or "/tmp"
        try:
            return os.open(where, os.O_TMPFILE | os.O_RDWR, 0o600)
        except OSError:
            pass  # (a file system without O_TMPFILE, or not that directory: tempfile's way)
    name = _piece_file(tmpdir)
    try:
        return os.open(name, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    finally:
        os.unlink(name)


def _discard(piece: str | int) -> None:
    """Remove a piece's file: unlink a named one, close an anonymous one."""
    with contextlib.suppress(OSError):
        if isinstance(piece, int):
            os.close(piece)
        else:
            os.unlink(piece)


def _index_into(piece: str | int, path: str, options: IndexOptions, read_from: int, start: int,
                end: int | None) -> tuple[str | int, int, list[int]]:
    """:func:`_index_to_file` into *piece*, a temporary file its caller made (and removes):
    a name, or the descriptor of an anonymous file (written from its start)."""
    if isinstance(piece, int):
        fd = os.dup(piece)  # (the caller keeps its descriptor open to read the lines back)
    else:
        # Made exclusively by the caller; never follow a link put in its place.
        fd = os.open(piece, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))
    count = 0
    stopped: list[int] = []
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        batch: list[str] = []
        for line in index_range(path, options, start, end, read_from=read_from, stopped_at=stopped):
            batch.append(line)
            if len(batch) >= _BATCH:
                out.write(("\n".join(batch) + "\n").encode("utf-8"))
                count += len(batch)
                batch.clear()
        if batch:
            out.write(("\n".join(batch) + "\n").encode("utf-8"))
            count += len(batch)
    return piece, count, stopped


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


def _tasks(paths: Sequence[str], options: IndexOptions, jobs: int) -> list[tuple[str, int, int, int | None]]:
    """``(path, read_from, start, end)`` pieces: large gzip-per-record files are cut."""
    if jobs <= 1 or options.lenient or len(paths) >= 4 * jobs:
        return [(p, 0, 0, None) for p in paths]
    # One file: cut it in *jobs* pieces; several: only the large ones, in two.
    parts = jobs if len(paths) == 1 else min(jobs, 2)
    tasks: list[tuple[str, int, int, int | None]] = []
    for path in paths:
        read_from = start = 0
        for before, at in split_points(path, parts, options):
            tasks.append((path, read_from, start, at))
            read_from, start = before, at
        tasks.append((path, read_from, start, None))
    return tasks


class _Done:
    """A piece's outcome, shaped like the finished future of the process pool."""

    def __init__(self, result: tuple[str | int, int, list[int]] | None) -> None:
        self._result = result

    def result(self) -> tuple[str | int, int, list[int]]:
        if self._result is None:
            raise RuntimeError("the piece failed")
        return self._result

    def done(self) -> bool:
        return True

    def cancelled(self) -> bool:
        return False

    def exception(self) -> BaseException | None:
        return None if self._result is not None else RuntimeError("the piece failed")


def _forked(tasks: Sequence[tuple[str, int, int, int | None]], options: IndexOptions,
            tmpdir: str | None) -> list[_Done]:
    """Index the pieces in forked children, the last one in this process.

    Cheaper to start than a process pool (no multiprocessing import, no pool threads):
    each child (:class:`~warckit.read.pieces.Forked`) writes its piece to an anonymous
    temporary file this process made (:func:`_anonymous_file`) and reports its line count
    and stop offsets; a child that fails reports nothing.
    """
    # This process makes every piece's file before the children start, so that the files
    # go with it whatever stops it: they have no name to leave behind.
    files: list[int] = []
    children: list[Forked] = []
    try:
        for path, read_from, start, end in tasks:
            files.append(_anonymous_file(tmpdir))
            if len(files) < len(tasks):
                children.append(Forked(_index_into, files[-1], path, options, read_from, start, end))
        mine: tuple[str | int, int, list[int]] | None
        try:
            mine = _index_into(files[-1], path, options, read_from, start, end)
        except Exception:  # noqa: BLE001 - the caller re-indexes a failed piece and reports its error
            mine = None
        results = [child.result() for child in children]
    except BaseException:
        for child in children:
            child.cancel()
        for fd in files:
            _discard(fd)
        raise
    results.append(mine)
    for fd, result in zip(files, results):
        if result is None:  # (the caller closes the files of the pieces that came back)
            _discard(fd)
    return [_Done(result) for result in results]


def _lines_in_order(
    paths: Sequence[str],
    options: IndexOptions,
    jobs: int,
    progress: _Progress,
    on_warning: Callable[[Issue], None] | None,
    tmpdir: str | None,
    blocks: bool = False,
) -> Iterator[bytes]:
    """The index lines of *paths* in input order (with *blocks*, a finished piece's lines
    come as large blocks of whole lines, for callers that only copy them)."""
    tasks = _tasks(paths, options, jobs) if jobs > 1 else []
    if len(tasks) <= 1:
        for path in paths:
            for line in index_file(path, options, on_warning=on_warning):
                yield line.encode("utf-8") + b"\n"
            progress.done(path)
        return
    names: list[str | int] = []  # the pieces' files: names (pool), descriptors (forked)
    futures: list[Any] = []
    try:
        with contextlib.ExitStack() as stack:
            if len(tasks) <= jobs and hasattr(os, "fork") and sys.platform != "darwin":
                futures = _forked(tasks, options, tmpdir)
            else:
                pool = stack.enter_context(process_pool(min(jobs, len(tasks))))
                futures = [pool.submit(_index_to_file, p, options, tmpdir, r, a, b) for p, r, a, b in tasks]
            redo: str | None = None  # a file being finished in this process after a bad piece
            for i, ((path, read_from, start, end), future) in enumerate(zip(tasks, futures)):
                if redo == path:
                    continue
                redo = None
                try:
                    name, _, stopped = future.result()
                except Exception:
                    name, stopped = None, []
                if name is not None:
                    names.append(name)
                if name is None or (end is not None and stopped[1:] != [end]) or (
                    i + 1 < len(tasks) and tasks[i + 1][0] == path and stopped[:1] != [tasks[i + 1][1]]
                ):
                    # The piece failed or its end was no record start: index the rest of
                    # the file here, which also reports any error exactly where it is.
                    redo = path
                    for line in index_range(
                        path, options, start, None, read_from=read_from, on_warning=on_warning
                    ):
                        yield line.encode("utf-8") + b"\n"
                    progress.done(path)
                    continue
                with open(name, "rb", closefd=not isinstance(name, int)) as fh:
                    fh.seek(0)  # (a descriptor is where the piece's writes left it)
                    if blocks:
                        while block := fh.read(1 << 20):
                            rest = fh.readline()  # finish the last line of the block
                            yield block + rest if rest else block
                    else:
                        yield from fh
                if end is None:
                    progress.done(path)
    finally:
        # The pool has shut down: every submitted piece has finished or was cancelled.
        for future in futures:
            if future.done() and not future.cancelled() and future.exception() is None:
                name = future.result()[0]
                if name not in names:
                    names.append(name)
        for name in names:
            _discard(name)


def _copy_lines(items: Iterable[bytes], out: IO[bytes]) -> int:
    """Write lines (batched) or blocks of whole lines (at once); return how many lines."""
    count = 0
    batch: list[bytes] = []
    for item in items:
        count += item.count(b"\n")
        if len(item) > 65536:  # a block: written at once, so memory stays bounded
            out.writelines(batch)
            batch.clear()
            out.write(item)
            continue
        batch.append(item)
        if len(batch) >= _BATCH:
            out.writelines(batch)
            batch.clear()
    out.writelines(batch)
    return count


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
        jobs: Worker processes. With more than one, files are indexed at once and a
            large gzip-per-record file is cut at record boundaries into pieces indexed in
            parallel (see :mod:`warckit.read.pieces`); the output is the same.
        header: Write the format's header / legend line first (none for CDXJ); the
            new-style header says ``sorted`` or ``unsorted``.
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
    head = header_line(opts.format, is_sorted=sort) if header else None
    try:
        if sort:
            lines = _lines_in_order(names, opts, max(1, jobs), bar, on_warning, tmpdir)
            return external_sort(lines, out, max_memory=max_memory, tmpdir=tmpdir, header=head)
        if head is not None:
            out.write(head.encode("utf-8") + b"\n")
        return _copy_lines(_lines_in_order(names, opts, max(1, jobs), bar, on_warning, tmpdir, True), out)
    finally:
        bar.close()
