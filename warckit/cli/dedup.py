"""``warckit dedup build|lookup|apply``: the deduplication index (SQLite)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from ..errors import UsageError
from ..tools.dedup import apply
from ._common import (
    add_out_dir,
    add_storage_options,
    add_writer_options,
    open_dedup_db,
    stdin_spooled,
    warner,
)

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
    b.add_argument("db", metavar="DB", help="the SQLite database (created if missing)")
    b.add_argument("--from", dest="sources", nargs="+", required=True, metavar="FILE",
                   help="WARC/ARC files, CDX indexes or crawl.logs ('-': standard input)")
    b.add_argument("--lenient", action="store_true", help="read damaged input")
    lk = sub.add_parser("lookup", help="find the original of a payload digest (JSON)",
                        description="Print the original capture of DIGEST as one compact JSON "
                        "object; when none is known print null and exit with status 1.")
    lk.add_argument("db", metavar="DB", help="the SQLite database")
    lk.add_argument("digest", metavar="DIGEST", help="payload digest, e.g. sha1:2Y4…")
    lk.add_argument("--url", help="prefer originals with this URL (default: any URL)")
    lk.add_argument("--before", metavar="DATE",
                    help="only originals captured at or before DATE (default: any date)")
    lk.add_argument("--no-uri-agnostic", action="store_true", help="require the same URL")
    a = sub.add_parser("apply", help="copy a WARC, replacing known payloads by revisits",
                       usage="%(prog)s [-h] [options] IN DB --out-dir DIR",
                       description="Copy IN into the directory DIR; each response whose payload "
                       "DB knows becomes an identical-payload-digest revisit (same record ID, "
                       "HTTP head kept, WARC-Refers-To* naming the original). New payloads are "
                       "kept and added to DB.")
    a.add_argument("input", metavar="IN", help="a WARC file ('-': standard input)")
    # Once `apply IN OUT DB`: with three positionals the middle one is the directory.
    a.add_argument("db", metavar="DB", help="the SQLite database")
    a.add_argument("old_db", nargs="?", help=argparse.SUPPRESS)
    add_out_dir(a, "directory the WARC files are written to (never overwriting a file)",
                required=True)
    a.add_argument("--uri-agnostic", action="store_true",
                   help="also accept an original with another URL")
    a.add_argument("--no-update", action="store_true", help="do not add kept responses to DB")
    add_writer_options(a, version=False, max_bytes=False)
    a.add_argument("--lenient", action="store_true", help="read damaged input")
    add_storage_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen action; 0 on success (``lookup``: 1 when nothing is found)."""
    if args.action == "build":
        with open_dedup_db(args.db, create=True) as idx, stdin_spooled(args.sources) as sources:
            for name, path in zip(args.sources, sources):
                kind, added = idx.add_file(path, lenient=args.lenient,
                                           on_warning=warner("dedup build"))
                print(f"{name}: {kind}, {added} originals added")
            print(f"{args.db}: {len(idx)} originals")
        return 0
    if args.action == "lookup":
        with open_dedup_db(args.db, create=False) as idx:
            found = idx.lookup(args.url, args.digest, before=args.before,
                               uri_agnostic=not args.no_uri_agnostic)
        if found is None:
            print("null")
            return 1
        print(json.dumps(asdict(found), ensure_ascii=False, separators=(",", ":")))
        return 0
    db, out_dir = args.db, args.out_dir
    if args.old_db is not None:
        if out_dir is not None:
            raise UsageError("give the output directory once: IN DB --out-dir DIR")
        db, out_dir = args.old_db, args.db
    if out_dir is None:
        raise UsageError("the following arguments are required: --out-dir")
    with open_dedup_db(db, create=True) as idx, stdin_spooled([args.input]) as (path,):
        stats = apply(path, out_dir, idx, uri_agnostic=args.uri_agnostic,
                      update=not args.no_update, lenient=args.lenient,
                      on_warning=warner("dedup apply"), compression=args.compression)
    for path in stats.files:
        print(path)
    print(f"{stats.records} records, {stats.responses} responses: {stats.revisits} revisits, "
          f"{stats.kept} kept", file=sys.stderr)
    return 0
