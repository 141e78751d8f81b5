"""``warckit recompress IN -o OUT``: one gzip member (or zstd frame) per record."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..tools.recompress import recompress
from ._common import add_output, add_storage_options, check_output, stdin_spooled, warner

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``recompress`` subcommand."""
    p = subparsers.add_parser(
        "recompress",
        help="rewrite a WARC/ARC with one gzip member (or zstd frame) per record",
        description="Rewrite IN ('-': standard input; whole-file gzip, uncompressed, or with gzip members that do "
        "not line up with records) as OUT with one gzip member or zstd frame per record. "
        "Records are copied byte for byte; only the compression changes.",
    )
    p.add_argument("input", metavar="IN", help="a WARC/ARC file ('-': standard input)")
    # The output was once a second positional argument: still accepted, not shown.
    p.add_argument("old_output", nargs="?", metavar="OUT", help=argparse.SUPPRESS)
    add_output(p, "the rewritten file (required)")
    p.add_argument("--compression", choices=("gzip", "zstd", "none"), default="gzip",
                   help="compression of the output")
    p.add_argument("--level", type=int, metavar="N",
                   help="compression level (default: the codec's own)")
    p.add_argument("--lenient", action="store_true",
                   help="read damaged input, reporting each recovery on stderr")
    add_storage_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Recompress; print a one-line summary; 0 on success."""

    if args.old_output is not None and args.output is not None:
        raise UsageError("give the output once: -o OUT")
    output = args.output if args.output is not None else args.old_output
    if output is None:
        raise UsageError("the following arguments are required: -o/--output")
    if output == "-":
        raise UsageError("recompress writes a file: give -o OUT, not standard output")
    check_output(output, args.force)
    with stdin_spooled([args.input]) as (path,):
        stats = recompress(path, output, compression=args.compression, level=args.level,
                           lenient=args.lenient, on_warning=warner("recompress"),
                           overwrite=args.force)
    print(f"{output}: {stats.records} records, {stats.bytes_in} -> {stats.bytes_out} bytes")
    return 0
