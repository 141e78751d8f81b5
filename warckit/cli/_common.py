"""Conventions every ``warckit`` subcommand shares.

* Exit status: :data:`EXIT_OK` (0), :data:`EXIT_FAILED` (1: damaged or unreadable input,
  or a failed check), :data:`EXIT_USAGE` (2).
* One error line on stderr, ``warckit CMD: error: SOURCE, offset N: message``
  (:func:`error_line`); argparse's own usage errors follow it too (:class:`ArgumentParser`).
* Inputs: ``-`` is standard input (:func:`stdin_spooled`); a directory is the WARC/ARC
  files under it (:func:`expand_archives`).
* Outputs: ``-o/--output FILE`` or ``--out-dir DIR``; an existing file is replaced only
  with ``--force`` (:func:`check_output`).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..errors import Issue, ParseError, UnsortedIndexError, UsageError
from ..io.sources import ARCHIVE_SUFFIXES, archives_under
from ..record.records import RECORD_TYPES

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = [
    "ARCHIVE_SUFFIXES",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_STATUS_EPILOG",
    "EXIT_USAGE",
    "ArgumentParser",
    "HelpFormatter",
    "add_force",
    "add_out_dir",
    "add_output",
    "add_storage_options",
    "apply_storage_options",
    "check_output",
    "display_name",
    "error_line",
    "expand_archives",
    "issue_line",
    "need_out_dir",
    "open_dedup_db",
    "parse_record_types",
    "stdin_spooled",
    "warner",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

EXIT_STATUS_EPILOG = (
    "Exit status: 0 success; 1 damaged or unreadable input, or a failed check; 2 usage error; "
    "130/143 stopped by SIGINT/SIGTERM. "
    "An error prints one line on stderr: 'warckit COMMAND: error: SOURCE, offset N: message'."
)

#: Spool files standing in for standard input, and the name messages give them.
_DISPLAY: dict[str, str] = {}


class HelpFormatter(argparse.HelpFormatter):
    """Append ``(default: X)`` to options whose help does not mention their default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (not action.option_strings or "default" in text or action.default is None
                or action.default is False or action.default is argparse.SUPPRESS
                or text is argparse.SUPPRESS):
            return action.help
        return f"{text} (default: %(default)s)"


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line and exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {_one_line(message)}\n")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def display_name(path: str | None) -> str | None:
    """The name messages give *path*: ``-`` for the spool of standard input."""
    if path is None:
        return None
    return _DISPLAY.get(path, path)


def _unspool(text: str) -> str:
    for spooled, shown in _DISPLAY.items():
        text = text.replace(spooled, shown)
    return text


def error_line(command: str, exc: BaseException) -> str:
    """The one-line message for *exc*: ``warckit CMD: error: SOURCE, offset N: message``."""
    if isinstance(exc, ParseError):
        where = [w for w in (display_name(exc.source),
                             None if exc.offset is None else f"offset {exc.offset}") if w]
        text = exc.message
        if exc.snippet:
            text += f" (near {exc.snippet[:40]!r})"
        if where:
            text = f"{', '.join(where)}: {text}"
    elif isinstance(exc, UnsortedIndexError):
        text = (f"{display_name(exc.source)}, offset {exc.offset}: line {exc.line}: "
                f"{exc.reason}")
    elif isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
        if exc.filename is not None:
            text = f"{display_name(os.fsdecode(exc.filename))}: {text}"
    else:
        text = str(exc) or type(exc).__name__
    return f"warckit {command}: error: {_one_line(_unspool(text))}"


def issue_line(command: str, issue: Issue) -> str:
    """The one-line report of a recovery or finding, in the same shape as errors."""
    where = [w for w in (display_name(issue.source),
                         None if issue.offset is None else f"offset {issue.offset}") if w]
    prefix = f"{', '.join(where)}: " if where else ""
    return (f"warckit {command}: {issue.severity}: {prefix}"
            f"{_one_line(_unspool(issue.message))} [{issue.code}]")


def warner(command: str, *, quiet_info: bool = False) -> Any:
    """An ``on_warning`` callback printing each :class:`Issue` as :func:`issue_line`."""

    def warn(issue: Issue) -> None:
        if quiet_info and issue.severity == "info":
            return
        print(issue_line(command, issue), file=sys.stderr)

    return warn


def expand_archives(paths: Sequence[str]) -> list[str]:
    """Replace each directory in *paths* by the WARC/ARC files under it, sorted.

    Raises:
        UsageError: a directory holds no WARC/ARC file, or ``-`` is given twice.
    """
    out: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            out.extend(archives_under(path))
        else:
            out.append(path)
    if out.count("-") > 1:
        raise UsageError("standard input ('-') can be read only once")
    return out


@contextmanager
def stdin_spooled(paths: Sequence[str]) -> Iterator[list[str]]:
    """Yield *paths* with ``-`` replaced by a temporary copy of standard input.

    Commands that seek (random access, binary search, parallel pieces) need a file; the
    copy streams to disk (constant memory) and messages still call it ``-``.

    Raises:
        UsageError: ``-`` is given more than once.
    """
    paths = list(paths)
    count = paths.count("-")
    if count > 1:
        raise UsageError("standard input ('-') can be read only once")
    if not count:
        yield paths
        return
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="warckit-stdin-") as tmp:
        spool = os.path.join(tmp, "stdin")
        with open(spool, "wb") as fh:
            shutil.copyfileobj(sys.stdin.buffer, fh, 1 << 20)
        _DISPLAY[spool] = "-"
        yield [spool if p == "-" else p for p in paths]


def open_dedup_db(path: str, *, create: bool) -> Any:
    """Open a :class:`~warckit.tools.dedup.DedupIndex`; an unusable file is a ParseError naming it.

    Raises:
        FileNotFoundError: *path* does not exist and not *create*.
        ParseError: *path* is not an SQLite database.
    """
    import sqlite3

    from ..tools.dedup import DedupIndex

    if not create and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    try:
        return DedupIndex(path)
    except sqlite3.DatabaseError as exc:
        raise ParseError(f"not a dedup database ({exc})", source=path) from None


def parse_record_types(values: Sequence[str] | None, *, option: str) -> frozenset[str] | None:
    """Record types named in *values* (each may be comma-separated), lowercased.

    Raises:
        UsageError: a name is not a known WARC-Type.
    """
    if not values:
        return None
    types = frozenset(t.strip().lower() for v in values for t in v.split(",") if t.strip())
    unknown = sorted(types - RECORD_TYPES.keys())
    if unknown or not types:
        raise UsageError(f"{option}: unknown record type(s) {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(sorted(RECORD_TYPES))}")
    return types


def check_output(path: str | None, force: bool) -> None:
    """Refuse to replace an existing regular file *path* unless *force*.

    ``-`` and ``None`` mean standard output.

    Raises:
        UsageError: *path* exists and *force* is false.
    """
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, not an output file")
    # Only a regular file is "overwritten": /dev/null or a named pipe is written to.
    if os.path.isfile(path) and not force:
        raise UsageError(f"{path}: exists (use --force to overwrite)")


def add_storage_options(parser: argparse.ArgumentParser) -> None:
    """Register ``--storage-option KEY=VALUE`` (repeatable): fsspec options for URL inputs."""
    parser.add_argument("--storage-option", action="append", dest="storage_options",
                        metavar="KEY=VALUE",
                        help="for URL inputs (https://, s3://): an fsspec option, e.g. "
                        "anon=true or client_kwargs.endpoint_url=http://host:9000 (dotted keys "
                        "nest, values are JSON when they parse; repeatable; see docs/remote.rst)")


def apply_storage_options(args: argparse.Namespace) -> None:
    """Make the ``--storage-option`` values the process default for URL inputs.

    Raises:
        UsageError: a value is not ``KEY=VALUE``.
    """
    if not hasattr(args, "storage_options"):
        return
    from ..io.remote import add_storage_option, default_storage_options

    default_storage_options().clear()  # (main() may run more than once in a process)
    for text in args.storage_options or ():
        add_storage_option(default_storage_options(), text)


def add_output(parser: argparse.ArgumentParser, what: str = "output file") -> None:
    """Register ``-o/--output FILE`` (``-``: standard output) and ``--force``."""
    parser.add_argument("-o", "--output", metavar="FILE",
                        help=f"{what} ('-' or default: standard output)")
    add_force(parser)


def add_force(parser: argparse.ArgumentParser) -> None:
    """Register ``--force``."""
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing output file (default: refuse)")


def add_out_dir(parser: argparse.ArgumentParser, help: str, *, required: bool = True) -> None:
    """Register ``--out-dir DIR`` (and ``--out``, its old spelling, hidden)."""
    parser.add_argument("--out-dir", dest="out_dir", metavar="DIR",
                        help=help + (" (required)" if required else ""))
    parser.add_argument("--out", dest="out_dir", help=argparse.SUPPRESS)


def add_writer_options(parser: argparse.ArgumentParser, *, version: bool = True,
                       max_bytes: bool = True) -> None:
    """Register the options of commands that write WARCs: ``--compression`` and, unless
    turned off, ``--warc-version`` and ``--max-bytes``."""
    if version:
        parser.add_argument("--warc-version", choices=("1.1", "1.0"), default="1.1",
                            help="WARC version written")
    parser.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip",
                        help="one gzip member or zstd frame per record, or none")
    if max_bytes:
        parser.add_argument("--max-bytes", type=int, default=1_000_000_000, metavar="BYTES",
                            help="start a new output file once one reaches this size, in bytes "
                            "(default: 1000000000, 1 GB)")


def need_out_dir(args: argparse.Namespace) -> str:
    """The ``--out-dir`` given, or a usage error."""
    if args.out_dir is None:
        raise UsageError("the following arguments are required: --out-dir")
    return str(args.out_dir)
