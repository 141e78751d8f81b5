"""``warckit query``: look a URL up in sorted indexes (plain or ZipNum) by binary search."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

from ..cdx.query import MATCH_TYPES, Query, entry_to_dict, run_query


def add_parser(subparsers: Any) -> None:
    """Register ``query``."""
    p = subparsers.add_parser(
        "query",
        help="look a URL up in sorted indexes",
        description=(
            "Look URL up in sorted index files (new-style CDX, CDXJ, CDX-11/9, or a ZipNum "
            ".idx). Timestamps: 14-digit of any length (2014, 20140103) or W3C. An index "
            "that is not sorted is refused (exit status 1): sort it with "
            "'warckit merge --unsorted -o SORTED INDEX'."
        ),
    )
    p.add_argument("args", nargs="+", metavar="INDEX... URL", help="index files, then the URL")
    p.add_argument("--match", choices=MATCH_TYPES, default="exact")
    p.add_argument("--from", dest="from_", metavar="TS", help="earliest timestamp (inclusive)")
    p.add_argument("--to", metavar="TS", help="latest timestamp (inclusive at its precision)")
    p.add_argument("--closest", metavar="TS", help="nearest to TS first")
    p.add_argument("--type", metavar="T", help="record type (response, revisit, …)")
    p.add_argument("--status", metavar="S", help="HTTP status")
    p.add_argument("--limit", type=int, metavar="N", help="at most N results")
    p.add_argument("--json", action="store_true", help="one JSON object per result")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``warckit query``; exit status 0 with results, 1 when nothing matched."""
    if len(args.args) < 2:
        print("warckit query: give at least one INDEX and a URL", file=sys.stderr)
        return 2
    *indexes, url = args.args
    q = Query(url, args.match, args.from_, args.to, args.closest, args.type, args.status,
              args.limit)
    out = sys.stdout.buffer
    found = 0
    for entry in run_query(indexes, q):
        found += 1
        if args.json:
            out.write(orjson.dumps(entry_to_dict(entry)) + b"\n")
        else:
            out.write(entry.format().encode("utf-8") + b"\n")
    out.flush()
    return 0 if found else 1
