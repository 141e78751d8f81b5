"""The one place that opens an input: a path, ``-`` (standard input), a URL or a file object.

Every reader, indexer and tool turns what the caller gave into a :class:`Source`
here, so a new kind of input (``https://``, ``s3://``) is added once, in
:func:`open_source`, and every command takes it.
"""

from __future__ import annotations

import io
import os
import sys

from .._util.lazy import typing_aliases
from ..errors import UsageError

__all__ = ["ARCHIVE_SUFFIXES", "STDIN", "InputLike", "Source", "archives_under", "is_zip", "open_source"]

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO, Any, BinaryIO

    #: What :func:`open_source` accepts: a path, ``"-"``, a URL, or a binary file object.
    InputLike = str | os.PathLike[str] | BinaryIO | IO[bytes]


# InputLike is made on first use: it needs typing, which reading a file does not.
__getattr__ = typing_aliases(__name__, globals(),
                             InputLike=lambda t: str | os.PathLike[str] | t.BinaryIO | t.IO[bytes])


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"InputLike"})

#: The path that means standard input (a :class:`pathlib.Path` ``"-"`` stays a file name).
STDIN = "-"


class Source:
    """An opened input: the binary file, its name for messages, and who closes it.

    Attributes:
        file: A binary file object positioned where the caller asked.
        name: The name errors and issues carry (the path, ``<stdin>``, or the file
            object's ``name``).
        owned: Whether :meth:`close` closes *file* (True when this module opened it).
        seekable: Whether *file* can seek (standard input and pipes cannot).
    """

    __slots__ = ("file", "name", "owned", "seekable")

    def __init__(self, file: Any, name: str, owned: bool) -> None:
        self.file = file
        self.name = name
        self.owned = owned
        try:
            self.seekable: bool = bool(file.seekable())
        except (AttributeError, ValueError, OSError):
            self.seekable = False

    def peek(self, n: int) -> bytes:
        """The next *n* bytes (fewer at the end) without consuming them.

        A file that can neither peek nor seek is wrapped in a buffered reader first
        (``file`` is then that wrapper).
        """
        f = self.file
        if hasattr(f, "peek"):
            data: bytes = f.peek(n)[:n]
            return data
        if self.seekable:
            pos = f.tell()
            data = f.read(n)
            f.seek(pos)
            return data
        self.file = f = io.BufferedReader(f)
        data = f.peek(n)[:n]
        return data

    def close(self) -> None:
        """Close the file if this source opened it."""
        if self.owned:
            self.file.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Source({self.name!r}, owned={self.owned}, seekable={self.seekable})"


def open_source(
    source: InputLike,
    *,
    name: str | None = None,
    storage_options: dict[str, Any] | None = None,
    span: tuple[int, int | None] | None = None,
) -> Source:
    """Open *source* for binary reading.

    Args:
        source: A path (``str`` or :class:`os.PathLike`), the string ``"-"`` for
            standard input, a URL (``https://``, ``s3://``, any installed fsspec
            protocol: :mod:`warckit.io.remote`), or a binary file object (used as it
            is, never closed).
        name: The name used in messages instead of the one derived from *source*.
        storage_options: For a URL: fsspec options (credentials, endpoint…).
        span: For a URL: ``(offset, length)`` the caller reads first, fetched in one
            request (a record and its CDX length). Local inputs ignore it.

    Raises:
        OSError: the path cannot be opened (as :func:`open` raises it); for a URL a
            :class:`~warckit.errors.RemoteError`.
        UsageError: *source* is a text-mode file object, or a URL without fsspec.
    """
    if isinstance(source, str):
        if source == STDIN:
            return Source(sys.stdin.buffer, name or "<stdin>", owned=False)
        if "://" in source:
            from .remote import is_url, open_url  # (imported only when a URL may be given)

            if is_url(source):
                remote = open_url(source, storage_options=storage_options, span=span)
                return Source(remote, name or source, owned=True)
    if isinstance(source, (str, os.PathLike)):
        f = open(source, "rb")  # noqa: SIM115 - the Source closes it
        return Source(f, name or os.fspath(source), owned=True)
    if isinstance(source, io.TextIOBase):
        raise UsageError(f"{getattr(source, 'name', '<stream>')}: a text-mode file; open it with 'rb'")
    return Source(source, name or str(getattr(source, "name", "<stream>")), owned=False)


#: File names a directory argument expands to (case-insensitive).
ARCHIVE_SUFFIXES: tuple[str, ...] = (".warc", ".warc.gz", ".warc.zst", ".arc", ".arc.gz")


def archives_under(directory: str) -> list[str]:
    """The WARC/ARC files (by :data:`ARCHIVE_SUFFIXES`) under *directory*, sorted.

    Raises:
        UsageError: There are none.
    """
    found = sorted(
        os.path.join(root, name)
        for root, _dirs, names in os.walk(directory)
        for name in names
        if name.lower().endswith(ARCHIVE_SUFFIXES)
    )
    if not found:
        raise UsageError(f"{directory}: no WARC/ARC files ({', '.join(ARCHIVE_SUFFIXES)}) in this directory")
    return found


def is_zip(path: str) -> bool:
    """Whether the file or URL at *path* is a ZIP file, as a WACZ is (by its first four
    bytes); ``-`` is not. A URL is asked for its first bytes (one small ranged request).

    Here rather than with the WACZ reader, so that a command can tell WACZs among its
    inputs without importing the ZIP layer.
    """
    from .compression import ZIP_LOCAL_MAGIC

    if path == STDIN:
        return False
    if "://" in path:
        from .remote import is_url

        if is_url(path):
            with open_source(path, span=(0, 4)) as src:
                return src.peek(4) == ZIP_LOCAL_MAGIC
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(4) == ZIP_LOCAL_MAGIC
