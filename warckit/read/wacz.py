"""Reading a WACZ package as an archive: the records of every WARC inside it, in turn.

:class:`~warckit.ArchiveReader` (so :func:`warckit.open`) recognizes a ZIP file by its
first four bytes and becomes a :class:`WaczReader`: the WARCs under ``archive/`` are
read in the order of ``datapackage.json`` (ZIP order when it is missing or lists none),
each through an ordinary reader over the member's byte range
(:class:`~warckit.io.zipped.MemberFile`). Record offsets are offsets in that WARC, as
the WACZ's own index gives them; ``reader.member`` names the WARC being read and
``reader.name`` is ``package#archive/name.warc.gz`` meanwhile (the package's name
before the first record and after the last).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, cast

from ..errors import Issue, ParseError, UsageError
from ..io.sources import InputLike, Source, is_zip, open_source
from ..io.zipped import (
    MemberFile,
    ZipMember,
    open_member,
    read_directory,
    read_member,
)
from ..record.records import WarcRecord
from .reader import ArchiveReader

__all__ = ["ARCHIVE_DIR", "WaczReader", "archive_members", "is_wacz", "package_resources", "wacz_warcs"]

#: The WACZ folder of WARC files.
ARCHIVE_DIR = "archive/"
DATAPACKAGE = "datapackage.json"


def package_resources(f: IO[bytes], members: list[ZipMember], name: str) -> list[dict[str, Any]] | None:
    """The ``resources`` of ``datapackage.json``, or ``None`` when there is no such member.

    Raises:
        ParseError: ``datapackage.json`` is not a JSON object with a list of resources.
    """
    found = [m for m in members if m.name == DATAPACKAGE]
    if not found:
        return None
    try:
        package = json.loads(read_member(f, found[0], name))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"{DATAPACKAGE} is not JSON ({exc})", offset=found[0].header_offset,
                         source=name) from None
    resources = package.get("resources") if isinstance(package, dict) else None
    if not isinstance(resources, list) or not all(isinstance(r, dict) for r in resources):
        raise ParseError(f"{DATAPACKAGE} has no list of resources", offset=found[0].header_offset,
                         source=name)
    return resources


def archive_members(f: IO[bytes], name: str = "<wacz>") -> list[ZipMember]:
    """The WARC members of a WACZ (``archive/…``), in datapackage order.

    Members the datapackage does not list follow, in ZIP order.
    """
    members = read_directory(f, name)
    warcs = [m for m in members if m.name.startswith(ARCHIVE_DIR) and not m.name.endswith("/")]
    resources = package_resources(f, members, name) or []
    rank = {str(r.get("path")): i for i, r in enumerate(resources)}
    return sorted(warcs, key=lambda m: rank.get(m.name, len(rank)))


def is_wacz(path: str) -> bool:
    """Whether the file or URL at *path* is a ZIP file (by its first four bytes); ``-``
    is not. A URL is asked for its first bytes (one small ranged request)."""
    return is_zip(path)


@contextmanager
def wacz_warcs(source: InputLike, name: str | None = None) -> Iterator[list[MemberFile]]:
    """The WARCs of a WACZ as seekable views named ``package#archive/…``, in datapackage
    order, while the package is open."""
    src = open_source(source, name=name)
    try:
        yield [open_member(src.file, m, src.name) for m in archive_members(src.file, src.name)]
    finally:
        src.close()


class WaczReader(ArchiveReader):
    """The records of every WARC in a WACZ package (made by :class:`ArchiveReader`).

    Attributes:
        members: The WARC members, in reading order.
        member: The member being read (``None`` before the first record and at the end).
    """

    _package: Source
    _options: dict[str, Any]
    _pending: list[ZipMember]
    _inner: ArchiveReader | None
    members: list[ZipMember]
    member: str | None

    def __next__(self) -> WarcRecord:
        while True:
            inner = self._inner
            if inner is None:
                if not self._pending:
                    self.member = None
                    self.name = self._package.name
                    raise StopIteration
                inner = self._next_member()
            try:
                record: WarcRecord = next(inner)
                return record
            except StopIteration:
                inner.close()
                self._inner = None

    def __iter__(self) -> Iterator[WarcRecord]:
        return self

    def _next_member(self) -> ArchiveReader:
        member = self._pending.pop(0)
        view = open_member(self._package.file, member, self._package.name)
        inner = ArchiveReader(cast(IO[bytes], view), name=view.name, **self._options)
        self._inner = inner
        self.member = member.name
        self.name = inner.name
        self.compression = inner.compression
        return inner

    def _note(self, issue: Issue) -> None:
        self.issues.append(issue)
        if self.on_warning is not None:
            self.on_warning(issue)

    def close(self) -> None:
        """Close the WARC being read, and the package if the reader opened it."""
        if self._inner is not None:
            self._inner.close()
            self._inner = None
        self._pending = []
        self._package.close()


def _become_wacz(reader: ArchiveReader, src: Source, options: dict[str, Any], offset: int) -> None:
    """Make *reader* (whose input starts with a ZIP local header) a :class:`WaczReader`."""
    if offset:
        src.close()
        raise UsageError(f"{src.name}: a WACZ is read from its start (use the index for records)")
    if not src.seekable:
        src.close()
        raise UsageError(f"{src.name}: a WACZ must be seekable (its directory is at its end)")
    reader.__class__ = WaczReader
    assert isinstance(reader, WaczReader)
    reader.name = src.name
    reader._source = reader._package = src
    reader._own = src.owned
    reader._private = False
    reader.lenient = bool(options["lenient"])
    reader.on_warning = options.pop("on_warning")
    reader.issues = []
    reader.format = None
    reader.compression = "none"
    reader._inner = None
    reader.member = None
    options["on_warning"] = reader._note
    reader._options = options
    try:
        reader.members = archive_members(src.file, src.name)
    except BaseException:
        src.close()
        raise
    reader._pending = list(reader.members)


ArchiveReader._zip_opener = _become_wacz
