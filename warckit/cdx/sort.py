"""Bounded-memory external sort and merge of index lines (bytewise, as ``LC_ALL=C sort``).

Lines are handled as UTF-8 bytes: bytewise order of UTF-8 equals code point order, which is
what ``LC_ALL=C sort`` and every CDX reader expect. :func:`external_sort` keeps at most
*max_memory* bytes of lines (counting Python's per-object overhead) in memory, spills sorted
runs to temporary files and merges them with :func:`heapq.merge`. Header / legend lines
(``!…`` and `` CDX …``) are kept once, first.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack

from ..errors import ParseError, UnsortedIndexError
from ..io.remote import is_url
from ..io.sources import open_source
from .formats import detect_format, header_line, header_sorted, parse_line

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO
    from .formats import FormatName

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "external_sort",
    "is_header",
    "merge_files",
    "merge_sorted",
    "sort_file",
]

#: Default memory budget of one sort: 64 MiB of lines.
DEFAULT_MAX_MEMORY = 64 * 1024 * 1024
#: Estimated bytes of a ``bytes`` object and its list slot beyond its content.
_OVERHEAD = 33 + 8 + 16
#: Lines handed to ``writelines`` at once when streaming a merge.
_BATCH = 4096


def is_header(line: bytes) -> bool:
    """Whether *line* is a header (new-style ``!…``) or classic legend (`` CDX …``)."""
    return line[:1] == b"!" or line[:5] == b" CDX "


def _normalize(line: bytes | str) -> bytes:
    data = line.encode("utf-8") if isinstance(line, str) else line
    if not data.endswith(b"\n"):
        data += b"\n"
    elif data.endswith(b"\r\n"):
        data = data[:-2] + b"\n"
    return data


def _spill(run: list[bytes], tmpdir: str | None) -> str:
    run.sort()
    import tempfile  # (4 ms: only runs that spill or split need it)

    fd, name = tempfile.mkstemp(prefix="warckit-sort-", suffix=".run", dir=tmpdir)
    with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
        fh.writelines(run)
    return name


def write_lines(lines: Iterable[bytes], out: IO[bytes], unique: bool = False) -> int:
    """Write *lines* in batches (dropping repeats of the previous line if *unique*);
    return how many were written."""
    count = 0
    batch: list[bytes] = []
    last: bytes | None = None
    for line in lines:
        if unique and line == last:
            continue
        last = line
        batch.append(line)
        if len(batch) >= _BATCH:
            out.writelines(batch)
            count += len(batch)
            batch.clear()
    out.writelines(batch)
    return count + len(batch)


def external_sort(
    lines: Iterable[bytes | str],
    out: IO[bytes],
    *,
    max_memory: int = DEFAULT_MAX_MEMORY,
    tmpdir: str | None = None,
    unique: bool = False,
    header: str | bytes | None = None,
) -> int:
    """Sort *lines* bytewise into *out* using at most about *max_memory* bytes.

    Args:
        lines: Index lines (str or bytes, with or without newlines). Header lines among
            them are dropped; pass *header* to write one.
        out: Binary output.
        max_memory: Budget for lines held in memory before a sorted run is spilled.
        tmpdir: Directory for the runs (default: the system temporary directory).
        unique: Drop repeated identical lines.
        header: Line to write first.

    Returns:
        The number of lines written, header excluded.
    """
    if max_memory < 1024:
        raise ValueError("max_memory must be at least 1024 bytes")
    runs: list[str] = []
    run: list[bytes] = []
    size = 0
    try:
        for raw in lines:
            line = _normalize(raw)
            if is_header(line):
                continue
            run.append(line)
            size += len(line) + _OVERHEAD
            if size >= max_memory:
                runs.append(_spill(run, tmpdir))
                run = []
                size = 0
        if header is not None:
            out.write(_normalize(header))
        if not runs:
            run.sort()
            return write_lines(run, out, unique)
        if run:
            runs.append(_spill(run, tmpdir))
            run = []
        with ExitStack() as stack:
            files = [stack.enter_context(open(name, "rb", buffering=1 << 16)) for name in runs]
            return write_lines(heapq.merge(*files), out, unique)
    finally:
        for name in runs:
            try:
                os.unlink(name)
            except OSError:
                pass


def _body(fh: IO[bytes]) -> Iterator[bytes]:
    for line in fh:
        if is_header(line):
            continue
        yield _normalize(line)


_SORT_WHILE_MERGING = "merge it with --unsorted (sorted while merging, bounded memory)"


def _sorted_body(fh: IO[bytes], path: str, fmt: FormatName) -> Iterator[bytes]:
    """The lines of a sorted index, checking that each is a line of *fmt* and sorts at
    or after the one before."""
    previous: bytes | None = None
    number = offset = 0
    for raw in fh:
        number += 1
        here = offset
        offset += len(raw)
        if is_header(raw) or raw.isspace():
            continue
        try:
            parse_line(raw.decode("utf-8", "surrogateescape").rstrip("\r\n"), fmt)
        except ParseError as exc:
            raise ParseError(f"line {number}: {exc.message}", source=path, offset=here) from None
        line = _normalize(raw)
        if previous is not None and line < previous:
            shown = line[:80].rstrip(b"\n").decode("utf-8", "replace")
            above = previous[:80].rstrip(b"\n").decode("utf-8", "replace")
            raise UnsortedIndexError(path, number, here, f"not sorted: {shown!r} comes after "
                                     f"{above!r}; {_SORT_WHILE_MERGING}")
        previous = line
        yield line


def _open_index(path: str | os.PathLike[str]) -> IO[bytes]:
    """An index file to read in order: a path (64 KiB buffer), or a URL (ranged reads)."""
    if isinstance(path, str) and "://" in path and is_url(path):
        file: IO[bytes] = open_source(path).file  # (owned: closing the file is enough)
        return file
    return open(path, "rb", buffering=1 << 16)


def _first_line(path: str | os.PathLike[str]) -> str:
    with _open_index(path) as fh:
        return fh.readline().decode("utf-8", "replace")


def _format_of(path: str | os.PathLike[str], first: str) -> FormatName:
    try:
        return detect_format(first)
    except ParseError as exc:
        raise exc.located(source=os.fspath(path), offset=0) from None


def merge_sorted(
    paths: Sequence[str | os.PathLike[str]], out: IO[bytes], *, unique: bool = False
) -> int:
    """Merge already-sorted index files of one format into *out*, one header first.

    Raises:
        ParseError: The files are of different formats.
        UnsortedIndexError: A file's header says it is unsorted (nothing written), or
            a line sorts before the one above it (*out* then holds a partial merge).

    Returns:
        The number of lines written, header excluded.
    """
    fmt: FormatName | None = None
    for path in paths:
        first = _first_line(path)
        if not first.strip():
            continue
        this = _format_of(path, first)
        if fmt is not None and this != fmt:
            raise ParseError(f"cannot merge {fmt} and {this} indexes", source=os.fspath(path),
                             offset=0)
        fmt = this
        if header_sorted(first) is False:
            raise UnsortedIndexError(os.fspath(path), 1, 0, "the header says the index is "
                                     f"unsorted; {_SORT_WHILE_MERGING}")
    header = header_line(fmt) if fmt is not None else None
    if header is not None:
        out.write(header.encode("utf-8") + b"\n")
    with ExitStack() as stack:
        files = [stack.enter_context(_open_index(p)) for p in paths]
        bodies = [_sorted_body(f, os.fspath(p), fmt) for f, p in zip(files, paths)
                  if fmt is not None]
        return write_lines(heapq.merge(*bodies), out, unique)


def merge_files(
    paths: Sequence[str | os.PathLike[str]],
    out: IO[bytes],
    *,
    unique: bool = False,
    presorted: bool = True,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> int:
    """Merge index files; with ``presorted=False`` the input is sorted first (external sort).

    Raises:
        UnsortedIndexError: ``presorted`` and an input is not sorted (see :func:`merge_sorted`).
    """
    if presorted:
        return merge_sorted(paths, out, unique=unique)
    fmt: FormatName | None = None
    for path in paths:
        first = _first_line(path)
        if first.strip():
            fmt = _format_of(path, first)
            break

    def all_lines() -> Iterator[bytes]:
        for path in paths:
            with _open_index(path) as fh:
                yield from fh

    header = header_line(fmt) if fmt is not None else None
    return external_sort(all_lines(), out, max_memory=max_memory, unique=unique, header=header)


def sort_file(
    path: str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    *,
    max_memory: int = DEFAULT_MAX_MEMORY,
    unique: bool = False,
) -> int:
    """Sort one index file into *out_path* (may be the same path)."""
    from ..io.atomic import replacing

    with replacing(out_path, ".sorting") as out:
        count = merge_files([path], out, presorted=False, max_memory=max_memory, unique=unique)
    return count
