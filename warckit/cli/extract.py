"""``warckit extract FILE OFFSET``: write one record (or part of it) to stdout.

``warckit extract --all FILE --out-dir DIR`` unpacks every payload into DIR with a manifest
(see :mod:`warckit.tools.extract_all`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError
from ..io.atomic import replacing
from ..read.reader import read_payload_range, read_record_at
from ._common import add_out_dir, add_storage_options, check_output, need_out_dir, stdin_spooled


def add_parser(sub: Any) -> None:
    """Register the ``extract`` subcommand."""
    p = sub.add_parser(
        "extract",
        help="write the record at an offset to stdout",
        description="Write the record at OFFSET (as stored, or only its headers or payload) to "
        "stdout or -o FILE. With --all --out-dir DIR: write every payload to its own file "
        "under DIR (names made safe from the URL, never overwriting) and list them in "
        "DIR/manifest.csv.",
    )
    p.add_argument("file", metavar="FILE", help="a WARC/ARC file ('-': standard input)")
    p.add_argument("offset", type=int, metavar="OFFSET", nargs="?",
                   help="file offset of the record, in bytes (as `warckit ls` prints it)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write here ('-' or default: standard output)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing output file (default: refuse)")
    p.add_argument("--all", action="store_true", help="unpack every payload (needs --out-dir)")
    add_out_dir(p, "with --all: the output directory", required=False)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--headers", action="store_true",
                      help="only the record head (and HTTP head)")
    what.add_argument("--payload", action="store_true", help="only the payload (de-chunked)")
    p.add_argument("--decode", action="store_true",
                   help="with --payload or --all: also remove Content-Encoding (gzip, br, …)")
    p.add_argument("--range", metavar="START-END",
                   help="with --payload: bytes START..END-1 of the payload as stored, "
                   "in bytes (seeks in uncompressed files; default: the whole payload)")
    p.add_argument("--lenient", action="store_true",
                   help="read a damaged record as far as it goes")
    add_storage_options(p)
    p.set_defaults(func=run)


def _parse_range(text: str) -> tuple[int, int | None]:
    start_s, sep, end_s = text.partition("-")
    try:
        start = int(start_s)
        end = int(end_s) if end_s else None
    except ValueError:
        raise UsageError(f"--range must be START-END, not {text!r}") from None
    if not sep or start < 0 or (end is not None and end < start):
        raise UsageError(f"--range must be START-END with START <= END, not {text!r}")
    return start, end


def _run_all(args: argparse.Namespace) -> int:
    from ..tools.extract_all import extract_all

    if args.out_dir is None:
        raise UsageError("--all needs --out-dir DIR")
    if (args.offset is not None or args.headers or args.payload or args.range is not None
            or args.output is not None):
        raise UsageError("--all takes FILE and --out-dir DIR only (and --decode, --lenient)")
    with stdin_spooled([args.file]) as (path,):
        stats = extract_all(path, need_out_dir(args), decode=args.decode,
                            lenient=args.lenient)
    print(f"{stats.files} files ({stats.bytes} bytes) written, {stats.skipped} records without "
          f"a payload skipped, {stats.renamed} renamed; manifest {stats.manifest}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Write the record (or its part) asked for; 0 on success."""
    if args.all:
        return _run_all(args)
    if args.offset is None:
        raise UsageError("give an OFFSET (or --all --out-dir DIR)")
    if args.out_dir is not None:
        raise UsageError("--out-dir goes with --all; for one record use -o FILE")
    if args.decode and not args.payload:
        raise UsageError("--decode needs --payload (only a payload has a Content-Encoding)")
    if args.range is not None and not args.payload:
        raise UsageError("--range needs --payload")
    if args.offset < 0:
        raise UsageError(f"OFFSET must not be negative, not {args.offset}")
    check_output(args.output, args.force)
    with stdin_spooled([args.file]) as (path,):
        if args.output is None or args.output == "-":
            sys.stdout.flush()
            _write(args, path, sys.stdout.buffer)
        else:
            with replacing(args.output) as out:
                _write(args, path, out)
    return 0


def _write(args: argparse.Namespace, path: str, out: Any) -> None:
    if args.range is not None:
        start, end = _parse_range(args.range)
        for data in read_payload_range(path, args.offset, start, end, lenient=args.lenient):
            out.write(data)
        out.flush()
        return
    with read_record_at(path, args.offset, lenient=args.lenient) as record:
        if args.headers:
            out.write(record.raw_head)
            head = record.http
            if head is not None:
                out.write(head.raw)
        elif args.payload:
            stream = record.content_stream(decode_content=args.decode)
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        else:
            record.write_to(out)
        out.flush()
