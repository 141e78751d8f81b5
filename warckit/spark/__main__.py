"""``python -m warckit.spark index``: build a sorted index of many files with Spark.

Works the same under ``spark-submit``, which takes a file: this one (its imports are
absolute for that), ``spark-submit "$(python -c 'import warckit.spark.__main__ as m;
print(m.__file__)')" index ...``. The master comes from ``--master``, or from spark-submit
/ ``spark-defaults.conf`` when it is not given. Exit status as ``warckit``'s:
0 every input indexed, 1 some input failed (or the job did), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from warckit.errors import UsageError, WarckitError
from warckit.io.remote import add_storage_option
from warckit.spark import _output
from warckit.spark.index import INDEX_FORMATS, IndexSummary

__all__ = ["main"]

PROG = "python -m warckit.spark"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="warckit on Apache Spark (docs/spark.rst).",
                     epilog="Exit status: 0 success; 1 an input failed (listed, and in OUTPUT/_errors/); "
                     "2 usage error.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("index", help="a globally sorted index (CDXJ, new-style CDX, ZipNum, Parquet)",
                       description="Index WARC/ARC files with Spark: one task per file, a global sort, "
                       "shards part-NNNNN.* in OUTPUT (and _errors/errors.jsonl).")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="WARC/ARC paths, directories, globs (local or URL) and URLs")
    p.add_argument("-f", "--format", choices=INDEX_FORMATS, default="cdxj",
                   help="cdxj (pywb), new-style (warckit index's cdx), zipnum (gzip shards + "
                   "index.idx/.loc) or parquet (default: cdxj)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory (or URL)")
    p.add_argument("--force", action="store_true", help="write into a non-empty output directory")
    p.add_argument("--master", help="Spark master, e.g. local[2] or spark://host:7077 (default: "
                   "spark-submit's or spark-defaults.conf's)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable)")
    p.add_argument("--manifest", action="append", default=[], metavar="FILE",
                   help="a file listing inputs one per line (.gz read as gzip; repeatable)")
    p.add_argument("--input-base-url", metavar="URL",
                   help="prefix of the manifest's relative entries (a URL or a directory)")
    p.add_argument("--manifest-names", action="store_true",
                   help="name files by their manifest entries (crawl-data/…/x.warc.gz, as Common "
                   "Crawl's indexes) instead of their base names")
    p.add_argument("-t", "--types", metavar="T,T",
                   help="record types to index ('all' for every type; default as warckit index)")
    p.add_argument("--lenient", action="store_true", help="read damaged files leniently")
    p.add_argument("--no-post-append", action="store_true",
                   help="do not append POST/PUT request bodies to the key")
    p.add_argument("--shards", type=int, metavar="N", help="output shards (default: one per 10^7 lines)")
    p.add_argument("--block-lines", type=int, default=3000, metavar="N",
                   help="lines per ZipNum block (default: 3000)")
    p.add_argument("--zipnum-format", choices=("cdxj", "new-style"), default="cdxj",
                   help="line format inside a ZipNum index (default: cdxj)")
    p.add_argument("--crawl", help="Parquet: the crawl partition value")
    p.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an fsspec option for URL inputs and output (dotted keys nest; repeatable)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on standard output")
    return parser


def _storage_options(texts: Sequence[str]) -> dict[str, Any] | None:
    if not texts:
        return None
    options: dict[str, Any] = {}
    for text in texts:
        add_storage_option(options, text)
    return options


def _session(args: argparse.Namespace) -> Any:
    from pyspark.sql import SparkSession

    # Spark's console progress bars would interleave with the report (--conf turns them on).
    builder = SparkSession.builder.appName("warckit index").config("spark.ui.showConsoleProgress", "false")
    if args.master:
        builder = builder.master(args.master)
    for text in args.conf:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise UsageError(f"--conf must be KEY=VALUE, not {text!r}")
        builder = builder.config(key, value)
    # Executors run the Python that runs this command unless the cluster says otherwise.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _report(summary: IndexSummary, as_json: bool) -> None:
    for failed in summary.failed:
        where = f", offset {failed.offset}" if failed.offset is not None else ""
        print(f"{PROG} index: error: {failed.input}{where}: {failed.error}: {' '.join(failed.message.split())}",
              file=sys.stderr)
    print(f"{PROG} index: {summary.files_done} of {summary.files} files, {summary.records} records, "
          f"{len(summary.shards)} shards in {summary.output}"
          + (f"; {len(summary.failed)} failed (see _errors/errors.jsonl)" if summary.failed else ""),
          file=sys.stderr)
    if as_json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        if not args.inputs and not args.manifest:
            raise UsageError("give at least one INPUT or --manifest")
        options = _storage_options(args.storage_option)
        if not args.force and _output.listdir(args.output, options):
            raise UsageError(f"{args.output}: the output directory is not empty (--force to write into it)")
        try:
            import pyspark  # noqa: F401
        except ImportError:
            raise UsageError("pyspark is not installed (pip install 'warckit[spark]')") from None
        from warckit.spark.index import index_warcs

        spark = _session(args)
        summary = index_warcs(
            spark, args.inputs, args.output, format=args.format, manifest=args.manifest or None,
            base_url=args.input_base_url, record_types=args.types, lenient=args.lenient,
            post_append=not args.no_post_append, shards=args.shards, block_lines=args.block_lines,
            zipnum_format=args.zipnum_format, crawl=args.crawl, manifest_names=args.manifest_names,
            storage_options=options,
            overwrite=args.force,
        )
    except UsageError as exc:
        print(f"{PROG} {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_USAGE
    except WarckitError as exc:
        print(f"{PROG} {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - Spark's own failures (no Java, a lost cluster): one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        print(f"{PROG} {args.command}: error: {type(exc).__name__}: {first[:500]}", file=sys.stderr)
        return EXIT_FAILED
    _report(summary, args.json)
    return EXIT_FAILED if summary.failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
