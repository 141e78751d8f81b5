"""``warckit arc2warc IN... --out DIR``: convert ARC files to WARC files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..convert.arc2warc import arc_to_warc
from ..errors import Issue

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``arc2warc`` subcommand."""
    p = subparsers.add_parser(
        "arc2warc",
        help="convert ARC v1/v2 files (plain or gzip) to WARC",
        description="Convert ARC files to WARC (1.1 by default): the ARC version block is kept "
        "in a warcinfo record, HTTP records become responses, others resources; digests are "
        "computed, dates converted, and each record names its ARC file and offset in "
        "WARC-ARC-Filename / WARC-ARC-Offset.",
    )
    p.add_argument("inputs", nargs="+", metavar="IN")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--warc-version", choices=("1.1", "1.0"), default="1.1")
    p.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip")
    p.add_argument("--max-bytes", type=int, default=1_000_000_000, help="roll files at this size")
    p.add_argument("--lenient", action="store_true",
                   help="read damaged ARC files, reporting each recovery on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Convert; print the files written and a summary; 0 on success."""

    def warn(issue: Issue) -> None:
        print(f"warckit arc2warc: {issue}", file=sys.stderr)

    stats = arc_to_warc(args.inputs, args.out, version=args.warc_version,
                        compression=args.compression, max_bytes=args.max_bytes,
                        lenient=args.lenient, on_warning=warn)
    for path in stats.files:
        print(path)
    print(f"{stats.arc_files} ARC files, {stats.records} records: {stats.responses} responses, "
          f"{stats.resources} resources, {stats.version_blocks} version blocks kept, "
          f"{stats.issues} recoveries", file=sys.stderr)
    return 0
