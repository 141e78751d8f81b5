"""``warckit recompress IN OUT``: one gzip member (or zstd frame) per record."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..convert.recompress import recompress
from ..errors import Issue

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``recompress`` subcommand."""
    p = subparsers.add_parser(
        "recompress",
        help="rewrite a WARC/ARC with one gzip member (or zstd frame) per record",
        description="Rewrite IN (whole-file gzip, uncompressed, or with gzip members that do "
        "not line up with records) as OUT with one gzip member or zstd frame per record. "
        "Records are copied byte for byte; only the compression changes.",
    )
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    p.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip")
    p.add_argument("--level", type=int, help="compression level")
    p.add_argument("--lenient", action="store_true",
                   help="read damaged input, reporting each recovery on stderr")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Recompress; print a one-line summary; 0 on success."""

    def warn(issue: Issue) -> None:
        print(f"warckit recompress: {issue}", file=sys.stderr)

    stats = recompress(args.input, args.output, compression=args.compression, level=args.level,
                       lenient=args.lenient, on_warning=warn, overwrite=args.force)
    print(f"{args.output}: {stats.records} records, {stats.bytes_in} -> {stats.bytes_out} bytes")
    return 0
