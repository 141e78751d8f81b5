"""``warckit ls FILE...``: one line per record."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

from ..errors import HttpParseError, Issue, WarckitError
from ..reader import ArchiveReader
from ..records import WarcRecord


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "ls",
        help="list the records of WARC/ARC files",
        description="One line per record: offset, length, type, date, target URI "
        "(tab-separated), or JSON lines with --json.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.add_argument("--lenient", action="store_true", help="recover from damaged input (warnings on stderr)")
    p.add_argument("--type", action="append", dest="types", metavar="TYPE", help="only records of this WARC-Type (repeatable)")
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
    out = sys.stdout
    def warn(issue: Issue) -> None:
        print(f"warckit ls: {issue}", file=sys.stderr)

    for path in args.files:
        with ArchiveReader(path, lenient=args.lenient, on_warning=warn, types=args.types) as reader:
            pending: tuple[WarcRecord, int | None] | None = None
            # Print a record once the reader has moved past it, so its length is
            # known without spooling its body.
            try:
                for rec in reader:
                    status = _status(rec, args.lenient)
                    if pending is not None:
                        _emit(out, path, *pending, as_json=args.json)
                    pending = (rec, status)
            except WarckitError:
                # The damage is after the pending record if the reader finished it
                # (its trailer was read): it is intact and listed before the error.
                if pending is not None and pending[0]._stream_length is not None:
                    _emit(out, path, *pending, as_json=args.json)
                    out.flush()
                raise
            if pending is not None:
                _emit(out, path, *pending, as_json=args.json)
    return 0


def _emit(out: Any, path: str, rec: WarcRecord, status: int | None, *, as_json: bool) -> None:
    row = _row(path, rec, status)
    if as_json:
        out.write(orjson.dumps(row).decode() + "\n")
    else:
        out.write(
            "\t".join(
                "-" if row[k] is None else str(row[k])
                for k in ("offset", "length", "type", "date", "target_uri")
            )
            + "\n"
        )
