"""``warckit check FILE...``: validate WARC files; exit 1 when any has errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import IO, Any, cast

from .._util.cpus import cpu_count
from ..check.report import FileReport, check_file, iter_check_files
from ..errors import UsageError
from ..io.sources import is_zip
from ..record.fields import escape_not_utf8
from ._common import add_storage_options, display_name, expand_archives, stdin_spooled

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register the ``check`` subcommand."""
    p = subparsers.add_parser(
        "check",
        help="validate WARC files (framing, fields, digests, references)",
        description="Check WARC files record by record: version line, header syntax, "
        "Content-Length, CRLF CRLF trailer, mandatory/forbidden fields, block and payload "
        "digests, one record per gzip member, warcinfo first, dangling references. "
        "Exit status 0 when no file has errors, 1 otherwise.",
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="WARC files; '-' reads standard input, a directory the WARC/ARC "
                   "files under it")
    p.add_argument("--json", action="store_true",
                   help="one compact JSON object per file (JSON lines)")
    p.add_argument("-v", "--verbose", action="store_true", help="also list every record")
    p.add_argument("-q", "--quiet", action="store_true", help="only print files with errors")
    p.add_argument("--no-digests", action="store_true", help="do not recompute digests")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="processes to use: one large file is checked in N pieces at once, several "
                   "files N at a time (reports keep the input order; default: the CPUs this "
                   "process may use)")
    add_storage_options(p)
    p.set_defaults(func=run)


def _print_human(report: FileReport, verbose: bool, quiet: bool) -> None:
    if quiet and report.ok:
        return
    status = "ok" if report.ok else "ERRORS"
    print(f"{report.path}: {status} ({len(report.records)} records, {report.errors} errors, "
          f"{report.warnings} warnings)")
    by_offset: dict[int | None, list[str]] = {}
    for issue in report.issues:
        field = f" [{issue.field}]" if issue.field else ""
        by_offset.setdefault(issue.offset, []).append(
            f"{issue.severity}: {issue.code}{field}: {issue.message}")
    if verbose:
        for r in report.records:
            print(f"  offset {r.offset} {r.type} {r.record_id} block-digest={r.block_digest} "
                  f"payload-digest={r.payload_digest}")
            for line in by_offset.pop(r.offset, []):
                print(f"    {line}")
    for offset, lines in by_offset.items():
        where = "file" if offset is None else f"offset {offset}"
        for line in lines:
            print(f"  {where}: {line}")


def run(args: argparse.Namespace) -> int:
    """Check every file; 0 when none has errors, 1 otherwise."""
    with stdin_spooled(expand_archives(args.files)) as files:
        return _run(args, files)


def _reports(files: list[str], verify: bool, jobs: int) -> Iterator[FileReport]:
    """The report of each file; a WACZ gives one per WARC inside it (checked in this process)."""
    if not any(is_zip(f) for f in files):
        yield from iter_check_files(files, verify_digests=verify, jobs=jobs)
        return
    from ..read.wacz import wacz_warcs  # (the ZIP layer: only for a WACZ)

    for path in files:
        if not is_zip(path):
            yield from iter_check_files([path], verify_digests=verify)
            continue
        with wacz_warcs(path) as warcs:
            for warc in warcs:
                yield check_file(cast(IO[bytes], warc), verify_digests=verify, name=warc.name)


def _run(args: argparse.Namespace, files: list[str]) -> int:
    if args.jobs is None:
        args.jobs = cpu_count()
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    bar: Any = None
    if not args.no_progress and not args.json and sys.stderr.isatty() and len(files) > 1:
        try:
            from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]  # optional

            bar = tqdm(total=len(files), unit="file", file=sys.stderr, leave=False)
        except ImportError:
            bar = None
    failed = 0
    for report in _reports(files, not args.no_digests, args.jobs):
        report.path = display_name(report.path) or report.path
        if not report.ok:
            failed += 1
        if bar is not None:
            bar.update(1)
            bar.clear()
        if args.json:
            # (JSON text is UTF-8: header bytes that are not, quoted in the report, as %XX)
            print(escape_not_utf8(json.dumps(report.as_dict(), ensure_ascii=False, separators=(",", ":"))))
        else:
            _print_human(report, args.verbose, args.quiet)
        if bar is not None:
            bar.refresh()
    if bar is not None:
        bar.close()
    if not args.json and len(files) > 1:
        print(f"{len(files)} files checked, {failed} with errors")
    return 1 if failed else 0
