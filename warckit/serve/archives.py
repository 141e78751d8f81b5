"""The WARC files a collection serves: finding a file by name, byte ranges, one record.

A collection's archive locations are local directories or URL prefixes (``https://``,
``s3://``: :mod:`warckit.io.remote`). A request names a plain file name; it is looked for
in each location in order. Nothing outside the locations is reachable: names with a path
separator, ``..`` or a NUL are refused, and a local file whose real path (symlinks
resolved) leaves its directory is treated as absent.

No starlette here: the app turns these answers into responses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from ..errors import ParseError, RecordParseError, RemoteError, UsageError, WarckitError
from ..io.remote import is_not_found, is_url
from ..io.sources import ARCHIVE_SUFFIXES, open_source
from ..read.reader import open_archive

__all__ = [
    "CHUNK",
    "ArchiveFile",
    "Archives",
    "FileNotInArchive",
    "RangeNotSatisfiable",
    "byte_range",
    "content_type",
    "iter_bytes",
    "record_extent",
]

#: Bytes read per chunk of a response body.
CHUNK = 1 << 16


class FileNotInArchive(WarckitError, LookupError):
    """No archive location of the collection has a file of that name (the app answers 404)."""


class RangeNotSatisfiable(WarckitError, ValueError):
    """A ``Range`` the file cannot satisfy (the app answers 416)."""


@dataclass(frozen=True, slots=True)
class ArchiveFile:
    """A WARC file found in an archive location: where it is and its size in bytes."""

    name: str
    location: str  # a local path or a URL
    size: int


_SAFE_NAME = re.compile(r"[^/\\\x00]+")


def check_filename(name: str) -> None:
    """Refuse anything but the plain file name of a WARC or ARC file.

    Only names ending in :data:`~warckit.io.sources.ARCHIVE_SUFFIXES` are served: the
    default archive location is the index's directory, which may hold other files (the
    index itself, configuration) that are not the archive's to give away.

    Raises:
        FileNotInArchive: *name* has a path separator or NUL, starts with a dot, or is
            not a WARC/ARC file name.
    """
    if not _SAFE_NAME.fullmatch(name) or name.startswith("."):
        raise FileNotInArchive(f"not a file name: {name!r}")
    if not name.lower().endswith(ARCHIVE_SUFFIXES):
        raise FileNotInArchive(f"not a WARC or ARC file name ({', '.join(ARCHIVE_SUFFIXES)}): "
                               f"{name!r}")


class Archives:
    """The archive locations of one collection (directories or URL prefixes), searched in order."""

    def __init__(self, locations: Sequence[str]) -> None:
        self.locations = tuple(locations)
        self._real = {loc: os.path.realpath(loc) for loc in self.locations if not is_url(loc)}

    def find(self, name: str) -> ArchiveFile:
        """The file called *name* in the first location that has it.

        Raises:
            FileNotInArchive: no location has it (or *name* is not a plain file name).
            RemoteError: a URL location could not be asked (other than "not found").
        """
        check_filename(name)
        for loc in self.locations:
            if is_url(loc):
                found = _find_remote(loc, name)
            else:
                found = self._find_local(loc, name)
            if found is not None:
                return found
        raise FileNotInArchive(f"no file {name!r} in this collection's archives")

    def _find_local(self, directory: str, name: str) -> ArchiveFile | None:
        path = os.path.join(directory, name)
        real = os.path.realpath(path)
        root = self._real[directory]
        # A symlink may point anywhere: only a target inside the directory is served.
        if os.path.commonpath([root, real]) != root or not os.path.isfile(real):
            return None
        return ArchiveFile(name, real, os.path.getsize(real))


def _find_remote(prefix: str, name: str) -> ArchiveFile | None:
    url = prefix.rstrip("/") + "/" + quote(name)
    try:
        with open_source(url) as src:
            size = src.file.seek(0, os.SEEK_END)
    except FileNotFoundError:
        return None
    except RemoteError as exc:
        if is_not_found(exc):
            return None
        raise
    return ArchiveFile(name, url, int(size))


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The ``(start, end)`` (end exclusive) a ``Range`` header asks of *size* bytes.

    ``None``: serve the whole file (no header, or one this server ignores as RFC 9110
    allows: not ``bytes=``, several ranges, or malformed).

    Raises:
        RangeNotSatisfiable: a well-formed single range that starts past the end.
    """
    if header is None:
        return None
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    match = re.fullmatch(r"\s*(\d*)\s*-\s*(\d*)\s*", spec)
    if match is None or not (match[1] or match[2]):
        return None
    if match[1]:
        start = int(match[1])
        end = int(match[2]) + 1 if match[2] else size
        if match[2] and end <= start:
            return None  # last-byte-pos before first-byte-pos: invalid, ignored
        if start >= size:
            raise RangeNotSatisfiable(f"range starts at {start}, the file has {size} bytes")
        return start, min(end, size)
    suffix = int(match[2])
    if suffix == 0:
        raise RangeNotSatisfiable("an empty suffix range")
    return max(size - suffix, 0), size


def iter_bytes(location: str, start: int, end: int) -> Iterator[bytes]:
    """Bytes ``[start, end)`` of *location*, in chunks of at most :data:`CHUNK`.

    Raises:
        OSError: the file cannot be read, or ends before *end* (it shrank).
    """
    length = end - start
    with open_source(location, span=(start, length)) as src:
        f = src.file
        f.seek(start)
        left = length
        while left:
            data = f.read(min(left, CHUNK))
            if not data:
                raise OSError(f"{location}: ends at offset {end - left}, before {end}")
            left -= len(data)
            yield data


def record_extent(location: str, name: str, offset: int) -> int:
    """The length in the file of the one record at *offset* (compressed size if compressed).

    Raises:
        ParseError: there is no record at *offset* (the error names the file and offset).
        UsageError: the file does not frame records (whole-file gzip): give ``length``.
    """
    with open_archive(location, offset=offset, name=name, readahead=False) as reader:
        record = next(reader, None)
        if record is None:
            raise RecordParseError("no record at this offset", offset=offset, source=name)
        # Moving on to the next record skips this one's body (no spooling) and settles
        # its length; a damaged next record does not concern this one.
        try:
            next(reader, None)
        except ParseError:
            pass
        length: int | None = record.length
    if length is None:
        raise UsageError(f"{name}: the record at offset {offset} does not end on a gzip member "
                         "boundary (whole-file gzip): give length")
    return length


def content_type(name: str) -> str:
    """The media type a WARC file or record is served with (never a Content-Encoding:
    a gzipped record is sent as stored)."""
    lower = name.lower()
    if ".warc" in lower:
        return "application/warc"
    return "application/octet-stream"
