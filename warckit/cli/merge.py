"""``warckit merge``: merge sorted indexes (one format) into one sorted index."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..cdx.sort import merge_files
from ..io.atomic import replacing
from ._common import add_output, add_storage_options, check_output, stdin_spooled


def add_parser(subparsers: Any) -> None:
    """Register ``merge``."""
    p = subparsers.add_parser(
        "merge",
        help="merge sorted CDX/CDXJ indexes",
        description="Merge sorted indexes of one format; the output keeps one header line. "
        "An input that is not sorted (its header says unsorted, or a line sorts before the "
        "one above it) is refused with exit status 1 unless --unsorted is given.",
    )
    p.add_argument("indexes", nargs="+", metavar="INDEX",
                   help="sorted index files, paths or URLs ('-': one from standard input)")
    add_output(p, "the merged index")
    p.add_argument("-u", "--unique", action="store_true", help="drop duplicate lines")
    p.add_argument("--unsorted", action="store_true",
                   help="inputs are not sorted: sort them (bounded memory) while merging")
    p.add_argument("--max-memory", type=int, default=64, metavar="MB",
                   help="memory budget of the sort, in MiB (default: %(default)s)")
    add_storage_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``warckit merge``."""
    check_output(args.output, args.force)
    with stdin_spooled(args.indexes) as indexes:
        return _run(args, indexes)


def _run(args: argparse.Namespace, indexes: list[str]) -> int:
    kwargs: dict[str, Any] = {
        "unique": args.unique,
        "presorted": not args.unsorted,
        "max_memory": max(1, args.max_memory) * 1024 * 1024,
    }
    if args.output and args.output != "-":
        with replacing(args.output) as out:
            merge_files(indexes, out, **kwargs)
        return 0
    sys.stdout.flush()
    merge_files(indexes, sys.stdout.buffer, **kwargs)
    sys.stdout.buffer.flush()
    return 0
