"""``warckit ls FILE...``: one line per record."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import orjson

from ..errors import HttpParseError, Issue, ParseError, WarckitError
from ..read.reader import RECORDS_LOST, ArchiveReader
from ..read.wacz import WaczReader
from ..record.fields import escape_not_utf8, not_utf8_message, not_utf8_names
from ..record.records import WarcRecord
from ._common import add_storage_options, expand_archives, parse_record_types, warner


def add_parser(sub: Any) -> None:
    """Register the ``ls`` subcommand."""
    p = sub.add_parser(
        "ls",
        help="list the records of WARC/ARC files",
        description="One line per record: offset, length, type, date, target URI "
        "(tab-separated), or JSON lines with --json. With several files (or a directory) "
        "each line starts with the file name.",
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="WARC/ARC files; '-' reads standard input, a directory the "
                   "WARC/ARC files under it")
    p.add_argument("--json", action="store_true", help="print JSON lines (compact)")
    p.add_argument("--lenient", action="store_true",
                   help="recover from damaged input (each recovery reported on stderr)")
    p.add_argument("--type", action="append", dest="types", metavar="TYPE",
                   help="only records of this WARC-Type (repeatable, or comma-separated; "
                   "default: every type)")
    add_storage_options(p)
    p.set_defaults(func=run)


def _row(path: str, rec: WarcRecord, status: int | None) -> dict[str, Any]:
    return {
        "file": path,
        "offset": rec.offset,
        "length": rec.length,
        "type": rec.type,
        "date": rec.date_string,
        "target_uri": rec.target_uri,
        "record_id": rec.record_id,
        "content_length": rec.content_length,
        "http_status": status,
    }


def _status(rec: WarcRecord, lenient: bool) -> int | None:
    try:
        return rec.http_status
    except HttpParseError:
        if lenient:
            return None
        raise


def run(args: argparse.Namespace) -> int:
    """List every record; 0 on success, 1 when a lenient read lost records."""
    out = sys.stdout
    warn = warner("ls")
    types = parse_record_types(args.types, option="--type")
    files = expand_archives(args.files)
    with_file = len(files) > 1 or any(p != "-" and os.path.isdir(p) for p in args.files)
    lost = False
    for path in files:
        with ArchiveReader(path, lenient=args.lenient, on_warning=warn, types=types,
                           name=path) as reader:
            # A WACZ: each line names the WARC inside it (reader.name, package#archive/…).
            named = with_file or isinstance(reader, WaczReader)
            pending: tuple[str, WarcRecord, int | None] | None = None
            # Print a record once the reader has moved past it, so its length is
            # known without spooling its body.
            try:
                for rec in reader:
                    status = _status(rec, args.lenient)
                    if pending is not None:
                        emitting, pending = pending, None
                        _emit(out, *emitting, as_json=args.json, with_file=named, lenient=args.lenient,
                              on_warning=warn)
                    pending = (reader.name, rec, status)
            except WarckitError:
                # The damage is after the pending record if the reader finished it
                # (its trailer was read): it is intact and listed before the error.
                if pending is not None and pending[1]._stream_length is not None:
                    _emit(out, *pending, as_json=args.json, with_file=named, lenient=args.lenient,
                          on_warning=warn)
                    out.flush()
                raise
            if pending is not None:
                _emit(out, *pending, as_json=args.json, with_file=named, lenient=args.lenient,
                      on_warning=warn)
            lost = lost or any(issue.code in RECORDS_LOST for issue in reader.issues)
    # Lenient listing that had to skip damaged data lists what it could, but the
    # input is damaged: exit 1.
    return 1 if lost else 0


_COLUMNS = ("offset", "length", "type", "date", "target_uri")


def _emit(out: Any, path: str, rec: WarcRecord, status: int | None, *, as_json: bool,
          with_file: bool, lenient: bool, on_warning: Callable[[Issue], None]) -> None:
    row = _row(path, rec, status)
    if as_json:
        try:
            text = orjson.dumps(row)
        except TypeError:  # (orjson refuses a surrogate escape: a byte that is not UTF-8)
            text = orjson.dumps(_not_utf8(row, path, rec.offset, lenient, on_warning))
        out.write(text.decode() + "\n")
        return
    columns = ("file", *_COLUMNS) if with_file else _COLUMNS
    out.write("\t".join("-" if row[k] is None else str(row[k]) for k in columns) + "\n")


def _not_utf8(row: dict[str, Any], path: str, offset: int, lenient: bool,
              on_warning: Callable[[Issue], None]) -> dict[str, Any]:
    """A JSON line is UTF-8: a field holding bytes that are not (WARC 1.1 section 4: fields
    are UTF-8) is an error, or in lenient mode has those bytes written as ``%XX``."""
    bad = not_utf8_names(row.items())
    if not lenient:
        raise ParseError(not_utf8_message(bad, row[bad[0]]) + "; --lenient lists it with %XX",
                         source=path, offset=offset)
    on_warning(Issue("not-utf8", f"bytes that are not UTF-8 written as %XX ({', '.join(bad)})",
                     offset=offset, source=path))
    return {k: escape_not_utf8(v) if k in bad else v for k, v in row.items()}
