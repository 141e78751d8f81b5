"""``warckit query``: look a URL up in sorted indexes (plain or ZipNum) by binary search."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from typing import Any

import orjson

from ..cdx._timestamps import lower_bound, upper_bound
from ..cdx.formats import AnyEntry
from ..cdx.query import MATCH_TYPES, Index, Query, check_url, entry_to_dict, run_query
from ..errors import Issue, UsageError
from ..record.fields import escape_not_utf8, not_utf8_message, not_utf8_names
from ..read.wacz import is_wacz
from ..wacz.query import WaczIndex
from ._common import add_storage_options, issue_line, parse_record_types, stdin_spooled


def add_parser(subparsers: Any) -> None:
    """Register ``query``."""
    p = subparsers.add_parser(
        "query",
        help="look a URL up in sorted indexes",
        description=(
            "Look URL up in sorted index files (new-style CDX, CDXJ, CDX-11/9, or a ZipNum "
            ".idx), in the index inside a WACZ, or in a Parquet index (a directory or .parquet "
            "file written by 'warckit index -f parquet', answered with DuckDB as its CDXJ index "
            "would be). Timestamps: 14-digit of any length (2014, 20140103) or W3C. An index "
            "that is not sorted is refused (exit status 1): sort it with "
            "'warckit merge --unsorted -o SORTED INDEX'. Nothing found: no output and exit "
            "status 1 (as grep)."
        ),
    )
    p.add_argument("args", nargs="+", metavar="INDEX... URL",
                   help="index files or WACZ packages, paths or URLs ('-' reads one from "
                   "standard input), then the URL")
    p.add_argument("--match", choices=MATCH_TYPES, default="exact",
                   help="how the URL's key is matched")
    p.add_argument("--from", dest="from_", metavar="TS",
                   help="earliest timestamp, inclusive (default: no bound)")
    p.add_argument("--to", metavar="TS",
                   help="latest timestamp, inclusive at its precision (default: no bound)")
    p.add_argument("--closest", metavar="TS",
                   help="nearest to TS first (default: index order)")
    p.add_argument("--type", metavar="T",
                   help="only this record type: response, revisit, … (default: any)")
    p.add_argument("--status", metavar="S", help="only this 3-digit HTTP status (default: any)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N results (default: all)")
    p.add_argument("--json", action="store_true", help="one compact JSON object per result")
    add_storage_options(p)
    p.set_defaults(func=run, _intermixed="args")


_STATUS = re.compile(r"[1-5][0-9][0-9]")


def _check(args: argparse.Namespace, url: str) -> None:
    check_url(url)
    if args.status is not None and not _STATUS.fullmatch(args.status):
        raise UsageError(f"--status must be a 3-digit HTTP status, not {args.status!r}")
    for option, value in (("--from", args.from_), ("--to", args.to), ("--closest", args.closest)):
        if value is not None:
            try:
                lower_bound(value)
            except ValueError:
                raise UsageError(f"{option}: not a timestamp: {value!r}") from None
    if args.from_ is not None and args.to is not None and \
            lower_bound(args.from_) > upper_bound(args.to):
        raise UsageError(f"--from {args.from_} is after --to {args.to}")
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, not {args.limit}")
    if args.type is not None:
        parse_record_types([args.type], option="--type")


def run(args: argparse.Namespace) -> int:
    """Run ``warckit query``; exit status 0 with results, 1 when nothing matched."""
    if len(args.args) < 2:
        raise UsageError("give at least one INDEX and a URL")
    *indexes, url = args.args
    _check(args, url)
    q = Query(url, args.match, args.from_, args.to, args.closest, args.type, args.status,
              args.limit)
    if any(p.endswith(".parquet") or os.path.isdir(p) for p in indexes):
        from ..columnar.query import run_parquet_query  # (only then: start-up stays quick)

        if len(indexes) > 1:
            raise UsageError("a Parquet index is queried alone: give one directory or .parquet file")
        found = _print(run_parquet_query(indexes[0], q), args.json)
        return 0 if found else 1
    with stdin_spooled(indexes) as paths, ExitStack() as stack:
        # A WACZ is looked up in its own index (read by ranges, not unpacked).
        opened: list[str | Index] = [stack.enter_context(WaczIndex(p)) if is_wacz(p) else p
                                     for p in paths]
        found = _print(run_query(opened, q), args.json)
    return 0 if found else 1


def _print(entries: Iterable[AnyEntry], as_json: bool) -> int:
    """Write *entries* to standard output (a line or a JSON object each); how many.

    A line holding bytes that are not UTF-8 (another tool's index) is written as it is;
    in JSON, which holds only Unicode, those bytes are written ``%XX``, with a warning.
    """
    out = sys.stdout.buffer
    found = 0
    for entry in entries:
        found += 1
        if as_json:
            fields = entry_to_dict(entry)
            names = not_utf8_names(fields.items())
            if names:
                fields = {escape_not_utf8(k): escape_not_utf8(v) if isinstance(v, str) else v
                          for k, v in fields.items()}
                print(issue_line("query", Issue(
                    "not-utf8", not_utf8_message(names, entry.format()[:200]), "warning")),
                      file=sys.stderr)
            out.write(orjson.dumps(fields) + b"\n")
        else:
            out.write(entry.format().encode("utf-8", "surrogateescape") + b"\n")
    out.flush()
    return found
