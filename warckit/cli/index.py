"""``warckit index``: index WARC/ARC files as new-style CDX, CDXJ, CDX-11 or CDX-9."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator

from .._util.cpus import cpu_count
from ..cdx.build import write_index
from ..cdx.formats import FORMATS, header_line
from ..cdx.indexer import ALL_TYPES, DEFAULT_TYPES, IndexOptions, index_file
from ..cdx.sort import external_sort
from ..cdx.zipnum import DEFAULT_BLOCK_LINES, write_zipnum
from ..errors import Issue, UsageError
from ..io.atomic import replacing
from ..io.sources import is_zip
from ._common import (
    add_output,
    add_storage_options,
    check_output,
    expand_archives,
    stdin_spooled,
    warner,
)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO, Any


def add_parser(subparsers: Any) -> None:
    """Register ``index``."""
    p = subparsers.add_parser(
        "index",
        help="index WARC/ARC files (new-style CDX, CDXJ, CDX-11, CDX-9, Parquet)",
        description=(
            "Index WARC/ARC files. Default output: the new-style CDX (SURT key, W3C "
            "timestamp, URL, digest, type, file, offset, JSON), unsorted unless --sort "
            "(the new-style header says which; 'warckit query' and 'warckit merge' refuse "
            "an unsorted index). Keys: new-style SURTs (com,example,)/ — 'warckit surt "
            "--style new-style'); with -f cdxj, cdx11 or cdx9 cdx-style SURTs "
            "(com,example)/ — 'warckit surt', its default). -f parquet -o DIR writes Common "
            "Crawl's columnar index (a Hive-partitioned Parquet dataset, docs/columnar.rst)."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="WARC or ARC files (any compression); '-' reads standard input, a "
                   "directory the WARC/ARC files under it")
    p.add_argument("-f", "--format", choices=(*FORMATS, "parquet"), default="cdx",
                   help="cdx (new-style, default; keys com,example,)/ as 'warckit surt "
                   "--style new-style'), cdxj (pywb), cdx11, cdx9 (keys com,example)/ as "
                   "'warckit surt', whose default style is cdx), parquet (the rows of the "
                   "cdxj index in Common Crawl's columnar schema; -o DIR required)")
    p.add_argument("-s", "--sort", action="store_true",
                   help="sort bytewise (bounded memory); needed by 'warckit query'")
    add_output(p, "the index file")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="worker processes: files are indexed at once, and a large "
                   "gzip-per-record file is cut into N pieces indexed in parallel "
                   "(default: the number of usable CPUs, at most 4; 1 = one process)")
    p.add_argument("-t", "--types", metavar="T,T",
                   help="record types to index (default: " + ",".join(sorted(DEFAULT_TYPES))
                   + "; 'all' for every type)")
    p.add_argument("--no-post-append", action="store_true",
                   help="do not append POST/PUT request bodies to the key")
    p.add_argument("--unicode-hosts", action="store_true",
                   help="new-style keys with IDN hosts in Unicode instead of punycode")
    p.add_argument("--lenient", action="store_true",
                   help="read damaged files leniently (recoveries reported on stderr)")
    p.add_argument("--no-header", action="store_true", help="omit the header / legend line")
    p.add_argument("--zipnum", metavar="BASE",
                   help="write a ZipNum index BASE.cdx.gz + BASE.idx + BASE.loc (implies --sort; "
                   "default: a plain index)")
    p.add_argument("--block-lines", type=int, default=DEFAULT_BLOCK_LINES, metavar="N",
                   help="index lines per ZipNum block (default: %(default)s)")
    p.add_argument("--max-memory", type=int, default=None, metavar="MB",
                   help="memory budget of the sort, in MiB (default: 64), or of the rows "
                   "buffered by -f parquet (default: 512)")
    parquet = p.add_argument_group("Parquet index (-f parquet)")
    parquet.add_argument("--crawl", metavar="NAME",
                         help="the crawl partition value (default: the crawl-data/NAME/ "
                         "directory of a Common Crawl path, else none)")
    parquet.add_argument("--partition-by", metavar="COL,COL", default="crawl,subset",
                         help="Hive partition columns: crawl, subset, both (the default: "
                         "%(default)s) or 'none'")
    parquet.add_argument("--rows-per-file", type=int, default=None, metavar="N",
                         help="rows per Parquet file at most (default: 1000000)")
    parquet.add_argument("--no-detect", action="store_true",
                         help="skip MIME type and language detection (default: detect, "
                         "when puremagic / pycld2 are installed)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal, when tqdm is installed)")
    add_storage_options(p)
    p.set_defaults(func=run)


def _types(text: str | None) -> frozenset[str]:
    if not text:
        return DEFAULT_TYPES
    if text.strip().lower() == "all":
        return ALL_TYPES
    return frozenset(t.strip().lower() for t in text.split(",") if t.strip())


def _default_jobs() -> int:
    return max(1, min(cpu_count(), 4))


def run(args: argparse.Namespace) -> int:
    """Run ``warckit index``."""
    if args.format == "parquet":
        with stdin_spooled(expand_archives(args.files)) as files:
            args.files = files
            return _run_parquet(args)
    if args.zipnum:
        for suffix in (".cdx.gz", ".idx", ".loc"):
            check_output(args.zipnum + suffix, args.force)
    else:
        check_output(args.output, args.force)
    with stdin_spooled(expand_archives(args.files)) as files:
        args.files = files
        return _run(args)


def _with_waczs(paths: list[str], out: IO[bytes], options: IndexOptions, *, sort: bool, jobs: int,
                header: bool, max_memory: int, progress: bool | None,
                on_warning: Callable[[Issue], None]) -> int:
    """:func:`write_index`, where a WACZ among *paths* stands for the WARCs inside it,
    indexed (in one process) under their names in ``archive/``, as its own index has them."""
    if not any(is_zip(p) for p in paths):
        return write_index(paths, out, options, sort=sort, jobs=jobs, header=header,
                           max_memory=max_memory, progress=progress, on_warning=on_warning)
    from typing import IO, cast

    from ..read.wacz import ARCHIVE_DIR, wacz_warcs  # (the ZIP layer: only for a WACZ)

    def lines() -> Iterator[str]:
        for path in paths:
            if not is_zip(path):
                yield from index_file(path, options, on_warning=on_warning)
                continue
            with wacz_warcs(path) as warcs:
                for warc in warcs:
                    opts = options.replace(filename=warc.member[len(ARCHIVE_DIR):])
                    yield from index_file(cast(IO[bytes], warc), opts, on_warning=on_warning)

    head = header_line(options.format, is_sorted=sort) if header else None
    if sort:
        return external_sort(lines(), out, max_memory=max_memory, header=head)
    if head is not None:
        out.write(head.encode("utf-8") + b"\n")
    count = 0
    for line in lines():
        out.write(line.encode("utf-8") + b"\n")
        count += 1
    return count


def _run(args: argparse.Namespace) -> int:
    if args.jobs is None:
        args.jobs = _default_jobs()
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    options = IndexOptions(
        format=args.format,
        types=_types(args.types),
        post_append=not args.no_post_append,
        unicode_host=args.unicode_hosts,
        lenient=args.lenient,
    )

    warn = warner("index")
    max_memory = max(1, 64 if args.max_memory is None else args.max_memory) * 1024 * 1024
    if args.zipnum:
        import tempfile

        with tempfile.TemporaryFile() as tmp:
            _with_waczs(args.files, tmp, options, sort=True, jobs=args.jobs, header=False,
                        max_memory=max_memory, progress=args.progress, on_warning=warn)
            tmp.seek(0)
            write_zipnum(tmp, args.zipnum, block_lines=args.block_lines)
        return 0
    if args.output and args.output != "-":
        with replacing(args.output) as out:
            _with_waczs(args.files, out, options, sort=args.sort, jobs=args.jobs,
                        header=not args.no_header, max_memory=max_memory,
                        progress=args.progress, on_warning=warn)
        return 0
    sys.stdout.flush()
    _with_waczs(args.files, sys.stdout.buffer, options, sort=args.sort, jobs=args.jobs,
                header=not args.no_header, max_memory=max_memory, progress=args.progress,
                on_warning=warn)
    sys.stdout.buffer.flush()
    return 0


def _run_parquet(args: argparse.Namespace) -> int:
    """``warckit index -f parquet -o DIR``: :func:`warckit.columnar.write.write_parquet`."""
    from ..columnar.write import DEFAULT_MAX_MEMORY, DEFAULT_ROWS_PER_FILE, write_parquet

    if not args.output or args.output == "-":
        raise UsageError("-f parquet writes a directory: give it with -o DIR")
    for given, option in ((args.zipnum, "--zipnum"), (args.no_post_append, "--no-post-append"),
                          (args.unicode_hosts, "--unicode-hosts")):
        if given:
            raise UsageError(f"{option} does not apply to -f parquet (its rows are the cdxj index's)")
    jobs = _default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    spec = args.partition_by.strip().lower()
    partition_by = () if spec == "none" else tuple(c.strip() for c in spec.split(",") if c.strip())
    rows = DEFAULT_ROWS_PER_FILE if args.rows_per_file is None else args.rows_per_file
    if rows < 1:
        raise UsageError("--rows-per-file must be at least 1")
    memory = DEFAULT_MAX_MEMORY if args.max_memory is None else max(1, args.max_memory) * 1024 * 1024
    warn = warner("index")
    write_parquet(args.files, args.output, crawl=args.crawl, partition_by=partition_by,
                  rows_per_file=rows, max_memory=memory, types=_types(args.types),
                  detect=not args.no_detect, lenient=args.lenient, on_warning=warn, jobs=jobs,
                  force=args.force)
    return 0
