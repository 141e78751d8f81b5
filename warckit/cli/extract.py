"""``warckit extract FILE OFFSET``: write one record (or part of it) to stdout.

``warckit extract --all FILE --out DIR`` unpacks every payload into DIR with a manifest
(see :mod:`warckit.convert.extract_all`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError
from ..reader import read_payload_range, read_record_at


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "extract",
        help="write the record at an offset to stdout",
        description="Write the record at OFFSET (as stored, or only its headers or payload) to "
        "stdout. With --all --out DIR: write every payload to its own file under DIR (names "
        "made safe from the URL, never overwriting) and list them in DIR/manifest.csv.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("offset", type=int, metavar="OFFSET", nargs="?")
    p.add_argument("--all", action="store_true", help="unpack every payload (needs --out)")
    p.add_argument("--out", metavar="DIR", help="with --all: the output directory")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--headers", action="store_true", help="only the record head (and HTTP head)")
    what.add_argument("--payload", action="store_true", help="only the payload (de-chunked)")
    p.add_argument("--decode", action="store_true", help="with --payload: also remove Content-Encoding")
    p.add_argument("--range", metavar="START-END", help="with --payload: bytes START..END-1 of the payload as stored (seeks in uncompressed files)")
    p.add_argument("--lenient", action="store_true")
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
    from ..convert.extract_all import extract_all

    if args.out is None:
        raise UsageError("--all needs --out DIR")
    if args.offset is not None or args.headers or args.payload or args.range is not None:
        raise UsageError("--all takes FILE and --out DIR only (and --decode, --lenient)")
    stats = extract_all(args.file, args.out, decode=args.decode, lenient=args.lenient)
    print(f"{stats.files} files ({stats.bytes} bytes) written, {stats.skipped} records without "
          f"a payload skipped, {stats.renamed} renamed; manifest {stats.manifest}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.all:
        return _run_all(args)
    if args.offset is None:
        raise UsageError("give an OFFSET (or --all --out DIR)")
    out = sys.stdout.buffer
    if args.range is not None:
        if not args.payload:
            raise UsageError("--range needs --payload")
        start, end = _parse_range(args.range)
        for data in read_payload_range(args.file, args.offset, start, end, lenient=args.lenient):
            out.write(data)
        out.flush()
        return 0
    record = read_record_at(args.file, args.offset, lenient=args.lenient)
    try:
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
    finally:
        if record._reader is not None:
            record._reader.close()
    return 0
