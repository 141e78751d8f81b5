"""``warckit wacz create|validate``: make and check WACZ packages (spec 1.1.1)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import UsageError
from ..wacz.create import create_wacz
from ..wacz.validate import WaczReport, validate_wacz
from ._common import add_force, add_storage_options, check_output, expand_archives, warner

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``wacz`` and its actions."""
    p = subparsers.add_parser(
        "wacz",
        help="make and validate WACZ packages",
        description="WACZ (Web Archive Collection Zipped, spec 1.1.1): WARCs, their index, "
        "a page list and a datapackage.json in one ZIP that ReplayWeb.page and pywb open. "
        "Reading one is like reading a WARC: 'warckit ls|index|check X.wacz', "
        "'warckit query X.wacz URL'.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    c = sub.add_parser(
        "create", help="package WARC files as a WACZ",
        description="Store the WARCs under archive/ (not deflated), their sorted CDXJ index "
        "under indexes/ (index.cdx, or index.cdx.gz + index.idx past 1024 lines), "
        "pages/pages.jsonl (given with --pages, or detected: HTML 200 GET captures), "
        "datapackage.json (sha256 and size of every file) and datapackage-digest.json. "
        "Constant memory; the output appears only once complete.")
    c.add_argument("inputs", nargs="+", metavar="WARC",
                   help="WARC files (paths or URLs), or directories of them (stored by base name)")
    c.add_argument("-o", "--output", required=True, metavar="OUT.wacz", help="the package to write")
    add_force(c)
    add_storage_options(c)
    c.add_argument("--pages", metavar="FILE",
                   help="the page list to use (JSON lines, pages.jsonl format) instead of detecting")
    c.add_argument("--no-detect-pages", action="store_true",
                   help="write no page list unless --pages gives one")
    c.add_argument("--titles", action="store_true",
                   help="title detected pages by their HTML <title> (a second read of each "
                        "page; default: their URL, as py-wacz does)")
    c.add_argument("--url", metavar="URL", help="mainPageURL (default: the first page)")
    c.add_argument("--date", metavar="DATE", help="mainPageDate (default: the first page's)")
    c.add_argument("--title", help="the package title")
    c.add_argument("--desc", help="the package description")
    c.add_argument("--lenient", action="store_true",
                   help="index damaged WARCs leniently (recoveries reported on stderr)")
    c.set_defaults(func=run)
    v = sub.add_parser(
        "validate", help="check a WACZ: structure, hashes, index against records",
        description="Check the ZIP, datapackage.json and datapackage-digest.json, the hash "
        "and size of every file, that WARCs are stored, the page list, and that every "
        "index line points at a record with its URL and date. Every problem is listed. "
        "Exit status 0 when valid, 1 otherwise.")
    v.add_argument("file", metavar="FILE.wacz", help="the package (a path or a URL)")
    add_storage_options(v)
    v.add_argument("--check", action="store_true",
                   help="also run 'warckit check' on each WARC inside")
    v.add_argument("--no-digests", action="store_true",
                   help="with --check: do not recompute record digests")
    v.add_argument("--json", action="store_true", help="the report as one JSON object")
    v.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``warckit wacz ACTION``."""
    if args.action == "create":
        return _create(args)
    return _validate(args)


def _create(args: argparse.Namespace) -> int:
    if args.output == "-":
        raise UsageError("a WACZ is written to a file (-o OUT.wacz), not standard output")
    check_output(args.output, args.force)
    if args.pages is not None and args.no_detect_pages:
        raise UsageError("--pages and --no-detect-pages contradict each other")
    summary = create_wacz(expand_archives(args.inputs), args.output, pages=args.pages,
                          detect_pages=not args.no_detect_pages, titles=args.titles,
                          main_page_url=args.url,
                          main_page_date=args.date, title=args.title, description=args.desc,
                          lenient=args.lenient, on_warning=warner("wacz create"))
    warcs = sum(r.path.startswith("archive/") for r in summary.resources)
    print(f"{summary.path}: {warcs} WARC(s), {summary.captures} captures in {summary.index}, "
          f"{summary.pages} pages", file=sys.stderr)
    return 0


def _as_dict(report: WaczReport) -> dict[str, Any]:
    return {
        "file": report.path, "ok": report.ok, "errors": report.errors, "wacz_version": report.version,
        "resources": report.resources, "index_lines": report.index_lines,
        "findings": [{"code": i.code, "severity": i.severity, "message": i.message,
                      "where": i.source, "offset": i.offset} for i in report.issues],
        "warcs": [w.as_dict() for w in report.warcs],
    }


def _validate(args: argparse.Namespace) -> int:
    report = validate_wacz(args.file, check=args.check, verify_digests=not args.no_digests)
    if args.json:
        print(json.dumps(_as_dict(report), ensure_ascii=False, separators=(",", ":")))
        return 0 if report.ok else 1
    for issue in report.issues:
        print(issue)
    for warc in report.warcs:
        status = "ok" if warc.ok else "ERRORS"
        print(f"{warc.path}: {status} ({len(warc.records)} records, {warc.errors} errors, "
              f"{warc.warnings} warnings)")
        for issue in warc.issues:
            where = "file" if issue.offset is None else f"offset {issue.offset}"
            print(f"  {where}: {issue.severity}: {issue.code}: {issue.message}")
    verdict = "valid" if report.ok else f"INVALID ({report.errors} errors)"
    print(f"{report.path}: {verdict}: WACZ {report.version or '?'}, {report.resources} files hashed, "
          f"{report.index_lines} index lines checked against their records")
    return 0 if report.ok else 1
