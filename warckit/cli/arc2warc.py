"""``warckit arc2warc IN... --out-dir DIR``: convert ARC files to WARC files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..tools.arc2warc import arc_to_warc
from ._common import (
    add_out_dir,
    add_storage_options,
    add_writer_options,
    need_out_dir,
    stdin_spooled,
    warner,
)

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
    add_writer_options(p)
    p.add_argument("--lenient", action="store_true",
                   help="read damaged ARC files, reporting each recovery on stderr")
    add_storage_options(p)
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
