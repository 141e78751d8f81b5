"""``warckit dedup build|lookup|apply``: the deduplication index (SQLite)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from ..dedup import DedupIndex, apply
from ..errors import Issue

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``dedup`` subcommand and its actions."""
    p = subparsers.add_parser(
        "dedup",
        help="build and use a deduplication index of original captures",
        description="A DeDuplicator-style index of original captures (payload digest, URL, "
        "date, record ID, location) in an SQLite database.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    b = sub.add_parser("build", help="add WARC/ARC files, CDX indexes or crawl.logs to DB",
                       description="Create DB if needed and add the original captures of "
                       "every FILE (WARC/ARC: responses and resources; CDX: non-revisit "
                       "lines; crawl.log: fetched lines without a duplicate annotation).")
    b.add_argument("db", metavar="DB")
    b.add_argument("--from", dest="sources", nargs="+", required=True, metavar="FILE")
    b.add_argument("--lenient", action="store_true", help="read damaged input")
    lk = sub.add_parser("lookup", help="find the original of a payload digest (JSON)")
    lk.add_argument("db", metavar="DB")
    lk.add_argument("digest", metavar="DIGEST")
    lk.add_argument("--url", help="prefer originals with this URL")
    lk.add_argument("--before", metavar="DATE", help="only originals captured at or before DATE")
    lk.add_argument("--no-uri-agnostic", action="store_true", help="require the same URL")
    a = sub.add_parser("apply", help="copy a WARC, replacing known payloads by revisits",
                       description="Copy IN into the directory OUT; each response whose payload "
                       "DB knows becomes an identical-payload-digest revisit (same record ID, "
                       "HTTP head kept, WARC-Refers-To* naming the original). New payloads are "
                       "kept and added to DB.")
    a.add_argument("input", metavar="IN")
    a.add_argument("out", metavar="OUT")
    a.add_argument("db", metavar="DB")
    a.add_argument("--uri-agnostic", action="store_true",
                   help="also accept an original with another URL")
    a.add_argument("--no-update", action="store_true", help="do not add kept responses to DB")
    a.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip")
    a.add_argument("--lenient", action="store_true", help="read damaged input")
    p.set_defaults(func=run)


def _warn(issue: Issue) -> None:
    print(f"warckit dedup: {issue}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Run the chosen action; 0 on success (``lookup``: 1 when nothing is found)."""
    if args.action == "build":
        with DedupIndex(args.db) as idx:
            for path in args.sources:
                kind, added = idx.add_file(path, lenient=args.lenient, on_warning=_warn)
                print(f"{path}: {kind}, {added} originals added")
            print(f"{args.db}: {len(idx)} originals")
        return 0
    if args.action == "lookup":
        with DedupIndex(args.db) as idx:
            found = idx.lookup(args.url, args.digest, before=args.before,
                               uri_agnostic=not args.no_uri_agnostic)
        if found is None:
            print("null")
            return 1
        print(json.dumps(asdict(found), ensure_ascii=False))
        return 0
    with DedupIndex(args.db) as idx:
        stats = apply(args.input, args.out, idx, uri_agnostic=args.uri_agnostic,
                      update=not args.no_update, lenient=args.lenient, on_warning=_warn,
                      compression=args.compression)
    for path in stats.files:
        print(path)
    print(f"{stats.records} records, {stats.responses} responses: {stats.revisits} revisits, "
          f"{stats.kept} kept", file=sys.stderr)
    return 0
