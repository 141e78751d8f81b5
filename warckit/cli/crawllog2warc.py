"""``warckit crawllog2warc CRAWL_LOG... --out-dir DIR``: revisit records from crawl.log duplicates."""

from __future__ import annotations

import argparse
from typing import Any

from ..tools.crawllog2warc import crawllog_to_warc
from ._common import (
    add_out_dir,
    add_storage_options,
    add_writer_options,
    need_out_dir,
    open_dedup_db,
    stdin_spooled,
    warner,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``crawllog2warc`` subcommand."""
    p = subparsers.add_parser(
        "crawllog2warc",
        help="write revisit records for the duplicate-marked lines of Heritrix crawl.logs",
        description="Write one WARC revisit record per crawl.log line marked as a duplicate "
        "(duplicate:digest, duplicate:server-not-modified, duplicate:\"file.arc,offset\", "
        "warcRevisit:..., Revisit:IdenticalPayloadDigest). WARC-Refers-To* name the original "
        "capture when --originals (WARC/ARC files, CDX indexes, crawl.logs) or --db know it.",
    )
    p.add_argument("logs", nargs="+", metavar="CRAWL_LOG",
                   help="Heritrix crawl.log files ('-': standard input)")
    add_out_dir(p, "directory the WARC files are written to (never overwriting a file)")
    p.add_argument("--originals", nargs="+", default=[], metavar="FILE",
                   help="WARC/ARC files, CDX indexes or crawl.logs with the original captures "
                   "('-': standard input; default: none)")
    p.add_argument("--db", metavar="DB",
                   help="a dedup database (warckit dedup build) to consult (default: none)")
    add_writer_options(p)
    p.add_argument("--prefix", default="REVISITS", help="output file-name prefix")
    p.add_argument("--no-uri-agnostic", action="store_true",
                   help="only accept originals with the same URL")
    p.add_argument("--lenient", action="store_true",
                   help="skip malformed lines (reported on stderr) instead of failing")
    add_storage_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Convert; print the summary; 0 on success."""

    out_dir = need_out_dir(args)
    index = open_dedup_db(args.db, create=False) if args.db else None
    try:
        with stdin_spooled([*args.logs, *args.originals]) as paths:
            logs, originals = paths[:len(args.logs)], paths[len(args.logs):]
            stats = crawllog_to_warc(
                logs, out_dir, originals=originals, index=index,
                version=args.warc_version, compression=args.compression,
                max_bytes=args.max_bytes, prefix=args.prefix, lenient=args.lenient,
                on_warning=warner("crawllog2warc", quiet_info=True),
                uri_agnostic=not args.no_uri_agnostic)
    finally:
        if index is not None:
            index.close()
    print(stats.summary())
    for path in stats.files:
        print(path)
    return 0
