"""``warckit surt [--style S] [--strip-www] [--idna 2003|2008] [URL...]``: one key per line.

Reads URLs from standard input (one per line) when none is given. A URL that cannot
be turned into a SURT prints ``warckit surt: error: -, line N: <error>`` (or
``argument N``) on standard error and the run goes on; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import UrlError, UsageError
from ..url import STYLES, surt


def add_parser(sub: Any) -> None:
    """Register the ``surt`` subcommand."""
    p = sub.add_parser(
        "surt",
        help="print the SURT key of URLs",
        description=(
            "Print one SURT key per URL (arguments, or lines of standard input).\n"
            "Styles: cdx (python-surt / pywb / OutbackCDX keys, default),\n"
            "new-style (com,example,www,)/path), heritrix (http://(com,example,www,)/path).\n"
            "\n"
            "NOTE: the default style is not the key of the default 'warckit index' output:\n"
            "  warckit index            new-style CDX  com,example,)/  = warckit surt --style new-style\n"
            "  warckit index -f cdxj    CDXJ           com,example)/   = warckit surt\n"
            "  (-f cdx11 and -f cdx9 are keyed like CDXJ)"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("urls", nargs="*", metavar="URL", help="URLs (default: read lines from stdin)")
    p.add_argument("--style", choices=STYLES, default="cdx",
                   help="SURT style (default: cdx, as in CDXJ/CDX-11 indexes; "
                   "'warckit index' default new-style CDX uses --style new-style)")
    p.add_argument(
        "--strip-www",
        action="store_true",
        default=None,
        help="drop a leading www label (always on for cdx; off by default for new-style)",
    )
    p.add_argument(
        "--idna",
        choices=("2003", "2008"),
        default=None,
        help="IDN rules for Unicode hosts (default: 2003 for cdx/heritrix, 2008 for new-style)",
    )
    p.set_defaults(func=run)


def _lines(stream: Iterable[str]) -> Iterator[tuple[str, int, str]]:
    for number, line in enumerate(stream, 1):
        yield "-, line", number, line.rstrip("\r\n")


def run(args: argparse.Namespace) -> int:
    """Print the keys; return 1 if any URL was bad, else 0."""
    if args.style == "heritrix" and args.strip_www:
        raise UsageError("--strip-www does not apply to --style heritrix")
    source: Iterable[tuple[str, int, str]]
    if args.urls:
        source = (("argument", n, u) for n, u in enumerate(args.urls, 1))
    else:
        source = _lines(sys.stdin)
    status = 0
    out = sys.stdout
    for where, number, url in source:
        try:
            key = surt(url, style=args.style, strip_www=args.strip_www, idna=args.idna)
        except UrlError as exc:
            print(f"warckit surt: error: {where} {number}: {exc}", file=sys.stderr)
            status = 1
            continue
        out.write(key + "\n")
    return status
