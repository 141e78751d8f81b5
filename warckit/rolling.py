"""Rolling output files: name template, size / record limits, ``.open`` until closed.

A :class:`RollingFile` knows nothing about WARC fields. It receives already encoded
records (:class:`~warckit.writer.EncodedRecord`), so the size it counts is the size
that reaches the disk, and it decides *before* writing a record whether that record
still fits. The guided writer supplies the warcinfo record for each new file through
a callback.

File names follow Heritrix by default:
``{prefix}-{timestamp}-{serial:05d}-{pid}~{host}~{port}{ext}`` with a 17-digit
timestamp (``YYYYMMDDhhmmssSSS``, UTC), e.g.
``WARC-20240102030405678-00000-4242~crawler1~0.warc.gz``. While a file is being
written its name ends in ``.open``; on close it is flushed, ``fsync``-ed and renamed.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import datetime, timezone
from typing import IO

from .errors import UsageError
from .writer import EncodedRecord, fsync_file

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TEMPLATE", "OPEN_SUFFIX", "RollingFile", "timestamp17"]

#: Heritrix-style file name template. Fields: prefix, timestamp (17 digits), serial,
#: pid, host, port, ext (``.warc.gz`` / ``.warc.zst`` / ``.warc``).
DEFAULT_TEMPLATE = "{prefix}-{timestamp}-{serial:05d}-{pid}~{host}~{port}{ext}"
#: Heritrix's default size limit (WARC 1.1 Annex C recommends 1 GB).
DEFAULT_MAX_BYTES = 1_000_000_000
#: Suffix of a file that is still being written.
OPEN_SUFFIX = ".open"


def timestamp17(when: datetime | None = None) -> str:
    """``YYYYMMDDhhmmssSSS`` in UTC (Heritrix file-name timestamp)."""
    when = (when or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return when.strftime("%Y%m%d%H%M%S") + f"{when.microsecond // 1000:03d}"


class RollingFile:
    """A series of output files that roll on size and record count.

    Args:
        directory: Where files are created (must exist).
        prefix: ``{prefix}`` in the template.
        ext: File extension, e.g. ``.warc.gz``.
        template: ``str.format`` template for file names (see module doc).
        max_bytes: Largest file size in bytes, counted on the bytes written. A file
            exceeds it only when its warcinfo plus one record alone are larger.
        max_records: Most records per file (the warcinfo is not counted), or ``None``.
        fsync: ``fsync`` a file before renaming it on close.
        preamble: Bytes each file starts with (the zstd dictionary frame).
        on_open: Called with the new file's final name right after it is opened;
            returns the encoded warcinfo record to write first (or ``None``).
        serial: First serial number.
        host: ``{host}`` (default: this machine's host name).
        port: ``{port}``.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        prefix: str = "WARC",
        ext: str = ".warc.gz",
        template: str = DEFAULT_TEMPLATE,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_records: int | None = None,
        fsync: bool = True,
        preamble: bytes = b"",
        on_open: Callable[[str], EncodedRecord | None] | None = None,
        serial: int = 0,
        host: str | None = None,
        port: int | str = 0,
    ) -> None:
        if max_bytes is not None and max_bytes <= 0:
            raise UsageError("max_bytes must be positive (or None for no limit)")
        if max_records is not None and max_records <= 0:
            raise UsageError("max_records must be positive (or None for no limit)")
        if any("\x00" in str(part) for part in (prefix, ext, template, host or "", port)):
            raise UsageError("a file name part contains NUL (prefix, ext, template, host or port)")
        self.directory = os.fspath(directory)
        if not os.path.isdir(self.directory):
            raise UsageError(f"output directory {self.directory!r} does not exist")
        self.prefix = prefix
        self.ext = ext
        self.template = template
        self.max_bytes = max_bytes
        self.max_records = max_records
        self.fsync = fsync
        self.preamble = preamble
        self.on_open = on_open
        self.serial = serial
        self.host = host or socket.gethostname().split(".")[0]
        self.port = port
        self.pid = os.getpid()
        self._f: IO[bytes] | None = None
        #: Final name (no ``.open``) of the current file, or ``None``.
        self.filename: str | None = None
        #: Bytes written to the current file.
        self.size = 0
        #: Records written to the current file, warcinfo excluded.
        self.records = 0
        #: Final paths of every file closed so far.
        self.closed_files: list[str] = []

    # -- naming -------------------------------------------------------------------------

    def next_name(self) -> str:
        """The name the next file will get (without ``.open``)."""
        name = self.template.format(
            prefix=self.prefix,
            timestamp=timestamp17(),
            serial=self.serial,
            pid=self.pid,
            host=self.host,
            port=self.port,
            ext=self.ext,
        )
        if os.sep in name or (os.altsep and os.altsep in name):
            raise UsageError(f"file name template produced a path: {name!r}")
        if "\x00" in name:
            raise UsageError(f"file name contains NUL (from the prefix or template?): {name!r}")
        return name

    @property
    def is_open(self) -> bool:
        """A file is currently open."""
        return self._f is not None

    @property
    def path(self) -> str | None:
        """Final path of the current file (it is at ``path + '.open'`` until closed)."""
        return None if self.filename is None else os.path.join(self.directory, self.filename)

    # -- writing ------------------------------------------------------------------------

    def fits(self, size: int) -> bool:
        """Would a record of *size* bytes go into the current file without rolling?"""
        if self._f is None:
            return False
        if self.records == 0:
            return True  # a record alone larger than the limit still needs a home
        if self.max_records is not None and self.records >= self.max_records:
            return False
        return self.max_bytes is None or self.size + size <= self.max_bytes

    def open_new(self) -> None:
        """Close the current file (if any) and start the next one (writing its warcinfo)."""
        self.close()
        name = self.next_name()
        path = os.path.join(self.directory, name)
        while os.path.exists(path) or os.path.exists(path + OPEN_SUFFIX):
            self.serial += 1
            name = self.next_name()
            path = os.path.join(self.directory, name)
        self._f = open(path + OPEN_SUFFIX, "xb")  # noqa: SIM115 - closed in close()
        self.filename = name
        self.size = 0
        self.records = 0
        self.serial += 1
        if self.preamble:
            self._f.write(self.preamble)
            self.size += len(self.preamble)
        if self.on_open is not None:
            info = self.on_open(name)
            if info is not None:
                self._write(info)

    def _write(self, record: EncodedRecord) -> tuple[int, int]:
        assert self._f is not None
        offset = self.size
        for chunk in record.chunks():
            self._f.write(chunk)
        self.size += record.size
        return offset, record.size

    def write(self, record: EncodedRecord) -> tuple[str, int, int]:
        """Write an encoded record into the current file (opening one if needed).

        The caller decides about rolling with :meth:`fits` / :meth:`open_new` first,
        because a record's head names the file's warcinfo.

        Returns:
            ``(filename, offset, length)``.
        """
        if self._f is None:
            self.open_new()
        offset, length = self._write(record)
        # Hand every finished record to the OS at once: a crash (even SIGKILL) then
        # leaves only whole records in the .open file.
        assert self._f is not None
        self._f.flush()
        self.records += 1
        assert self.filename is not None
        return self.filename, offset, length

    def flush(self) -> None:
        """Flush buffered bytes to the operating system."""
        if self._f is not None:
            self._f.flush()

    def close(self) -> None:
        """Finish the current file: flush, ``fsync`` (unless disabled), drop ``.open``."""
        f = self._f
        if f is None:
            return
        self._f = None
        try:
            if self.fsync:
                fsync_file(f)
            else:
                f.flush()
        finally:
            f.close()
        assert self.filename is not None
        final = os.path.join(self.directory, self.filename)
        os.replace(final + OPEN_SUFFIX, final)
        if self.fsync and hasattr(os, "O_DIRECTORY"):
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self.closed_files.append(final)
        self.filename = None
