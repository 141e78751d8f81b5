"""``warckit arc2warc IN... --out-dir DIR``: convert ARC files to WARC files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..convert.arc2warc import arc_to_warc
from ._common import add_out_dir, need_out_dir, stdin_spooled, warner

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
    p.add_argument("inputs", nargs="+", metavar="IN", help="ARC files ('-': standard input)")
    add_out_dir(p, "directory the WARC files are written to (never overwriting a file)")
    p.add_argument("--warc-version", choices=("1.1", "1.0"), default="1.1",
                   help="WARC version written")
    p.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip",
                   help="one gzip member or zstd frame per record, or none")
    p.add_argument("--max-bytes", type=int, default=1_000_000_000, metavar="BYTES",
                   help="start a new output file once one reaches this size, in bytes "
                   "(default: 1000000000, 1 GB)")
    p.add_argument("--lenient", action="store_true",
                   help="read damaged ARC files, reporting each recovery on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Convert; print the files written and a summary; 0 on success."""

    out_dir = need_out_dir(args)
    with stdin_spooled(args.inputs) as inputs:
        stats = arc_to_warc(inputs, out_dir, version=args.warc_version,
                            compression=args.compression, max_bytes=args.max_bytes,
                            lenient=args.lenient, on_warning=warner("arc2warc"))
    for path in stats.files:
        print(path)
    print(f"{stats.arc_files} ARC files, {stats.records} records: {stats.responses} responses, "
          f"{stats.resources} resources, {stats.version_blocks} version blocks kept, "
          f"{stats.issues} recoveries", file=sys.stderr)
    return 0
