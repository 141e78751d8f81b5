"""Rolling output files: name template, size / record limits, ``.open`` until closed.

A :class:`RollingFile` knows nothing about WARC fields. It receives already encoded
records (:class:`~warckit.write.writer.EncodedRecord`), so the size it counts is the size
that reaches the disk, and it decides *before* writing a record whether that record
still fits. The guided writer supplies the warcinfo record for each new file through
a callback.

File names follow Heritrix by default:
``{prefix}-{timestamp}-{serial:05d}-{pid}~{host}~{port}{ext}`` with a 17-digit
timestamp (``YYYYMMDDhhmmssSSS``, UTC), e.g.
``WARC-20240102030405678-00000-4242~crawler1~0.warc.gz``. While a file is being
written its name ends in ``.open``; on close it is ``fsync``-ed and renamed. A record
that fails to be written (disk full) is cut off again, so a file only ever gets its
final name when it ends at a complete record.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..errors import Issue, UsageError
from ..io.atomic import create_exclusive
from .encode import EncodedRecord, RecordEncoder

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TEMPLATE", "OPEN_SUFFIX", "RollingFile", "Series", "timestamp17"]

#: Heritrix-style file name template. Fields: prefix, timestamp (17 digits), serial,
#: pid, host, port, ext (``.warc.gz`` / ``.warc.zst`` / ``.warc``).
DEFAULT_TEMPLATE = "{prefix}-{timestamp}-{serial:05d}-{pid}~{host}~{port}{ext}"
#: Heritrix's default size limit (WARC 1.1 Annex C recommends 1 GB).
DEFAULT_MAX_BYTES = 1_000_000_000
#: Suffix of a file that is still being written.
OPEN_SUFFIX = ".open"
#: Serial numbers tried for a free file name before giving up.
_NAME_ATTEMPTS = 1000


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
        self._fd: int | None = None
        self._torn = False
        #: Final name (no ``.open``) of the current file, or ``None``.
        self.filename: str | None = None
        #: Bytes written to the current file.
        self.size = 0
        #: Records written to the current file, warcinfo excluded.
        self.records = 0
        #: Final paths of every file closed so far.
        self.closed_files: list[str] = []
        #: Paths of files left with their ``.open`` name: their last record is torn
        #: and could not be cut off.
        self.abandoned_files: list[str] = []
        #: What went wrong while writing: each record that failed to be written (and
        #: how much of it was cut off again), as :class:`~warckit.errors.Issue`.
        self.issues: list[Issue] = []

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
        return self._fd is not None

    @property
    def path(self) -> str | None:
        """Final path of the current file (it is at ``path + '.open'`` until closed)."""
        return None if self.filename is None else os.path.join(self.directory, self.filename)

    # -- writing ------------------------------------------------------------------------

    def fits(self, size: int) -> bool:
        """Would a record of *size* bytes go into the current file without rolling?"""
        if self._fd is None or self._torn:
            return False  # a torn file takes no more records: the next one rolls
        if self.records == 0:
            return True  # a record alone larger than the limit still needs a home
        if self.max_records is not None and self.records >= self.max_records:
            return False
        return self.max_bytes is None or self.size + size <= self.max_bytes

    def open_new(self) -> None:
        """Close the current file (if any) and start the next one (writing its warcinfo).

        The ``.open`` file is created exclusively: a file or symlink already at the name
        (or at the final name) makes it take the next serial number instead. If the
        preamble or the warcinfo cannot be written, the new file is removed again (a
        file never lacks its warcinfo) and the error is raised.
        """
        self.close()
        for _ in range(_NAME_ATTEMPTS):
            name = self.next_name()
            path = os.path.join(self.directory, name)
            self.serial += 1
            if os.path.lexists(path):
                continue
            try:
                fd = create_exclusive(path + OPEN_SUFFIX)
            except FileExistsError:
                continue
            break
        else:
            raise FileExistsError(f"{self.directory}: no free file name after {_NAME_ATTEMPTS} "
                                  f"serial numbers (last tried {name!r})")
        self._fd = fd
        self.filename = name
        self.size = 0
        self.records = 0
        self._torn = False
        try:
            if self.preamble:
                self._write_bytes(self.preamble)
                self.size += len(self.preamble)
            if self.on_open is not None:
                info = self.on_open(name)
                if info is not None:
                    self._write(info)
        except BaseException:
            self._fd = None
            self.filename = None
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path + OPEN_SUFFIX)
            raise

    def _write_bytes(self, data: bytes | bytearray | memoryview) -> None:
        assert self._fd is not None
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)  # short writes happen (file size limit, signals)
            view = view[n:]

    def _write(self, record: EncodedRecord) -> tuple[int, int]:
        """Write *record* at the end of the file; on any failure cut the file back to
        its last complete record (see :attr:`issues`) and re-raise."""
        assert self._fd is not None
        offset = self.size
        try:
            for chunk in record.chunks():
                self._write_bytes(chunk)
        except BaseException:
            self._cut(offset)
            raise
        self.size += record.size
        return offset, record.size

    def _cut(self, offset: int) -> None:
        """Remove the part of a record that did not get written completely."""
        assert self._fd is not None and self.filename is not None
        source = self.filename + OPEN_SUFFIX
        try:
            written = os.lseek(self._fd, 0, os.SEEK_END) - offset
            os.ftruncate(self._fd, offset)
            os.lseek(self._fd, offset, os.SEEK_SET)
        except OSError as exc:
            self._torn = True
            self.issues.append(Issue(
                "torn-record", f"a record could not be written completely and the file could "
                f"not be cut back to its last complete record ({exc}); it keeps its "
                f"{OPEN_SUFFIX} name", "error", offset=offset, source=source))
            return
        self.issues.append(Issue(
            "record-not-written", f"a record could not be written; the {written} bytes of it "
            f"already in the file were cut off (the file ends at its last complete record)",
            "warning", offset=offset, source=source))

    def write(self, record: EncodedRecord) -> tuple[str, int, int]:
        """Write an encoded record into the current file (opening one if needed).

        The caller decides about rolling with :meth:`fits` / :meth:`open_new` first,
        because a record's head names the file's warcinfo. Every record goes to the
        operating system at once (no buffering): a crash, even SIGKILL, leaves only
        whole records in the ``.open`` file.

        Returns:
            ``(filename, offset, length)``.

        Raises:
            OSError: the record could not be written (e.g. the disk is full). The file
                was cut back to its previous record, which is reported in
                :attr:`issues`; the writer may go on with the next record.
        """
        if self._fd is None:
            self.open_new()
        if self._torn:
            raise OSError(errno.EIO, f"{self.filename}{OPEN_SUFFIX} ends in a torn record "
                          f"that could not be removed; no more records go into it")
        offset, length = self._write(record)
        self.records += 1
        assert self.filename is not None
        return self.filename, offset, length

    def flush(self) -> None:
        """Nothing to do: every record reaches the operating system when written."""

    def close(self) -> None:
        """Finish the current file: ``fsync`` (unless disabled), drop ``.open``.

        A file whose torn last record could not be cut off keeps its ``.open`` name
        (reported in :attr:`issues`, listed in :attr:`abandoned_files`): only a file
        ending at a complete record gets its final name.
        """
        fd = self._fd
        if fd is None:
            return
        self._fd = None
        assert self.filename is not None
        final = os.path.join(self.directory, self.filename)
        self.filename = None
        try:
            if self.fsync:
                _fsync_fd(fd)
        finally:
            os.close(fd)
        if self._torn:
            self.abandoned_files.append(final + OPEN_SUFFIX)
            return
        os.replace(final + OPEN_SUFFIX, final)
        if self.fsync and hasattr(os, "O_DIRECTORY"):
            dfd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        self.closed_files.append(final)


def _fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise


@dataclass
class Series:
    """One output series (main, or the hybrid policy's uncompressed one)."""

    name: str
    encoder: RecordEncoder
    rolling: RollingFile
    warcinfo_id: str | None = None
    records: list[str] = field(default_factory=list)
